"""A device's heap is trimmed at rest wherever it runs: `memtrim.IdleTrimmer`'s thread, held by every running
`VirtualDevice` (a device hosted in a harness's thread has no main loop of its own to trim it)."""

from __future__ import annotations

import threading

import pytest

from emulator.virtual import VirtualDevice, memtrim
from emulator.virtual.memtrim import IDLE_TRIMMER, IdleTrimmer


def test_the_trimmer_runs_while_held_and_ends_with_its_last_holder(monkeypatch: pytest.MonkeyPatch) -> None:
    called = threading.Event()
    monkeypatch.setattr(memtrim, "trim_if_idle", lambda: called.set() or False)
    trimmer = IdleTrimmer(every=0.001)
    trimmer.hold()
    trimmer.hold()
    assert trimmer.running and trimmer.holders == 2
    assert called.wait(30), "trim_if_idle is called while a device holds the trimmer"
    trimmer.release()
    assert trimmer.running and trimmer.holders == 1
    trimmer.release()
    trimmer.join(30)
    assert not trimmer.running and trimmer.holders == 0
    trimmer.release()  # one release too many does not go below nobody
    assert trimmer.holders == 0


def test_a_running_device_holds_the_trimmer_until_it_stops() -> None:
    before = IDLE_TRIMMER.holders
    vd = VirtualDevice().start()
    try:
        assert IDLE_TRIMMER.holders == before + 1 and IDLE_TRIMMER.running
    finally:
        vd.stop()
    assert IDLE_TRIMMER.holders == before
    vd.stop()  # stopping twice releases once
    assert IDLE_TRIMMER.holders == before


def test_a_device_built_but_never_started_holds_nothing() -> None:
    """The zygote builds a device to warm up and never starts it: it must fork with no thread of its own."""
    before = IDLE_TRIMMER.holders
    VirtualDevice()
    assert IDLE_TRIMMER.holders == before
