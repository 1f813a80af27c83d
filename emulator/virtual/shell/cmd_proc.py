"""Processes, system and network: ps, pidof, uptime, getenforce, uname, env, pwd, hostname, ifconfig, ip, reboot
(`kill` is in `cmd_kill`, `log` and `logcat` in `cmd_logcat`, id, whoami, su and date in `cmd_identity`)."""

from __future__ import annotations

import time
from datetime import datetime

from ..procs import ZYGOTE64_PID
from .cmd_logcat import device_zone
from .proctable import Proc, process_table, uid_of
from .registry import Ctx, app_uid, command

WLAN_IP = "10.0.2.16"
WLAN_MAC = "02:00:00:44:55:66"


# --- ps (toybox): -o fields with their widths and the way toybox pads them ---------------------------------
PIDLEN = 6  # digits of /proc/sys/kernel/pid_max (toybox sizes PID and PPID columns by it)
# name -> (title, width); a negative width is left-justified (toybox's typos[] table)
_PS_FIELDS = {
    "PID": ("PID", PIDLEN),
    "PPID": ("PPID", PIDLEN),
    "PRI": ("PRI", 3),
    "NI": ("NI", 3),
    "ADDR": ("ADDR", 12),
    "SZ": ("SZ", 5),
    "RSS": ("RSS", 6),
    "PGID": ("PGID", 5),
    "VSZ": ("VSZ", 7),
    "MAJFL": ("MAJFL", 6),
    "MINFL": ("MINFL", 6),
    "PR": ("PR", 2),
    "PSR": ("PSR", 3),
    "RTPRIO": ("RTPRIO", 6),
    "SCH": ("SCH", 3),
    "CPU": ("CPU", 3),
    "TID": ("TID", 5),
    "TCNT": ("TCNT", 4),
    "BIT": ("BIT", 3),
    "TTY": ("TTY", -8),
    "WCHAN": ("WCHAN", -6),
    "LABEL": ("LABEL", -30),
    "COMM": ("COMM", -27),
    "NAME": ("NAME", -27),
    "COMMAND": ("COMMAND", -27),
    "CMDLINE": ("CMDLINE", -27),
    "ARGS": ("ARGS", -27),
    "CMD": ("CMD", -15),
    "UID": ("UID", 5),
    "USER": ("USER", -12),
    "RUID": ("RUID", 4),
    "RUSER": ("RUSER", -8),
    "GID": ("GID", 8),
    "GROUP": ("GROUP", -8),
    "RGID": ("RGID", 4),
    "RGROUP": ("RGROUP", -8),
    "TIME": ("TIME", 8),
    "ELAPSED": ("ELAPSED", 11),
    "TIME+": ("TIME+", 9),
    "C": ("C", 1),
    "%VSZ": ("%VSZ", 5),
    "%MEM": ("%MEM", 5),
    "%CPU": ("%CPU", 4),
    "VIRT": ("VIRT", 4),
    "RES": ("RES", 4),
    "SHR": ("SHR", 4),
    "STIME": ("STIME", 5),
    "F": ("F", 1),
    "S": ("S", -1),
    "STAT": ("STAT", -5),
    "PCY": ("PCY", 3),
}
_PS_ALIASES = {"NICE": "NI", "SCHED": "SCH", "ETIME": "ELAPSED", "PCPU": "%CPU", "VSIZE": "VSZ", "UNAME": "USER"}
_NUMERIC = {
    "PID",
    "PPID",
    "PRI",
    "NI",
    "ADDR",
    "SZ",
    "RSS",
    "PGID",
    "VSZ",
    "MAJFL",
    "MINFL",
    "PR",
    "PSR",
    "RTPRIO",
    "SCH",
    "CPU",
    "TID",
    "TCNT",
    "BIT",
}
_ANDROID_DEFAULT = "USER,PID,PPID,VSIZE:10,RSS,WCHAN:10,ADDR:10,S,NAME"


class _PsError(Exception):
    pass


def _parse_fields(spec: str) -> list[tuple[str, str, int]]:
    """`-o` field list -> [(field, title, width)] (FIELD[:width][=title], comma separated)."""
    out = []
    for item in spec.split(","):
        if not item:
            continue
        name, eq, title = item.partition("=")
        name, colon, width = name.partition(":")
        key = _PS_ALIASES.get(name.upper(), name.upper())
        if key not in _PS_FIELDS:
            raise _PsError(f"bad -o {item}")
        default_title, default_width = _PS_FIELDS[key]
        w = default_width
        if colon:
            if not width.isdigit():
                raise _PsError(f"bad -o {item}")
            w = int(width) * (-1 if default_width < 0 else 1)
        out.append((key, title if eq else default_title, w))
    return out


def _field_value(ctx: Ctx, r: Proc, key: str) -> str:
    pid = r.pid
    vsz = 2_000_000 + (pid * 7919) % 9_000_000 if r.ppid == ZYGOTE64_PID else 10_000_000 + (pid * 104729) % 3_000_000
    rss = 20_000 + (pid * 31) % 200_000
    now = ctx.model.clock.time()
    if key in ("PID", "TID", "PGID"):
        return str(pid)
    if key == "PPID":
        return str(r.ppid)
    if key in ("USER", "RUSER"):
        return r.user
    if key in ("UID", "RUID"):
        return str(r.uid)
    if key in ("GID", "RGID"):
        return str(r.uid)
    if key in ("GROUP", "RGROUP"):
        return r.user
    if key == "NAME":
        return r.name
    if key in ("CMDLINE", "ARGS"):
        if key == "ARGS":
            head, _, rest = r.cmdline.partition(" ")
            return head.rsplit("/", 1)[-1] + (" " + rest if rest else "")
        return r.cmdline
    if key in ("COMM", "COMMAND"):
        exe = (
            "/system/bin/app_process64"
            if r.app or r.name == "app_process"
            else r.cmdline.split(" ")[0]
            if r.cmdline.startswith("/")
            else f"/system/bin/{r.name}"
        )
        return exe if key == "COMMAND" else exe.rsplit("/", 1)[-1]
    if key == "CMD":
        return r.comm
    if key == "VSZ":
        return str(vsz)
    if key == "SZ":
        return str(vsz // 4)
    if key == "RSS":
        return str(rss)
    if key in ("VIRT", "RES", "SHR"):
        kib = {"VIRT": vsz, "RES": rss, "SHR": rss // 3}[key]
        return f"{kib / 1048576:.1f}G" if kib >= 1048576 else f"{kib // 1024}M"
    if key == "WCHAN":
        return "do_epoll_wait" if pid != 2 else "kthreadd"
    if key == "ADDR":
        return "0"
    if key in ("S",):
        return "S"
    if key == "STAT":
        return "S" + ("s" if r.ppid in (0, 1) else "") + ("l" if r.app else "")
    if key == "PRI":
        return "19" if r.app else "20"
    if key in ("NI",):
        return "-10" if r.app else "0"
    if key == "PR":
        return "10" if r.app else "20"
    if key in ("PSR", "CPU"):
        return str(pid % 4)
    if key in ("RTPRIO", "BIT"):
        return "-" if key == "RTPRIO" else "64"
    if key == "SCH":
        return "0"
    if key == "TCNT":
        return str(22 if r.app else 3)
    if key in ("MAJFL", "MINFL"):
        return str((pid * 13) % 900 if key == "MAJFL" else (pid * 977) % 90000)
    if key == "TTY":
        return "?"
    if key == "LABEL":
        if r.app:
            return f"u:r:untrusted_app:s0:c{app_uid(r.name) - 10000 & 0xFF},c256,c512,c768"
        return {"shell": "u:r:shell:s0", "root": "u:r:init:s0", "system": "u:r:system_server:s0"}.get(
            r.user, "u:r:vendor_init:s0"
        )
    if key in ("TIME", "TIME+"):
        secs = (pid * 7) % 40 if not r.app else 1 + (pid % 5)
        return f"00:00:{secs:02d}" if key == "TIME" else f"0:{secs:02d}.{pid % 100:02d}"
    if key == "ELAPSED":
        up = max(0, int(now - (r.start or ctx.model.boot_time)))
        h, rem = divmod(up, 3600)
        return f"{h:02d}:{rem // 60:02d}:{rem % 60:02d}" if h else f"{rem // 60:02d}:{rem % 60:02d}"
    if key == "STIME":
        return time.strftime("%H:%M", time.localtime(r.start or ctx.model.boot_time))
    if key in ("C",):
        return "0"
    if key in ("%CPU", "%VSZ", "%MEM"):
        return {"%CPU": "0.0", "%VSZ": f"{vsz * 100 / 3_995_112:.1f}", "%MEM": f"{rss * 100 / 3_995_112:.1f}"}[key]
    if key == "F":
        return "4" if r.user == "root" else "5"
    if key == "PCY":
        return "ta" if r.app and ctx.model.tasks and ctx.model.tasks[-1].package == r.name else "fg"
    return "?"


def _ps_render(cols: list[tuple[str, str, int]], values: list[str]) -> str:
    """One line as toybox's show_ps() pads it for a non-terminal: numbers and strings that overflow their
    column push the line right, later columns with slack take it back, a left-justified last column has no
    trailing spaces."""
    out: list[str] = []
    extra = 0
    for i, ((_, _, width), text) in enumerate(zip(cols, values, strict=False)):
        if i:
            out.append(" ")
        abslen, left = abs(width), width < 0
        if len(text) > abslen:
            extra += len(text) - abslen
            abslen = len(text)
        elif extra and len(text) < abslen:
            unused = min(abslen - len(text), extra)
            abslen -= unused
            extra -= unused
        if i == len(cols) - 1 and left:
            out.append(text)
        else:
            out.append(text.ljust(abslen) if left else text.rjust(abslen))
    return "".join(out)


def _ps_header(cols: list[tuple[str, str, int]]) -> str:
    return " ".join(title.ljust(-w) if w < 0 else title.rjust(w) for _, title, w in cols)


_PS_OPTS_WITH_ARG = set("oOpPtsuUgGk")


@command("ps", toybox=True)
def ps(ctx: Ctx, argv: list[str]) -> int:
    flags: set[str] = set()
    vals: dict[str, list[str]] = {}
    extra: list[str] = []
    args = argv[1:]
    i = 0
    while i < len(args):
        a = args[i]
        i += 1
        if a.startswith("-") and len(a) > 1 and a != "--":
            j = 1
            while j < len(a):
                c = a[j]
                if c in _PS_OPTS_WITH_ARG:
                    v = a[j + 1 :] or (args[i] if i < len(args) else "")
                    if not a[j + 1 :]:
                        i += 1
                    vals.setdefault(c, []).append(v)
                    break
                flags.add(c)
                j += 1
        else:
            extra.append(a)
    try:
        if "o" in vals:
            cols = [c for spec in vals["o"] for c in _parse_fields(spec)]
        elif "f" in flags:
            cols = _parse_fields("USER:12=UID,PID,PPID,C,STIME,TTY,TIME,ARGS=CMD")
        elif "l" in flags:
            cols = _parse_fields("F,S,UID,PID,PPID,C,PRI,NI,BIT,SZ,WCHAN,TTY,TIME,CMD")
        else:
            cols = _parse_fields(_ANDROID_DEFAULT.replace("NAME", "CMD") if "T" in flags else _ANDROID_DEFAULT)
        if "O" in vals:
            cols += [c for spec in vals["O"] for c in _parse_fields(spec)]
        pids: set[int] = set()
        for spec in vals.get("p", []) + extra:
            for v in spec.split(","):
                if not v.isdigit():
                    raise _PsError(f"bad {v}" if spec in extra else f"bad -p '{v}'")
                pids.add(int(v))
        ppids = {int(v) for spec in vals.get("P", []) for v in spec.split(",") if v.isdigit()}
        users: set[int] = set()
        for opt in ("u", "U"):
            for spec in vals.get(opt, []):
                for v in spec.split(","):
                    uid = int(v) if v.isdigit() else uid_of(v)
                    if uid < 0:
                        raise _PsError(f"bad -{opt} '{v}'")
                    users.add(uid)
    except _PsError as e:
        ctx.errln(f"ps: {e}")
        return 1
    rows = process_table(ctx.model, ctx.state.pid)
    if pids or ppids or users:
        rows = [r for r in rows if r.pid in pids or r.ppid in ppids or r.uid in users]
    # without -A/-e (and no selection) toybox shows the processes on our terminal: an adb shell command runs
    # without one, so that is every process that has no terminal, i.e. all of them here
    if "k" in vals:
        for spec in reversed([k for s in vals["k"] for k in s.split(",") if k]):
            rev = spec.startswith("-")
            key = _PS_ALIASES.get(spec.lstrip("+-").upper(), spec.lstrip("+-").upper())
            if key in _PS_FIELDS:
                rows.sort(
                    key=lambda r: (
                        (int(v) if (v := _field_value(ctx, r, key)).lstrip("-").isdigit() else 0, v)
                        if key in _NUMERIC
                        else _field_value(ctx, r, key)
                    ),
                    reverse=rev,
                )
    header = _ps_header(cols)
    if header.strip():
        ctx.outln(header)
    for r in rows:
        ctx.outln(_ps_render(cols, [_field_value(ctx, r, k) for k, _, _ in cols]))
    return 0 if rows else 1


@command("pidof", toybox=True)
def pidof(ctx: Ctx, argv: list[str]) -> int:
    args = argv[1:]
    single, omit, names = False, set(), []
    while args:
        a = args.pop(0)
        if a == "-s":
            single = True
        elif a == "-o":
            omit |= set((args.pop(0) if args else "").split(","))
        elif a.startswith("-o"):
            omit |= set(a[2:].split(","))
        elif a == "-x":
            pass
        else:
            names.append(a)
    if not names:
        ctx.errln("pidof: Needs 1 argument")
        return 1
    found: list[str] = []
    for r in process_table(ctx.model):  # /proc order: ascending pids
        argv0 = r.cmdline.split(" ")[0]
        if (
            any((argv0 == n) if n.startswith("/") else argv0.rsplit("/", 1)[-1] == n.rsplit("/", 1)[-1] for n in names)
            and str(r.pid) not in omit
        ):
            found.append(str(r.pid))
            if single:
                break
    if not found:
        return 1
    ctx.outln(" ".join(found))
    return 0


@command("pwd")
def pwd(ctx: Ctx, argv: list[str]) -> int:
    ctx.outln(ctx.state.cwd)
    return 0


@command("hostname", toybox=True)
def hostname(ctx: Ctx, argv: list[str]) -> int:
    ctx.outln("localhost")
    return 0


@command("uptime", toybox=True)
def uptime(ctx: Ctx, argv: list[str]) -> int:
    up = int(ctx.model.uptime())
    days, rem = divmod(up, 86400)
    hours, rem = divmod(rem, 3600)
    span = (f"{days} day{'s' if days != 1 else ''}, " if days else "") + f"{hours:2d}:{rem // 60:02d}"
    now = datetime.fromtimestamp(ctx.model.now(), device_zone(ctx.model.time_zone))
    ctx.outln(f" {now:%H:%M:%S} up {span},  0 users,  load average: 0.52, 0.58, 0.59")
    return 0


@command("getenforce", toybox=True)
def getenforce(ctx: Ctx, argv: list[str]) -> int:
    ctx.outln("Enforcing")
    return 0


@command("uname", toybox=True)
def uname(ctx: Ctx, argv: list[str]) -> int:
    if "-a" in argv:
        ctx.outln(
            "Linux localhost 6.1.57-android14-11-g2ff7e2a0b1a4-ab11531744 #1 SMP PREEMPT Fri Mar 15 "
            f"18:30:58 UTC 2024 {ctx.model.profile.machine} Toybox"
        )
    elif "-m" in argv:
        ctx.outln(ctx.model.profile.machine)
    elif "-r" in argv:
        ctx.outln("6.1.57-android14-11-g2ff7e2a0b1a4-ab11531744")
    else:
        ctx.outln("Linux")
    return 0


@command("env", "printenv", toybox=True)
def env(ctx: Ctx, argv: list[str]) -> int:
    vals = {k: v for k, v in ctx.state.vars.items() if k in ctx.state.exported}
    vals.update(ctx.env)
    names = [a for a in argv[1:] if not a.startswith("-")]
    if argv[0] == "printenv" and names:
        found = [vals[n] for n in names if n in vals]
        ctx.out("".join(v + "\n" for v in found))
        return 0 if len(found) == len(names) else 1
    ctx.out("".join(f"{k}={v}\n" for k, v in sorted(vals.items())))
    return 0


def _wifi_on(ctx: Ctx) -> bool:
    return ctx.model.settings.get("global", {}).get("wifi_on", "1") == "1"


@command("ifconfig", toybox=True)
def ifconfig(ctx: Ctx, argv: list[str]) -> int:
    names = [a for a in argv[1:] if not a.startswith("-")]
    lo = (
        "lo        Link encap:Local Loopback\n          inet addr:127.0.0.1  Mask:255.0.0.0\n"
        "          inet6 addr: ::1/128 Scope: Host\n          UP LOOPBACK RUNNING  MTU:65536  Metric:1\n"
        "          RX packets:24 errors:0 dropped:0 overruns:0 frame:0\n"
        "          TX packets:24 errors:0 dropped:0 overruns:0 carrier:0\n"
        "          collisions:0 txqueuelen:1000\n          RX bytes:1760 TX bytes:1760\n\n"
    )
    inet = (
        (
            f"          inet addr:{WLAN_IP}  Bcast:10.0.2.255  Mask:255.255.255.0\n"
            "          inet6 addr: fe80::ff:fe44:5566/64 Scope: Link\n"
        )
        if _wifi_on(ctx)
        else ""
    )
    wlan = (
        f"wlan0     Link encap:Ethernet  HWaddr {WLAN_MAC}  Driver mac80211_hwsim\n"
        + inet
        + f"          {'UP BROADCAST RUNNING' if _wifi_on(ctx) else 'BROADCAST'} MULTICAST  MTU:1500  Metric:1\n"
        "          RX packets:18213 errors:0 dropped:0 overruns:0 frame:0\n"
        "          TX packets:9042 errors:0 dropped:0 overruns:0 carrier:0\n"
        "          collisions:0 txqueuelen:1000\n          RX bytes:23712518 TX bytes:1279040\n\n"
    )
    if not names:
        ctx.out(lo + (wlan if _wifi_on(ctx) else ""))
        return 0
    status = 0
    for n in names:
        if n == "lo":
            ctx.out(lo)
        elif n == "wlan0":
            ctx.out(wlan)
        else:
            ctx.errln(f"ifconfig: {n}: No such device")
            status = 1
    return status


@command("ip")
def ip(ctx: Ctx, argv: list[str]) -> int:
    args = argv[1:]
    obj = args[0] if args else ""
    if obj in ("addr", "address", "a", "-4") or (obj == "-f"):
        dev = args[args.index("dev") + 1] if "dev" in args and args.index("dev") + 1 < len(args) else None
        lo = (
            "1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN group default qlen 1000\n"
            "    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00\n"
            "    inet 127.0.0.1/8 scope host lo\n       valid_lft forever preferred_lft forever\n"
        )
        inet = (
            (
                f"    inet {WLAN_IP}/24 brd 10.0.2.255 scope global wlan0\n"
                "       valid_lft forever preferred_lft forever\n    inet6 fe80::ff:fe44:5566/64 scope link \n"
                "       valid_lft forever preferred_lft forever\n"
            )
            if _wifi_on(ctx)
            else ""
        )
        state = "UP" if _wifi_on(ctx) else "DOWN"
        wlan = (
            f"31: wlan0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc mq state {state} group default "
            f"qlen 1000\n    link/ether {WLAN_MAC} brd ff:ff:ff:ff:ff:ff\n" + inet
        )
        if dev is None:
            ctx.out(lo + wlan)
        elif dev == "wlan0":
            ctx.out(wlan)
        elif dev == "lo":
            ctx.out(lo)
        else:
            ctx.errln(f'Device "{dev}" does not exist.')
            return 1
        return 0
    if obj in ("route", "r"):
        if _wifi_on(ctx):
            ctx.outln(f"10.0.2.0/24 dev wlan0 proto kernel scope link src {WLAN_IP} ")
        return 0
    ctx.errln(
        f'Object "{obj}" is unknown, try "ip help".' if obj else "Usage: ip [ OPTIONS ] OBJECT { COMMAND | help }"
    )
    return 255 if obj else 1


@command("reboot")
def reboot(ctx: Ctx, argv: list[str]) -> int:
    """Refused: the virtual device does not reboot from a shell command (it is logged for tests)."""
    ctx.model.events.log("reboot", argv=list(argv), refused=True)
    ctx.errln("reboot: refused by the virtual device")
    return 1
