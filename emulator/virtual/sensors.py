"""What the device's battery and location provider report: state the emulator's controls set (the gRPC door's
`setBattery` / `setGps`, an emulator console's `power` / `geo`) and `dumpsys battery` reads."""

from __future__ import annotations

from dataclasses import dataclass

# BatteryManager's constants, as `dumpsys battery` prints them
STATUS_UNKNOWN, STATUS_CHARGING, STATUS_DISCHARGING, STATUS_NOT_CHARGING, STATUS_FULL = 1, 2, 3, 4, 5
HEALTH_GOOD, HEALTH_OVERHEAT, HEALTH_DEAD, HEALTH_OVER_VOLTAGE, HEALTH_UNSPECIFIED_FAILURE = 2, 3, 4, 5, 6
CHARGERS = ("none", "ac", "usb", "wireless")


@dataclass
class Battery:
    """The battery as BatteryService sees it: plugged into USB and full, as an emulator's by default."""

    present: bool = True
    level: int = 100
    charger: str = "usb"  # one of CHARGERS
    status: int = STATUS_CHARGING
    health: int = HEALTH_GOOD

    def dumpsys(self) -> str:
        """`dumpsys battery`, as BatteryService prints its state."""
        on = {c: str(self.charger == c).lower() for c in ("ac", "usb", "wireless")}
        return (
            f"Current Battery Service state:\n  AC powered: {on['ac']}\n  USB powered: {on['usb']}\n"
            f"  Wireless powered: {on['wireless']}\n  Dock powered: false\n  Max charging current: 500000\n"
            f"  Max charging voltage: 5000000\n  Charge counter: {48000 * self.level}\n  status: {self.status}\n"
            f"  health: {self.health}\n  present: {str(self.present).lower()}\n  level: {self.level}\n  scale: 100\n"
            "  voltage: 4350\n  temperature: 250\n  technology: Li-ion\n  Charging state: 1\n  Charging policy: 1\n"
            "  Capacity level: -1\n"
        )


@dataclass
class Location:
    """The GPS fix the location provider reports (the emulator's default: the Googleplex)."""

    latitude: float = 37.4220936
    longitude: float = -122.083922
    altitude: float = 5.0
    speed: float = 0.0
    bearing: float = 0.0
    satellites: int = 4
