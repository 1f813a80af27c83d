"""SIGINT, SIGTERM and SIGHUP stop `droidharness run` alike (harness.stopping): through the real CLI, on two process
devices behind the real private adb server. The run exits 128 + the signal, its last lines say what it left and
which signal stopped it (no device failure, no retry), every process it started - the private adb server, the
device zygote, the device processes - is gone when it has exited, and `--resume` finishes the episode it
interrupted.

Which episodes are in flight when the signal lands is not left to timing: the run's agent is a plug-in (`held`,
installed for the run as a third-party package is, by entry point) that plays the reference solution but, while the
test's gate file exists, holds every episode but the run's first at its second step. The trajectory on disk trails
the run (its writer thread runs at a lower priority): a run whose files showed one episode done and one under way had
finished all four in memory when the signal landed on a loaded machine.

Ctrl-C and a terminal's hang-up reach the whole foreground process group, as `timeout` sends its signal; Docker,
systemd and a scheduler signal the main process: SIGINT and SIGHUP go to the run's process group here (the group
this test started it in), SIGTERM to its pid.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

INSTANCES = 4
SENT = {signal.SIGINT: "group", signal.SIGTERM: "pid", signal.SIGHUP: "group"}
NOTE = re.compile(r": (\d+) of (\d+) episodes done, (\d+) interrupted, (\d+) not begun: resume with --resume (\S+)$")


HELD_AGENT = '''
import itertools, os, threading, time
from pathlib import Path

from agents.reference import ReferenceAgent

_episodes = itertools.count()
_lock = threading.Lock()


class HeldAgent(ReferenceAgent):
    """The reference agent; while $HELD_GATE exists, every episode but the run's first is held at its second step
    (after touching held-<n> beside the gate) until the gate goes."""

    def reset(self, ctx):
        super().reset(ctx)
        with _lock:
            self._episode = next(_episodes)
        self._acted = 0

    def act(self, observation, history):
        self._acted += 1
        gate = os.environ.get("HELD_GATE")
        if gate and self._episode > 0 and self._acted == 2:
            Path(f"{gate}-held-{self._episode}").touch()
            while Path(gate).exists():
                time.sleep(0.01)
        return super().act(observation, history)
'''


def _held_agent(where: Path) -> Path:
    """Install the `held` agent plug-in under `where` as a package is installed (a module and a dist-info whose
    entry point names it); the folder to put on PYTHONPATH."""
    site = where / "site"
    dist = site / "heldagent-0.dist-info"
    dist.mkdir(parents=True)
    (site / "heldagent.py").write_text(HELD_AGENT)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: heldagent\nVersion: 0\n")
    (dist / "entry_points.txt").write_text("[droidharness.agents]\nheld = heldagent:HeldAgent\n")
    return site


def _cmd(out: Path, *extra: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "harness",
        "run",
        "--agent",
        "held",
        "--devices",
        "2",
        "--isolation",
        "process",
        "--family",
        "clock-alarm",
        "--instances",
        str(INSTANCES),
        "--lang",
        "en",
        "--out",
        str(out),
        "--no-report",
        *extra,
    ]


def _in_flight(run_dir: Path) -> list[Path]:
    """Episodes begun (a step recorded) and not finished (no episode.json)."""
    return [
        d
        for d in sorted(run_dir.glob("episodes/*"))
        if not (d / "episode.json").exists() and (d / "steps.jsonl").is_file() and (d / "steps.jsonl").stat().st_size
    ]


def _children(pid: int) -> set[int]:
    """Every process below `pid` (through /proc's parent pids)."""
    parents: dict[int, int] = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                parents[int(d.name)] = int((d / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
    found: set[int] = set()
    while True:
        more = {p for p, parent in parents.items() if parent in found | {pid}} - found
        if not more:
            return found
        found |= more


def _recorded(state: Path) -> dict[str, set[int]]:
    """The pids the run recorded in its state directory: its private adb server(s), its zygote and devices."""
    out: dict[str, set[int]] = {"adb-servers": set(), "devices": set()}
    for kind in out:
        for f in (state / kind).glob("*.json"):
            pid = json.loads(f.read_text()).get("pid")
            if isinstance(pid, int):
                out[kind].add(pid)
    return out


def _running(pid: int) -> bool:
    """Still a live process (a zombie waiting for init to reap it has ended)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


@pytest.mark.slow
@pytest.mark.parametrize("sig", list(SENT), ids=lambda s: signal.Signals(s).name)
def test_a_signal_stops_a_run_and_leaves_nothing_but_a_resumable_run(sig, tmp_path, monkeypatch):
    state = tmp_path / "state"  # the run's records of what it started (emulator.virtual.statedir)
    monkeypatch.setenv("DROIDHARNESS_STATE_DIR", str(state))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(_held_agent(tmp_path)), os.environ.get("PYTHONPATH", "")]))
    gate = tmp_path / "gate"
    gate.touch()
    run_dir = tmp_path / "stopped"
    proc = subprocess.Popen(
        _cmd(tmp_path, "--run-id", "stopped"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # a process group of the run's own, as a shell gives a foreground job
        env={**os.environ, "HELD_GATE": str(gate)},
    )
    try:
        deadline = time.monotonic() + 120
        while not (
            list(tmp_path.glob("gate-held-*"))  # an episode held in flight, and its first step on disk
            and _in_flight(run_dir)
            and list(run_dir.glob("episodes/*/episode.json"))
        ):
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "no episode got done and another under way"
            time.sleep(0.005)
        recorded = _recorded(state)
        started = _children(proc.pid) | recorded["adb-servers"] | recorded["devices"]
        if SENT[sig] == "group":
            os.killpg(proc.pid, sig)  # the group this test started the run in
        else:
            proc.send_signal(sig)  # the run this test started, by its pid
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()

    said = out + err
    assert proc.returncode == 128 + sig, said
    last = err.strip().splitlines()
    assert last[-1] == f"stopped by {signal.Signals(sig).name}", said
    note = NOTE.search(last[-2])
    assert note is not None, said
    done, total, interrupted, left = (int(note.group(i)) for i in range(1, 5))
    assert (total, note.group(5)) == (INSTANCES, str(run_dir)), said
    assert done >= 1 and interrupted >= 1 and done + interrupted + left == INSTANCES, said
    for what in ("attempt", "failed", "restarting", "Traceback", "quarantined"):
        assert what not in said, f"a stop is no device failure: {what!r} in\n{said}"

    assert len(recorded["adb-servers"]) == 1 and len(recorded["devices"]) == 3, recorded  # the zygote and 2 devices
    assert recorded["devices"] <= started, "the zygote and the devices are the run's children"
    left_running = {pid for pid in started if _running(pid)}
    assert not left_running, f"processes the run started outlived it: {left_running}"
    assert _recorded(state) == {"adb-servers": set(), "devices": set()}, "each record went with its process"

    unfinished = {d.name for d in run_dir.glob("episodes/*") if not (d / "episode.json").exists()}
    assert len(unfinished) == interrupted
    resumed = subprocess.run(_cmd(tmp_path, "--resume", str(run_dir)), capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert f"{done} already done" in resumed.stdout
    finished = {d.parent.name: json.loads(d.read_text()) for d in run_dir.glob("episodes/*/episode.json")}
    assert len(finished) == INSTANCES
    assert {finished[name]["status"] for name in unfinished} == {"success"}, "the interrupted episodes ran again"


def _stopped(proc: subprocess.Popen[str], sig: int) -> tuple[str, str]:
    """Send `sig` to the process this test started (by its pid); its output once it has exited."""
    proc.send_signal(sig)
    try:
        return proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


@pytest.mark.parametrize("sig", list(SENT), ids=lambda s: signal.Signals(s).name)
def test_virtual_start_stops_its_device_on_a_signal(sig):
    proc = subprocess.Popen(
        [sys.executable, "-m", "harness", "virtual", "start"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    serial = proc.stdout.readline().strip()  # printed once the device listens
    out, err = _stopped(proc, sig)
    assert proc.returncode == 128 + sig, out + err
    assert err.strip().splitlines()[-1] == f"stopped by {signal.Signals(sig).name}", err
    host, port = serial.rsplit(":", 1)
    with pytest.raises(ConnectionRefusedError):  # the device stopped listening
        socket.create_connection((host, int(port)), timeout=5).close()


def test_mcp_finishes_its_session_and_stops_its_device_on_sigterm(tmp_path, monkeypatch):
    """An MCP client closes its stdio server with SIGTERM: the scored session is finished ("closed"), the device and
    the private adb server stopped, exit 143."""
    state = tmp_path / "state"
    monkeypatch.setenv("DROIDHARNESS_STATE_DIR", str(state))
    proc = subprocess.Popen(
        [sys.executable, "-m", "harness", "mcp", "--task", "clock-world-time", "--out", str(tmp_path), "--run-id", "s"],
        stdin=subprocess.PIPE,  # the MCP channel, left open: the session goes on until the signal
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stderr is not None
    said = ""
    while "recording to" not in said:
        line = proc.stderr.readline()
        assert line, f"mcp ended before its session began: {said}"
        said += line
    servers = _recorded(state)["adb-servers"]
    out, err = _stopped(proc, signal.SIGTERM)
    assert proc.returncode == 128 + signal.SIGTERM, said + err
    assert err.strip().splitlines()[-1] == "stopped by SIGTERM", said + err
    episode = json.loads((tmp_path / "s" / "episodes" / "clock-world-time__en" / "episode.json").read_text())
    assert episode["extra"]["terminated_by"] == "closed"  # finished and scored with what it reached
    assert len(servers) == 1 and not any(_running(pid) for pid in servers), servers
    assert _recorded(state) == {"adb-servers": set(), "devices": set()}


GYM_LOOP = """
import gymnasium, harness.gym
env = gymnasium.make("droidharness/Task-v0", task="clock-world-time", isolation="process", clock="virtual")
env.reset(seed=0)
print("ready", flush=True)
while True:  # a training loop that never closes its env
    _, _, terminated, truncated, _ = env.step('{"type": "WAIT", "seconds": 1}')
    if terminated or truncated:
        env.reset()
"""


def test_a_gym_program_stopped_by_sigterm_leaves_none_of_the_env_processes(tmp_path, monkeypatch):
    state = tmp_path / "state"
    monkeypatch.setenv("DROIDHARNESS_STATE_DIR", str(state))
    proc = subprocess.Popen([sys.executable, "-c", GYM_LOOP], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "ready", proc.communicate()
    recorded = _recorded(state)
    started = _children(proc.pid) | recorded["adb-servers"] | recorded["devices"]
    out, err = _stopped(proc, signal.SIGTERM)
    assert proc.returncode == 128 + signal.SIGTERM, err  # unwound as on Ctrl-C, with SIGTERM's exit code
    assert "Traceback" not in err, err
    assert len(recorded["adb-servers"]) == 1 and len(recorded["devices"]) == 1, recorded
    assert not {pid for pid in started if _running(pid)}, "the env's device and adb server outlived the program"
    assert _recorded(state) == {"adb-servers": set(), "devices": set()}
