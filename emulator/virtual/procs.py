"""The virtual device's process table and its log buffer (what `ps`, `pidof`, `/proc` and `logcat` read).

Processes are records, never host processes. App processes live from the first start of one of their activities
to a force-stop, `pm clear` or uninstall; the next start gets a new pid, as on a device. Shell-launched daemons
(the uiautomator2 server) are added and removed by whoever runs them.

The log buffer keeps entries of the `main`, `system`, `crash` and `events` buffers (time, pid, tid, priority,
tag, message) in order; `logcat` prints and follows it. The model writes ActivityManager/ActivityTaskManager
lines for app starts and force-stops as system_server does.
"""

from __future__ import annotations

import threading
import time
import zlib
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .clock import DeviceClock, RealClock, monotonic_ns
from .lognoise import SystemChatter

# (user, name, pid, ppid): the processes a booted Android 14 image always has
SYSTEM_PROCESSES = [
    ("root", "init", 1, 0),
    ("root", "kthreadd", 2, 0),
    ("root", "ueventd", 180, 1),
    ("logd", "logd", 301, 1),
    ("system", "servicemanager", 310, 1),
    ("root", "vold", 330, 1),
    ("root", "zygote64", 640, 1),
    ("root", "zygote", 641, 1),
    ("system", "surfaceflinger", 705, 1),
    ("shell", "adbd", 802, 1),
    ("system", "system_server", 1012, 640),
    ("u0_a140", "com.android.systemui", 1201, 640),
    ("radio", "com.android.phone", 1330, 640),
    ("u0_a121", "com.google.android.inputmethod.latin", 1402, 640),
]
SYSTEM_SERVER_PID = 1012
ZYGOTE64_PID = 640
ADBD_PID = 802
SHELL_PID_BASE, SHELL_PID_TOP = 20000, 32000  # the shell's processes' pids (a 32768 pid_max, as on a phone)
# the command lines of the system processes whose argv differs from their name
SYSTEM_CMDLINES = {
    "init": "/system/bin/init second_stage",
    "ueventd": "/system/bin/ueventd",
    "logd": "/system/bin/logd",
    "servicemanager": "/system/bin/servicemanager",
    "vold": "/system/bin/vold --blkid_context=u:r:blkid:s0",
    "zygote64": "zygote64",
    "zygote": "zygote",
    "surfaceflinger": "/system/bin/surfaceflinger",
    "adbd": "/apex/com.android.adbd/bin/adbd --root_seclabel=u:r:su:s0",
}


def app_uid(package: str) -> int:
    return 10100 + zlib.crc32(package.encode()) % 400


@dataclass
class Daemon:
    user: str
    name: str  # argv[0]'s base name, what ps NAME and pidof match
    cmdline: str  # the whole command line (ps -o ARGS/CMDLINE, /proc/PID/cmdline)
    start: float  # when it started (seconds since the epoch, the device's clock)
    ppid: int = ADBD_PID  # its parent: adbd for a session's sh, the sh for what the sh runs


@dataclass
class DeviceProcs:
    """Pids of app processes and shell-launched daemons, plus per-device shell scratch state."""

    clock: DeviceClock = field(default_factory=RealClock, repr=False)
    next_pid: int = 4200
    app_pids: dict[str, int] = field(default_factory=dict)
    app_start: dict[str, float] = field(default_factory=dict)
    daemons: dict[int, Daemon] = field(default_factory=dict)
    motion: dict[str, tuple[float, float]] = field(default_factory=dict)  # `input motionevent` DOWN point
    pkg_meta: dict[str, Any] = field(default_factory=dict)  # package -> shell.pkgmeta.PackageMeta
    install_sessions: dict[int, dict[str, bytes]] = field(default_factory=dict)  # pm install-create ...
    frames: dict[str, FrameStats] = field(default_factory=dict)  # package -> HWUI frame statistics
    lock: threading.RLock = field(default_factory=threading.RLock)
    # pid -> deliver(signal) of the shell processes and jobs running now (what `kill PID` reaches)
    signal_targets: dict[int, Callable[[int], None]] = field(default_factory=dict)
    next_shell_pid: int = SHELL_PID_BASE  # shell processes count on their own, so app pids stay as they were

    def alloc(self) -> int:
        with self.lock:
            self.next_pid += 1 + (zlib.crc32(str(self.next_pid).encode()) % 37)
            return self.next_pid

    def start_app(self, package: str) -> tuple[int, bool]:
        """The pid of `package`'s process, started now if it is not running: (pid, started)."""
        with self.lock:
            pid = self.app_pids.get(package)
            if pid is not None:
                return pid, False
            pid = self.app_pids[package] = self.alloc()
            self.app_start[package] = self.clock.time()
            return pid, True

    def kill_app(self, package: str) -> int | None:
        with self.lock:
            self.app_start.pop(package, None)
            self.frames.pop(package, None)
            return self.app_pids.pop(package, None)

    def add_daemon(self, user: str, name: str, cmdline: str | None = None, ppid: int = ADBD_PID) -> int:
        pid = self.alloc()
        with self.lock:
            self.daemons[pid] = Daemon(user, name, cmdline or name, self.clock.time(), ppid)
        return pid

    def add_shell_process(self, name: str, cmdline: str, ppid: int, user: str = "shell") -> int:
        """A process of an `adb shell` session (its sh, what the sh runs, its jobs): listed by ps and /proc with
        its parent until `remove_daemon`. Their pids come from a counter of their own above the apps' range."""
        with self.lock:
            in_use = set(self.daemons) | set(self.app_pids.values())
            pid = self.next_shell_pid
            while pid in in_use:
                pid += 1
            self.next_shell_pid = pid + 1 if pid < SHELL_PID_TOP else SHELL_PID_BASE
            self.daemons[pid] = Daemon(user, name, cmdline or name, self.clock.time(), ppid)
            return pid

    def remove_daemon(self, pid: int) -> None:
        with self.lock:
            self.daemons.pop(pid, None)


# --- frame statistics (dumpsys gfxinfo) ------------------------------------------------------------------
FRAME_INTERVAL_NS = 16_666_667  # 60 Hz


@dataclass
class FrameStats:
    """What HWUI's JankTracker keeps for one process: frames drawn since `since_ns`, the slow ones, and a
    histogram of frame durations in ms; plus the last 120 frames' timelines (`framestats`)."""

    clock: DeviceClock = field(default_factory=RealClock, repr=False)
    since_ns: int = -1  # -1: now, on `clock`
    total: int = 0
    janky: int = 0
    missed_vsync: int = 0
    slow_ui: int = 0
    histogram: dict[int, int] = field(default_factory=dict)  # bucket (ms) -> frames
    recent: deque = field(default_factory=lambda: deque(maxlen=120))  # (intended vsync ns, duration ns)

    def __post_init__(self) -> None:
        if self.since_ns < 0:
            self.since_ns = monotonic_ns(self.clock)

    def add(self, durations_ms: list[float]) -> None:
        t = monotonic_ns(self.clock)
        for k, d in enumerate(durations_ms):
            self.total += 1
            if d > FRAME_INTERVAL_NS / 1e6:
                self.janky += 1
                self.missed_vsync += int(d // (FRAME_INTERVAL_NS / 1e6))
                self.slow_ui += 1
            bucket = frame_bucket(d)
            self.histogram[bucket] = self.histogram.get(bucket, 0) + 1
            start = t - (len(durations_ms) - k) * FRAME_INTERVAL_NS
            self.recent.append((start, int(d * 1e6)))


def histogram_buckets() -> list[int]:
    """HWUI's frame-time buckets in ms: 5..32 by 1, then by 2 to 50, by 5 to 150, by 50 to 1000, by 100 to 4950."""
    return (
        list(range(5, 32))
        + list(range(32, 50, 2))
        + list(range(50, 150, 5))
        + list(range(150, 1000, 50))
        + list(range(1000, 5000, 100))
    )


def frame_bucket(ms: float) -> int:
    best = 5
    for b in histogram_buckets():
        if ms >= b:
            best = b
    return best


# --- the log buffer ------------------------------------------------------------------------------------
BUFFERS = ("main", "system", "radio", "events", "crash", "kernel")
DEFAULT_BUFFERS = ("main", "system", "crash")  # what `logcat` reads without -b
CHATTER_POLL = 0.25  # seconds a following reader waits at most: a virtual clock moves without notifying it
BUFFER_LIMIT = 20000  # entries kept per device at most (a ring, oldest dropped first)
DEFAULT_BUFFER_SIZE = 256 * 1024  # logd's per-buffer size without ro.logd.size (`logcat -g`; `logcat -G` sets it)
MIN_BUFFER_SIZE, MAX_BUFFER_SIZE = 64 * 1024, 256 * 1024 * 1024  # LOG_BUFFER_MIN_SIZE, LOG_BUFFER_MAX_SIZE
ENTRY_OVERHEAD = 20  # bytes logd accounts per entry besides priority, tag and message (SerializedLogEntry)


@dataclass(frozen=True, slots=True)
class LogEntry:
    seq: int
    t: float
    pid: int
    tid: int
    level: str  # V D I W E F
    tag: str
    msg: str
    buffer: str = "main"

    @property
    def size(self) -> int:
        """What logd counts against the buffer's size: header, priority byte, tag and message with their NULs."""
        return ENTRY_OVERHEAD + 1 + len(self.tag.encode()) + 1 + len(self.msg.encode()) + 1


class LogBuffer:
    """logd for one device: appends wake up `logcat` readers that follow the log. Each buffer is a ring of
    `sizes[buffer]` bytes (oldest entries dropped first). With a `chatter` (`lognoise.SystemChatter`) the log also
    gets the lines an idle phone writes, made when the log is read or written (in time order, nothing runs idle)."""

    def __init__(self, chatter: SystemChatter | None = None, clock: DeviceClock | None = None) -> None:
        self.clock = clock or RealClock()  # what lines are stamped with and chatter comes due by
        self._entries: deque[LogEntry] = deque(maxlen=BUFFER_LIMIT)
        self._cond = threading.Condition()
        self._seq = 0
        self.chatter = chatter
        self.offset = 0.0  # the device clock's lead on the host's: lines are stamped with the device's time
        self.sizes: dict[str, int] = {b: DEFAULT_BUFFER_SIZE for b in BUFFERS}
        self._used: dict[str, int] = {b: 0 for b in BUFFERS}

    def _append(self, e: LogEntry) -> None:
        if len(self._entries) == self._entries.maxlen:
            old = self._entries[0]
            self._used[old.buffer] -= old.size
        self._entries.append(e)
        self._used[e.buffer] = self._used.get(e.buffer, 0) + e.size
        if self._used[e.buffer] > self.sizes.get(e.buffer, DEFAULT_BUFFER_SIZE):
            self._prune(e.buffer)

    def _prune(self, buffer: str) -> None:
        """Drop the buffer's oldest entries until it fits (logd prunes a full buffer the same way)."""
        limit = self.sizes.get(buffer, DEFAULT_BUFFER_SIZE)
        drop: list[int] = []
        used = self._used[buffer]
        for i, e in enumerate(self._entries):  # the oldest first; usually one entry makes room
            if used <= limit:
                break
            if e.buffer == buffer:
                used -= e.size
                drop.append(i)
        for i in reversed(drop):
            del self._entries[i]
        self._used[buffer] = used

    def _catch_up(self) -> None:
        """Append the chatter lines due by now (caller holds the lock)."""
        if self.chatter is None:
            return
        for line in self.chatter.due(self.clock.time()):
            self._seq += 1
            self._append(
                LogEntry(
                    self._seq, line.t + self.offset, line.pid, line.tid, line.level, line.tag, line.msg, line.buffer
                )
            )

    def used(self, buffer: str) -> int:
        """Bytes the buffer holds now (`logcat -g`'s "consumed")."""
        with self._cond:
            self._catch_up()
            return self._used.get(buffer, 0)

    def set_size(self, buffer: str, size: int) -> bool:
        """`logcat -G`: False when logd would refuse the size."""
        if not MIN_BUFFER_SIZE <= size <= MAX_BUFFER_SIZE:
            return False
        with self._cond:
            self.sizes[buffer] = size
            if self._used.get(buffer, 0) > size:
                self._prune(buffer)
        return True

    def write(
        self,
        level: str,
        tag: str,
        msg: str,
        pid: int = SYSTEM_SERVER_PID,
        tid: int | None = None,
        buffer: str = "main",
        t: float | None = None,
    ) -> LogEntry:
        with self._cond:
            self._catch_up()
            self._seq += 1
            e = LogEntry(
                self._seq,
                self.clock.time() + self.offset if t is None else t,
                pid,
                pid if tid is None else tid,
                (level[:1] or "I").upper(),
                tag,
                msg,
                buffer,
            )
            self._append(e)
            self._cond.notify_all()
            return e

    def entries(self, buffers: tuple[str, ...] | set[str] = DEFAULT_BUFFERS, after: int = 0) -> list[LogEntry]:
        with self._cond:
            self._catch_up()
            return [e for e in self._entries if e.seq > after and e.buffer in buffers]

    def clear(self, buffers: tuple[str, ...] | set[str] = DEFAULT_BUFFERS) -> None:
        with self._cond:
            self._catch_up()
            kept = [e for e in self._entries if e.buffer not in buffers]
            self._entries.clear()
            self._entries.extend(kept)
            for b in buffers:
                self._used[b] = 0

    def wait_new(self, after: int, timeout: float) -> bool:
        """Wait until an entry newer than seq `after` exists (True) or `timeout` passes (False); chatter lines
        count as they come due."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                self._catch_up()
                if self._seq > after:
                    return True
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                if self.chatter is not None:
                    left = min(left, max(0.001, self.chatter.next_at - self.clock.time()), CHATTER_POLL)
                self._cond.wait(left)

    def kept(self) -> int:
        """Entries kept in all buffers (at most `BUFFER_LIMIT`), as of the last read or write."""
        return len(self._entries)

    @property
    def last_seq(self) -> int:
        with self._cond:
            self._catch_up()
            return self._seq
