"""`droidharness compare` through the CLI: the paired statistics on hand-computed cases (runs written with the
trajectory writer), real reference and heuristic runs made in the test side by side (the page marks the first
differing step), different suites, and the bad-input cases (one line, exit 2)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.cli.main import app
from harness.perturbation import PerturbationRecord, parse_perturbations
from harness.report.compare import mcnemar_exact, paired_bootstrap
from harness.run.orchestration.lock import RunLock
from harness.trajectory.records import ManifestTask
from harness.trajectory.result import FAILED, INFRA_ERROR, SUCCESS, EpisodeResult
from harness.trajectory.writer import RunWriter

pytestmark = pytest.mark.integration

runner = CliRunner()
EVIL = "<img src=x onerror=alert(1)>"


# --- the statistics, by hand --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("b", "c", "p"),
    [
        (0, 0, 1.0),  # no discordant pair
        (0, 5, 2 * 0.5**5),  # 0.0625
        (1, 4, 2 * (1 + 5) / 32),  # P(X<=1) doubled: 0.375
        (3, 0, 0.25),
        (10, 0, 2 / 1024),
        (5, 5, 1.0),
    ],
)
def test_exact_mcnemar_is_the_two_sided_binomial_on_discordant_pairs(b, c, p):
    assert mcnemar_exact(b, c) == pytest.approx(p, rel=1e-12)
    assert mcnemar_exact(c, b) == pytest.approx(p, rel=1e-12)  # symmetric


def test_paired_bootstrap_hand_cases():
    # equal differences: every resample has the same mean
    assert paired_bootstrap([0.0, 0.5, 0.25], [0.5, 1.0, 0.75]) == pytest.approx((0.5, 0.5))
    # two pairs, differences 0 and 1: resampled means 0, 0.5, 1 with probabilities 1/4, 1/2, 1/4, so the 2.5% and
    # 97.5% percentiles are 0 and 1
    assert paired_bootstrap([0.0, 0.0], [0.0, 1.0]) == pytest.approx((0.0, 1.0))
    a, b = [0.1, 0.4, 0.9, 0.3, 0.0], [0.5, 0.4, 1.0, 0.2, 0.6]
    assert paired_bootstrap(a, b, seed=3) == paired_bootstrap(a, b, seed=3)  # seeded
    lo, hi = paired_bootstrap(a, b, seed=3)
    assert lo < sum(y - x for x, y in zip(a, b, strict=True)) / 5 < hi
    assert paired_bootstrap([], []) is None
    with pytest.raises(ValueError):
        paired_bootstrap([0.1], [0.1, 0.2])


# --- runs written by hand -------------------------------------------------------------------------------------
def write_run(
    root: Path,
    run_id: str,
    episodes: dict[str, tuple[str, float]],
    suite: str = "virtual",
    perturb: list[str] | None = None,
    applied: dict[str, list[str]] | None = None,
) -> Path:
    """A finished run of `episodes` (task id -> (status, progress), language en, category by the id's
    first letter), written with the trajectory writer; made with `perturb` (manifest.json `perturb`), each
    episode's perturbations applied as `applied` says (task id -> labels; the others recorded not applied)."""
    tasks = [ManifestTask(id=t, category="1-1" if t < "t5" else "2-1", apps=["x"]) for t in episodes]
    w = RunWriter.create(root, run_id, agent={"name": "fake"}, suite_name=suite, tasks=tasks, languages=["en"])
    if perturb is not None:
        manifest = json.loads((w.path / "manifest.json").read_text())
        w.write_manifest({**manifest, "perturb": {"perturbations": perturb, "seed": 0}})
    for task, (status, progress) in episodes.items():
        on = (applied or {}).get(task, [])
        records = [
            PerturbationRecord(p.name, p.value, None, p.label in on, "" if p.label in on else "the task checks it")
            for p in parse_perturbations(perturb or [])
        ]
        ep = w.episode(task, "en", category="1-1" if task < "t5" else "2-1")
        ep.finish(
            EpisodeResult(
                task,
                "en",
                status=status,
                success=status == SUCCESS,
                progress=progress,
                steps=3,
                apps=1,
                category="1-1" if task < "t5" else "2-1",
                perturbations=records,
            )
        )
    w.close_episodes()
    return w.path


BASE = {f"t{i}": (SUCCESS, 1.0) if i in (1, 2, 8) else (FAILED, 0.5) for i in range(1, 9)}
# t1 lost; t3..t6 gained; t2 both; t7 neither; t8 an infrastructure failure in the new run: shared, not paired
NEW = {
    "t1": (FAILED, 0.5),
    "t2": (SUCCESS, 1.0),
    **{f"t{i}": (SUCCESS, 1.0) for i in range(3, 7)},
    "t7": (FAILED, 0.5),
    "t8": (INFRA_ERROR, 0.0),
}


def test_compare_hand_computed_runs_through_the_cli(tmp_path):
    a = write_run(tmp_path, "base", BASE)
    b = write_run(tmp_path, EVIL, NEW)
    page, data = tmp_path / "c.html", tmp_path / "c.json"
    r = runner.invoke(app, ["compare", str(a), str(b), "--out", str(page), "--json", str(data)])
    assert r.exit_code == 0, r.output
    d = json.loads(data.read_text())
    assert d["shared_episodes"] == 8 and d["notes"] == []
    (p,) = d["pairings"]
    assert p["paired"] == 7, "the infrastructure failure is shared but not paired"
    assert p["gained"] == ["t3__en", "t4__en", "t5__en", "t6__en"] and p["lost"] == ["t1__en"]
    assert p["mcnemar_p"] == pytest.approx(0.375)
    # SR over the 7 paired episodes: 2/7 -> 5/7; progress differences -0.5, 0, 4 x +0.5, 0: mean 1.5/7
    assert p["sr"] == pytest.approx([2 / 7, 5 / 7])
    assert p["progress_difference"] == pytest.approx(1.5 / 7)
    lo, hi = p["progress_interval"]
    assert lo < 1.5 / 7 < hi and p["seed"] == 0
    runs = d["runs"]
    assert (
        runs[0]["shared"]["scored"] == 8 and runs[1]["shared"]["scored"] == 7 and runs[1]["shared"]["infra_errors"] == 1
    )
    assert runs[0]["shared"]["sr"] == pytest.approx(3 / 8)
    cats = d["breakdowns"]["by_category"]
    assert set(cats) == {"1-1", "2-1"} and cats["1-1"][1]["sr"] == pytest.approx(3 / 4)  # t1 lost, t2..t4 solved
    assert d["differences"]["t1__en"] == [{"progress": -0.5, "steps": 0, "tokens": 0, "cost": None}]
    assert d["differences"]["t8__en"][0]["progress"] is None, "no progress difference with an unscored side"
    assert "exact McNemar p = 0.375" in r.output and "gained (4)" in r.output and "lost (1)" in r.output
    html = page.read_text()
    assert EVIL not in html and "&lt;img src=x onerror=alert(1)&gt;" in html, "run ids are escaped"
    assert "Content-Security-Policy" in html and 'id="cmp-t1__en"' in html
    again = tmp_path / "again.json"
    assert runner.invoke(app, ["compare", str(a), str(b), "--out", str(page), "--json", str(again)]).exit_code == 0
    assert json.loads(again.read_text())["pairings"] == d["pairings"], "the bootstrap is seeded"


def test_a_perturbed_run_against_a_clean_one_by_perturbation(tmp_path):
    """Each perturbation's group: the shared episodes it was applied to (an episode in every group of what was
    applied to it), their flips and the exact McNemar test on them alone; an unperturbed pair has no such section."""
    clean = write_run(tmp_path, "clean", BASE)
    # dark applied to t1..t6 (t1 lost; t3..t6 gained), font=1.3 to t1, t2 and t7 (t1 lost), notification to none
    applied = {t: ["dark"] for t in ("t3", "t4", "t5", "t6")}
    applied.update({"t1": ["dark", "font=1.3"], "t2": ["dark", "font=1.3"], "t7": ["font=1.3"]})
    perturbed = write_run(tmp_path, "perturbed", NEW, perturb=["dark", "font=1.3", "notification"], applied=applied)
    data = tmp_path / "c.json"
    r = runner.invoke(
        app, ["compare", str(clean), str(perturbed), "--out", str(tmp_path / "c.html"), "--json", str(data)]
    )
    assert r.exit_code == 0, r.output
    groups = {g["perturbation"]: g for g in json.loads(data.read_text())["by_perturbation"]}
    assert list(groups) == ["dark", "font=1.3"], "notification was applied to no episode: no group"
    dark, font = groups["dark"], groups["font=1.3"]
    assert (
        dark["paired"] == 6
        and dark["lost"] == ["t1__en"]
        and dark["gained"] == ["t3__en", "t4__en", "t5__en", "t6__en"]
    )
    assert dark["mcnemar_p"] == pytest.approx(0.375) and dark["sr"] == pytest.approx([2 / 6, 5 / 6])
    assert font["paired"] == 3 and font["lost"] == ["t1__en"] and font["gained"] == []
    assert font["mcnemar_p"] == pytest.approx(1.0) and font["other"] == 1
    assert (
        "by perturbation font=1.3 (perturbed vs clean): 3 episodes scored in both; SR 66.7% -> 33.3% (-33.3 pts), "
        "exact McNemar p = 1; lost (1): t1__en; gained (0): -"
    ) in r.output
    html = (tmp_path / "c.html").read_text()
    assert "<h2>By perturbation</h2>" in html and '<span class="badge pert">dark</span>' in html
    r = runner.invoke(app, ["compare", str(clean), str(clean), "--out", str(tmp_path / "d.html"), "--json", str(data)])
    assert r.exit_code == 0 and json.loads(data.read_text())["by_perturbation"] == []
    assert "By perturbation" not in (tmp_path / "d.html").read_text()


def test_runs_on_different_suites_compare_on_the_shared_tasks_and_say_so(tmp_path):
    a = write_run(tmp_path, "a", BASE)
    b = write_run(tmp_path, "b", {"t1": (SUCCESS, 1.0), "t2": (FAILED, 0.0), "zz": (SUCCESS, 1.0)}, suite="other")
    r = runner.invoke(
        app, ["compare", str(a), str(b), "--out", str(tmp_path / "c.html"), "--json", str(tmp_path / "c.json")]
    )
    assert r.exit_code == 0, r.output
    d = json.loads((tmp_path / "c.json").read_text())
    assert d["shared_episodes"] == 2 and "different suites (virtual, other)" in d["notes"][0]
    assert "different suites" in r.output
    assert d["pairings"][0]["lost"] == ["t2__en"] and d["pairings"][0]["mcnemar_p"] == 1.0


def test_bad_input_is_one_line_and_exit_2(tmp_path):
    a = write_run(tmp_path, "a", {"t1": (SUCCESS, 1.0)})
    b = write_run(tmp_path, "b", {"t2": (SUCCESS, 1.0)})
    (tmp_path / "empty").mkdir()
    out = ["--out", str(tmp_path / "c.html")]
    cases = [
        ([str(a), str(tmp_path / "missing")], "missing: no such run directory"),
        ([str(a), str(tmp_path / "empty")], "not a run directory"),
        ([str(a)], "at least two"),
        ([str(a), str(b)], "share no episode"),
        ([str(a), str(a), "--price", "cheap"], "--price 'cheap'"),
    ]
    for args, said in cases:
        r = runner.invoke(app, ["compare", *args, *out])
        assert r.exit_code == 2 and said in r.output, (args, r.output)
        assert "Traceback" not in r.output and len(r.output.strip().splitlines()) == 1, r.output
    with RunLock(b):  # a run still going holds its lock
        r = runner.invoke(app, ["compare", str(a), str(b), *out])
    assert r.exit_code == 2 and "still going" in r.output and "Traceback" not in r.output
    assert not (tmp_path / "c.html").exists()


# --- real runs made in the test -------------------------------------------------------------------------------
def test_reference_and_heuristic_runs_side_by_side(tmp_path):
    common = ["--task", "settings-dark-theme", "--lang", "en", "--isolation", "thread", "--out", str(tmp_path)]
    for agent in ("reference", "heuristic"):
        r = runner.invoke(app, ["run", "--agent", agent, "--run-id", agent, "--no-report", *common])
        assert r.exit_code == 0, r.output
    page = tmp_path / "compare.html"
    r = runner.invoke(app, ["compare", str(tmp_path / "reference"), str(tmp_path / "heuristic"), "--out", str(page)])
    assert r.exit_code == 0, r.output
    html = page.read_text()
    first = re.search(r"first difference at step (\d+)", html)
    assert first is not None, "the side-by-side marks where the two agents first differ"
    assert html.count("<tr class=first>") == 1 and html.count('<img src="data:image/jpeg;base64,') >= 4
    assert "1 shared episode(s); baseline: reference" in r.output
    # the same run twice: the same steps throughout
    r = runner.invoke(app, ["compare", str(tmp_path / "reference"), str(tmp_path / "reference"), "--out", str(page)])
    assert r.exit_code == 0 and "the same steps" in page.read_text() and "<tr class=first>" not in page.read_text()
