"""The reference agent over the whole virtual suite (en and zh, 2 in-process devices on the virtual clock: the same
episodes as on the real one, test_clock_parity.py) under a notification at another seed than test_perturb_run's (a
heads-up over whatever step the seed draws, dismissed before that step), under system dialogs, under in-app popups
and under the other language's system locale. Slow: about 10 s a run. Landscape (elements off the screen sought,
the keyboard hidden, what a milestone looks for brought into view, an end state's rows fitted on one screen), dark,
font=1.3, animations and the notification at seed 3: tests/harness/run/orchestration/test_perturb_run.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.run.fleet.pool import DevicePool
from harness.run.orchestration.suite import SuiteOptions, run_suite
from tests.run_util import FAST_WRITER


def _run(tmp_path: Path, perturb: str, seed: int = 7, langs: tuple[str, ...] = ("en", "zh")) -> list:
    opts = SuiteOptions(
        writer=FAST_WRITER,
        agent="reference",
        out=tmp_path,
        run_id=f"{perturb}-{seed}-{'-'.join(langs)}",
        report=False,
        perturb=perturb,
        perturb_seed=seed,
        langs=langs,
        clock="virtual",  # the same episodes as on the real clock (test_clock_parity.py), without the waits
    )
    with DevicePool(2, isolation="in_process", clock="virtual") as pool:
        return list(run_suite(opts, pool=pool).results)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [7])  # seed 3: tests/harness/run/orchestration/test_perturb_run.py
def test_the_reference_agent_dismisses_the_heads_up_and_keeps_sr_100_at_each_seed(tmp_path, seed):
    results = _run(tmp_path, "notification", seed)
    assert len(results) == 72
    assert [(r.task_id, r.lang) for r in results if not r.success] == []
    applied = [r for r in results if r.perturbations[0].applied]
    assert len(applied) == 72, "the notification came within every episode (its step inside the solution)"


@pytest.mark.slow
@pytest.mark.parametrize("perturb", ["dialog", "dialog=anr", "dialog=permission", "dialog=battery"])
def test_the_reference_agent_dismisses_a_system_dialog_and_keeps_sr_100(tmp_path, perturb):
    results = _run(tmp_path, perturb, 7)
    assert len(results) == 72
    assert [(r.task_id, r.lang) for r in results if not r.success] == []
    records = [r.perturbations[0] for r in results]
    applied = [p for p in records if p.applied]
    assert len(applied) == 72, "the dialog came within every episode (its step inside the solution)"
    assert all(p.name == "dialog" and p.step is not None for p in records)
    if "=" in perturb:
        assert {p.value for p in records} == {perturb.split("=")[1]}
    else:
        assert {p.value for p in records} == {"anr", "battery", "permission"}, "each kind drawn in some episode"


@pytest.mark.slow
@pytest.mark.parametrize("perturb", ["popup", "popup=promo"])
def test_the_reference_agent_dismisses_an_in_app_popup_and_keeps_sr_100(tmp_path, perturb):
    results = _run(tmp_path, perturb, 7)
    assert len(results) == 72
    assert [(r.task_id, r.lang) for r in results if not r.success] == []
    records = [r.perturbations[0] for r in results]
    applied = [p for p in records if p.applied]
    assert len(applied) >= 65, (len(applied), "the popup came within 90% of the episodes (an app on the screen)")
    if "=" not in perturb:
        assert {p.value for p in records} == {"rate", "promo"}


@pytest.mark.slow
def test_the_reference_agent_keeps_sr_100_under_the_other_languages_system_locale(tmp_path):
    """en episodes on devices whose system language is zh-CN and zh episodes under en-US, over the whole suite:
    the labels speak the device's language, the content (contacts, notes, messages) stays the episode's, and the
    solutions find what the other language's solution names."""
    results = _run(tmp_path, "locale=zh-CN", langs=("en",)) + _run(tmp_path, "locale=en-US", langs=("zh",))
    assert len(results) == 72
    assert [(r.task_id, r.lang) for r in results if not r.success] == []
    assert all(r.perturbations[0].applied for r in results)
