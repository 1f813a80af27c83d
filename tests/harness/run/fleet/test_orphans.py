"""No orphans: private adb servers and their HOMEs do not outlive the harness, even after SIGKILL. The tests kill
only the Python processes they start, by pid; the harness' reaper kills the adb servers its dead owners left,
by the pid it recorded, after checking the process is still that server."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from tests.paths import REPO

ROOT = REPO
HOLD = (
    "from emulator.virtual.adbserver import PrivateAdbServer\n"
    "s = PrivateAdbServer().start()\n"
    "print(s.port, s.pid, s.home, flush=True)\n"
    "import time; time.sleep(120)\n"
)
NORMAL = (
    "from emulator.virtual.adbserver import PrivateAdbServer\n"
    "with PrivateAdbServer() as s:\n"
    "    print(s.port, flush=True)\n"
)


def _listening(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


def _env(state: Path) -> dict[str, str]:
    return {**os.environ, "DROIDHARNESS_STATE_DIR": str(state), "PYTHONPATH": str(ROOT)}


def test_five_sigkilled_runs_and_one_normal_run_leave_no_server_and_no_home(tmp_path):
    state = tmp_path / "state"
    left: list[tuple[int, int, str]] = []
    for _ in range(5):
        proc = subprocess.Popen([sys.executable, "-c", HOLD], env=_env(state), stdout=subprocess.PIPE, text=True)
        try:
            port, pid, home = proc.stdout.readline().split()  # type: ignore[union-attr]
        finally:
            proc.send_signal(signal.SIGKILL)  # the run we started, by its pid
            proc.wait(10)
        left.append((int(port), int(pid), home))
    # each run reaped the orphans of the runs killed before it; the last one's server is still up
    port5, _, home5 = left[-1]
    assert _listening(port5) and Path(home5).is_dir(), "a killed owner leaves its adb server running"
    assert not any(_listening(port) for port, _, _ in left[:-1])
    assert [p.name for p in (state / "adb-servers").glob("*.json")] == [f"{port5}.json"]

    normal = subprocess.run(
        [sys.executable, "-c", NORMAL], env=_env(state), capture_output=True, text=True, timeout=120
    )
    assert normal.returncode == 0, normal.stderr
    deadline = time.time() + 10
    while time.time() < deadline and any(_listening(port) for port, _, _ in left):
        time.sleep(0.05)
    assert not any(_listening(port) for port, _, _ in left), "the next run reaps every orphaned server"
    assert not any(Path(home).exists() for _, _, home in left), "and their private HOMEs"
    assert list((state / "adb-servers").glob("*.json")) == [], "the normal run cleaned up after itself too"
    assert [p for p in state.iterdir() if p.name.startswith("droidharness-adb-home-")] == []


def test_a_live_owners_server_is_never_reaped(tmp_path):
    state = tmp_path / "state"
    holder = subprocess.Popen([sys.executable, "-c", HOLD], env=_env(state), stdout=subprocess.PIPE, text=True)
    try:
        port = int(holder.stdout.readline().split()[0])  # type: ignore[union-attr]
        normal = subprocess.run(
            [sys.executable, "-c", NORMAL], env=_env(state), capture_output=True, text=True, timeout=120
        )
        assert normal.returncode == 0, normal.stderr
        assert _listening(port), "the server of a running harness is left alone"
        rec = json.loads((state / "adb-servers" / f"{port}.json").read_text())
        assert rec["owner"] == holder.pid and isinstance(rec["pid"], int)
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait(10)
    from emulator.virtual.adbserver import reap_orphans

    os.environ["DROIDHARNESS_STATE_DIR"] = str(state)
    try:
        assert reap_orphans() == [port]
    finally:
        del os.environ["DROIDHARNESS_STATE_DIR"]
    deadline = time.time() + 10
    while time.time() < deadline and _listening(port):
        time.sleep(0.05)
    assert not _listening(port)


def test_a_record_whose_pid_is_no_longer_an_adb_server_kills_nothing(tmp_path):
    """A recycled pid (the recorded server died, another process got its number) is never killed."""
    state = tmp_path / "state"
    (state / "adb-servers").mkdir(parents=True)
    bystander = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    dead_owner = subprocess.Popen([sys.executable, "-c", "pass"])
    dead_owner.wait(10)
    try:
        (state / "adb-servers" / "40001.json").write_text(
            json.dumps({"pid": bystander.pid, "port": 40001, "home": None, "owner": dead_owner.pid})
        )
        from emulator.virtual.adbserver import reap_orphans

        os.environ["DROIDHARNESS_STATE_DIR"] = str(state)
        try:
            assert reap_orphans() == [40001]
        finally:
            del os.environ["DROIDHARNESS_STATE_DIR"]
        assert bystander.poll() is None, "not an adb server on that port: left alive"
    finally:
        bystander.send_signal(signal.SIGKILL)
        bystander.wait(10)
