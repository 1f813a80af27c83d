"""One writer per run directory: `RunLock(run_dir)` holds an exclusive `flock` on `run_dir/.lock` for as long as
a run (or a `--resume`) writes there. A second one is refused with a `ConfigError` naming the pid that holds the
lock. The kernel drops the lock when its holder dies, so a lock left by a killed run is simply taken over (the
file stays; its pid line is rewritten).
"""

from __future__ import annotations

import os
from pathlib import Path
from types import TracebackType

from harness.errors import ConfigError

try:  # POSIX; elsewhere the lock is advisory only through the pid file
    import fcntl
except ImportError:  # pragma: no cover
    fcntl = None  # type: ignore[assignment]  # reason: Windows has no fcntl; the lock degrades to the pid file

LOCK_FILE = ".lock"


def holder(run_dir: str | Path) -> str | None:
    """Who is writing `run_dir` now: the pid in its lock file while a run (or `--resume`) holds the lock, else
    None (finished, or killed). Only looks: the lock file is opened read-only and nothing is written."""
    path = Path(run_dir) / LOCK_FILE
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        if fcntl is None:  # pragma: no cover
            return None
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return os.pread(fd, 64, 0).decode(errors="replace").strip() or "another process"
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


class RunLock:
    def __init__(self, run_dir: str | Path) -> None:
        self.path = Path(run_dir) / LOCK_FILE
        self._fd: int | None = None

    def acquire(self) -> RunLock:
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        if fcntl is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = os.pread(fd, 64, 0).decode(errors="replace").strip() or "another process"
                os.close(fd)
                raise ConfigError(
                    f"{self.path.parent}: the run directory is in use by pid {holder} (a run or "
                    "--resume is still writing there); wait for it or stop it first"
                ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._fd = fd
        return self

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing drops the flock
            self._fd = None

    def __enter__(self) -> RunLock:
        return self.acquire()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()
