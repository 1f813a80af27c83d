"""The emulator console's commands that change what Android shows, answered as the emulator's console answers
(android-emulator's console.cpp): a reply ends with `OK`, or is one `KO: ...` line.

- `sms send NUMBER TEXT`: an SMS lands in `content://sms/inbox` and the Messages app (TEXT takes the console's
  escapes \\n, \\xNN, \\uNNNN, \\\\). The device has no notification shade, so no notification is posted.
- `gsm call|accept|hold|cancel NUMBER`, `gsm list`, `gsm status`: the modem's calls; `dumpsys telephony.registry`
  shows the call state, and the Phone app's in-call screen follows them (`telephony`): an inbound call rings
  with the incoming call screen in front, accepted it shows the ongoing call, ended it goes.
- `geo fix LONGITUDE LATITUDE [ALTITUDE [SATELLITES [VELOCITY]]]`: the GPS provider's fix (`dumpsys location`).
- `power display|ac|status|present|health|capacity`: the battery (`dumpsys battery`).
- `rotate`: the device turns a quarter clockwise and the display follows (`system user_rotation`, `wm size`,
  screenshots).
- `network speed|delay`: accepted and recorded (`network status` prints them); nothing is slowed down.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .hardware import BATTERY_HEALTH, BATTERY_STATUS, Fix
from .telephony import answer, hang_up, hold, ring

if TYPE_CHECKING:  # pragma: no cover
    from .model import VirtualDeviceModel

# (command, help line) in the order `help` lists them
COMMANDS = (
    ("help|h|?", "print a list of commands"),
    ("kill", "kill the emulator instance"),
    ("quit|exit", "quit control session"),
    ("power", "power related commands"),
    ("avd", "control virtual device execution"),
    ("geo", "Geo-location commands"),
    ("sms", "SMS related commands"),
    ("gsm", "GSM related commands"),
    ("rotate", "rotate the screen clockwise by 90 degrees"),
    ("network", "manage network settings"),
    ("ping", "check if the emulator is alive"),
)
SUBCOMMANDS = {
    "sms": (("send", "send inbound SMS text message"),),
    "gsm": (
        ("list", "list current phone calls"),
        ("call", "create inbound phone call"),
        ("hold", "change the state of an outbound call to 'held'"),
        ("accept", "change the state of an outbound call to 'active'"),
        ("cancel", "disconnect an inbound or outbound phone call"),
        ("status", "display GSM status"),
    ),
    "geo": (("fix", "send a simple GPS fix"),),
    "power": (
        ("display", "display battery and charger state"),
        ("ac", "set AC charging state"),
        ("status", "set battery status"),
        ("present", "set battery present state"),
        ("health", "set battery health state"),
        ("capacity", "set battery capacity state"),
    ),
    "network": (
        ("status", "dump network status"),
        ("speed", "change network speed"),
        ("delay", "change network latency"),
    ),
    "avd": (
        ("status", "query virtual device status"),
        ("name", "query virtual device name"),
        ("snapshot", "state snapshot commands"),
    ),
}
NETWORK_SPEEDS = ("gsm", "hscsd", "gprs", "edge", "umts", "hsdpa", "lte", "evdo", "5g", "full")
NETWORK_DELAYS = ("gsm", "edge", "umts", "none")
OK = "OK\n"


def help_text(topic: str | None = None) -> str:
    if topic is None:
        rows = "".join(f"    {name:<16} {text}\n" for name, text in COMMANDS)
        return f"Android console commands:\n\n{rows}\nTry 'help <command>' for command-specific help\nOK\n"
    subs = SUBCOMMANDS.get(topic)
    if subs is None:
        line = next((t for n, t in COMMANDS if topic in n.split("|")), None)
        return f"{line}\nOK\n" if line else "KO: unknown command, try 'help'\n"
    rows = "".join(f"    {name:<16} {text}\n" for name, text in subs)
    return f"available sub-commands:\n{rows}\nOK\n"


def unescape(text: str) -> str | None:
    """The console's message escapes; None for a bad one."""
    out, i = [], 0
    while i < len(text):
        c = text[i]
        if c != "\\":
            out.append(c)
            i += 1
            continue
        nxt = text[i + 1 : i + 2]
        if nxt == "n":
            out.append("\n")
            i += 2
        elif nxt == "\\":
            out.append("\\")
            i += 2
        elif nxt in ("x", "u") and re.fullmatch(r"[0-9a-fA-F]+", text[i + 2 : i + (4 if nxt == "x" else 6)] or "-"):
            width = 2 if nxt == "x" else 4
            digits = text[i + 2 : i + 2 + width]
            if len(digits) != width:
                return None
            out.append(chr(int(digits, 16)))
            i += 2 + width
        else:
            return None
    return "".join(out)


BAD_TEXT = (
    "message must be utf8 and can use the following escapes:\n    \\n      for a newline\n"
    "    \\xNN    where NN are two hexadecimal numbers\n    \\uNNNN  where NNNN are four hexadecimal numbers\n"
    "    \\\\     to send a '\\' character\n\n    anything else is an error\nKO: badly formatted text\n"
)


def sms(model: VirtualDeviceModel, sub: str, rest: str) -> str:
    if sub != "send":
        return "KO: bad sub-command\n"
    number, sep, text = rest.partition(" ")
    if not sep or not number:
        return "KO: missing argument, try 'sms send <phonenumber> <text message>'\n"
    if not re.fullmatch(r"\+?[0-9]+", number):
        return "KO: bad phone number format, must be [+](0-9)*\n"
    body = unescape(text)
    if body is None:
        return BAD_TEXT
    from .providers.sms import receive

    receive(model, number, body)
    model.events.log("console", command="sms send", number=number, text=body)
    return OK


def _number_ok(number: str) -> bool:
    return bool(number) and all(c.isdigit() or c in "+#" for c in number)


def gsm(model: VirtualDeviceModel, sub: str, rest: str) -> str:
    hw, number = model.hw, rest.strip()
    if sub == "list":
        rows = "".join(
            f"{'inbound from' if c.inbound else 'outbound to '} {c.number:<10} : {c.state}\n" for c in hw.calls
        )
        return rows + OK
    if sub == "status":
        return "gsm voice state: home\ngsm data state:  home\nOK\n"
    if sub not in ("call", "accept", "hold", "cancel"):
        return "KO: bad sub-command\n"
    if not number:
        return f"KO: missing argument, try 'gsm {'call' if sub == 'cancel' else sub} <phonenumber>'\n"
    if sub in ("call", "cancel") and not _number_ok(number):
        return "KO: bad phone number format, use digits, # and + only\n"
    if sub == "call":
        ring(model, number)
    elif sub == "cancel":
        if not hang_up(model, number):
            return "KO: could not cancel this number\n"
    elif not (answer if sub == "accept" else hold)(model, number):
        return f"KO: no current call to/from number '{number}'\n"
    model.events.log("console", command=f"gsm {sub}", number=number)
    return OK


def geo(model: VirtualDeviceModel, sub: str, rest: str) -> str:
    if sub != "fix":
        return "KO: bad sub-command\n"
    values: list[float] = []
    for word in rest.split()[:5]:
        try:
            values.append(float(word))
        except ValueError:
            return f"KO: argument '{word}' is not a number\n"
    if len(values) < 2:
        return "KO: not enough arguments: see 'help geo fix' for details\n"
    lon, lat = values[0], values[1]
    if not -180.0 <= lon <= 180.0:
        return "KO: invalid longitude value. Should be in [-180,+180] range\n"
    if not -90.0 <= lat <= 90.0:
        return "KO: invalid latitude value. Should be in [-90,+90] range\n"
    sats = 1
    if len(values) > 3:
        if values[3] != int(values[3]) or not 1 <= values[3] <= 12:
            return "KO: invalid number of satellites. Must be an integer between 1 and 12\n"
        sats = int(values[3])
    alt = values[2] if len(values) > 2 else 0.0
    speed = values[4] if len(values) > 4 else 0.0
    with model.lock:
        model.hw.fix = Fix(lon, lat, alt, int(model.now() * 1000), sats, speed)
    model.events.log("console", command="geo fix", longitude=lon, latitude=lat, altitude=alt)
    return OK


_STATUS_NAMES = {1: "Unknown", 2: "Charging", 3: "Discharging", 4: "Not charging", 5: "Full"}
_HEALTH_NAMES = {1: "Unknown", 2: "Good", 3: "Overheat", 4: "Dead", 5: "Overvoltage", 6: "Unspecified failure"}


def power(model: VirtualDeviceModel, sub: str, rest: str) -> str:
    b, arg = model.hw.battery, rest.strip().lower()
    if sub == "display":
        return (
            f"AC: {'online' if b.ac else 'offline'}\nstatus: {_STATUS_NAMES[b.status]}\n"
            f"health: {_HEALTH_NAMES[b.health]}\npresent: {'true' if b.present else 'false'}\n"
            f"capacity: {b.level}\nOK\n"
        )
    with model.lock:
        if sub == "ac":
            if arg not in ("on", "off"):
                return 'KO: Usage: "ac on" or "ac off"\n'
            b.ac = arg == "on"
            if not b.ac:
                b.usb = False  # unplugged
        elif sub == "status":
            if arg not in BATTERY_STATUS:
                return 'KO: Usage: "status unknown|charging|discharging|not-charging|full"\n'
            b.status = BATTERY_STATUS[arg]
        elif sub == "present":
            if arg not in ("true", "false"):
                return 'KO: Usage: "present true" or "present false"\n'
            b.present = arg == "true"
        elif sub == "health":
            if arg not in BATTERY_HEALTH:
                return 'KO: Usage: "health unknown|good|overheat|dead|overvoltage|failure"\n'
            b.health = BATTERY_HEALTH[arg]
        elif sub == "capacity":
            if not re.fullmatch(r"-?\d+", arg) or not 0 <= int(arg) <= 100:
                return 'KO: Usage: "capacity <percentage>"\n'
            b.level = int(arg)
        else:
            return "KO: bad sub-command\n"
    model.events.log("console", command=f"power {sub}", value=arg)
    return OK


def rotate(model: VirtualDeviceModel) -> str:
    """The device turns a quarter clockwise; the display follows (auto-rotation, as on the emulator)."""
    with model.lock:
        rotation = (model.rotation + 1) % 4
        model.settings.setdefault("system", {})["user_rotation"] = str(rotation)
        model.set_rotation(rotation)
    model.events.log("console", command="rotate", rotation=rotation)
    return OK


def _rate_ok(value: str, names: tuple[str, ...]) -> bool:
    return value in names or bool(re.fullmatch(r"\d+(:\d+)?", value))


def network(model: VirtualDeviceModel, sub: str, rest: str) -> str:
    hw, arg = model.hw, rest.strip()
    if sub == "status":
        return f"Current network status:\n  speed: {hw.network_speed}\n  delay: {hw.network_delay}\nOK\n"
    if sub == "speed":
        if not arg:
            return "KO: missing <speed> argument, see 'help network speed'\n"
        if not _rate_ok(arg, NETWORK_SPEEDS):
            return "KO: invalid <speed> argument, see 'help network speed' for valid values\n"
        hw.network_speed = arg
    elif sub == "delay":
        if not arg:
            return "KO: missing <delay> argument, see 'help network delay'\n"
        if not _rate_ok(arg, NETWORK_DELAYS):
            return "KO: invalid <delay> argument, see 'help network delay' for valid values\n"
        hw.network_delay = arg
    else:
        return "KO: bad sub-command\n"
    model.events.log("console", command=f"network {sub}", value=arg)
    return OK


HANDLERS = {"sms": sms, "gsm": gsm, "geo": geo, "power": power, "network": network}


def run(model: VirtualDeviceModel, line: str) -> str | None:
    """The reply to one of these commands, or None when `line` is not one of them."""
    cmd, _, rest = line.strip().partition(" ")
    if cmd == "rotate":
        return rotate(model)
    handler = HANDLERS.get(cmd)
    if handler is None:
        return None
    sub, _, args = rest.strip().partition(" ")
    if not sub:
        return "KO: missing sub-command\n"
    return handler(model, sub, args)
