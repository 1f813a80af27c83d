"""`service` (frameworks/native/cmds/service): `list`, `check NAME`, `call NAME CODE [i32 N | i64 N | s16 STR ...]`
over the binder services a phone registers. A call prints the reply parcel as libbinder's TextOutput does
(`Result: Parcel(00000000    '....')` for a void method that returned normally); the calls the device models
act on it: `alarm 2 i64 MILLIS` (setTime, returns true), `alarm 3 s16 TZ` (setTimeZone: AndroidWorld's
`service call alarm 3 s16 UTC`), `statusbar 1`/`2` (expand / collapse the notification shade). Any
other code of a registered service answers `Parcel(NULL)`, as a transaction the stub does not know leaves the
reply empty. Errors go to stderr with exit status 10, as the tool's."""

from __future__ import annotations

import re

from .cmd_system import alarm_shell
from .registry import Ctx, command

# name -> AIDL interface descriptor (what `service list` prints and a call's interface token names)
SERVICES: dict[str, str] = {
    "DockObserver": "",
    "SurfaceFlinger": "android.ui.ISurfaceComposer",
    "accessibility": "android.view.accessibility.IAccessibilityManager",
    "account": "android.accounts.IAccountManager",
    "activity": "android.app.IActivityManager",
    "activity_task": "android.app.IActivityTaskManager",
    "adb": "android.debug.IAdbManager",
    "alarm": "android.app.IAlarmManager",
    "appops": "com.android.internal.app.IAppOpsService",
    "audio": "android.media.IAudioService",
    "battery": "",
    "batterystats": "com.android.internal.app.IBatteryStats",
    "bluetooth_manager": "android.bluetooth.IBluetoothManager",
    "clipboard": "android.content.IClipboard",
    "connectivity": "android.net.IConnectivityManager",
    "content": "android.content.IContentService",
    "device_policy": "android.app.admin.IDevicePolicyManager",
    "deviceidle": "android.os.IDeviceIdleController",
    "display": "android.hardware.display.IDisplayManager",
    "gfxinfo": "",
    "input": "android.hardware.input.IInputManager",
    "input_method": "com.android.internal.view.IInputMethodManager",
    "isms": "com.android.internal.telephony.ISms",
    "location": "android.location.ILocationManager",
    "media_session": "android.media.session.ISessionManager",
    "meminfo": "",
    "notification": "android.app.INotificationManager",
    "package": "android.content.pm.IPackageManager",
    "permission": "android.os.IPermissionController",
    "phone": "com.android.internal.telephony.ITelephony",
    "power": "android.os.IPowerManager",
    "settings": "",
    "statusbar": "com.android.internal.statusbar.IStatusBarService",
    "telecom": "com.android.internal.telecom.ITelecomService",
    "uimode": "android.app.IUiModeManager",
    "user": "android.os.IUserManager",
    "vibrator_manager": "android.os.IVibratorManagerService",
    "wallpaper": "android.app.IWallpaperManager",
    "wifi": "android.net.wifi.IWifiManager",
    "window": "android.view.IWindowManager",
}

USAGE = (
    "Usage: service [-h|-?]\n"
    "       service list\n"
    "       service check SERVICE\n"
    "       service call SERVICE CODE [i32 N | i64 N | f N | d N | s16 STR | null | fd f | nfd n | afd f ] ...\n"
    "Options:\n"
    "   i32: Write the 32-bit integer N into the send parcel.\n"
    "   u32: Write the unsigned 32-bit integer N (decimal) into the send parcel.\n"
    "   i64: Write the 64-bit integer N into the send parcel.\n"
    "   u64: Write the unsigned 64-bit integer N (decimal) into the send parcel.\n"
    "     f: Write the 32-bit single-precision number N into the send parcel.\n"
    "     d: Write the 64-bit double-precision number N into the send parcel.\n"
    "   s16: Write the UTF-16 string STR into the send parcel.\n"
    "  null: Write a null binder into the send parcel.\n"
    "    fd: Write a file descriptor for the file f into the send parcel.\n"
    "   nfd: Write the file descriptor n into the send parcel.\n"
    "   afd: Write an ashmem file descriptor for a region containing the data from\n"
    "          file f into the send parcel.\n"
)

# argument type -> what the tool says when its value is missing
_ARG_TYPES = {
    "i32": "integer",
    "u32": "unsigned integer",
    "i64": "integer",
    "u64": "unsigned integer",
    "f": "number",
    "d": "number",
    "s16": "string",
    "fd": "path",
    "afd": "path",
    "nfd": "file descriptor",
}


def parcel_text(words: list[int] | None) -> str:
    """A reply parcel as libbinder prints it: `Parcel(NULL)` when empty, else its 32-bit words in hex and the
    bytes as characters (non-printable as '.'), on one line for a short parcel."""
    if not words:
        return "Parcel(NULL)"
    raw = b"".join((w & 0xFFFFFFFF).to_bytes(4, "little") for w in words)
    hexpart = " ".join(f"{w & 0xFFFFFFFF:08x}" for w in words)
    chars = "".join(chr(b) if 32 <= b < 127 else "." for b in raw)
    pad = " " * (4 if len(words) == 1 else 3)
    return f"Parcel({hexpart}{pad}'{chars}')"


def _parse_args(ctx: Ctx, args: list[str]) -> tuple[list[tuple[str, str]], bool]:
    """The call's typed arguments up to the first bad one, and whether all were good (else a message printed:
    the tool still makes the call with what it wrote, then prints its usage)."""
    out: list[tuple[str, str]] = []
    i = 0
    while i < len(args):
        kind = args[i]
        if kind == "null":
            out.append((kind, ""))
            i += 1
            continue
        if kind not in _ARG_TYPES:
            ctx.errln(f"service: unknown option {kind}")
            return out, False
        if i + 1 >= len(args):
            ctx.errln(f"service: no {_ARG_TYPES[kind]} supplied for '{kind}'")
            return out, False
        out.append((kind, args[i + 1]))
        i += 2
    return out, True


def _transact(ctx: Ctx, name: str, code: int, args: list[tuple[str, str]]) -> list[int] | None:
    """Run a modelled transaction; the reply's words (an exception code 0 first), or None for an unknown one."""
    values = [v for _, v in args]
    if name == "alarm" and code == 3 and args and args[0][0] == "s16":  # void setTimeZone(String)
        alarm_shell(ctx, ["set-timezone", values[0]])
        return [0]
    if name == "alarm" and code == 2 and args and args[0][0] == "i64":  # boolean setTime(long)
        alarm_shell(ctx, ["set-time", values[0]])
        return [0, 1]
    if name == "statusbar" and code in (1, 2):  # expandNotificationsPanel / collapsePanels
        with ctx.model.lock:
            if code == 1:
                ctx.model.ui.expand_shade()
            else:
                ctx.model.ui.collapse_shade()
        ctx.model.events.log("statusbar", action="expand" if code == 1 else "collapse")
        return [0]
    return None


@command("service")
def service(ctx: Ctx, argv: list[str]) -> int:
    args = argv[1:]
    if not args or args[0] in ("-h", "-?"):
        ctx.out(USAGE)
        return 0
    verb = args[0]
    if verb == "list":
        names = sorted(SERVICES)  # servicemanager's map order: bytewise
        ctx.outln(f"Found {len(names)} services:")
        ctx.out("".join(f"{i}\t{n}: [{SERVICES[n]}]\n" for i, n in enumerate(names)))
        return 0
    if verb == "check":
        if len(args) < 2:
            ctx.errln("service: No service specified for check")
            ctx.out(USAGE)
            return 10
        ctx.outln(f"Service {args[1]}: {'found' if args[1] in SERVICES else 'not found'}")
        return 0
    if verb == "call":
        if len(args) < 3:
            ctx.errln(f"service: No {'code' if len(args) == 2 else 'service'} specified for call")
            ctx.out(USAGE)
            return 10
        name = args[1]
        if not SERVICES.get(name):  # absent, or no interface name to write as the token
            ctx.errln(f"service: Service {name} does not exist")
            return 10
        typed, ok = _parse_args(ctx, args[3:])
        digits = re.match(r"\s*[-+]?\d+", args[2])  # atoi: the leading number, else 0
        code = int(digits.group()) if digits else 0
        ctx.outln(f"Result: {parcel_text(_transact(ctx, name, code, typed))}")
        if not ok:
            ctx.out(USAGE)
            return 10
        return 0
    ctx.errln(f"service: Unknown command {verb}")
    ctx.out(USAGE)
    return 10
