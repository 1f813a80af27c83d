"""What Android's services report of the emulated hardware the console drives (`emulator.virtual.hardware`):
`dumpsys battery` (BatteryService), `dumpsys location` (LocationManagerService's last known locations),
`dumpsys telephony.registry` (TelephonyRegistry's call state)."""

from __future__ import annotations

from ..sysdialogs import battery_command
from .registry import Ctx, dumpsys_service


@dumpsys_service("battery")
def battery_dump(ctx: Ctx, args: list[str]) -> str:
    """BatteryService's dump, or its shell overrides (`unplug`, `set KEY VALUE`, `reset`: sysdialogs)."""
    said = battery_command(ctx.model, args)
    if said is not None:
        return said + "\n" if said else ""
    b = ctx.model.hw.battery
    on = "true" if b.ac else "false"
    usb = "true" if b.usb else "false"
    return (
        f"Current Battery Service state:\n  AC powered: {on}\n  USB powered: {usb}\n  Wireless powered: false\n"
        "  Dock powered: false\n  Max charging current: 500000\n  Max charging voltage: 5000000\n"
        f"  Charge counter: {48000 * b.level}\n  status: {b.status}\n  health: {b.health}\n"
        f"  present: {'true' if b.present else 'false'}\n  level: {b.level}\n  scale: 100\n"
        "  voltage: 4350\n  temperature: 250\n  technology: Li-ion\n  Charging state: 1\n  Charging policy: 1\n"
        "  Capacity level: -1\n"
    )


def _elapsed(ms: int) -> str:
    """TimeUtils.formatDuration: +1h2m3s456ms."""
    h, rest = divmod(ms, 3_600_000)
    m, rest = divmod(rest, 60_000)
    s, ms = divmod(rest, 1000)
    return "+" + (f"{h}h" if h else "") + (f"{m}m" if h or m else "") + f"{s}s{ms:03d}ms"


@dumpsys_service("location")
def location_dump(ctx: Ctx, args: list[str]) -> str:
    model = ctx.model
    fix = model.hw.fix
    lines = [
        "Location Manager State:",
        "  User Info:",
        "    current user: [0]",
        "  Location Settings:",
        "    Location Setting: true",
        "  Historical Aggregate Location Provider Data:",
        "  Last Known Locations:",
    ]
    if fix is not None:
        since_boot = int((fix.time_ms / 1000.0 - model.clock_offset - model.boot_time) * 1000) + 3_600_000
        loc = (
            f"Location[gps {fix.latitude:.6f},{fix.longitude:.6f} hAcc=5.0 et={_elapsed(max(0, since_boot))} "
            f"alt={fix.altitude:g} vAcc=0.5 vel={fix.speed_knots * 0.514444:g} sAcc=0.5]"
        )
        lines += [f"    gps: {loc}", f"    fused: {loc.replace('[gps', '[fused')}"]
    lines += ["  gps provider:", "    status=STARTED"]
    return "\n".join(lines) + "\n"


@dumpsys_service("telephony.registry")
def telephony_dump(ctx: Ctx, args: list[str]) -> str:
    hw = ctx.model.hw
    ringing = next((c for c in hw.calls if c.inbound and c.state == "incoming"), None)
    number = ringing.number if ringing is not None else (hw.calls[0].number if hw.calls else "")
    return (
        "last known state:\n  Phone Id=0\n"
        f"    mCallState={hw.call_state}\n    mRingingCallState={1 if ringing else 0}\n"
        f"    mForegroundCallState={1 if any(c.state == 'active' for c in hw.calls) else 0}\n"
        f"    mCallIncomingNumber={number}\n    mDataConnectionState=2\n    mDataActivity=0\n"
        "    mServiceState={mVoiceRegState=0(IN_SERVICE), mDataRegState=0(IN_SERVICE), "
        "mOperatorAlphaLong=T-Mobile, mOperatorAlphaShort=T-Mobile}\n"
        "  local logs:\n"
    )
