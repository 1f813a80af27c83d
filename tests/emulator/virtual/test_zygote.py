"""The device zygote's handle keeps no more than it must (issue 39's soak): a forked process's exit status goes
once its `ForkedProcess` collected it, and statuses nobody collects are bounded (`EXITS_KEPT`)."""

from __future__ import annotations

import pytest

from emulator.virtual import zygote as zygote_module
from emulator.virtual.zygote import Zygote

pytestmark = pytest.mark.integration

BAD_ARGV = ["--no-such-option"]  # the fork's devicemain refuses it: the child exits 2 at once


@pytest.fixture
def zygote(tmp_path):
    z = Zygote(str(tmp_path), langs=("en",), warm_after=None).start()
    yield z
    z.close()


def test_a_collected_exit_status_is_forgotten(zygote, tmp_path):
    for i in range(5):
        child = zygote.fork(BAD_ARGV, str(tmp_path), str(tmp_path / f"child{i}.log"))
        assert child.wait(timeout=30) == 2
        assert child.poll() == 2  # the child keeps its status ...
    assert zygote.pending_exits == 0  # ... and the zygote's table none of them


def test_uncollected_exit_statuses_are_bounded(zygote, tmp_path, monkeypatch):
    monkeypatch.setattr(zygote_module, "EXITS_KEPT", 2)
    pids = []
    for i in range(4):  # one after another, read through the zygote itself: nobody collects them
        pids.append(zygote.fork(BAD_ARGV, str(tmp_path), str(tmp_path / f"c{i}.log")).pid)
        assert zygote.wait_exit(pids[-1], timeout=30) == 2
    assert zygote.pending_exits == 2
    assert [zygote.exit_code(pid) for pid in pids] == [None, None, 2, 2]  # the oldest went first
