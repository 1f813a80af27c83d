"""`droidharness compare RUN RUN [RUN...]`: runs side by side on the episodes they share.

Every run is read through the trajectory reader (`harness.trajectory.reader.load_run`) and every score comes
from the one scoring function (`harness.scoring.episodes.scoreboard` over `harness.report.summary.outcome` of
each episode), restricted to the episodes (task and language) every run has. The first run is the baseline; each
other run is paired with it:

- flips: episodes scored in both runs that one run solved and the other did not (gained / lost);
- exact McNemar test on success: the two-sided exact binomial test (p = 1/2) on the discordant pairs
  (`mcnemar_exact`, `scipy.stats.binomtest`), over the episodes scored in both runs;
- a paired bootstrap interval of the mean progress difference (other minus baseline) over the same episodes
  (`paired_bootstrap`: numpy, seeded, percentile interval);
- breakdowns by category, language and app count: each run's SR / ATP over the shared episodes of the group;
- runs of `--suite androidworld`: each run's AndroidWorld figure over the shared episodes, by difficulty, tag and
  app, as AndroidWorld groups its results (`androidworld`);
- by perturbation, for runs made with `run --perturb` (docs/robustness.md): for each perturbation, the shared
  episodes it was applied to (in either run of the pair; an episode belongs to every perturbation applied to it),
  their flips and the paired tests on them alone (`PerturbationPairing`).

Costs price each run's tokens at its own recorded price (`--price` at `run`), or at the one given to `compare`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from harness.errors import ConfigError
from harness.report.summary import episode_cost, outcome
from harness.scoring.androidworld import androidworld_figure
from harness.scoring.cost import Price
from harness.scoring.episodes import BREAKDOWNS, Score, Scoreboard, scoreboard
from harness.trajectory.reader import EpisodeRecord, Run
from harness.trajectory.records import StepRecord, schema_major
from harness.trajectory.result import EpisodeResult

RESAMPLES = 10_000
LEVEL = 0.95
_CHUNK = 1_000  # bootstrap resamples drawn at a time (memory: _CHUNK x episodes indices)


# --- the paired statistics ------------------------------------------------------------------------------------
def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value: `b` pairs where only the first succeeded, `c` where only the second did;
    the exact binomial test of b successes in b + c trials at p = 1/2 (1.0 with no discordant pair)."""
    if b < 0 or c < 0:
        raise ValueError("discordant counts cannot be negative")
    n = b + c
    if n == 0:
        return 1.0
    from scipy.stats import binomtest  # ~1 s to import: only when a comparison is made, not at every CLI start

    return float(binomtest(b, n, 0.5, alternative="two-sided").pvalue)


def paired_bootstrap(
    first: Sequence[float], second: Sequence[float], *, resamples: int = RESAMPLES, seed: int = 0, level: float = LEVEL
) -> tuple[float, float] | None:
    """Percentile bootstrap interval (`level`) of mean(second - first) over paired values: the pairs are
    resampled with replacement, `resamples` times, from `numpy.random.default_rng(seed)`. None without pairs."""
    if len(first) != len(second):
        raise ValueError("paired samples must have the same length")
    d = np.asarray(second, dtype=float) - np.asarray(first, dtype=float)
    if d.size == 0:
        return None
    rng = np.random.default_rng(seed)
    means = np.empty(resamples)
    for start in range(0, resamples, _CHUNK):
        k = min(_CHUNK, resamples - start)
        means[start : start + k] = d[rng.integers(0, d.size, size=(k, d.size))].mean(axis=1)
    tail = (1.0 - level) / 2.0
    lo, hi = np.quantile(means, [tail, 1.0 - tail])
    return float(lo), float(hi)


# --- the comparison ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class RunSide:
    """One compared run: its label, what it is, and its episodes' results by episode key."""

    label: str
    run: Run
    results: dict[str, EpisodeResult]
    price: Price | None

    @property
    def suite(self) -> str | None:
        return self.run.manifest.suite.get("name") if self.run.manifest else None

    @property
    def agent(self) -> str:
        agent = self.run.manifest.agent if self.run.manifest else {}
        name = str(agent.get("name", "?"))
        return f"{name} ({agent['model']})" if agent.get("model") else name


@dataclass(frozen=True)
class Cell:
    """One shared episode in one run (a row of the per-task table)."""

    status: str
    scored: bool
    success: bool
    progress: float
    steps: int
    tokens: int
    cost: float | None

    def to_json(self) -> dict[str, Any]:
        return self.__dict__.copy()


@dataclass(frozen=True)
class Pairing:
    """The baseline (run 0) against run `other` on the episodes scored in both."""

    other: int
    paired: int  # episodes scored in both runs
    gained: list[str]  # solved by `other`, not by the baseline
    lost: list[str]  # solved by the baseline, not by `other`
    sr: tuple[float | None, float | None]  # (baseline, other) over the paired episodes
    atp: tuple[float | None, float | None]
    mcnemar_p: float
    progress_difference: float | None  # mean(other - baseline)
    progress_interval: tuple[float, float] | None  # paired bootstrap, LEVEL
    resamples: int
    seed: int

    def to_json(self) -> dict[str, Any]:
        return {
            **self.__dict__,
            "sr": list(self.sr),
            "atp": list(self.atp),
            "progress_interval": list(self.progress_interval) if self.progress_interval else None,
            "level": LEVEL,
        }


@dataclass(frozen=True)
class PerturbationPairing:
    """The baseline against run `pairing.other` on the shared episodes perturbation `perturbation` (its label,
    `font=1.3`) was applied to in either run: their flips and paired tests (`Pairing`)."""

    perturbation: str
    pairing: Pairing

    def to_json(self) -> dict[str, Any]:
        return {"perturbation": self.perturbation, **self.pairing.to_json()}


@dataclass
class Comparison:
    sides: list[RunSide]
    shared: list[str]  # episode keys every run has, sorted
    boards: list[Scoreboard]  # each run's scoreboard over the shared episodes
    pairings: list[Pairing]
    cells: dict[str, list[Cell]]  # episode key -> one cell per run
    notes: list[str] = field(default_factory=list)  # e.g. different suites
    by_perturbation: list[PerturbationPairing] = field(default_factory=list)  # runs made with --perturb

    def cost(self, i: int) -> float | None:
        """Run `i`'s cost over the shared episodes (None when it is unpriced)."""
        costs = [self.cells[k][i].cost for k in self.shared]
        return None if any(c is None for c in costs) else sum(c or 0.0 for c in costs)

    def tokens(self, i: int) -> int:
        return sum(self.cells[k][i].tokens for k in self.shared)

    def delta(self, key: str, i: int) -> dict[str, float | int | None]:
        """Run `i` minus the baseline on episode `key`: progress (None unless both are scored), steps, tokens,
        cost (None unless both are priced)."""
        a, b = self.cells[key][0], self.cells[key][i]
        return {
            "progress": b.progress - a.progress if a.scored and b.scored else None,
            "steps": b.steps - a.steps,
            "tokens": b.tokens - a.tokens,
            "cost": b.cost - a.cost if a.cost is not None and b.cost is not None else None,
        }

    def breakdown(self, name: str) -> dict[str, list[Score | None]]:
        """Group -> each run's score over the shared episodes of the group (`BREAKDOWNS` name)."""
        groups: dict[str, list[Score | None]] = {}
        for i, board in enumerate(self.boards):
            for group, s in getattr(board, name).items():
                groups.setdefault(group, [None] * len(self.boards))[i] = s
        return dict(sorted(groups.items()))

    def androidworld(self) -> list[dict[str, Any] | None]:
        """Each run's AndroidWorld figure over the shared episodes (None for a run without AndroidWorld's)."""
        return [androidworld_figure(s.results[k] for k in self.shared) for s in self.sides]

    def to_json(self) -> dict[str, Any]:
        return {
            "androidworld": self.androidworld(),
            "runs": [
                {
                    "label": s.label,
                    "path": str(s.run.path),
                    "agent": s.agent,
                    "suite": s.suite,
                    "episodes": len(s.run.episodes),
                    "price": s.price.to_json() if s.price else None,
                    "shared": self.boards[i].overall.to_json(),
                    "tokens": self.tokens(i),
                    "cost": self.cost(i),
                }
                for i, s in enumerate(self.sides)
            ],
            "shared_episodes": len(self.shared),
            "notes": self.notes,
            "pairings": [p.to_json() for p in self.pairings],
            "by_perturbation": [p.to_json() for p in self.by_perturbation],
            "breakdowns": {
                name: {g: [s.to_json() if s else None for s in scores] for g, scores in self.breakdown(name).items()}
                for name in BREAKDOWNS
            },
            "episodes": {k: [c.to_json() for c in self.cells[k]] for k in self.shared},
            "differences": {k: [self.delta(k, p.other) for p in self.pairings] for k in self.shared},
        }


def _labels(runs: Sequence[Run]) -> list[str]:
    names = [r.manifest.run_id if r.manifest else r.path.name for r in runs]
    return [n if names.count(n) == 1 else f"{n} #{i + 1}" for i, n in enumerate(names)]


def _cell(ep: EpisodeRecord, r: EpisodeResult, price: Price | None) -> Cell:
    tokens = sum(s.agent.usage.total_tokens for s in ep.steps)
    return Cell(r.status, r.scored, bool(r.success), r.progress, r.steps, tokens, episode_cost(ep, price))


def _pairing(sides: list[RunSide], other: int, keys: list[str], resamples: int, seed: int) -> Pairing:
    base, alt = sides[0].results, sides[other].results
    both = [k for k in keys if base[k].scored and alt[k].scored]
    gained = [k for k in both if alt[k].success and not base[k].success]
    lost = [k for k in both if base[k].success and not alt[k].success]
    a, b = [base[k] for k in both], [alt[k] for k in both]
    sa, sb = scoreboard(a).overall, scoreboard(b).overall
    pa, pb = [r.progress for r in a], [r.progress for r in b]
    return Pairing(
        other=other,
        paired=len(both),
        gained=gained,
        lost=lost,
        sr=(sa.sr, sb.sr),
        atp=(sa.atp, sb.atp),
        mcnemar_p=mcnemar_exact(len(lost), len(gained)),
        progress_difference=(sb.atp - sa.atp) if sa.atp is not None and sb.atp is not None else None,
        progress_interval=paired_bootstrap(pa, pb, resamples=resamples, seed=seed),
        resamples=resamples,
        seed=seed,
    )


def perturbation_plan(run: Run) -> list[str]:
    """The perturbations a run was made with (manifest.json `perturb`), as labels; [] for a run without."""
    plan = (run.manifest.model_extra or {}).get("perturb") if run.manifest else None
    labels = plan.get("perturbations") if isinstance(plan, dict) else None
    return [str(x) for x in labels] if isinstance(labels, list) else []


def _by_perturbation(
    sides: list[RunSide], other: int, keys: list[str], resamples: int, seed: int
) -> list[PerturbationPairing]:
    """For each perturbation of either run (theirs first, in the order they were given), the pairing over the
    shared episodes it was applied to in either run."""
    pair = (sides[0], sides[other])
    labels = list(dict.fromkeys(label for s in reversed(pair) for label in perturbation_plan(s.run)))
    applied = {k: [p for s in pair for p in s.results[k].perturbations if p.applied] for k in keys}
    out = []
    for label in labels:
        group = [k for k in keys if any(p.counts_for(label) for p in applied[k])]
        if group:
            out.append(PerturbationPairing(label, _pairing(sides, other, group, resamples, seed)))
    return out


def compare_runs(
    runs: Sequence[Run], prices: Sequence[Price | None], *, resamples: int = RESAMPLES, seed: int = 0
) -> Comparison:
    """Compare task runs (the first is the baseline) on the episodes they all have. A QA run, or runs that share
    no episode, is a ConfigError naming them."""
    if len(runs) < 2:
        raise ConfigError("compare needs at least two runs")
    for r in runs:
        if r.kind != "task":
            raise ConfigError(f"{r.path}: a {r.kind} run; compare compares task runs (droidharness run)")
    labels = _labels(runs)
    sides = [
        RunSide(label, r, {k: outcome(r, ep) for k, ep in r.episodes.items()}, price)
        for label, r, price in zip(labels, runs, prices, strict=True)
    ]
    shared = sorted(set.intersection(*(set(s.results) for s in sides)))
    if not shared:
        raise ConfigError(f"{', '.join(str(r.path) for r in runs)}: the runs share no episode (task and language)")
    notes = []
    suites = [s.suite for s in sides]
    if len(set(suites)) > 1:
        notes.append(
            f"different suites ({', '.join(str(x) for x in suites)}): compared on the {len(shared)} episodes they share"
        )
    elif any(len(s.results) != len(shared) for s in sides):
        notes.append(
            f"compared on the {len(shared)} episodes every run has (runs have "
            f"{', '.join(str(len(s.results)) for s in sides)})"
        )
    boards = [scoreboard(s.results[k] for k in shared) for s in sides]
    cells = {k: [_cell(s.run.episodes[k], s.results[k], s.price) for s in sides] for k in shared}
    pairings = [_pairing(sides, i, shared, resamples, seed) for i in range(1, len(sides))]
    perturbed = [g for i in range(1, len(sides)) for g in _by_perturbation(sides, i, shared, resamples, seed)]
    return Comparison(sides, shared, boards, pairings, cells, notes, perturbed)


def first_difference(a: Sequence[StepRecord], b: Sequence[StepRecord]) -> int | None:
    """The first step number at which two episodes differ - the action taken, or the screen it was taken on (v2
    frames are named by their pixels' hash), or one episode having no such step; None when they are the same."""
    for i in range(max(len(a), len(b))):
        if i >= len(a) or i >= len(b):
            return (a[i] if i < len(a) else b[i]).step
        sa, sb = a[i], b[i]
        if sa.agent.action != sb.agent.action or sa.agent.invalid != sb.agent.invalid:
            return sa.step
        v2 = schema_major(sa.schema_) >= 2 and schema_major(sb.schema_) >= 2  # v1 names frames by step number
        if v2 and sa.observation.screenshot != sb.observation.screenshot:
            return sa.step
    return None


__all__ = [
    "Cell",
    "Comparison",
    "Pairing",
    "PerturbationPairing",
    "RunSide",
    "compare_runs",
    "first_difference",
    "mcnemar_exact",
    "paired_bootstrap",
    "perturbation_plan",
]
