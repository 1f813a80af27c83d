"""One line for a failure (harness.errors.describe_error / describe_failure): a harness error says itself, other
exceptions name their type, and an exception no device, server or transport raises on its own also names where it
was raised - so an infrastructure failure caused by a bug is found from its record, not lost in a retry."""

from __future__ import annotations

import logging
from pathlib import Path

from harness.errors import DeviceError, describe_error, describe_failure
from harness.run.fleet.pool import DevicePool
from harness.run.orchestration.suite import SuiteOptions, run_suite
from tests.run_util import FAST_WRITER


def _raised(e: BaseException) -> BaseException:
    try:
        raise e
    except BaseException as caught:  # noqa: BLE001 - the point: an exception with its traceback
        return caught


def test_an_unexpected_exception_names_where_it_was_raised_and_an_expected_one_does_not():
    bug = _raised(BufferError("Existing exports of data: object cannot be re-sized"))
    line = _raised.__code__.co_firstlineno + 2
    where = f"(at tests/harness/test_errors.py:{line} in _raised)"
    assert describe_failure(bug) == f"BufferError: Existing exports of data: object cannot be re-sized {where}"
    assert describe_error(bug) == "BufferError: Existing exports of data: object cannot be re-sized"
    assert describe_failure(_raised(DeviceError("device X: gone"))) == "device X: gone"
    assert describe_failure(_raised(ConnectionResetError("reset"))) == "ConnectionResetError: reset"
    assert describe_failure(_raised(TimeoutError("late"))) == "TimeoutError: late"
    assert describe_failure(KeyError("never raised")) == "KeyError: 'never raised'", "no traceback: no place"


def test_a_bug_below_the_agent_is_retried_as_infrastructure_and_its_place_is_logged(tmp_path: Path, caplog):
    opts = SuiteOptions(
        writer=FAST_WRITER,
        agent="reference",
        out=tmp_path,
        run_id="bug",
        report=False,
        task_ids=("settings-dark-theme",),
        langs=("en",),
    )
    with DevicePool(1, isolation="in_process") as pool:
        device = pool.slot(0)

        def broken() -> object:
            raise BufferError("Existing exports of data: object cannot be re-sized")

        device.observe = broken  # type: ignore[method-assign]  # the first device only: its replacement works
        with caplog.at_level(logging.WARNING, logger="harness"):
            (result,) = run_suite(opts, pool=pool).results
        assert pool.slot(0) is not device, "replaced"
    assert result.success and result.attempts == 2
    failed = [r.getMessage() for r in caplog.records if "attempt 1 failed" in r.getMessage()]
    assert failed and "BufferError: Existing exports" in failed[0], failed
    assert "(at tests/harness/test_errors.py:" in failed[0] and "in broken)" in failed[0], failed
