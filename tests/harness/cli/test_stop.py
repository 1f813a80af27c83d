"""SIGINT, SIGTERM and SIGHUP stop `droidharness run` alike (harness.stopping): through the real CLI, on two process
devices behind the real private adb server. The run exits 128 + the signal, its last lines say what it left and
which signal stopped it (no device failure, no retry), every process it started - the private adb server, the
device zygote, the device processes - is gone when it has exited, and `--resume` finishes the episode it
interrupted.

Ctrl-C and a terminal's hang-up reach the whole foreground process group, as `timeout` sends its signal; Docker,
systemd and a scheduler signal the main process: SIGINT and SIGHUP go to the run's process group here (the group
this test started it in), SIGTERM to its pid.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

INSTANCES = 4
SENT = {signal.SIGINT: "group", signal.SIGTERM: "pid", signal.SIGHUP: "group"}
NOTE = re.compile(r": (\d+) of (\d+) episodes done, (\d+) interrupted, (\d+) not begun: resume with --resume (\S+)$")


def _cmd(out: Path, *extra: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "harness",
        "run",
        "--agent",
        "reference",
        "--devices",
        "2",
        "--isolation",
        "process",
        "--clock",
        "virtual",
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
    run_dir = tmp_path / "stopped"
    proc = subprocess.Popen(
        _cmd(tmp_path, "--run-id", "stopped"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # a process group of the run's own, as a shell gives a foreground job
    )
    try:
        deadline = time.monotonic() + 120
        while not (_in_flight(run_dir) and list(run_dir.glob("episodes/*/episode.json"))):
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
