"""A full disk while a run writes its records: `ENOSPC` (or `EDQUOT`, a full quota) becomes a `DiskFullError`
naming the run directory, the file and the bytes the write needed; the run stops (`harness.run.orchestration.driver`)
and the CLI says, in one line, how much to free and how to resume (`disk_full_line`), exit 3.

Nothing is half-written: every record file appears by an atomic replace of a complete temp file (the temp file
of a failed write is removed), a step line that did not fit is cut off again, and an episode whose write failed
has no `episode.json`, so it is unfinished and `--resume` runs it again.
"""

from __future__ import annotations

import errno
import json
import math
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from harness.errors import DiskFullError
from harness.trajectory.records import EPISODE_FILE, EPISODES_DIR, MANIFEST_FILE

DISK_FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT})
MB = 1024 * 1024


def is_disk_full(e: BaseException) -> bool:
    """Is `e` the file system saying there is no room (no space left, or the quota exceeded)?"""
    return isinstance(e, DiskFullError) or (isinstance(e, OSError) and e.errno in DISK_FULL_ERRNOS)


def _relative(path: Path, run_dir: Path | None) -> str:
    if run_dir is not None:
        try:
            return str(path.relative_to(run_dir))
        except ValueError:
            pass
    return str(path)


def run_dir_of(path: str | Path) -> Path | None:
    """The run directory holding `path` (the nearest parent with a manifest.json), if any."""
    for parent in Path(path).parents:
        if (parent / MANIFEST_FILE).is_file():
            return parent
    return None


def as_disk_full(e: OSError, path: Path, run_dir: Path | None, needed: int = 0) -> DiskFullError:
    return DiskFullError(_relative(path, run_dir), None if run_dir is None else str(run_dir), needed)


@contextmanager
def writing(path: Path, run_dir: Path | None, needed: int = 0) -> Iterator[None]:
    """Turn a full disk while writing `path` (`needed` bytes) into a `DiskFullError`; other errors pass."""
    try:
        yield
    except OSError as e:
        if e.errno in DISK_FULL_ERRNOS:
            raise as_disk_full(e, path, run_dir, needed) from e
        raise


def _tree_bytes(root: Path) -> int:
    total = 0
    for dirpath, _, files in os.walk(root):
        for name in files:
            try:
                total += os.lstat(os.path.join(dirpath, name)).st_size
            except OSError:
                pass
    return total


def space_needed(run_dir: Path, failed_bytes: int = 0) -> int:
    """About how many bytes the rest of the run needs: what the run wrote so far per finished episode, times the
    episodes not finished (at least one), plus the write that failed; at least 1 MB."""
    episodes = run_dir / EPISODES_DIR
    finished = sum(1 for p in episodes.glob(f"*/{EPISODE_FILE}")) if episodes.is_dir() else 0
    try:
        manifest = json.loads((run_dir / MANIFEST_FILE).read_text(encoding="utf-8"))
        suite = manifest.get("suite") or {}
        total = len(suite.get("task_ids") or []) * max(1, len(suite.get("languages") or []))
    except (OSError, ValueError, AttributeError, TypeError):
        total = 0
    left = max(1, total - finished)
    used = _tree_bytes(run_dir)
    per_episode = used / finished if finished else used
    return max(MB, int(per_episode * left) + failed_bytes)


def disk_full_line(e: BaseException) -> str:
    """The one line the CLI prints for a full disk: where, what, how much to free and how to go on."""
    if isinstance(e, DiskFullError):
        run_dir, path, failed, resumable = e.run_dir, e.path, e.needed, e.resumable
    else:
        name = getattr(e, "filename", None) or "?"
        found = run_dir_of(name) if name != "?" else None
        run_dir, path, failed, resumable = (
            None if found is None else str(found),
            _relative(Path(name), found),
            0,
            found is not None,
        )
    if run_dir is None:
        return f"disk full writing {path}; free some space and run again"
    mb = math.ceil(space_needed(Path(run_dir), failed) / MB) if Path(run_dir).is_dir() else math.ceil(failed / MB)
    then = f"resume with --resume {run_dir}" if resumable else "run again"
    return f"{run_dir}: disk full writing {path}; free at least {max(1, mb)} MB and {then}"
