"""The device's processes as `ps`, `kill`, `dumpsys` and /proc see them: the system processes, each running app's
process (`running_packages`, `app_pid`), the uiautomator2 server and the daemons adbd started - from the
model's process table (`emulator.virtual.procs`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..procs import ADBD_PID, SYSTEM_CMDLINES, SYSTEM_PROCESSES, ZYGOTE64_PID, app_uid

if TYPE_CHECKING:  # pragma: no cover
    from ..model import VirtualDeviceModel


def running_packages(model: VirtualDeviceModel) -> list[str]:
    """Packages with a live process: every task's app plus processes kept after BACK (app_ui state)."""
    with model.lock:
        names = [t.package for t in model.tasks] + list(model.app_ui)
        return [n for n in dict.fromkeys(names) if n in model.packages]


def app_pid(model: VirtualDeviceModel, package: str) -> int:
    """The pid of a running package's process (a new one after it was stopped)."""
    p = model.procs
    alive = set(running_packages(model))
    with p.lock:
        for name in [n for n in p.app_pids if n not in alive]:
            p.kill_app(name)
        return p.start_app(package)[0]


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
        return uid_of(self.user)

    @property
    def comm(self) -> str:
        """The kernel's 15-character thread name (Android keeps the tail of a long process name)."""
        return self.name if len(self.name) <= 15 else self.name[-15:]


_NAMED_UIDS = {"root": 0, "system": 1000, "radio": 1001, "logd": 1036, "shell": 2000}


def uid_of(user: str) -> int:
    if user in _NAMED_UIDS:
        return _NAMED_UIDS[user]
    if user.startswith("u0_a") and user[4:].isdigit():
        return 10000 + int(user[4:])
    return int(user) if user.isdigit() else -1


def process_table(model: VirtualDeviceModel, shell_pid: int | None = None) -> list[Proc]:
    """Every process on the device, pid order: the system's, the apps', the daemons and every `adb shell`
    session's processes (`DeviceProcs.add_shell_process`); plus the shell `shell_pid` and `ps` itself when that
    shell is not in the table."""
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
        Proc(d.user, pid, d.ppid, d.name, d.cmdline, False, d.start) for pid, d in daemons.items() if pid != u2_pid
    ]
    if shell_pid is not None and shell_pid not in daemons:  # a shell not in the table (run outside a session)
        sh = shell_pid
        rows += [
            Proc("shell", sh, ADBD_PID, "sh", "/system/bin/sh -c", False, model.clock.time()),
            Proc("shell", sh + 3, sh, "ps", "ps", False, model.clock.time()),
        ]
    return sorted(rows, key=lambda r: r.pid)


def process_rows(model: VirtualDeviceModel) -> list[tuple[str, int, int, str]]:
    """(user, pid, ppid, name) of every process on the device, pid order."""
    return [(r.user, r.pid, r.ppid, r.name) for r in process_table(model)]
