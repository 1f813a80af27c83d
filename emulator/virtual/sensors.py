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


@dataclass
class Location:
    """The GPS fix the location provider reports (the emulator's default: the Googleplex)."""

    latitude: float = 37.4220936
    longitude: float = -122.083922
    altitude: float = 5.0
    speed: float = 0.0
    bearing: float = 0.0
    satellites: int = 4
