"""`run --perturb` end to end (docs/robustness.md): a perturbed run's manifest (the list and the seed), each
episode.json's `perturbations` (name, value, step, applied, reason), summary.json and the report; a resumed run
keeps its perturbations; the locale switched by the pool's own language switch, and refused on a phone, which gets
every screen condition put back after its episodes; the do-nothing agent scores 0 under each perturbation, and the
reference agent keeps SR 100% under each over the virtual suite in en and zh (slow; the other language's locale:
tests/agents/test_reference_perturbed.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.errors import ConfigError
from harness.perturbation import PerturbationRecord
from harness.report.render import write_report
from harness.run.fleet.pool import DevicePool
from harness.run.orchestration.suite import SuiteOptions, run_suite
from harness.trajectory.reader import load_run
from tests.run_util import FAST_WRITER

PLAN = "dark,font=1.3,notification,locale=zh-CN"


def _opts(tmp_path: Path, run_id: str, **kw) -> SuiteOptions:
    base = {"writer": FAST_WRITER, "agent": "reference", "out": tmp_path, "run_id": run_id, "report": False}
    return SuiteOptions(**{**base, **kw})


def test_a_perturbed_runs_manifest_episodes_summary_and_report(tmp_path):
    tasks = ("settings-dark-theme", "messages-text-number")
    with DevicePool(1, isolation="in_process") as pool:
        run_suite(_opts(tmp_path, "p", task_ids=tasks, perturb=PLAN, perturb_seed=5), pool=pool)
        run_suite(_opts(tmp_path, "clean", task_ids=tasks[1:], langs=("en",)), pool=pool)
    manifest = json.loads((tmp_path / "p" / "manifest.json").read_text())
    assert manifest["perturb"] == {"perturbations": ["dark", "font=1.3", "notification", "locale=zh-CN"], "seed": 5}
    dark_en = json.loads((tmp_path / "p" / "episodes" / "settings-dark-theme__en" / "episode.json").read_text())
    rows = dark_en["perturbations"]
    assert [list(r) for r in rows] == [["name", "value", "step", "applied", "reason"]] * 4
    assert rows[0] == {
        "name": "dark",
        "value": None,
        "step": None,
        "applied": False,
        "reason": "the task's start state sets secure:ui_night_mode, which dark changes",
    }
    assert rows[1] == {"name": "font", "value": "1.3", "step": None, "applied": True, "reason": ""}
    assert rows[2]["name"] == "notification" and isinstance(rows[2]["step"], int) and rows[2]["step"] >= 1
    assert rows[3] == {"name": "locale", "value": "zh-CN", "step": None, "applied": True, "reason": ""}
    run = load_run(tmp_path / "p")
    zh = run.episode("messages-text-number", "zh").meta
    assert zh is not None
    locale = zh.to_result().perturbations[3]
    assert locale == PerturbationRecord("locale", "zh-CN", None, False, "zh-CN is the episode's own language")
    assert "perturbations" not in json.loads(
        (tmp_path / "clean" / "episodes" / "messages-text-number__en" / "episode.json").read_text()
    ), "an unperturbed run's episodes carry none"
    html = write_report(tmp_path / "p").read_text()
    assert '<span class="badge pert" title="applied">font=1.3</span>' in html
    assert "not applied: the task&#x27;s start state sets secure:ui_night_mode" in html
    summary = json.loads((tmp_path / "p" / "summary.json").read_text())
    assert summary["perturb"]["applied"]["dark"] == 2 and summary["perturb"]["applied"]["locale=zh-CN"] == 2
    assert summary["perturb"]["episodes"] == 4 and summary["perturb"]["seed"] == 5


def test_a_resumed_run_keeps_its_perturbations(tmp_path):
    one = {"task_ids": ("messages-text-number",), "langs": ("en", "zh")}
    with DevicePool(1, isolation="in_process") as pool:
        run_suite(_opts(tmp_path, "r", **{**one, "langs": ("en",)}, perturb="dark"), pool=pool)
        with pytest.raises(ConfigError, match="the run was made with --perturb dark --perturb-seed 0"):
            run_suite(_opts(tmp_path, None, **one, resume=tmp_path / "r"), pool=pool)
        with pytest.raises(ConfigError, match="--perturb dark --perturb-seed 0; resume it with the same"):
            run_suite(_opts(tmp_path, None, **one, resume=tmp_path / "r", perturb="dark", perturb_seed=2), pool=pool)
        done = run_suite(_opts(tmp_path, None, **one, resume=tmp_path / "r", perturb="dark"), pool=pool)
    assert done.skipped == 1 and [(r.lang, [p.label for p in r.perturbations]) for r in done.results] == [
        ("zh", ["dark"])
    ]


@pytest.mark.integration
def test_on_a_phone_the_locale_is_refused_and_every_condition_put_back_after_the_run(make_vdevice, tmp_path):
    """A device given by its serial (a phone: its language is its own, its settings are put back by the harness)."""
    vd = make_vdevice()
    get = lambda key: vd.model.settings.get(key[0], {}).get(key[1])  # noqa: E731
    keys = [("secure", "ui_night_mode"), ("system", "font_scale"), ("system", "user_rotation")]
    before = [get(k) for k in keys]
    with DevicePool(1, [vd.serial]) as pool:
        opts = _opts(
            tmp_path,
            "phone",
            task_ids=("messages-text-number",),
            langs=("en",),
            perturb="locale=zh-CN,dark,font=1.3,landscape",
        )
        res = run_suite(opts, pool=pool)
        during = [get(k) for k in keys]
    (result,) = res.results
    locale, *conditions = result.perturbations
    assert not locale.applied and locale.reason.startswith("the device refused it: device ")
    assert "runs in en-US, but this episode asks for the system language 'zh'" in locale.reason
    assert all(p.applied for p in conditions) and result.success
    assert during == before == ["1", "1.0", None], "put back at the episode's end (before the pool's own restore)"
    assert vd.model.locale == "en"


@pytest.mark.integration
def test_a_phone_that_already_runs_in_the_locale_takes_an_episode_in_the_other_language(make_vdevice, tmp_path):
    """A phone whose system language is zh-CN (a Chinese user's phone: its content is its own) runs en episodes under
    locale=zh-CN, which it could not without it; the harness switches nothing."""
    vd = make_vdevice(locale="zh")
    with DevicePool(1, [vd.serial]) as pool:
        opts = _opts(tmp_path, "zh-phone", task_ids=("messages-text-number",), langs=("en",), perturb="locale=zh-CN")
        (result,) = run_suite(opts, pool=pool).results
        clean = run_suite(_opts(tmp_path, "clean", task_ids=("messages-text-number",), langs=("en",)), pool=pool)
    assert result.perturbations == [PerturbationRecord("locale", "zh-CN", None, True, "")]
    assert result.status != "infra_error" and vd.model.locale == "zh"
    (refused,) = clean.results
    assert refused.status == "infra_error" and "runs in zh-CN, but this episode is in 'en'" in (refused.error or "")


@pytest.mark.integration
def test_the_locale_is_the_pools_own_language_switch_through_adb(tmp_path):
    """Devices in threads behind the pool's private adb server: an en episode under locale=zh-CN runs on a device
    switched to zh-CN (read back over adb) before its start state, over the content of a device set up in en (the
    contacts provider's names, as the Contacts app shows them under Chinese labels); the next lease in en switches
    it back."""
    with DevicePool(1, isolation="thread") as pool:
        opts = _opts(tmp_path, "zh", task_ids=("messages-text-number",), langs=("en",), perturb="locale=zh-CN")
        (result,) = run_suite(opts, pool=pool).results
        model = pool.model(0)
        assert model is not None and model.locale == "zh", "the device stays in zh until its next lease"
        dev = pool.slot(0)
        assert dev.shell(["getprop", "persist.sys.locale"]).stdout.strip() == b"zh-CN"
        uri = ["content", "query", "--uri", "content://com.android.contacts/contacts", "--projection", "display_name"]
        assert b"display_name=Alice Johnson" in dev.shell(uri).stdout, "the content the device was set up with"
        dev.launch("com.google.android.contacts")
        shown = [e.text for e in dev.observe().tree]
        assert "搜索联系人" in shown and "Alice Johnson" in shown, shown
        pool.lease(0, (), "en")
        assert model.locale == "en"
        dev.launch("com.google.android.contacts")
        assert "Search contacts" in [e.text for e in dev.observe().tree]
    assert result.success and result.perturbations == [PerturbationRecord("locale", "zh-CN", None, True, "")]
    ep = load_run(tmp_path / "zh").episode("messages-text-number", "en")
    assert ep.meta is not None and ep.meta.instruction.startswith("Send a text to"), "the instruction stays en"


EACH = ["dark", "font=1.3", "size=720x1600", "density=320", "landscape", "locale=zh-CN", "animations", "notification"]
EACH += ["dialog=anr", "dialog=permission", "dialog=battery", "popup=rate", "popup=promo"]
NOOP_TASKS = ("settings-dark-theme", "clock-world-time", "notes-append-shopping", "messages-reply-bob")


def test_the_do_nothing_agent_scores_zero_under_each_perturbation(tmp_path):
    with DevicePool(1, isolation="in_process") as pool:
        for label in EACH:
            res = run_suite(
                _opts(tmp_path, label, agent="noop", task_ids=NOOP_TASKS, perturb=label, perturb_seed=1), pool=pool
            )
            scored = [(r.task_id, r.lang, r.progress) for r in res.results if r.progress or r.success]
            assert len(res.results) == 8 and scored == [], (label, scored)
            applied = [p.applied for r in res.results for p in r.perturbations]
            assert any(applied) or label.startswith("popup"), label  # noop never opens an app: no popup


@pytest.mark.slow
@pytest.mark.parametrize("label", ["dialog", "popup", "locale=zh-CN"])
def test_the_do_nothing_agent_scores_zero_under_dialogs_popups_and_a_locale_over_the_whole_suite(tmp_path, label):
    """A locale scores a label in either language (docs/robustness.md): still nothing on a screen nobody touched."""
    with DevicePool(2, isolation="in_process", clock="virtual") as pool:  # the device's waits pass on its clock
        res = run_suite(_opts(tmp_path, label, agent="noop", perturb=label, perturb_seed=7), pool=pool)
    assert len(res.results) == 72
    assert [(r.task_id, r.lang) for r in res.results if r.progress or r.success] == []
    rows = json.loads((tmp_path / label / "episodes" / "clock-world-time__en" / "episode.json").read_text())
    (row,) = rows["perturbations"]
    assert row["name"] == label.split("=")[0] and list(row) == ["name", "value", "step", "applied", "reason"]
    if label.startswith("locale"):
        assert row["applied"] and sum(r.perturbations[0].applied for r in res.results) == 36, "the en episodes"


# the reference agent dismisses the notification's heads-up and finds what landscape moves off the screen
# (agents/reference.py), so its solutions hold over the whole suite under these; the other language's locale over the
# whole suite: tests/agents/test_reference_perturbed.py
UNDER = ["dark", "font=1.3", "landscape", "animations", "notification"]


@pytest.mark.slow
@pytest.mark.parametrize("label", UNDER)
def test_the_reference_agent_keeps_its_success_under_each_perturbation(tmp_path, label):
    with DevicePool(2, isolation="in_process", clock="virtual") as pool:  # the device's waits pass on its clock
        results = run_suite(_opts(tmp_path, label, perturb=label, perturb_seed=3), pool=pool).results
    assert len(results) == 72
    failed = {(r.task_id, r.lang) for r in results if not r.success}
    assert failed == set(), (label, sorted(failed))
    records = [p for r in results for p in r.perturbations]
    assert len(records) == len(results)
    applied = sum(p.applied for p in records)
    if label == "dark":  # not applied to the tasks that switch the theme (settings-dark-theme in en and zh)
        assert applied == len(results) - 2, records
    else:  # an interruption included: its step lies inside the reference solution, before its last step
        assert applied == len(results), records


def test_a_drawn_dialogs_episodes_count_for_the_dialog_asked(tmp_path):
    """`dialog` asked, `dialog=anr` (or another kind) drawn per episode: episode.json says the kind, summary.json
    counts the episode under `dialog`."""
    tasks = ("messages-text-number", "notes-append-shopping")
    with DevicePool(1, isolation="in_process") as pool:
        res = run_suite(_opts(tmp_path, "d", task_ids=tasks, perturb="dialog,popup", perturb_seed=7), pool=pool)
    assert all(r.success for r in res.results)
    rows = [
        json.loads((tmp_path / "d" / "episodes" / f"{r.task_id}__{r.lang}" / "episode.json").read_text())[
            "perturbations"
        ]
        for r in res.results
    ]
    assert all([row["name"] for row in ep] == ["dialog", "popup"] for ep in rows)
    assert {row["value"] for ep in rows for row in ep} <= {"anr", "battery", "permission", "rate", "promo"}
    summary = json.loads((tmp_path / "d" / "summary.json").read_text())["perturb"]
    for i, name in enumerate(("dialog", "popup")):
        assert summary["applied"][name] == sum(ep[i]["applied"] for ep in rows) > 0, (name, rows)
