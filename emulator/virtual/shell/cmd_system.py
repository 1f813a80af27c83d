"""System services from the shell: getprop/setprop, settings, wm, ime, svc and the `cmd SERVICE` front end (with
the services whose shell commands the device models itself: connectivity, uimode, alarm)."""

from __future__ import annotations

import re
import zoneinfo

from ..display import (
    DENSITY_DEFAULT,
    DENSITY_SETTING,
    MIN_DENSITY,
    SIZE_SETTING,
    forced_density,
    forced_size,
    valid_size,
)
from ..records import LATIN_IME
from ..roles import role_holder, set_role_holder
from .registry import COMMANDS, CommandFn, Ctx, command

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
            or name == "persist.sys.timezone"  # time_prop: SELinux lets only system_server (and root) set it
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
        if ns == "global" and key == "auto_time" and value == "1":
            model.clock_offset = 0.0  # automatic time: the clock follows the network's (the host's) again
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
def _java_int(s: str) -> int:
    """Integer.parseInt: an optional sign and decimal digits; else ValueError naming the input as Java quotes it."""
    if not re.fullmatch(r"[+-]?\d+", s):
        raise ValueError(f'"{s}"')
    return int(s)


def _dimension(s: str, density: int) -> int:
    """WindowManagerShellCommand.parseDimension: pixels, `Npx`, or `Ndp` at the display's (base) density."""
    if s.endswith("px"):
        return _java_int(s[:-2])
    if s.endswith("dp"):
        return _java_int(s[:-2]) * density // DENSITY_DEFAULT
    return _java_int(s)


@command("wm")
def wm(ctx: Ctx, argv: list[str]) -> int:
    args = argv[1:]
    while "-d" in args[:-1]:  # `-d DISPLAY_ID` before or after the value: display 0 is the only one
        i = args.index("-d")
        del args[i : i + 2]
    sub = args[0] if args else ""
    model = ctx.model
    if sub == "size":
        physical = model.physical_size
        if len(args) == 1:
            ctx.outln(f"Physical size: {physical[0]}x{physical[1]}")
            forced = forced_size(model.settings, physical)
            if forced:
                ctx.outln(f"Override size: {forced[0]}x{forced[1]}")
            return 0
        if args[1] == "reset":
            put_setting(ctx, *SIZE_SETTING, None)
            return 0
        spec = args[1]
        div = spec.find("x")
        if div <= 0 or div >= len(spec) - 1:
            ctx.errln(f"Error: bad size {spec}")
            return 255
        try:
            size = (_dimension(spec[:div], model.density), _dimension(spec[div + 1 :], model.density))
        except ValueError as e:
            ctx.errln(f"Error: bad number java.lang.NumberFormatException: For input string: {e}")
            return 255
        if min(size) < 0:  # WindowManagerShellCommand: a negative size clears the override
            put_setting(ctx, *SIZE_SETTING, None)
            return 0
        size = valid_size(size, physical)
        put_setting(ctx, *SIZE_SETTING, None if size == physical else f"{size[0]},{size[1]}")
        return 0
    if sub == "density":
        physical_density = model.profile.density
        if len(args) == 1:
            ctx.outln(f"Physical density: {physical_density}")
            forced_dpi = forced_density(model.settings, physical_density)
            if forced_dpi:
                ctx.outln(f"Override density: {forced_dpi}")
            return 0
        if args[1] == "reset":
            put_setting(ctx, *DENSITY_SETTING, None)
            return 0
        try:
            dpi = _java_int(args[1])
        except ValueError as e:
            ctx.errln(f"Error: bad number java.lang.NumberFormatException: For input string: {e}")
            return 255
        if dpi < MIN_DENSITY:
            ctx.errln(f"Error: density must be >= {MIN_DENSITY}")
            return 255
        put_setting(ctx, *DENSITY_SETTING, None if dpi == physical_density else str(dpi))
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
        # BatteryManager.BATTERY_PLUGGED_AC | USB | WIRELESS = 1 | 2 | 4
        plugged = {"true": "7", "false": "0", "ac": "1", "usb": "2", "wireless": "4"}.get(args[2])
        if plugged is None:
            ctx.errln("Control the power manager\n\nusage: svc power stayon [true|false|usb|ac|wireless]")
            return 1
        put_setting(ctx, "global", "stay_on_while_plugged_in", plugged)
        return 0
    ctx.outln(
        "Available commands:\n    help     Show information about the subcommands\n"
        "    power    Control the power manager\n    data     Control mobile data connectivity\n"
        "    wifi     Control the Wi-Fi manager\n    usb      Control Usb state\n"
        "    nfc      Control NFC functions\n    bluetooth Control Bluetooth service"
    )
    return 0


# --- services with a shell command of their own (`cmd SERVICE ...`; -1 from the service = exit 255) ------------
def _default_command(ctx: Ctx, sub: str | None, help_text: str) -> int:
    """ShellCommand.handleDefaultCommands: help for none / help / -h, else `Unknown command`; both return -1."""
    if sub in (None, "help", "-h"):
        ctx.out(help_text)
    else:
        ctx.outln(f"Unknown command: {sub}")
    return 255


_CONNECTIVITY_HELP = (
    "Connectivity service commands:\n  help\n    Print this help text.\n  airplane-mode [enable|disable]\n"
    "    Turn airplane mode on or off.\n  airplane-mode\n    Get airplane mode.\n"
)


def connectivity_shell(ctx: Ctx, args: list[str]) -> int:
    """ConnectivityService's shell command (Android 9+): `airplane-mode [enable|disable]`. Setting it writes
    `settings global airplane_mode_on` (ConnectivityService.setAirplaneMode); with no argument it prints
    `enabled` or `disabled`."""
    sub = args[0] if args else None
    if sub != "airplane-mode":
        return _default_command(ctx, sub, _CONNECTIVITY_HELP)
    action = args[1] if len(args) > 1 else None
    if action in ("enable", "disable"):
        put_setting(ctx, "global", "airplane_mode_on", "1" if action == "enable" else "0")
        ctx.model.log("I", "ConnectivityService", f"setAirplaneMode: {action == 'enable'}")
        return 0
    if action is None:
        with ctx.model.lock:
            on = ctx.model.settings.get("global", {}).get("airplane_mode_on", "0")
        ctx.outln("disabled" if on in ("0", "") else "enabled")
        return 0
    ctx.out(_CONNECTIVITY_HELP)
    return 255


_NIGHT_MODES = {"auto": "0", "no": "1", "yes": "2", "custom_schedule": "3", "custom_bedtime": "3"}
_UIMODE_HELP = (
    "UiModeManager service (uimode) commands:\n  help\n    Print this help text.\n"
    "  night [yes|no|auto|custom_schedule|custom_bedtime]\n    Set or read night mode.\n  car [yes|no]\n"
    "    Set or read car mode.\n  time [start|end] <ISO time>\n"
    "    Set custom start/end schedule time (night mode must be set to custom to apply).\n"
)


def uimode_shell(ctx: Ctx, args: list[str]) -> int:
    """UiModeManagerService's shell command: `night [yes|no|auto|custom_schedule|custom_bedtime]` sets the night
    mode (persisted as `settings secure ui_night_mode`: auto 0, no 1, yes 2, custom 3) and prints
    `Night mode: MODE`; `car` reads car mode (never on here)."""
    sub = args[0] if args else None
    if sub == "car" and len(args) == 1:
        ctx.outln("Car mode: no")
        return 0
    if sub != "night":
        return _default_command(ctx, sub, _UIMODE_HELP)
    if len(args) > 1:
        value = _NIGHT_MODES.get(args[1])
        if value is None:
            ctx.errln("Error: mode must be 'yes', 'no', or 'auto', or 'custom_schedule', or 'custom_bedtime'")
            return 255
        put_setting(ctx, "secure", "ui_night_mode", value)
        if value == "3":
            put_setting(ctx, "secure", "ui_night_mode_custom_type", "1" if args[1] == "custom_bedtime" else "0")
    with ctx.model.lock:
        sec = ctx.model.settings.get("secure", {})
        mode, custom = sec.get("ui_night_mode", "1"), sec.get("ui_night_mode_custom_type", "0")
    names = {"0": "auto", "1": "no", "2": "yes", "3": "custom_bedtime" if custom == "1" else "custom_schedule"}
    ctx.outln(f"Night mode: {names.get(mode, 'unknown')}")
    return 0


_ALARM_HELP = (
    "Alarm manager service (alarm) commands:\n  help\n    Print this help text.\n  set-time TIME\n"
    "    Set the system clock time to TIME where TIME is milliseconds\n    since the Epoch.\n  set-timezone TZ\n"
    "    Set the system timezone to TZ where TZ is an Olson id.\n  get-config-version\n"
    "    Returns an integer denoting the version of device_config keys the service is sync'ed to. As long as this "
    "returns the same version, the values of the config are guaranteed to remain the same.\n"
)
_CUSTOM_ZONE = re.compile(r"GMT[+-]\d{1,2}(:?\d{2})?")


def known_time_zone(tz: str) -> bool:
    """Does the device's time zone database know `tz`? (the host's zoneinfo; `GMT+hh:mm` custom zones too)."""
    if tz in ("GMT", "UTC") or _CUSTOM_ZONE.fullmatch(tz):
        return True
    try:
        zoneinfo.ZoneInfo(tz)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return False
    return True


def alarm_shell(ctx: Ctx, args: list[str]) -> int:
    """AlarmManagerService's shell command (Android 9+; the shell holds SET_TIME and SET_TIME_ZONE):
    `set-time MILLIS` moves the wall clock, `set-timezone TZ` sets `persist.sys.timezone` - an id the time
    zone database does not know becomes GMT, as TimeZone.getTimeZone makes it. Errors print the exception
    on stdout and exit 255, as the service does."""
    sub = args[0] if args else None
    if sub not in ("set-time", "set-timezone", "get-config-version"):
        return _default_command(ctx, sub, _ALARM_HELP)
    if sub == "get-config-version":
        ctx.outln("0")
        return 0
    if len(args) < 2:
        ctx.outln(f'java.lang.IllegalArgumentException: Argument expected after "{sub}"')
        return 255
    arg = args[1]
    model = ctx.model
    if sub == "set-time":
        if not re.fullmatch(r"-?\d+", arg):
            ctx.outln(f'java.lang.NumberFormatException: For input string: "{arg}"')
            return 255
        with model.lock:
            model.clock_offset = int(arg) / 1000.0 - model.clock.time()
        model.log("I", "AlarmManager", f"Setting time of day to sec={int(arg) // 1000}")
        model.events.log("clock", millis=int(arg))
        return 0
    zone = arg if known_time_zone(arg) else "GMT"
    with model.lock:
        model.props["persist.sys.timezone"] = zone
    model.log("I", "AlarmManager", f"Setting time zone to {zone}")
    model.events.log("timezone", zone=zone)
    return 0


def role_shell(ctx: Ctx, args: list[str]) -> int:
    """RoleShellCommand: `get-role-holders [--user N] ROLE` (the holders joined by `;`), `add-role-holder [--user N]
    ROLE PACKAGE [FLAGS]` (an exclusive role's holder replaced), `remove-role-holder [--user N] ROLE PACKAGE
    [FLAGS]`, `clear-role-holders [--user N] ROLE [FLAGS]`."""
    rest = list(args[1:])
    if len(rest) >= 2 and rest[0] == "--user":
        rest = rest[2:]
    verb = args[0] if args else ""
    need = {"get-role-holders": 1, "add-role-holder": 2, "remove-role-holder": 2, "clear-role-holders": 1}
    if verb not in need:
        ctx.out(
            "Role (role) commands:\n  help or -h\n    Print this help text.\n\n"
            "  get-role-holders [--user USER_ID] ROLE\n  add-role-holder [--user USER_ID] ROLE PACKAGE [FLAGS]\n"
            "  remove-role-holder [--user USER_ID] ROLE PACKAGE [FLAGS]\n"
            "  clear-role-holders [--user USER_ID] ROLE [FLAGS]\n"
        )
        return 0 if verb in ("", "help", "-h") else 255
    if len(rest) < need[verb]:
        ctx.errln('Error: Argument expected after "' + (rest[-1] if rest else verb) + '"')
        return 255
    role, model = rest[0], ctx.model
    if verb == "get-role-holders":
        holder = role_holder(model, role)
        ctx.outln(holder or "")
    elif verb == "add-role-holder":
        if rest[1] not in model.packages:
            ctx.errln(f"Error: Failed to add role holder: {rest[1]} is not a qualifying application")
            return 255
        set_role_holder(model, role, rest[1])
    elif verb == "clear-role-holders" or role_holder(model, role) == rest[1]:
        set_role_holder(model, role, None)
    return 0


SERVICE_SHELLS: dict[str, CommandFn] = {
    "role": lambda ctx, argv: role_shell(ctx, argv[2:]),
    "connectivity": lambda ctx, argv: connectivity_shell(ctx, argv[2:]),
    "uimode": lambda ctx, argv: uimode_shell(ctx, argv[2:]),
    "alarm": lambda ctx, argv: alarm_shell(ctx, argv[2:]),
}


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
    "appops": None,
    "notification": None,
}


@command("cmd")
def cmd(ctx: Ctx, argv: list[str]) -> int:
    if len(argv) < 2:  # cmd.cpp's answer to no service (frameworks/native/cmds/cmd)
        ctx.errln(
            "cmd: No service specified; use -l to list all running services. Use -w to start and wait for a service."
        )
        return 20
    if argv[1] == "-l":
        ctx.out(
            "Currently running services:\n" + "".join(f"  {s}\n" for s in sorted({*_CMD_SERVICES, *SERVICE_SHELLS}))
        )
        return 0
    service = argv[1]
    shell = SERVICE_SHELLS.get(service)
    if shell is not None:
        return shell(ctx, argv)
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
