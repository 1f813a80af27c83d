"""The emulated hardware the emulator console drives (`power`, `geo`, `gsm`, `network`) and Android's services
report (`dumpsys battery`, `dumpsys location`, `dumpsys telephony.registry`)."""

from __future__ import annotations

from dataclasses import dataclass, field

# BatteryManager constants
BATTERY_STATUS = {"unknown": 1, "charging": 2, "discharging": 3, "not-charging": 4, "full": 5}
BATTERY_HEALTH = {"unknown": 1, "good": 2, "overheat": 3, "dead": 4, "overvoltage": 5, "failure": 6}
# TelephonyManager.CALL_STATE_*
CALL_STATE_IDLE, CALL_STATE_RINGING, CALL_STATE_OFFHOOK = 0, 1, 2


@dataclass
class Battery:
    level: int = 100
    ac: bool = False
    usb: bool = True  # an emulator reports itself plugged into USB
    status: int = BATTERY_STATUS["charging"]
    health: int = BATTERY_HEALTH["good"]
    present: bool = True


@dataclass
class Fix:
    """A GPS fix as the location provider reports it."""

    longitude: float
    latitude: float
    altitude: float
    time_ms: int
    satellites: int = 1
    speed_knots: float = 0.0
    bearing: float = 0.0  # degrees (the gRPC door's setGps gives one; the console's `geo fix` does not)


@dataclass
class Call:
    number: str
    inbound: bool = True
    state: str = "incoming"  # "incoming", "active", "held", "ringing", "waiting" (the console's names)


@dataclass
class Hardware:
    battery: Battery = field(default_factory=Battery)
    battery_before: Battery | None = None  # what `dumpsys battery reset` puts back (None: nothing overridden)
    fix: Fix | None = None  # the GPS provider's last fix
    calls: list[Call] = field(default_factory=list)
    network_speed: str = "full"
    network_delay: str = "none"

    def find_call(self, number: str) -> Call | None:
        return next((c for c in self.calls if c.number == number), None)

    @property
    def call_state(self) -> int:
        """TelephonyManager's call state: ringing while an inbound call waits, off-hook while one is up."""
        if any(c.state in ("active", "held") or not c.inbound for c in self.calls):
            return CALL_STATE_OFFHOOK
        return CALL_STATE_RINGING if self.calls else CALL_STATE_IDLE
