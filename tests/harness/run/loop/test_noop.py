"""A check that cannot fail is no check: the do-nothing agent (`noop`: HOME, then COMPLETE) scores 0 on every
bundled task in both languages - no milestone, no success - through the normal run loop."""

from __future__ import annotations

from harness.run.fleet.pool import DevicePool
from harness.run.orchestration.suite import SuiteOptions, run_suite
from tests.run_util import FAST_WRITER


def test_the_do_nothing_agent_scores_zero_on_every_bundled_task(tmp_path):
    with DevicePool(1, isolation="in_process") as pool:
        res = run_suite(
            SuiteOptions(writer=FAST_WRITER, agent="noop", out=tmp_path, run_id="noop", report=False), pool=pool
        )
    assert len(res.results) == 72 and {r.status for r in res.results} == {"failed"}
    scored = [(r.task_id, r.lang, r.progress, r.success) for r in res.results if r.progress or r.success]
    assert scored == [], scored
    assert all(r.steps == 2 for r in res.results)  # HOME, COMPLETE: the agent did run
    assert res.sr == 0.0 and res.atp == 0.0 and res.exit_code == 0
