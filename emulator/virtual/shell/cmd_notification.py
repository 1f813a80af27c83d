"""NotificationManagerService and StatusBarManagerService as the shell reaches them: `cmd notification` (AOSP's
NotificationShellCmd: `post [flags] TAG TEXT` posts from the caller's package - com.android.shell, uid 2000, id
2020, channel `shell_cmd` - and prints `posting:` and the Notification; `list` prints the keys; `get KEY` dumps one
record), `dumpsys notification [--noredact] [p PKG]` (NotificationRecord.dump under `Notification List:`; text
extras shown as `String [length=N]` unless `--noredact`), and `cmd statusbar expand-notifications | collapse`
(the shade)."""

from __future__ import annotations

import zlib

from ..notifications import Notification
from .cmd_system import SERVICE_SHELLS
from .registry import Ctx, dumpsys_service

USAGE = """usage: cmd notification SUBCMD [args]

SUBCMDs:
  allow_listener COMPONENT [user_id (current user if not specified)]
  disallow_listener COMPONENT [user_id (current user if not specified)]
  allow_assistant COMPONENT [user_id (current user if not specified)]
  remove_assistant COMPONENT [user_id (current user if not specified)]
  set_dnd [on|none (same as on)|priority|alarms|all|off (same as all)]\
  allow_dnd PACKAGE [user_id (current user if not specified)]
  disallow_dnd PACKAGE [user_id (current user if not specified)]
  reset_assistant_user_set [user_id (current user if not specified)]
  get_approved_assistant [user_id (current user if not specified)]
  post [--help | flags] TAG TEXT
  set_bubbles PACKAGE PREFERENCE (0=none 1=all 2=selected) [user_id (current user if not specified)]
  set_bubbles_channel PACKAGE CHANNEL_ID ALLOW [user_id (current user if not specified)]
  list
  get <notification-key>
  snooze --for <msec> <notification-key>
  unsnooze <notification-key>
"""

NOTIFY_USAGE = """usage: cmd notification post [flags] <tag> <text>

flags:
  -h|--help
  -v|--verbose
  -t|--title <text>
  -i|--icon <iconspec>
  -I|--large-icon <iconspec>
  -S|--style <style> [styleargs]
  -c|--content-intent <intentspec>

styles: (default none)
  bigtext
  bigpicture --picture <iconspec>
  inbox --line <text> --line <text> ...
  messaging --conversation <title> --message <who>:<text> ...
  media

an <iconspec> is one of
  file:///data/local/tmp/<img.png>
  content://<provider>/<path>
  @[<package>:]drawable/<img>
  data:base64,<B64DATA==>

an <intentspec> is (broadcast|service|activity) <args>
  <args> are as described in `am start`
"""

SHELL_PKG = "com.android.shell"
SHELL_ID = 2020  # NotificationShellCmd.NOTIFICATION_ID
SHELL_CHANNEL = "shell_cmd"
STYLES = ("bigtext", "bigpicture", "inbox", "messaging", "media")
STYLE_ARGS = {"--bigtext": "bigtext", "--big-text": "bigtext", "--bigText": "bigtext", "--picture": "bigpicture"}
STYLE_ARGS.update({"--line": "inbox", "--message": "messaging", "--conversation": "messaging"})
KNOWN = {"allow_listener", "disallow_listener", "allow_assistant", "remove_assistant", "disallow_assistant", "set_dnd"}
KNOWN |= {"allow_dnd", "disallow_dnd", "reset_assistant_user_set", "get_approved_assistant", "set_bubbles"}
KNOWN |= {"set_bubbles_channel", "snooze", "unsnooze", "snoozed"}  # accepted; nothing of them is modelled
_IMPORTANCE = {1: "MIN", 2: "LOW", 3: "DEFAULT", 4: "HIGH", 5: "MAX"}


class _ShellError(Exception):
    """What NotificationShellCmd catches and prints as `Error occurred. Check logcat for details. MSG`."""


def notification_text(n: Notification) -> str:
    """Notification.toString()."""
    cat = f" category={n.category}" if n.category else ""
    return (
        f"Notification(channel={n.channel} shortcut=null contentView=null vibrate=null sound=null defaults=0x0 "
        f"flags=0x{n.flags:x} color=0x00000000{cat} vis=PRIVATE)"
    )


def _record_line(n: Notification) -> str:
    ident = zlib.crc32(f"{n.key}#{n.serial}".encode())
    tag = "null" if n.tag is None else n.tag
    return (
        f"NotificationRecord(0x{ident:08x}: pkg={n.package} user=UserHandle{{0}} id={n.id} tag={tag} "
        f"importance={n.importance} key={n.key}: {notification_text(n)})"
    )


def dump_record(n: Notification, prefix: str, redact: bool) -> list[str]:
    """NotificationRecord.dump: the record line, then its fields one more level in."""
    p = prefix + "  "
    pp = p + p
    icon_pkg = "android" if n.package == SHELL_PKG else n.package
    intent = "null"
    if n.intent is not None:
        ident = zlib.crc32(n.key.encode()) & 0xFFFFFFF
        intent = f"PendingIntent{{{ident:07x}: PendingIntentRecord{{{n.package} startActivity}}}}"

    def extra(name: str, text: str) -> str:
        return f"{pp}    {name}=String " + (f"[length={len(text)}]" if redact else f"({text})")

    extras = [extra("android.title", n.title)] if n.title else []
    extras += [f"{pp}    android.reduced.images=Boolean (true)", extra("android.text", n.text)]
    return [
        prefix + _record_line(n),
        f"{p}uid={n.uid} userId=0",
        f"{p}opPkg={n.package}",
        f"{p}icon=Icon(typ=RESOURCE pkg={icon_pkg} id=0x{0x01080000 + zlib.crc32(icon_pkg.encode()) % 0xFFFF:08x})",
        f"{p}flags=0x{n.flags:x}",
        f"{p}originalFlags=0x{n.flags:x}",
        f"{p}pri=0",
        f"{p}key={n.key}",
        f"{p}seen=false",
        f"{p}groupKey={n.key}",
        f"{p}notification=",
        f"{pp}fullscreenIntent=null",
        f"{pp}contentIntent={intent}",
        f"{pp}deleteIntent=null",
        f"{pp}number=0",
        f"{pp}groupAlertBehavior=0",
        f"{pp}when={n.post_time_ms}",
        f"{pp}tickerText=null",
        f"{pp}vis=0",
        f"{pp}contentView=null",
        f"{pp}bigContentView=null",
        f"{pp}headsUpContentView=null",
        f"{pp}color=0x00000000",
        f"{pp}timeout=0",
        f"{pp}extras={{",
        *extras,
        f"{pp}}}",
        f"{p}publicNotification=",
        f"{pp}None",
        f"{p}mImportance={_IMPORTANCE.get(n.importance, 'DEFAULT')}",
        f"{p}mCreationTimeMs={n.post_time_ms}",
        f"{p}mUpdateTimeMs={n.post_time_ms}",
        f"{p}mInterruptionTimeMs={n.post_time_ms}",
        f"{p}effectiveNotificationChannel=NotificationChannel{{mId='{n.channel}', mImportance={n.importance}}}",
    ]


@dumpsys_service("notification")
def notification_dump(ctx: Ctx, args: list[str]) -> str:
    redact = "--noredact" not in args and "--reveal" not in args
    pkg = None
    for i, a in enumerate(args):
        if a in ("p", "pkg", "--package") and i + 1 < len(args):
            pkg = args[i + 1]
    with ctx.model.lock:
        records = [n for n in ctx.model.notifications.posted if pkg is None or n.package == pkg]
    head = "Current Notification Manager state" + (f" (filtered to '{pkg}')" if pkg else "") + ":"
    lines = [head]
    if records:
        lines.append("  Notification List:")
        for n in records:
            lines += dump_record(n, "    ", redact)
        lines.append("  ")
    lines += ["  mSoundNotificationKey=null", "  mVibrateNotificationKey=null", "  mDisableNotificationEffects=null"]
    return "\n".join(lines) + "\n"


def _post(ctx: Ctx, args: list[str]) -> None:
    title, style = "", None
    i = 0
    while i < len(args) and args[i].startswith("-") and args[i] != "--":
        opt = args[i]
        takes = opt in ("-t", "--title", "-i", "--icon", "-I", "--large-icon", "-S", "--style", *STYLE_ARGS)
        if takes and i + 1 >= len(args):
            raise _ShellError(f'Argument expected after "{opt}"')
        if opt in ("-v", "--verbose"):
            i += 1
            continue
        if not takes:  # -h, --help and anything unknown: the usage, and nothing posted
            ctx.outln(NOTIFY_USAGE)
            return
        value = args[i + 1]
        if opt in ("-t", "--title"):
            title = value
        elif opt in ("-S", "--style"):
            style = value.lower()
            if style not in STYLES:
                raise _ShellError(f"unrecognized notification style: {style}")
            if style == "messaging" and value == "messaging" and args[i + 2 : i + 3] == ["--user"]:
                i += 2
        elif opt in STYLE_ARGS and style != STYLE_ARGS[opt]:
            raise _ShellError(f"{opt} requires --style {STYLE_ARGS[opt]}")
        i += 2
    if i < len(args) and args[i] == "--":
        i += 1
    if len(args) - i < 2:
        ctx.outln(NOTIFY_USAGE)
        return
    tag, text = args[i], args[i + 1]
    model = ctx.model
    uid = ctx.state.user.uid
    package = "root" if uid == 0 else SHELL_PKG
    n = Notification(package, SHELL_ID, tag, uid, title, text, SHELL_CHANNEL, int(model.now() * 1000))
    ctx.outln("posting:\n  " + notification_text(n))
    with model.lock:
        model.notifications.post(n)
    model.log("V", "NotificationManager", "posting: " + notification_text(n))
    model.events.log("notification", action="post", package=package, tag=tag, title=title)


def notification_shell(ctx: Ctx, argv: list[str]) -> int:
    args = argv[2:]
    sub = args[0].replace("-", "_") if args else None
    if sub is None or sub in ("help", "_h"):
        ctx.outln(USAGE)
        return 255 if sub is None else 0
    try:
        if sub in ("post", "notify"):
            _post(ctx, args[1:])
        elif sub == "list":
            with ctx.model.lock:
                ctx.out("".join(f"{n.key}\n" for n in ctx.model.notifications.posted))
        elif sub == "get":
            if len(args) < 2:
                raise _ShellError('Argument expected after "get"')
            n = ctx.model.notifications.get(args[1])
            if n is None:
                ctx.outln(f"error: no active notification matching key: {args[1]}")
                return 1
            ctx.out("\n".join(dump_record(n, "", False)) + "\n")
        elif sub not in KNOWN:
            ctx.outln(f"Unknown command: {args[0]}")
            return 255
    except _ShellError as e:
        ctx.outln(f"Error occurred. Check logcat for details. {e}")
    return 0


def statusbar_shell(ctx: Ctx, argv: list[str]) -> int:
    """StatusBarShellCommand: `expand-notifications` pulls the shade down, `collapse` puts it away
    (`expand-settings` opens the shade too: quick settings are not modelled); other commands do nothing here."""
    sub = argv[2] if len(argv) > 2 else None
    with ctx.model.lock:
        if sub in ("expand-notifications", "expand-settings"):
            ctx.model.ui.expand_shade()
        elif sub == "collapse":
            ctx.model.ui.collapse_shade()
    if sub is not None:
        ctx.model.events.log("statusbar", action=sub)
    return 0


SERVICE_SHELLS["notification"] = notification_shell
SERVICE_SHELLS["statusbar"] = statusbar_shell
