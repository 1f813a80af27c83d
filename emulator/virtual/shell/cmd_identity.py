"""Who the shell is and the clock it may set: id, whoami, su (userdebug builds only) and date (toybox's).

All read the shell's one notion of its user (`Shell.user`, `users.py`): adbd's uid - the `shell` user, or root
after `adb root` - or whom `su` switched to.
"""

from __future__ import annotations

import re
import zoneinfo
from datetime import datetime, timedelta, timezone, tzinfo

from .registry import Ctx, command, split_opts
from .users import User, name_of, su_user


# --- id, whoami (toybox) ------------------------------------------------------------------------------------------
def _named(n: int) -> str:
    return f"{n}({name_of(n)})"


@command("id", toybox=True)
def id_(ctx: Ctx, argv: list[str]) -> int:
    """toybox id [-nGgruZ] [USER]: -u uid, -g gid, -G groups, -n names instead of numbers (with -u -g -G; alone
    it changes nothing), -r the real ids (the same here: no setuid programs), -Z the SELinux context; -Z -G -g -u
    exclude one another."""
    opts, names = split_opts(argv)
    bad = next((c for c in opts if c not in "nGgruZ"), None)
    if bad is not None:
        ctx.errln(f"id: Unknown option '{bad}' (see \"id --help\")")
        return 1
    picked = [c for c in dict.fromkeys(opts) if c in "ZGgu"]
    if len(picked) > 1:  # toybox's [!ZGgu]: one of them at most
        ctx.errln(f"id: No '{picked[1]}' with '{picked[0]}' (see \"id --help\")")
        return 1
    user: User | None = ctx.state.user
    if names:
        user = su_user(names[0])
        if user is None:
            ctx.errln(f"id: no such user '{names[0]}'")
            return 1
        user = User(user.uid, user.gid, (user.gid,), "")
    assert user is not None
    show = name_of if "n" in opts else str
    if "Z" in opts:
        ctx.outln(user.context)
    elif "u" in opts:
        ctx.outln(show(user.uid))
    elif "g" in opts:
        ctx.outln(show(user.gid))
    elif "G" in opts:
        ctx.outln(" ".join(show(g) for g in user.groups))
    else:
        line = f"uid={_named(user.uid)} gid={_named(user.gid)} groups=" + ",".join(_named(g) for g in user.groups)
        ctx.outln(line + (f" context={user.context}" if user.context else ""))
    return 0


@command("whoami", toybox=True)
def whoami(ctx: Ctx, argv: list[str]) -> int:
    ctx.outln(ctx.state.user.name)
    return 0


# --- su (AOSP system/extras/su: userdebug and eng builds) ----------------------------------------------------------
@command("su")
def su(ctx: Ctx, argv: list[str]) -> int:
    """su [WHO [COMMAND...]]: run COMMAND (default: a shell reading stdin) as WHO (default root). Only the shell
    user and root may; the runner finds no `su` on a user build (`registry.DEBUG_ONLY`)."""
    if ctx.state.user.uid not in (0, 2000):
        ctx.errln(f"su: uid {ctx.state.user.uid} not allowed to su")
        return 1
    args = argv[1:]
    if args and args[0] in ("-h", "--help"):
        ctx.errln("usage: su [WHO [COMMAND...]]")
        return 0
    who = args[0] if args else "root"
    user = su_user(who)
    if user is None:
        ctx.errln(f"su: unknown user {who}")
        return 1
    shell = ctx.state.child()
    shell.user = user
    shell.vars["USER"] = shell.vars["LOGNAME"] = user.name
    ctx.model.events.log("su", uid=user.uid, argv=args[1:])
    from .plumbing import Fds

    fds: Fds = ctx.io.fds
    if len(args) > 1:
        return shell.dispatch(args[1:], fds, dict(ctx.env))
    return shell.run_source(ctx.stdin_all().decode("utf-8", "replace"), fds)


# --- date (toybox) ------------------------------------------------------------------------------------------------
def shown_zone(ctx: Ctx, utc: bool) -> tzinfo:
    """The zone `date` shows: UTC with -u, else $TZ or the device's `persist.sys.timezone` (bionic's order);
    a zone the host's database does not know shows as GMT, as on the device."""
    exported = ctx.state.vars.get("TZ") if "TZ" in ctx.state.exported else None
    name = "UTC" if utc else (ctx.env.get("TZ") or exported or ctx.model.time_zone)
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return timezone.utc if utc else timezone(timedelta(0), "GMT")


def _posix_time(text: str, now: datetime) -> datetime | None:
    """toybox's SET operand, POSIX date's: MMDDhhmm[[CC]YY][.ss] in the shown zone."""
    m = re.fullmatch(r"(\d\d)(\d\d)(\d\d)(\d\d)(\d{2}|\d{4})?(?:\.(\d\d))?", text)
    if m is None:
        return None
    mon, day, hour, minute, year, sec = m.groups()
    y = now.year if year is None else int(year) if len(year) == 4 else 1900 + int(year) + (100 if int(year) < 69 else 0)
    try:
        return now.replace(
            year=y,
            month=int(mon),
            day=int(day),
            hour=int(hour),
            minute=int(minute),
            second=int(sec or 0),
            microsecond=0,
        )
    except ValueError:
        return None


def _free_time(text: str, now: datetime) -> datetime | None:
    """`date -s` / `-d` formats: @SECONDS, YYYY-MM-DD [hh:mm[:ss]], hh:mm[:ss], or the SET operand's."""
    if text.startswith("@") and re.fullmatch(r"@-?\d+", text):
        return datetime.fromtimestamp(int(text[1:]), now.tzinfo)
    m = re.fullmatch(r"(?:(\d{4})-(\d\d)-(\d\d))?[ T]?(?:(\d\d?):(\d\d)(?::(\d\d))?)?", text.strip())
    if m is not None and any(m.groups()):
        y, mo, d, h, mi, s = m.groups()
        try:
            base = now.replace(year=int(y), month=int(mo), day=int(d)) if y else now
            if h is None:
                return base.replace(hour=0, minute=0, second=0, microsecond=0)
            return base.replace(hour=int(h), minute=int(mi), second=int(s or 0), microsecond=0)
        except ValueError:
            return None
    return _posix_time(text, now)


@command("date", toybox=True)
def date(ctx: Ctx, argv: list[str]) -> int:
    """toybox date [-u] [-s DATE] [+FORMAT] [SET]: the device's clock (`cmd alarm set-time` moves it) in its time
    zone. Setting it (`date MMDDhhmm[[CC]YY][.ss]`, `date -s DATE`) needs root: the shell user gets
    "cannot set date: Operation not permitted"."""
    args, utc, set_text = argv[1:], False, None
    operands: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("-s", "-d") and i + 1 < len(args):
            if a == "-s":
                set_text = args[i + 1]
            else:
                operands.append("@d:" + args[i + 1])
            i += 2
            continue
        if a.startswith("-") and len(a) > 1 and not a.startswith("--"):
            bad = next((c for c in a[1:] if c != "u"), None)
            if bad is not None:
                ctx.errln(f"date: Unknown option '{bad}' (see \"date --help\")")
                return 1
            utc = True
        elif a in ("--utc", "--universal"):
            utc = True
        else:
            operands.append(a)
        i += 1
    zone = shown_zone(ctx, utc)
    now_ts = ctx.model.now()
    now = datetime.fromtimestamp(now_ts, zone)
    fmt = next((a[1:] for a in operands if a.startswith("+")), "%a %b %e %H:%M:%S %Z %Y")
    shown = next((a[3:] for a in operands if a.startswith("@d:")), None)
    setting = [a for a in operands if not a.startswith(("+", "@d:"))]
    target: datetime | None = None
    if set_text is not None or setting:
        text = set_text if set_text is not None else setting[0]
        target = _free_time(text, now) if set_text is not None else _posix_time(text, now)
        if target is None:
            ctx.errln(f"date: bad date '{text}'")
            return 1
        if not ctx.state.user.root:
            ctx.errln("date: cannot set date: Operation not permitted")
            return 1
        set_clock(ctx, target.timestamp())
        now_ts = target.timestamp()
    elif shown is not None:
        when = _free_time(shown, now)
        if when is None:
            ctx.errln(f"date: bad date '{shown}'")
            return 1
        now_ts = when.timestamp()
    when = datetime.fromtimestamp(now_ts, zone)
    ctx.outln(
        when.strftime(fmt.replace("%N", f"{int(now_ts * 1e9) % 1_000_000_000:09d}").replace("%s", str(int(now_ts))))
    )
    return 0


def set_clock(ctx: Ctx, epoch: float) -> None:
    """settimeofday(): the device's wall clock reads `epoch` from now on (automatic time is not switched off, as on
    a device, where the network time would come back at its next update)."""
    model = ctx.model
    with model.lock:
        model.clock_offset = epoch - model.clock.time()
    model.events.log("clock", action="set", epoch=epoch)
