"""Task families (tasks/families/): every bundled family's instances from several seeds are sound (tasks check's
proof: nothing holds at the start, the do-nothing agent scores 0, the reference solution reaches 100% and the end
state) and distinct; instantiation is deterministic; the start state a family builds from its parameters (a
contact) goes through the real adb server; `tasks families`, `tasks instantiate` and `run --family` at the CLI."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from typer.testing import CliRunner

from harness.cli.main import app
from harness.device.state import DeviceState
from harness.run.authoring.task_check import check_task
from harness.run.fleet.pool import DevicePool
from harness.run.loop.start import prepare_start
from tasks.families.base import instantiate, task_json
from tasks.families.registry import FAMILIES, family_spec, family_tasks, get_family
from tasks.schema import TaskError
from tasks.suite import load_suite
from tests.device_util import open_device

runner = CliRunner()
SEEDS = (1, 2, 3)


@pytest.fixture(scope="module")
def pool() -> Iterator[DevicePool]:
    with DevicePool(1, isolation="in_process", clock="virtual") as p:  # a recording's seconds pass on its clock
        yield p


def _params(task) -> list[str]:
    return [t for t in task.tags if t.startswith("param:")]


@pytest.mark.parametrize("name", list(FAMILIES))
def test_every_family_gives_sound_distinct_instances_for_several_seeds(pool: DevicePool, name: str) -> None:
    tasks = [t for seed in SEEDS for t in family_tasks(name, seed, 1)]
    assert len({json.dumps(_params(t)) for t in tasks}) == len(SEEDS), [_params(t) for t in tasks]
    assert all(set(t.languages) == {"en", "zh"} and set(t.reference) == {"en", "zh"} for t in tasks)
    assert all(t.end_state for t in tasks)  # every instance says what must still hold at the end
    for t, lang in zip(tasks[:2], ("en", "zh"), strict=True):  # two instances, one per language (keeps it quick)
        pool.reset(0)
        pool.ensure_locale(0, lang)
        r = check_task(t, lang, pool.slot(0))
        assert r.ok, (t.id, lang, r.start_violations, r.progress, r.error)
        assert r.progress == 1.0 and r.idle_progress == 0.0 and not r.start_violations


def test_instantiation_is_deterministic_and_instances_of_one_call_are_distinct() -> None:
    for name, fam in FAMILIES.items():
        a, b = instantiate(fam, 7, 4), instantiate(fam, 7, 4)
        assert [task_json(t) for t in a] == [task_json(t) for t in b], name
        assert [t.id for t in a] == [f"{name}-s7-{i}" for i in range(4)]
        assert len({json.dumps(_params(t)) for t in a}) == 4, name
        assert [task_json(t) for t in instantiate(fam, 8, 4)] != [task_json(t) for t in a], name
    # a family with few distinct instances says so instead of repeating one
    with pytest.raises(TaskError, match="only 12 distinct instances"):
        instantiate(get_family("weather-city-unit"), 0, 13)
    with pytest.raises(TaskError, match="no task family 'nope'"):
        get_family("nope")


def test_state_checks_where_android_keeps_the_state() -> None:
    """Alarms, contacts and texts are judged by their provider rows (what a phone keeps), not by a screen."""
    uris = {
        name: [c.check.state.content.uri for c in family_tasks(name, 1, 1)[0].end_state if c.check and c.check.state]
        for name in ("clock-alarm", "contacts-new", "messages-text-contact")
    }
    assert uris == {
        "clock-alarm": ["content://com.android.deskclock/alarms"],
        "contacts-new": ["content://com.android.contacts/data/phones"],
        "messages-text-contact": ["content://sms/sent"],
    }


def test_a_family_start_state_creates_its_contact_through_adb(adb_server, vdevice) -> None:
    task = family_tasks("messages-text-contact", 4, 1)[0]
    contact = task.start.contacts[0]
    dev = open_device(adb_server, vdevice, use_u2=False)
    try:
        prepare_start(dev, task.start)
        rows = DeviceState(dev.shell).query("content://com.android.contacts/data/phones", ("display_name", "data1"))
        assert {"display_name": contact.name, "data1": contact.phone} in rows
    finally:
        dev.close()


def test_families_and_instantiate_at_the_cli(tmp_path) -> None:
    listed = runner.invoke(app, ["tasks", "families"])
    assert listed.exit_code == 0, listed.output
    lines = listed.output.splitlines()
    assert [ln.split()[0] for ln in lines] == list(FAMILIES)
    assert all(len(ln.split(None, 1)) == 2 for ln in lines)  # a name, then its description
    out1, out2 = tmp_path / "a", tmp_path / "b"
    for out in (out1, out2):
        r = runner.invoke(app, ["tasks", "instantiate", "notes-new", "--seed", "5", "--count", "3", "--out", str(out)])
        assert r.exit_code == 0, r.output
    files = sorted(p.name for p in out1.iterdir())
    assert files == [f"notes-new-s5-{i}.json" for i in range(3)]
    assert all((out1 / f).read_bytes() == (out2 / f).read_bytes() for f in files)  # same seed, same files
    assert [t.id for t in load_suite(out1)] == [t.id for t in load_suite(family_spec("notes-new", 5, 3))]
    bad = runner.invoke(app, ["tasks", "instantiate", "nope", "--out", str(tmp_path / "c")])
    assert bad.exit_code == 2 and "no task family 'nope'" in bad.output


def test_run_family_runs_fresh_instances_through_the_normal_run(tmp_path) -> None:
    r = runner.invoke(
        app,
        [
            "run", "--family", "weather-city-unit", "--instances", "2", "--seed", "3", "--agent", "reference",
            "--lang", "en", "--isolation", "thread", "--out", str(tmp_path), "--run-id", "fam", "--no-report",
        ],
    )  # fmt: skip
    assert r.exit_code == 0, r.output
    assert "SR 100.0%" in r.output
    manifest = json.loads((tmp_path / "fam" / "manifest.json").read_text())
    assert manifest["suite"]["name"] == "family:weather-city-unit:seed=3:instances=2"
    assert [t["id"] for t in manifest["tasks"]] == ["weather-city-unit-s3-0", "weather-city-unit-s3-1"]
