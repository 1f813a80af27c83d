"""System services from the shell: getprop/setprop, settings, wm, ime, svc and the `cmd SERVICE` front end."""

from __future__ import annotations

import re

from ..model import LATIN_IME
from .registry import COMMANDS, Ctx, command

USER = 0


# --- properties --------------------------------------------------------------------------------------
@command("getprop")
def getprop(ctx: Ctx, argv: list[str]) -> int:
    args = [a for a in argv[1:] if not a.startswith("-")]
    with ctx.model.lock:
        props = dict(ctx.model.props)
    if not args:
        ctx.out("".join(f"[{k}]: [{v}]\n" for k, v in sorted(props.items())))
        return 0
    value = props.get(args[0])
    ctx.outln(value if value is not None else (args[1] if len(args) > 1 else ""))
    return 0


@command("setprop")
def setprop(ctx: Ctx, argv: list[str]) -> int:
    if len(argv) != 3:
        ctx.errln("usage: setprop NAME VALUE\n\nSets an Android system property.")
        return 1
    name, value = argv[1], argv[2]
    with ctx.model.lock:
        if (
            (name.startswith("ro.") and name in ctx.model.props)
            or name.startswith(("sys.powerctl", "ctl."))
            or not re.fullmatch(r"[\w.\-@:]+", name)
        ):
            ctx.errln(f"Failed to set property '{name}' to '{value}'.\nSee dmesg for error reason.")
            return 1
        ctx.model.props[name] = value
    ctx.model.events.log("setprop", name=name, value=value)
    return 0


# --- settings ----------------------------------------------------------------------------------------
_NAMESPACES = ("system", "secure", "global")


def put_setting(ctx: Ctx, ns: str, key: str, value: str | None) -> None:
    """Change a setting and apply the few side effects the device models (rotation, IME)."""
    model = ctx.model
    with model.lock:
        table = model.settings.setdefault(ns, {})
        if value is None:
            table.pop(key, None)
        else:
            table[key] = value
        if (
            ns == "system"
            and key == "user_rotation"
            and value
            and value.isdigit()
            and int(value) in range(4)
            and table.get("accelerometer_rotation", "0") == "0"
        ):
            model.set_rotation(int(value))
        if ns == "secure" and key == "enabled_input_methods" and value is not None:
            model.enabled_imes = [i.split(";")[0] for i in value.split(":") if i]
    model.events.log("settings", namespace=ns, key=key, value=value)


@command("settings")
def settings(ctx: Ctx, argv: list[str]) -> int:
    args = [a for a in argv[1:]]
    while args and args[0] in ("--user", "--lineage"):
        args = args[2:] if args[0] == "--user" else args[1:]
    if not args:
        ctx.errln(
            "usage:  settings [--user <USER_ID> | current] get namespace key\n"
            "        settings [--user <USER_ID> | current] put namespace key value\n"
            "        settings [--user <USER_ID> | current] delete namespace key\n"
            "        settings [--user <USER_ID> | current] list namespace"
        )
        return 255
    verb, rest = args[0], args[1:]
    while rest and rest[0] == "--user":
        rest = rest[2:]
    if verb not in ("get", "put", "delete", "list", "reset") or not rest or rest[0] not in _NAMESPACES:
        ctx.errln(
            "Invalid command: " + " ".join(args)
            if verb not in ("get", "put", "delete", "list", "reset")
            else f"Invalid namespace '{rest[0] if rest else ''}'"
        )
        return 255
    ns = rest[0]
    with ctx.model.lock:
        table = dict(ctx.model.settings.get(ns, {}))
    if verb == "list":
        ctx.out("".join(f"{k}={v}\n" for k, v in sorted(table.items())))
        return 0
    if len(rest) < 2:
        ctx.errln(f"Invalid command: {verb} needs a key")
        return 255
    key = rest[1]
    if verb == "get":
        ctx.outln(table.get(key, "null"))
        return 0
    if verb == "delete":
        put_setting(ctx, ns, key, None)
        ctx.outln(f"Deleted {1 if key in table else 0} rows")
        return 0
    if verb == "put":
        if len(rest) < 3:
            ctx.errln("Invalid command: put needs a value")
            return 255
        put_setting(ctx, ns, key, rest[2])
        return 0
    return 0


# --- window manager ----------------------------------------------------------------------------------
@command("wm")
def wm(ctx: Ctx, argv: list[str]) -> int:
    args = argv[1:]
    while len(args) >= 2 and args[0] == "-d":
        args = args[2:]
    sub = args[0] if args else ""
    model = ctx.model
    glob = model.settings.setdefault("global", {})
    sec = model.settings.setdefault("secure", {})
    if sub == "size":
        if len(args) == 1:
            w, h = model.physical_size
            ctx.outln(f"Physical size: {w}x{h}")
            forced = glob.get("display_size_forced", "")
            if forced:
                ctx.outln("Override size: " + forced.replace(",", "x"))
            return 0
        if args[1] == "reset":
            put_setting(ctx, "global", "display_size_forced", None)
            return 0
        m = re.fullmatch(r"(\d+)x(\d+)", args[1])
        if not m:
            ctx.errln(f"Error: bad size {args[1]}")
            return 255
        put_setting(ctx, "global", "display_size_forced", f"{m.group(1)},{m.group(2)}")
        return 0
    if sub == "density":
        if len(args) == 1:
            ctx.outln(f"Physical density: {model.profile.density}")
            forced = sec.get("display_density_forced", "")
            if forced:
                ctx.outln(f"Override density: {forced}")
            return 0
        if args[1] == "reset":
            put_setting(ctx, "secure", "display_density_forced", None)
            return 0
        if not args[1].isdigit():
            ctx.errln(f"Error: bad number {args[1]}")
            return 255
        put_setting(ctx, "secure", "display_density_forced", args[1])
        return 0
    if sub == "user-rotation":
        rest = args[1:]
        if not rest:
            mode = "lock" if model.settings.get("system", {}).get("accelerometer_rotation", "0") == "0" else "free"
            ctx.outln(f"{mode} {model.rotation}")
            return 0
        if rest[0] == "free":
            put_setting(ctx, "system", "accelerometer_rotation", "1")
            return 0
        if rest[0] == "lock":
            put_setting(ctx, "system", "accelerometer_rotation", "0")
            if len(rest) > 1 and rest[1] in ("0", "1", "2", "3"):
                put_setting(ctx, "system", "user_rotation", rest[1])
            return 0
        ctx.errln(f"Error: unknown rotation mode {rest[0]}")
        return 255
    if sub in ("overscan", "dismiss-keyguard", "set-fix-to-user-rotation", "fixed-to-user-rotation"):
        return 0
    ctx.outln(
        "Window manager (window) commands:\n  help\n      Print this help text.\n  size [reset|WxH|WdpxHdp]"
        " [-d DISPLAY_ID]\n      Return or override display size.\n  density [reset|DENSITY] [-d DISPLAY_ID]\n"
        "      Return or override display density.\n  user-rotation [-d DISPLAY_ID] [free|lock] [rotation]\n"
        "      Print or set user rotation mode and user rotation."
    )
    return 0 if sub in ("", "help") else 255


# --- input methods -----------------------------------------------------------------------------------
def _ime_package(ime: str) -> str:
    return ime.split("/", 1)[0]


def _ime_info(ctx: Ctx, ime: str) -> str:
    pkg, _, cls = ime.partition("/")
    full = pkg + cls if cls.startswith(".") else cls
    return (
        f"{ime}:\n  mId={ime} mSettingsActivityName=null mIsVrOnly=false mSupportsSwitchingToNextInputMethod="
        f"false mSupportsStylusHandwriting=false\n  mIsDefaultResId=0x0\n  Service:\n"
        f"    priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=false\n    ServiceInfo:\n"
        f"      name={full}\n      packageName={pkg}\n      enabled=true exported=true directBootAware=false\n"
        f"      permission=android.permission.BIND_INPUT_METHOD\n      flags=0x0\n"
    )


def _set_enabled(ctx: Ctx, enabled: list[str]) -> None:
    model = ctx.model
    with model.lock:
        model.enabled_imes = list(dict.fromkeys(enabled))
        model.settings.setdefault("secure", {})["enabled_input_methods"] = ":".join(model.enabled_imes)


@command("ime")
def ime(ctx: Ctx, argv: list[str]) -> int:
    args = [a for a in argv[1:]]
    sub, rest = (args[0], args[1:]) if args else ("", [])
    while len(rest) >= 2 and rest[0] in ("-u", "--user"):
        rest = rest[2:]
    model = ctx.model
    with model.lock:
        available = model.available_imes()
        enabled = [i for i in model.enabled_imes if i in available]
        current = model.current_ime
    if sub == "list":
        methods = available if "-a" in rest else enabled
        if "-s" in rest:
            ctx.out("".join(m + "\n" for m in methods))
        else:
            ctx.out("".join(_ime_info(ctx, m) for m in methods))
        return 0
    ids = [a for a in rest if not a.startswith("-")]
    if sub in ("enable", "disable"):
        if not ids:
            ctx.errln(f"Error: no input method id given for '{sub}'")
            return 255
        imeid = ids[0]
        if sub == "enable" and imeid not in available:
            ctx.errln(f"Unknown input method {imeid} cannot be enabled for user #{USER}")
            return 255
        was = imeid in enabled
        if sub == "enable":
            _set_enabled(ctx, enabled + [imeid])
        else:
            _set_enabled(ctx, [i for i in enabled if i != imeid] or [LATIN_IME])
            if current == imeid:
                put_setting(ctx, "secure", "default_input_method", (model.enabled_imes or [LATIN_IME])[0])
        now = "already" if was == (sub == "enable") else "now"
        ctx.outln(f"Input method {imeid}: {now} {sub}d for user #{USER}")
        model.events.log("ime", action=sub, ime=imeid)
        return 0
    if sub == "set":
        if not ids:
            ctx.errln("Error: no input method id given for 'set'")
            return 255
        imeid = ids[0]
        if imeid not in enabled:
            ctx.errln(f"Unknown input method {imeid} cannot be selected for user #{USER}")
            return 255
        put_setting(ctx, "secure", "default_input_method", imeid)
        ctx.outln(f"Input method {imeid} selected for user #{USER}")
        model.events.log("ime", action="set", ime=imeid)
        return 0
    if sub == "reset":
        _set_enabled(ctx, [LATIN_IME])
        put_setting(ctx, "secure", "default_input_method", LATIN_IME)
        ctx.outln(f"Reset current and enabled IMEs for user #{USER}\n  Selected: {LATIN_IME}\n   Enabled: {LATIN_IME}")
        return 0
    ctx.outln(
        "ime <command>:\n  list [-a] [-s]\n    prints all enabled input methods.\n  enable [--user <USER_ID>] <ID>\n"
        "    allows the given input method ID to be used.\n  disable [--user <USER_ID>] <ID>\n"
        "    disallows the given input method ID to be used.\n  set [--user <USER_ID>] <ID>\n"
        "    switches to the given input method ID.\n  reset [--user <USER_ID>]\n"
        "    reset currently selected/enabled IMEs to the default ones."
    )
    return 0 if sub in ("", "help") else 255


# --- svc ---------------------------------------------------------------------------------------------
@command("svc")
def svc(ctx: Ctx, argv: list[str]) -> int:
    args = argv[1:]
    keys = {"wifi": ("global", "wifi_on"), "data": ("global", "mobile_data"), "bluetooth": ("global", "bluetooth_on")}
    if len(args) >= 2 and args[0] in keys and args[1] in ("enable", "disable"):
        ns, key = keys[args[0]]
        put_setting(ctx, ns, key, "1" if args[1] == "enable" else "0")
        return 0
    if len(args) >= 3 and args[0] == "power" and args[1] == "stayon":
        put_setting(ctx, "global", "stay_on_while_plugged_in", {"true": "7", "false": "0"}.get(args[2], "7"))
        return 0
    ctx.outln(
        "Available commands:\n    help     Show information about the subcommands\n"
        "    power    Control the power manager\n    data     Control mobile data connectivity\n"
        "    wifi     Control the Wi-Fi manager\n    usb      Control Usb state\n"
        "    nfc      Control NFC functions\n    bluetooth Control Bluetooth service"
    )
    return 0


# --- cmd SERVICE -------------------------------------------------------------------------------------
_CMD_SERVICES = {
    "package": "pm",
    "activity": "am",
    "input": "input",
    "window": "wm",
    "settings": "settings",
    "input_method": "ime",
    "wifi": "svc",
    "statusbar": None,
    "power": None,
    "battery": None,
    "display": None,
    "uimode": None,
    "appops": None,
    "notification": None,
    "role": None,
}


@command("cmd")
def cmd(ctx: Ctx, argv: list[str]) -> int:
    if len(argv) < 2 or argv[1] == "-l":
        ctx.out("Currently running services:\n" + "".join(f"  {s}\n" for s in sorted(_CMD_SERVICES)))
        return 0
    service = argv[1]
    if service not in _CMD_SERVICES:
        ctx.errln(f"cmd: Can't find service: {service}")
        return 20
    target = _CMD_SERVICES[service]
    if target is None:
        return 0
    if target == "svc":  # cmd wifi set-wifi-enabled enabled|disabled
        if len(argv) >= 4 and argv[2] == "set-wifi-enabled" and argv[3] in ("enabled", "disabled"):
            put_setting(ctx, "global", "wifi_on", "1" if argv[3] == "enabled" else "0")
        return 0
    return COMMANDS[target](ctx, [target] + argv[2:])
