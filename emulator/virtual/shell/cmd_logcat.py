"""Logs: `log` writes to the device's log buffers; `logcat` reads them (buffers, formats, filters, -d/-t/-T/-m,
-e, -g, -G, -c ...) from `model.logbuf` (`emulator.virtual.procs`)."""

from __future__ import annotations

import re
import zoneinfo
from collections.abc import Callable
from datetime import datetime, timezone, tzinfo

from ..procs import BUFFERS, DEFAULT_BUFFERS, LogEntry
from .registry import Ctx, command

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


def stamper(modifiers: set[str], zone: tzinfo | None, boot_time: float) -> Callable[[float], str]:
    """logprint's time as the -v modifiers ask: `epoch` seconds right-aligned in 19 columns (what android_env's
    LogcatThread parses), `monotonic` seconds since boot in 6, else the date (`year`: with the year) in the device's
    local time, its `persist.sys.timezone` (`UTC`: in UTC); milliseconds after a dot."""

    def ms(t: float) -> str:
        return f".{int(t * 1000) % 1000:03d}"

    if "epoch" in modifiers:
        return lambda t: f"{int(t):19d}{ms(t)}"
    if "monotonic" in modifiers:
        return lambda t: f"{int(max(0.0, t - boot_time)):6d}{ms(max(0.0, t - boot_time))}"
    zone = timezone.utc if "UTC" in modifiers else zone
    date = "%Y-%m-%d %H:%M:%S" if "year" in modifiers else "%m-%d %H:%M:%S"
    return lambda t: datetime.fromtimestamp(t, zone).strftime(date) + ms(t)


def device_zone(name: str) -> tzinfo:
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return timezone.utc


def format_entry(fmt: str, e: LogEntry, zone: tzinfo | None = None, stamp: Callable[[float], str] | None = None) -> str:
    """One log entry as `logcat -v FMT` prints it (threadtime unless told), its time in `zone` (the device's), or
    as `stamp` writes it (`stamper`: the -v modifiers)."""
    time_of = stamp or stamper(set(), zone, 0.0)
    lines = e.msg.split("\n") if e.msg else [""]
    if fmt == "long":
        return f"[ {time_of(e.t)} {e.pid:5d}:{e.tid:5d} {e.level}/{e.tag:<8} ]\n{e.msg}\n\n"
    out = []
    for line in lines:
        if fmt == "brief":
            out.append(f"{e.level}/{e.tag:<8}({e.pid:5d}): {line}")
        elif fmt == "time":
            out.append(f"{time_of(e.t)} {e.level}/{e.tag:<8}({e.pid:5d}): {line}")
        elif fmt == "tag":
            out.append(f"{e.level}/{e.tag:<8}: {line}")
        elif fmt == "process":
            out.append(f"{e.level}({e.pid:5d}) {line}  ({e.tag})")
        elif fmt == "thread":
            out.append(f"{e.level}({e.pid:5d}:{e.tid:5d}) {line}")
        elif fmt == "raw":
            out.append(line)
        else:  # threadtime, the default
            out.append(f"{time_of(e.t)} {e.pid:5d} {e.tid:5d} {e.level} {e.tag:<8}: {line}")
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
    modifiers: set[str] = set()
    zone = device_zone(ctx.model.time_zone)
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
                    elif word in _FORMAT_MODIFIERS:
                        modifiers.add(word)
                    else:
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

    stamp = stamper(modifiers, zone, ctx.model.boot_time)
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
            text.append(format_entry(fmt, e, stamp=stamp))
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
