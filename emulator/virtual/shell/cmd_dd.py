"""toybox dd, as Android ships it: `dd [if=FILE] [of=FILE] [ibs=N] [obs=N] [bs=N] [count=N] [skip=N] [seek=N]
[conv=notrunc|noerror|sync|fsync] [status=noxfer|none]`.

Blocks are read `ibs` bytes at a time (a pipe may hand back fewer: a partial record); with `bs` each block read is
written as it is, else the output is cut into `obs`-sized records. `skip` seeks the input (reads and drops from a
pipe), `seek` the output; without conv=notrunc the output file is cut at the seek offset. On stderr, unless
status= says otherwise: "F+P records in", "F+P records out", "N bytes (H) copied, S s, H/s" (H: toybox's
human_readable, S: the elapsed host seconds). Numbers take toybox's suffixes: c w b k m g t (k = 1024 ...; a `d`
after one makes it decimal: kd = 1000), in either case.
"""

from __future__ import annotations

import re
import time

from ..fs import FsError
from .devnodes import open_input, seekable
from .plumbing import Source
from .registry import Ctx, UsageError, command, fs_error_text

_UNITS = {"c": 1, "w": 2, "b": 512, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}
_DECIMAL = {"k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12}


def parse_size(text: str, low: int) -> int:
    """toybox's atolx_range(text, low, ...): an integer (0x hex, 0 octal) with an optional unit suffix."""
    m = re.fullmatch(r"\s*(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)([cwbkmgtCWBKMGT]?)([dD]?)", text)
    if m is None or (m.group(3) and m.group(2).lower() not in _DECIMAL):
        raise UsageError(f"dd: not integer: {text}")
    digits, unit, dec = m.groups()
    if digits[:2].lower() == "0x":
        value = int(digits, 16)
    else:
        value = int(digits, 8) if digits.startswith("0") else int(digits)
    if unit:
        value *= _DECIMAL[unit.lower()] if dec else _UNITS[unit.lower()]
    if value < low:
        raise UsageError(f"dd: {text} < {low}")
    return value


def human_readable(n: int) -> str:
    """toybox's human_readable(HR_SPACE|HR_B): at most 3 digits, one decimal below 10, units of 1024."""
    unit, snap = 0, 0
    while len(str(n)) > 3:
        snap = n
        n = (n + 512) // 1024
        unit += 1
    text = str(n)
    if unit and len(text) == 1:
        whole, rest = divmod(snap, 1024)
        text = f"{whole}.{((rest * 100 + 50) // 1024) // 10}"
    return f"{text} {' KMGTPE'[unit]}" if unit else f"{text} B"


class _Args:
    def __init__(self, argv: list[str]) -> None:
        self.ifile: str | None = None
        self.ofile: str | None = None
        self.ibs = self.obs = 512
        self.bs = 0
        self.count: int | None = None
        self.skip = self.seek = 0
        self.records, self.xfer = True, True
        self.conv: set[str] = set()
        for arg in argv[1:]:
            key, eq, val = arg.partition("=")
            if not eq:
                raise UsageError(f"dd: bad arg {arg}")
            if key == "bs":
                self.bs = parse_size(val, 1)
            elif key == "ibs":
                self.ibs = parse_size(val, 1)
            elif key == "obs":
                self.obs = parse_size(val, 1)
            elif key == "count":
                self.count = parse_size(val, 0)
            elif key == "skip":
                self.skip = parse_size(val, 0)
            elif key == "seek":
                self.seek = parse_size(val, 0)
            elif key == "if":
                self.ifile = val
            elif key == "of":
                self.ofile = val
            elif key == "status":
                if val == "noxfer":
                    self.xfer = False
                elif val == "none":
                    self.xfer = self.records = False
                else:
                    raise UsageError(f"dd: unknown status '{val}'")
            elif key == "conv":
                for c in val.split(","):
                    if c not in ("fsync", "noerror", "notrunc", "sync"):
                        raise UsageError(f"dd: bad conv={c}")
                    self.conv.add(c)
            else:
                raise UsageError(f"dd: bad arg {arg}")
        if self.bs:
            self.ibs = self.obs = self.bs


class _Counts:
    def __init__(self) -> None:
        self.in_full = self.in_part = self.out_full = self.out_part = self.bytes = 0


def _read_block(src: Source, size: int) -> bytes:
    """One read(2) of up to `size` bytes: a file or device gives all it has, a pipe what has arrived."""
    return src.read(size)


@command("dd", toybox=True)
def dd(ctx: Ctx, argv: list[str]) -> int:
    a = _Args(argv)
    started = time.perf_counter()
    in_name = a.ifile or "stdin"
    try:
        src = open_input(ctx, a.ifile if a.ifile is not None else "-")
    except (FsError, OSError) as e:
        ctx.errln(f"dd: {a.ifile}: {fs_error_text(e)}")
        return 1
    out_path = ctx.path(a.ofile) if a.ofile is not None else None
    fs = ctx.model.fs
    if out_path is not None:
        denied = ctx.write_error(out_path)
        if denied is None and fs.is_dir(out_path):
            denied = "Is a directory"
        if denied is not None:
            ctx.errln(f"dd: {a.ofile}: {denied}")
            return 1
    if a.skip:
        if seekable(src):
            src.read(a.skip * a.ibs)
        else:
            for _ in range(a.skip):
                if not _read_block(src, a.ibs):
                    ctx.outln(f"{in_name}: Can't skip")
                    return 0
    counts = _Counts()
    written = bytearray()  # what goes to of= (written to the file at the end)
    pending = bytearray()

    def emit(chunk: bytes, size: int) -> None:
        if len(chunk) == size:
            counts.out_full += 1
        else:
            counts.out_part += 1
        counts.bytes += len(chunk)
        if out_path is None:
            ctx.io.write_stdout(chunk)
        else:
            written.extend(chunk)

    while a.count is None or counts.in_full + counts.in_part < a.count:
        block = _read_block(src, a.ibs)
        if not block:
            break
        if len(block) == a.ibs:
            counts.in_full += 1
        else:
            counts.in_part += 1
            if "sync" in a.conv:
                block += bytes(a.ibs - len(block))
        if a.bs:
            emit(block, a.bs)
            continue
        pending.extend(block)
        while len(pending) >= a.obs:
            emit(bytes(pending[: a.obs]), a.obs)
            del pending[: a.obs]
    if pending:
        emit(bytes(pending), a.obs)
    if out_path is not None:
        _store(ctx, out_path, bytes(written), a)
    seconds = max(time.perf_counter() - started, 1e-6)
    if a.records:
        ctx.err(f"{counts.in_full}+{counts.in_part} records in\n{counts.out_full}+{counts.out_part} records out\n")
    if a.xfer:
        ctx.err(
            f"{counts.bytes} bytes ({human_readable(counts.bytes)}) copied, {seconds:f} s, "
            f"{human_readable(int(counts.bytes / seconds))}/s\n"
        )
    return 0


def _store(ctx: Ctx, path: str, data: bytes, a: _Args) -> None:
    """Put what dd wrote into the output file: opened with O_TRUNC (unless notrunc, or a seek), the seek offset
    then truncated to (unless notrunc), the data written there (a hole before it reads as NULs)."""
    fs = ctx.model.fs
    node = fs.stat(path)
    if node is not None and node.is_chr:
        return
    offset = a.seek * a.obs
    old = bytearray(fs.read(path)) if node is not None else bytearray()
    if "notrunc" not in a.conv:
        old = old[:offset] if a.seek else bytearray()
    if len(old) < offset:
        old.extend(bytes(offset - len(old)))
    old[offset : offset + len(data)] = data
    fs.write(path, bytes(old), owner=ctx.owner)
