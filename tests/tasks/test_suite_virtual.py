"""The bundled `virtual` task suite: its shape, and its soundness on the in-process virtual device.

Soundness (per task, language and profile) is what `droidharness tasks check --in-process` proves, through the same
`harness.run.authoring.task_check.check_task`: the start state satisfies no final milestone, a do-nothing agent scores
0, and the reference solution reaches 100% progress with its end state holding (and a matching answer for question
tasks), on a virtual device in this process (no adb), on the virtual clock.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import pytest

from emulator.virtual.model import VirtualDeviceModel
from harness.run.authoring.task_check import CheckResult, check_task
from harness.run.fleet.pool import DevicePool
from tasks.schema import CATEGORIES, LANGS, ElementMatch, Milestone, MilestoneGroup, ReferenceStep, Task
from tasks.suite import load_suite, suite_packages, suite_path

PROFILES = ("medium_phone", "small_phone")


@pytest.fixture(scope="module")
def pools() -> Iterator[dict[str, DevicePool]]:
    # the device's waits pass on its clock: the same episodes as on the host's (test_clock_parity.py), no sleeping
    started = {p: DevicePool(1, [], profile=p, isolation="in_process", clock="virtual").start() for p in PROFILES}
    yield started
    for pool in started.values():
        pool.close()


def check(pools: dict[str, DevicePool], task: Task, lang: str, profile: str = PROFILES[0]) -> CheckResult:
    pool = pools[profile]
    pool.reset(0)
    pool.ensure_locale(0, lang)
    return check_task(task, lang, pool.slot(0))


SUITE = load_suite("virtual")
BY_ID = {t.id: t for t in SUITE}
CROSS_APP = {"1-3", "1-4"}
PACKAGES = set(VirtualDeviceModel().packages)


# --- shape -------------------------------------------------------------------------------------------------
def test_suite_size_and_categories() -> None:
    assert len(SUITE) >= 30
    counts = {c: sum(t.category == c for t in SUITE) for c in CATEGORIES}
    assert all(n >= 3 for n in counts.values()), counts
    assert len({t.id for t in SUITE}) == len(SUITE)
    single = [t for t in SUITE if len(t.apps) == 1]
    multi = [t for t in SUITE if len(t.apps) >= 2]
    assert single and multi


def test_file_names_are_ids() -> None:
    for f in sorted(suite_path("virtual").glob("*.json")):
        assert json.loads(f.read_text(encoding="utf-8"))["id"] == f.stem, f


def _matches(node: Milestone | MilestoneGroup) -> list[ElementMatch]:
    out: list[ElementMatch] = []
    for leaf in node.leaves() if isinstance(node, MilestoneGroup) else [node]:
        c = leaf.check
        out += ([c.element] if c.element else []) + list(c.all_elements) + list(c.absent)
    return out


@pytest.mark.parametrize("task", SUITE, ids=lambda t: t.id)
def test_task_shape(task: Task) -> None:
    assert set(task.instruction) == set(LANGS)
    assert re.search(r"[\u4e00-\u9fff]", task.instruction["zh"]), "the zh instruction should be Chinese"
    assert set(task.reference) == set(LANGS)
    for lang in LANGS:
        steps = task.reference[lang]
        assert steps and steps[-1].type in ("COMPLETE", "ANSWER"), f"{lang} reference must end the episode"
        assert sum(s.type in ("COMPLETE", "ANSWER") for s in steps) == 1
        if task.expected_answer is not None:
            assert steps[-1].type == "ANSWER", "a question task's reference ends with ANSWER"
    leaves = task.milestones.leaves()
    assert 2 <= len(leaves) <= 6
    ids = [m.id for m in leaves]
    assert len(ids) == len(set(ids))
    for m in leaves:  # every sub-target and localized value speaks both languages
        assert isinstance(m.sub_target, dict) and set(m.sub_target) == set(LANGS), m.id
    for em in _matches(task.milestones):
        for v in (em.text, em.desc):
            assert v is None or isinstance(v, str) or set(v) == set(LANGS), (em, v)
    assert task.apps and set(task.apps) <= PACKAGES
    if task.category in CROSS_APP:
        assert len(task.apps) >= 2
    assert set(task.apps) <= set(task.start.reset_apps), "every app the task uses starts clean"
    if task.start.open_app:
        assert task.start.open_app in task.apps
    longest = max(len(s) for s in task.reference.values())
    assert task.max_steps >= longest + 5


# --- soundness ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("task_id", sorted(BY_ID))
def test_reference_is_sound(pools: dict[str, DevicePool], task_id: str, lang: str, profile: str) -> None:
    r = check(pools, BY_ID[task_id], lang, profile)
    detail = "\n".join([str(r.error), f"start satisfies final milestones {r.start_violations}", f"missed {r.missed}"])
    assert not r.start_violations, detail
    assert r.error is None, detail
    assert r.progress == 1.0, detail
    assert r.answer_ok is not False, f"answer does not match the expected answer\n{detail}"
    assert r.ok


# --- the check can fail -----------------------------------------------------------------------------------
def _with(task: Task, **update) -> Task:
    return task.model_copy(update=update)


def test_check_fails_when_reference_stops_short(pools: dict[str, DevicePool]) -> None:
    t = BY_ID["notes-delete-and-create"]
    cut = {lang: steps[:-2] + steps[-1:] for lang, steps in t.reference.items()}  # never saves the note
    r = check(pools, _with(t, reference=cut), "en")
    assert not r.ok and r.progress < 1.0 and "dentist_saved" in r.missed


def test_check_fails_on_a_missing_element(pools: dict[str, DevicePool]) -> None:
    t = BY_ID["shop-search-add-cart"]
    steps = list(t.reference["en"])
    steps.insert(1, steps[3])  # click the product before the ad is closed and before searching
    r = check(pools, _with(t, reference={**t.reference, "en": tuple(steps)}), "en")
    assert not r.ok and r.error


def test_check_fails_when_start_state_already_done(pools: dict[str, DevicePool]) -> None:
    t = BY_ID["notes-wifi-password-question"]
    r = check(pools, _with(t, start=t.start.model_copy(update={"open_app": "com.droidharness.notes"})), "en")
    assert r.start_violations == ["found"] and not r.ok


def test_check_fails_on_a_wrong_answer(pools: dict[str, DevicePool]) -> None:
    t = BY_ID["weather-thursday-high"]
    ref = {lang: steps[:-1] + (ReferenceStep(type="ANSWER", text="75"),) for lang, steps in t.reference.items()}
    r = check(pools, _with(t, reference=ref), "en")
    assert r.progress == 1.0 and r.answer_ok is False and not r.ok


def test_suite_packages_are_the_apps_its_tasks_use_or_those_of_the_tasks_named():
    tasks = load_suite("virtual")
    assert suite_packages("virtual") == tuple(sorted({a for t in tasks for a in t.apps}))
    assert "com.google.android.deskclock" in suite_packages("virtual")
    clock = next(t for t in tasks if t.id.startswith("clock-"))
    assert suite_packages("virtual", (clock.id,)) == tuple(sorted(clock.apps))
