"""Processes, identity, time, network and logs: ps, pidof, kill, id, whoami, date, uptime, getenforce, uname,
env, pwd, hostname, ifconfig, ip, log, logcat, reboot."""

from __future__ import annotations

import re
import time
import zoneinfo
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone, tzinfo

from ..procs import ADBD_PID, BUFFERS, DEFAULT_BUFFERS, SYSTEM_CMDLINES, ZYGOTE64_PID, LogEntry
from .registry import SYSTEM_PROCESSES, Ctx, app_pid, app_uid, command, running_packages, split_opts

WLAN_IP = "10.0.2.16"
WLAN_MAC = "02:00:00:44:55:66"


@dataclass
class Proc:
    user: str
    pid: int
    ppid: int
    name: str  # argv[0]'s base name: ps NAME, pidof
    cmdline: str  # argv joined by spaces: ps ARGS/CMDLINE, /proc/PID/cmdline
    app: bool = False
    start: float = 0.0

    @property
    def uid(self) -> int:
        return _uid_of(self.user)

    @property
    def comm(self) -> str:
        """The kernel's 15-character thread name (Android keeps the tail of a long process name)."""
        return self.name if len(self.name) <= 15 else self.name[-15:]


_NAMED_UIDS = {"root": 0, "system": 1000, "radio": 1001, "logd": 1036, "shell": 2000}


def _uid_of(user: str) -> int:
    if user in _NAMED_UIDS:
        return _NAMED_UIDS[user]
    if user.startswith("u0_a") and user[4:].isdigit():
        return 10000 + int(user[4:])
    return int(user) if user.isdigit() else -1


def _user_of(uid: int) -> str:
    for name, u in _NAMED_UIDS.items():
        if u == uid:
            return name
    return f"u0_a{uid - 10000}" if uid >= 10000 else str(uid)


def process_table(ctx: Ctx, with_self: bool = False) -> list[Proc]:
    """Every process on the device, pid order (plus this shell and `ps` itself when `with_self`)."""
    model = ctx.model
    boot = model.boot_time
    rows = [
        Proc(u, pid, ppid, n, SYSTEM_CMDLINES.get(n, n), n.startswith("com."), boot + pid / 1000)
        for u, n, pid, ppid in SYSTEM_PROCESSES
    ]
    system_names = {r.name for r in rows}
    for pkg in running_packages(model):
        if pkg in system_names:
            continue
        uid = app_uid(pkg)
        user = "system" if model.packages[pkg].system and pkg.startswith("com.android.") else f"u0_a{uid - 10000}"
        pid = app_pid(model, pkg)
        rows.append(Proc(user, pid, ZYGOTE64_PID, pkg, pkg, True, model.procs.app_start.get(pkg, boot)))
    with model.procs.lock:
        daemons = dict(model.procs.daemons)
    u2_pid = getattr(model, "u2_pid", None)
    if getattr(model, "u2_running", False) and u2_pid:  # set by the uiautomator2 server (u2server)
        cmdline = getattr(model, "u2_cmdline", "") or "app_process / com.wetest.uia2.Main -p 9008"
        rows.append(Proc("shell", int(u2_pid), ADBD_PID, "app_process", cmdline, False, boot))
    rows += [
        Proc(d.user, pid, ADBD_PID, d.name, d.cmdline, False, d.start) for pid, d in daemons.items() if pid != u2_pid
    ]
    if with_self:
        sh = ctx.state.pid
        rows += [
            Proc("shell", sh, ADBD_PID, "sh", "/system/bin/sh -c", False, time.time()),
            Proc("shell", sh + 3, sh, "ps", "ps", False, time.time()),
        ]
    return sorted(rows, key=lambda r: r.pid)


def process_rows(ctx: Ctx) -> list[tuple[str, int, int, str]]:
    """(user, pid, ppid, name) of every process on the device, pid order."""
    return [(r.user, r.pid, r.ppid, r.name) for r in process_table(ctx)]


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
    now = time.time()
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
                    uid = int(v) if v.isdigit() else _uid_of(v)
                    if uid < 0:
                        raise _PsError(f"bad -{opt} '{v}'")
                    users.add(uid)
    except _PsError as e:
        ctx.errln(f"ps: {e}")
        return 1
    rows = process_table(ctx, with_self=True)
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
    for r in process_table(ctx):  # /proc order: ascending pids
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


@command("id", toybox=True)
def id_(ctx: Ctx, argv: list[str]) -> int:
    if "-u" in argv:
        ctx.outln("shell" if "-n" in argv else "2000")
        return 0
    ctx.outln(
        "uid=2000(shell) gid=2000(shell) groups=2000(shell),1004(input),1007(log),1011(adb),1015(sdcard_rw),"
        "1028(sdcard_r),1078(ext_data_rw),1079(ext_obb_rw),3001(net_bt_admin),3002(net_bt),3003(inet),"
        "3006(net_bw_stats),3009(readproc),3011(uhid),3012(readtracefs) context=u:r:shell:s0"
    )
    return 0


@command("whoami", toybox=True)
def whoami(ctx: Ctx, argv: list[str]) -> int:
    ctx.outln("shell")
    return 0


@command("pwd")
def pwd(ctx: Ctx, argv: list[str]) -> int:
    ctx.outln(ctx.state.cwd)
    return 0


@command("hostname", toybox=True)
def hostname(ctx: Ctx, argv: list[str]) -> int:
    ctx.outln("localhost")
    return 0


def _device_zone(ctx: Ctx, utc: bool) -> tzinfo:
    """The zone `date` shows: UTC with -u, else $TZ or the device's `persist.sys.timezone` (bionic's order);
    a zone the host's database does not know shows as GMT, as on the device."""
    exported = ctx.state.vars.get("TZ") if "TZ" in ctx.state.exported else None
    name = "UTC" if utc else (ctx.env.get("TZ") or exported or ctx.model.time_zone)
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return timezone.utc if utc else timezone(timedelta(0), "GMT")


@command("date", toybox=True)
def date(ctx: Ctx, argv: list[str]) -> int:
    """toybox date: the device's clock (`cmd alarm set-time` moves it) in its time zone. Setting the clock
    (`date MMDDhhmm[[CC]YY][.ss]`) needs root, which the shell user of a user build is not."""
    opts, operands = split_opts(argv)
    bad = next((c for c in opts if c not in "u"), None)
    if bad is not None:
        ctx.errln(f"date: Unknown option '{bad}' (see \"date --help\")")
        return 1
    fmt = next((a[1:] for a in operands if a.startswith("+")), "%a %b %e %H:%M:%S %Z %Y")
    setting = [a for a in operands if not a.startswith("+")]
    if setting:
        if not re.fullmatch(r"\d{8}(\d{2}|\d{4})?(\.\d{2})?", setting[0]):
            ctx.errln(f"date: bad date '{setting[0]}'")
            return 1
        ctx.errln("date: cannot set date: Operation not permitted")
        return 1
    now = ctx.model.now()
    when = datetime.fromtimestamp(now, _device_zone(ctx, "u" in opts))
    ctx.outln(when.strftime(fmt.replace("%N", f"{int(now * 1e9) % 1_000_000_000:09d}").replace("%s", str(int(now)))))
    return 0


@command("uptime", toybox=True)
def uptime(ctx: Ctx, argv: list[str]) -> int:
    up = int(time.time() - ctx.model.boot_time) + 3600
    days, rem = divmod(up, 86400)
    hours, rem = divmod(rem, 3600)
    span = (f"{days} day{'s' if days != 1 else ''}, " if days else "") + f"{hours:2d}:{rem // 60:02d}"
    ctx.outln(f" {time.strftime('%H:%M:%S')} up {span},  0 users,  load average: 0.52, 0.58, 0.59")
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


# --- logs --------------------------------------------------------------------------------------------
_LEVELS = "VDIWEFS"


@command("log")
def log_(ctx: Ctx, argv: list[str]) -> int:
    args = argv[1:]
    tag, prio = "log", "I"
    while args and args[0].startswith("-"):
        opt = args.pop(0)
        val = args.pop(0) if args else ""
        if opt == "-t":
            tag = val
        elif opt == "-p":
            prio = val[:1].upper() or "I"
    if prio not in _LEVELS[:-1]:
        prio = "I"
    pid = ctx.state.pid + 3
    ctx.model.logbuf.write(prio, tag, " ".join(args), pid=pid, tid=pid, buffer="main")
    return 0


def _stamp(t: float) -> str:
    return time.strftime("%m-%d %H:%M:%S", time.localtime(t)) + f".{int(t * 1000) % 1000:03d}"


def _format(fmt: str, e: LogEntry) -> str:
    lines = e.msg.split("\n") if e.msg else [""]
    if fmt == "long":
        return f"[ {_stamp(e.t)} {e.pid:5d}:{e.tid:5d} {e.level}/{e.tag:<8} ]\n{e.msg}\n\n"
    out = []
    for line in lines:
        if fmt == "brief":
            out.append(f"{e.level}/{e.tag:<8}({e.pid:5d}): {line}")
        elif fmt == "time":
            out.append(f"{_stamp(e.t)} {e.level}/{e.tag:<8}({e.pid:5d}): {line}")
        elif fmt == "tag":
            out.append(f"{e.level}/{e.tag:<8}: {line}")
        elif fmt == "process":
            out.append(f"{e.level}({e.pid:5d}) {line}  ({e.tag})")
        elif fmt == "thread":
            out.append(f"{e.level}({e.pid:5d}:{e.tid:5d}) {line}")
        elif fmt == "raw":
            out.append(line)
        else:  # threadtime, the default
            out.append(f"{_stamp(e.t)} {e.pid:5d} {e.tid:5d} {e.level} {e.tag:<8}: {line}")
    return "".join(line + "\n" for line in out)


_FORMATS = {"brief", "long", "process", "raw", "tag", "thread", "threadtime", "time"}
_FORMAT_MODIFIERS = {
    "color",
    "descriptive",
    "epoch",
    "monotonic",
    "printable",
    "uid",
    "usec",
    "UTC",
    "year",
    "zone",
    "nsec",
}


def _byte_count(text: str) -> int | None:
    """android::base::ParseByteCount: a number with an optional K/M/G multiplier (and optional B)."""
    m = re.fullmatch(r"(\d+)([KMG]?)B?", text, re.IGNORECASE)
    if not m or int(m.group(1)) < 1:
        return None
    return int(m.group(1)) * 1024 ** " KMG".index((m.group(2) or " ").upper())


def _size_text(n: int) -> str:
    """logcat's format_of_size: `256 KiB`, `0 B`, `16 MiB`."""
    units = ["", "Ki", "Mi", "Gi"]
    i = 0
    while i < len(units) - 1 and n >= 1024:
        n //= 1024
        i += 1
    return f"{n} {units[i]}B"


@command("logcat")
def logcat(ctx: Ctx, argv: list[str]) -> int:
    """logcat over the device's log buffer: -d, -c, -b, -v, -t/-T, -m, -s, -e, --pid and TAG:LEVEL filters;
    without -d (or -t) it prints what is there and follows new lines until the host closes the stream."""
    import re

    args = argv[1:]
    dump = clear = silent = False
    buffers: list[str] = []
    fmt = "threadtime"
    tail: int | None = None
    max_count: int | None = None
    regex = None
    pid_filter: int | None = None
    specs: list[str] = []
    out_file: str | None = None
    set_size: int | None = None
    get_size = False
    i = 0

    def value(opt: str) -> str:
        nonlocal i
        if i < len(args):
            i += 1
            return args[i - 1]
        raise ValueError(f"option requires an argument -- '{opt}'")

    try:
        while i < len(args):
            a = args[i]
            i += 1
            if a in ("-d",):
                dump = True
            elif a in ("-c", "--clear"):
                clear = True
            elif a == "-s":
                silent = True
            elif a == "-b" or a.startswith("-b") or a.startswith("--buffer="):
                v = a.split("=", 1)[1] if a.startswith("--buffer=") else (a[2:] or value("b"))
                buffers += [b for b in v.replace(",", " ").split() if b]
            elif a == "-v" or (a.startswith("-v") and len(a) > 2) or a.startswith("--format="):
                v = a.split("=", 1)[1] if a.startswith("--format=") else (a[2:] or value("v"))
                for word in v.replace(",", " ").split():
                    if word in _FORMATS:
                        fmt = word
                    elif word not in _FORMAT_MODIFIERS:
                        raise ValueError(f"Unknown format '{word}'")
            elif a in ("-t", "-T") or (a[:2] in ("-t", "-T") and a[2:].isdigit()):
                v = a[2:] or value(a[1])
                if not v.isdigit():
                    raise ValueError(f"-{a[1]} {v}: only a line count is supported here")
                tail = int(v)
                dump = dump or a[1] == "t"
            elif a == "-m" or a.startswith("--max-count"):
                v = a.split("=", 1)[1] if "=" in a else value("m")
                max_count = int(v)
            elif a == "-e" or a.startswith("--regex"):
                regex = re.compile(a.split("=", 1)[1] if "=" in a else value("e"))
            elif a.startswith("--pid"):
                pid_filter = int(a.split("=", 1)[1] if "=" in a else value("pid"))
            elif a == "-f" or a.startswith("--file"):
                out_file = a.split("=", 1)[1] if "=" in a else value("f")
            elif a == "-G" or (a.startswith("-G") and len(a) > 2) or a.startswith("--buffer-size="):
                v = a.split("=", 1)[1] if a.startswith("--buffer-size=") else (a[2:] or value("G"))
                set_size = _byte_count(v)
                if set_size is None:
                    raise ValueError("-G must be specified as <num><multiplier>.")
            elif a in ("-D", "--dividers", "-B", "--binary", "-L", "-S", "--statistics", "-g", "--buffer-size"):
                if a in ("-B", "--binary"):
                    raise ValueError("binary output is not supported by the virtual device")
                if a in ("-g", "--buffer-size"):
                    get_size = True
            elif a.startswith("-") and a != "-":
                raise ValueError(f"invalid option -- '{a.lstrip('-')[:1]}'")
            else:
                specs.append(a)
    except (ValueError, re.error) as e:
        ctx.errln(f"logcat: {e}")
        return 1
    unknown = [b for b in buffers if b not in BUFFERS and b not in ("all", "default")]
    if unknown:
        ctx.errln(f"logcat: unknown buffer '{unknown[0]}'")
        return 1
    if "all" in buffers:
        chosen: set[str] = set(BUFFERS)
    else:
        chosen = {b for b in buffers if b != "default"} | (set(DEFAULT_BUFFERS) if "default" in buffers else set())
    chosen = chosen or set(DEFAULT_BUFFERS)
    logbuf = ctx.model.logbuf
    if set_size is not None:
        for b in sorted(chosen, key=BUFFERS.index):
            if not logbuf.set_size(b, set_size):
                ctx.errln(f"logcat: failed to set the '{b}' log size")
                return 1
    if get_size:
        for b in sorted(chosen, key=BUFFERS.index):
            size, used = _size_text(logbuf.sizes[b]), _size_text(logbuf.used(b))
            ctx.outln(f"{b}: ring buffer is {size} ({used} consumed), max entry is 5120 B, max payload is 4068 B")
    if clear:
        logbuf.clear(chosen)
    if clear or get_size or set_size is not None:
        return 0

    default_level = "S" if silent else "V"
    filters: dict[str, str] = {}
    for spec in specs:
        tag, _, level = spec.partition(":")
        level = (level or "V")[:1].upper()
        if level not in _LEVELS:
            ctx.errln(f"logcat: Invalid filter expression '{spec}'")
            return 1
        if tag == "*":
            default_level = level
        else:
            filters[tag] = level

    def wanted(e: LogEntry) -> bool:
        level = filters.get(e.tag, default_level)
        if _LEVELS.index(e.level) < _LEVELS.index(level) or level == "S":
            return False
        if pid_filter is not None and e.pid != pid_filter:
            return False
        return regex is None or regex.search(e.msg) is not None

    started: set[str] = set()
    printed = 0

    def emit(entries: list[LogEntry]) -> bool:
        nonlocal printed
        text = []
        for e in entries:
            if max_count is not None and printed >= max_count:
                break
            if e.buffer not in started:
                started.add(e.buffer)
                text.append(f"--------- beginning of {e.buffer}\n")
            text.append(_format(fmt, e))
            printed += 1
        if out_file is not None:
            try:
                ctx.model.fs.write(ctx.path(out_file), "".join(text).encode(), append=True)
            except OSError as err:
                ctx.errln(f"logcat: {out_file}: {err}")
                return False
        else:
            ctx.out("".join(text))
        return max_count is None or printed < max_count

    entries = [e for e in logbuf.entries(chosen) if wanted(e)]
    if tail is not None:
        entries = entries[-tail:] if tail else []
    last = logbuf.last_seq
    if not emit(entries) or dump:
        return 0
    while not ctx.io.closed:  # follows the log until the host hangs up, as logcat does
        if not logbuf.wait_new(last, 0.1):
            continue
        new = logbuf.entries(chosen, after=last)
        last = max([last] + [e.seq for e in new])
        if not emit([e for e in new if wanted(e)]):
            return 0
    return 0


@command("reboot")
def reboot(ctx: Ctx, argv: list[str]) -> int:
    """Refused: the virtual device does not reboot from a shell command (it is logged for tests)."""
    ctx.model.events.log("reboot", argv=list(argv), refused=True)
    ctx.errln("reboot: refused by the virtual device")
    return 1
