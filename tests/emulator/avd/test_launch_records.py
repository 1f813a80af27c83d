"""The emulators' records across processes: a port pair is claimed by one process at a time, and a stopping
emulator's owner drops only its own record, never the one another process wrote for the same port since."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from emulator.avd.errors import AvdConfigError
from emulator.avd.launch import RunningEmulator, claim_console_port, running_emulators, stop_emulator


@pytest.fixture(autouse=True)
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("DROIDHARNESS_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("DROIDHARNESS_EMULATOR_PORTS", "5640-5680")
    return tmp_path / "state"


def _exited_process() -> subprocess.Popen[bytes]:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc


def _write_record(emu: RunningEmulator) -> None:
    """The record as an emulator's starter writes it (`<state dir>/emulators/<console port>.json`)."""
    emu.record_path.write_text(json.dumps(emu.to_json()))


def _emulator(port: int, proc: subprocess.Popen[bytes]) -> RunningEmulator:
    return RunningEmulator("A", f"emulator-{port}", port, proc.pid, "", _process=proc)


def test_a_stopped_emulator_leaves_the_record_another_process_wrote_since(tmp_path: Path) -> None:
    port = claim_console_port()
    gone = _emulator(port, _exited_process())
    _write_record(gone)
    # another process finds the record stale (its emulator exited), claims the port and starts its own there
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)", "--console-port", str(port)])
    try:
        assert claim_console_port(port) == port
        newer = RunningEmulator("B", f"emulator-{port}", port, other.pid, "", owner=other.pid)
        _write_record(newer)
        stop_emulator(gone, timeout=1.0)  # the first owner finishes stopping its emulator
        assert json.loads(newer.record_path.read_text())["pid"] == other.pid
        assert [e.name for e in running_emulators()] == ["B"]
    finally:
        other.kill()
        other.wait()
    assert running_emulators() == [] and not newer.record_path.exists()  # now stale: dropped


def test_a_stopped_emulator_drops_its_own_record() -> None:
    port = claim_console_port()
    emu = _emulator(port, _exited_process())
    _write_record(emu)
    stop_emulator(emu, timeout=1.0)
    assert not emu.record_path.exists()


def test_a_claim_is_exclusive() -> None:
    port = claim_console_port()
    assert claim_console_port() != port  # the next free pair
    with pytest.raises(AvdConfigError, match="in use"):
        claim_console_port(port)
