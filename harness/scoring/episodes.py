"""The one scoring function: per-episode outcomes -> SR / ATP and their breakdowns, for every surface.

The live view, the final line of `droidharness run`, `summary.json`, `report.html` and `droidharness report` all
call `scoreboard()` on `EpisodeResult`s (the runner's, or read back from episode.json) and
print with `headline()`, so no two surfaces can disagree. The rules (docs/scoring.md):

- An episode is SCORED unless it ended in an infrastructure failure (`infra_error`: the device, adb server,
  transport or model endpoint was unusable even after retries on a fresh device) or never finished (a killed
  run: `unfinished`). Everything the agent causes is scored: `agent_error` (an exception or a timeout of the
  agent) counts with the progress it reached, invalid steps count inside `failed` / `success`.
- Progress of an episode = hit milestones / milestones (latching). ATP = mean progress over scored episodes.
  SR = share of scored episodes that succeeded (every milestone hit, the end state still holding, the expected
  answer given).
- With nothing scored there is no SR and no ATP (None), and `headline` says so instead of printing 0%.
- Probes (screen questions a task asks when a milestone is hit, `harness.run.loop.probes`): their ScreenQA scores
  over the probes asked in scored episodes stand beside SR / ATP (`Score.probes`; None when no task has any).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass

from harness.scoring.probes import probe_headline, summarize_probes
from harness.trajectory.result import (  # noqa: F401 - the statuses are part of the scoring vocabulary
    AGENT_ERROR,
    FAILED,
    INFRA_ERROR,
    SKIPPED,
    STATUSES,
    SUCCESS,
    UNFINISHED,
    UNSCORED,
    EpisodeResult,
)

# exit codes of a run (documented in docs/scoring.md and `droidharness run --help`)
EXIT_OK = 0  # every episode scored
EXIT_BAD_INPUT = 2  # bad options, suite, task, run directory: nothing ran
EXIT_INFRA = 3  # the run finished, but some episodes are infrastructure failures (or unfinished): listed
EXIT_NOTHING_SCORED = 4  # not one episode could be scored: no SR / ATP exists


@dataclass(frozen=True)
class Score:
    """SR / ATP over a set of episodes, with the counts that say what they are over."""

    episodes: int
    scored: int
    successes: int
    sr: float | None  # None: nothing scored
    atp: float | None
    agent_errors: int
    infra_errors: int
    unfinished: int
    invalid_steps: int  # over scored episodes
    mean_steps: float | None
    probes: dict[str, float | int] | None = None  # QA scores of the probes asked (harness.run.loop.probes)
    skipped: int = 0  # an outside suite's instances the devices could not host (listed with why, not counted)

    def to_json(self) -> dict[str, object]:
        return asdict(self)


def score(outcomes: Iterable[EpisodeResult]) -> Score:
    eps = list(outcomes)
    scored = [o for o in eps if o.scored]
    n = len(scored)
    successes = sum(o.success for o in scored)
    return Score(
        episodes=len(eps),
        scored=n,
        successes=successes,
        sr=successes / n if n else None,
        atp=sum(o.progress for o in scored) / n if n else None,
        agent_errors=sum(o.status == AGENT_ERROR for o in eps),
        infra_errors=sum(o.status == INFRA_ERROR for o in eps),
        unfinished=sum(o.status == UNFINISHED for o in eps),
        invalid_steps=sum(o.invalid_steps for o in scored),
        mean_steps=sum(o.steps for o in scored) / n if n else None,
        probes=summarize_probes(r for o in scored for r in o.probes),
        skipped=sum(o.status == SKIPPED for o in eps),
    )


def app_bucket(apps: int) -> str:
    return "1 app" if apps == 1 else f"{apps} apps"


@dataclass(frozen=True)
class Scoreboard:
    overall: Score
    by_category: dict[str, Score]
    by_language: dict[str, Score]
    by_app_count: dict[str, Score]
    infra_failures: tuple[EpisodeResult, ...]  # infra_error and unfinished episodes: listed on every surface
    skipped: tuple[EpisodeResult, ...] = ()  # instances the devices could not host: listed with why, not counted

    def to_json(self) -> dict[str, object]:
        return {
            "overall": self.overall.to_json(),
            "by_category": {k: v.to_json() for k, v in self.by_category.items()},
            "by_language": {k: v.to_json() for k, v in self.by_language.items()},
            "by_app_count": {k: v.to_json() for k, v in self.by_app_count.items()},
            "infra_failures": [
                {"task_id": o.task_id, "lang": o.lang, "status": o.status, "error": o.error, "attempts": o.attempts}
                for o in self.infra_failures
            ],
            "skipped": [{"task_id": o.task_id, "lang": o.lang, "reason": o.error} for o in self.skipped],
        }

    @property
    def exit_code(self) -> int:
        return exit_code(self.overall)


# the breakdowns every surface shows: name -> the group an episode falls in
BREAKDOWNS: dict[str, Callable[[EpisodeResult], str]] = {
    "by_category": lambda r: r.category,
    "by_language": lambda r: r.lang,
    "by_app_count": lambda r: app_bucket(r.apps),
}


def _group(outcomes: list[EpisodeResult], breakdown: str) -> dict[str, Score]:
    groups: dict[str, list[EpisodeResult]] = defaultdict(list)
    for o in outcomes:
        groups[BREAKDOWNS[breakdown](o)].append(o)
    return {k: score(v) for k, v in sorted(groups.items())}


def scoreboard(outcomes: Iterable[EpisodeResult]) -> Scoreboard:
    eps = sorted(outcomes, key=lambda o: (o.task_id, o.lang))
    return Scoreboard(
        overall=score(eps),
        by_category=_group(eps, "by_category"),
        by_language=_group(eps, "by_language"),
        by_app_count=_group(eps, "by_app_count"),
        infra_failures=tuple(o for o in eps if not o.scored and o.status != SKIPPED),
        skipped=tuple(o for o in eps if o.status == SKIPPED),
    )


def exit_code(s: Score) -> int:
    if s.scored == 0:
        return EXIT_NOTHING_SCORED
    return EXIT_INFRA if s.infra_errors or s.unfinished else EXIT_OK


def headline(s: Score) -> str:
    """The one sentence every surface prints: "SR 40.0%  ATP 61.2%  over 30 scored episodes; 6 infrastructure
    failures (listed)"; with nothing scored: "no episode could be scored: ..." and no SR."""
    problems = []
    if s.infra_errors:
        problems.append(f"{s.infra_errors} infrastructure failure{'s' if s.infra_errors != 1 else ''}")
    if s.unfinished:
        problems.append(f"{s.unfinished} unfinished")
    tail = f"; {', '.join(problems)} (listed, not scored)" if problems else ""
    if s.skipped:
        tail += f"; {s.skipped} skipped (the devices cannot host them: listed)"
    if s.sr is None or s.atp is None:
        return f"no episode could be scored (of {s.episodes}){tail}"
    agent = f", {s.agent_errors} ended by an agent error" if s.agent_errors else ""
    n = f"{s.scored} scored episode{'s' if s.scored != 1 else ''}"
    return f"SR {s.sr:.1%}  ATP {s.atp:.1%}  over {n}{agent}{tail}{probe_headline(s.probes)}"
