"""`EpisodeResult`: one episode's result, the one record of that idea. The episode loop returns it, the trajectory
writer records it as episode.json (`EpisodeMeta`, whose `to_result()` reads it back), and the one scoring
function (`harness.scoring.episodes`) reads it on every surface.

Statuses (docs/scoring.md): `success` and `failed` (the agent ran out its course), `agent_error` (an exception or
a timeout of the agent: scored), `infra_error` (the device, adb server or endpoint stayed unusable after retries:
listed, not scored), `skipped` (an outside suite's instance the device cannot host - an app missing, no root:
listed with why, never started, never counted); a reader calls an episode without episode.json `unfinished` (not
scored either).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from harness.perturbation import PerturbationRecord

SUCCESS, FAILED, AGENT_ERROR, INFRA_ERROR, UNFINISHED = "success", "failed", "agent_error", "infra_error", "unfinished"
SKIPPED = "skipped"
STATUSES = (SUCCESS, FAILED, AGENT_ERROR, INFRA_ERROR, SKIPPED)  # what the runner writes; UNFINISHED: a reader's
UNSCORED = frozenset({INFRA_ERROR, UNFINISHED, SKIPPED})


@dataclass
class EpisodeResult:
    task_id: str
    lang: str
    status: str = FAILED  # one of STATUSES (or UNFINISHED when read back without episode.json)
    success: bool = False  # the SR flag: every milestone hit, the end state held, the expected answer given
    progress: float = 0.0  # hit milestones / milestones (ATP averages it)
    category: str = ""
    apps: int = 1  # number of apps the task uses
    milestones: list[dict[str, Any]] = field(default_factory=list)  # id, sub_target, hit_step per leaf
    steps: int = 0
    invalid_steps: int = 0
    answer: str | None = None
    terminated_by: str | None = None  # COMPLETE | IMPOSSIBLE | ANSWER | max_steps | invalid | error | timeout
    error: str | None = None
    tokens: dict[str, int] = field(default_factory=lambda: {"prompt": 0, "completion": 0, "total": 0})
    timings: dict[str, float] = field(default_factory=dict)  # seconds summed over steps, per part
    seed: int = 0
    serial: str = ""
    attempts: int = 1
    end_state: dict[str, Any] | None = None  # harness.run.judge.end_state.EndStateResult.to_json(), when evaluated
    reset_method: str | None = None  # how the device pool reset the device first (harness.run.fleet.pool.RESET_METHODS)
    reset_seconds: float | None = None  # and how long that took
    node: str | None = None  # the Ray node id that ran the episode (`run --ray`); None: a local run
    probes: list[dict[str, Any]] = field(default_factory=list)  # the task's probes: asked (QA result) or not reached
    # the run's perturbations (`run --perturb`, docs/robustness.md): each applied to this episode or not, and why
    perturbations: list[PerturbationRecord] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)  # what else a runner records (dataset replay: its report)

    @property
    def scored(self) -> bool:
        """Counts in SR / ATP: everything but infrastructure failures, skipped and unfinished episodes."""
        return self.status not in UNSCORED

    def to_json(self) -> dict[str, Any]:
        return asdict(self)
