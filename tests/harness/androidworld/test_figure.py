"""AndroidWorld's own figure, as its runner computes it (suite_utils): a score counts only when the agent declared
the task done, an episode whose judge or agent raised is left out, the mean per class then over classes."""

from __future__ import annotations

from harness.scoring.androidworld import androidworld_figure, aw_episode_score
from harness.trajectory.result import AGENT_ERROR, FAILED, INFRA_ERROR, SKIPPED, SUCCESS, EpisodeResult


def ep(cls: str, score: float | None, done: bool = True, status: str = FAILED, tags=("t",), diff="easy"):
    aw = (score if done else 0.0) if score is not None else None
    rec = {"class": cls, "score": score, "done": done, "aw_score": aw, "tags": list(tags), "difficulty": diff}
    return EpisodeResult(cls, "en", status=status, extra={"androidworld": rec})


def test_mean_per_class_then_over_classes():
    fig = androidworld_figure(
        [ep("A", 1.0, status=SUCCESS), ep("A", 0.0), ep("A", 1.0, status=SUCCESS), ep("B", 0.0, diff="hard")]
    )
    assert fig is not None
    assert fig["by_class"]["A"]["mean_success_rate"] == 2 / 3 and fig["by_class"]["A"]["trials"] == 3
    assert fig["success_rate"] == (2 / 3 + 0.0) / 2  # not 2/4: each class weighs the same
    assert fig["by_difficulty"] == {"easy": 2 / 3, "hard": 0.0}


def test_a_score_counts_only_when_the_agent_said_done():
    not_done = ep("A", 1.0, done=False)
    assert aw_episode_score(not_done) == 0.0
    assert androidworld_figure([not_done])["success_rate"] == 0.0  # type: ignore[index]


def test_partial_scores_of_composite_tasks_are_kept():
    assert androidworld_figure([ep("C", 0.5)])["success_rate"] == 0.5  # type: ignore[index]


def test_judge_errors_and_agent_errors_are_left_out_unscored_episodes_never_counted():
    results = [
        ep("A", None),  # the judge raised
        ep("A", 1.0, status=AGENT_ERROR),  # the agent raised: AndroidWorld's runner records an exception
        ep("A", 0.0),
        EpisodeResult("B", "en", status=INFRA_ERROR),
        ep("S", 1.0, status=SKIPPED),
    ]
    fig = androidworld_figure(results)
    assert fig is not None
    assert fig["by_class"]["A"] == {"mean_success_rate": 0.0, "trials": 1, "left_out": 2, "difficulty": "easy"}
    assert fig["success_rate"] == 0.0 and fig["classes"] == 1
    assert fig["by_class"]["S"]["trials"] == 0 and fig["classes_without_score"] == ["S"]


def test_untagged_classes_and_runs_without_androidworld():
    fig = androidworld_figure([ep("A", 1.0, tags=("",)), ep("B", 0.0, tags=())])
    assert fig is not None and fig["by_tag"] == {"untagged": 0.5}
    assert androidworld_figure([EpisodeResult("x", "en")]) is None
