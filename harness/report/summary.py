"""summary.json of a run, from what is on disk: a task run's SR / ATP and breakdowns (`summarize`, through the
one scoring function `harness.scoring.episodes`) and a QA run's ScreenQA metrics (`run_summary`, through
`harness.scoring.questions`). The report's pages, the final line of `droidharness run` and `droidharness report`
read the same numbers.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Any

from harness.scoring.androidworld import androidworld_figure
from harness.scoring.cost import Price, usage_cost
from harness.scoring.episodes import BREAKDOWNS, Score, Scoreboard, headline, scoreboard
from harness.scoring.questions import METRICS, QAResult, exit_code, summarize_questions
from harness.scoring.questions import headline as qa_headline
from harness.trajectory.reader import EpisodeRecord, Run
from harness.trajectory.records import StepRecord
from harness.trajectory.result import INFRA_ERROR, UNFINISHED, UNSCORED, EpisodeResult

TIMING_PHASES = ("capture", "agent", "actuation", "settle")
MODEL_LATENCY = "model"  # each model call's round trip (the openai agent's `meta.model_seconds`), beside the phases


# --- numbers ---------------------------------------------------------------------------------------------------
def percentile(values: list[float], q: float) -> float | None:
    """Linear-interpolated percentile (q in [0, 100]) of `values`; None when empty."""
    xs = sorted(v for v in values if v is not None and math.isfinite(v))
    if not xs:
        return None
    k = (len(xs) - 1) * q / 100.0
    lo, hi = math.floor(k), math.ceil(k)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


@dataclass(frozen=True)
class QuestionRow:
    """One (question, lang) episode of a QA run on disk: its result when scored, else why not."""

    question_id: str
    lang: str
    status: str
    result: QAResult | None  # None: infra_error or unfinished
    error: str | None
    attempts: int
    app: str | None


def run_rows(run: Run) -> list[QuestionRow]:
    """Every episode of a QA run directory, read back (an unfinished one has no episode.json)."""
    rows = []
    for ep in run.episodes.values():
        meta = ep.meta
        if meta is None:
            rows.append(QuestionRow(ep.task_id, ep.lang, UNFINISHED, None, "unfinished: no episode.json", 0, None))
            continue
        result = QAResult.from_record(meta.task_id, meta.lang, meta.qa, meta.status) if meta.qa else None
        status = meta.status if result is not None or meta.status in UNSCORED else INFRA_ERROR
        app = meta.qa.app if meta.qa else meta.category
        rows.append(QuestionRow(meta.task_id, meta.lang, status, result, meta.error, meta.attempts, app))
    return rows


def _block(results: list[QAResult]) -> dict[str, Any]:
    s = summarize_questions(results)
    counts = {k: int(s[k]) for k in ("unknown_elements", "agent_errors", "tokens")}
    return {"questions": len(results), **{k: s.get(k) for k in METRICS}, **counts}


def run_summary(run: Run) -> dict[str, Any]:
    """summary.json of a QA run: the headline, the exit code, every ScreenQA metric overall, by app and by
    language (means over the scored questions), the unscored questions, the statuses."""
    rows = run_rows(run)
    scored = [r.result for r in rows if r.result is not None and r.status not in UNSCORED]
    unscored = [r for r in rows if r.status in UNSCORED]
    by_app: dict[str, list[QAResult]] = defaultdict(list)
    by_lang: dict[str, list[QAResult]] = defaultdict(list)
    for r in scored:
        by_app[r.app or "(home screen)"].append(r)
        by_lang[r.lang].append(r)
    statuses: dict[str, int] = defaultdict(int)
    for row in rows:
        statuses[row.status] += 1
    infra = sum(r.status == INFRA_ERROR for r in unscored)
    return {
        "kind": "qa",
        "run_id": run.manifest.run_id if run.manifest else run.path.name,
        "headline": qa_headline(scored, infra, len(unscored) - infra),
        "exit_code": exit_code(len(scored), len(unscored)),
        "metrics": METRICS,
        "overall": _block(scored),
        "by_app": {k: _block(v) for k, v in sorted(by_app.items())},
        "by_language": {k: _block(v) for k, v in sorted(by_lang.items())},
        "infra_failures": [
            {"task_id": r.question_id, "lang": r.lang, "status": r.status, "error": r.error, "attempts": r.attempts}
            for r in unscored
        ],
        "statuses": dict(sorted(statuses.items())),
    }


def episode_category(run: Run, ep: EpisodeRecord) -> str:
    if ep.meta and ep.meta.category:
        return ep.meta.category
    for t in run.manifest.tasks if run.manifest else []:
        if t.id == ep.task_id and t.category:
            return t.category
    return "?"


def episode_instruction(run: Run, ep: EpisodeRecord) -> str | None:
    if ep.meta and ep.meta.instruction:
        return ep.meta.instruction
    for t in run.manifest.tasks if run.manifest else []:
        if t.id == ep.task_id:
            return t.instruction.get(ep.lang) if isinstance(t.instruction, dict) else t.instruction
    return None


def episode_progress(ep: EpisodeRecord) -> float:
    if ep.meta is not None:
        return ep.meta.progress
    last = next((s.milestones for s in reversed(ep.steps) if s.milestones is not None), None)
    return last.progress if last else 0.0


def episode_apps(run: Run, ep: EpisodeRecord) -> int:
    if ep.meta is not None and ep.meta.apps is not None:
        return ep.meta.apps
    for t in run.manifest.tasks if run.manifest else []:
        if t.id == ep.task_id and t.apps:
            return len(t.apps)
    return 1


def outcome(run: Run, ep: EpisodeRecord) -> EpisodeResult:
    """A recorded episode's result (`EpisodeMeta.to_result`); an unfinished one is `unfinished`, never scored.
    Category and app count fall back to the manifest's task rows."""
    if ep.meta is not None:
        r = ep.meta.to_result()
    else:
        r = EpisodeResult(
            ep.task_id,
            ep.lang,
            status=UNFINISHED,
            progress=episode_progress(ep),
            steps=len(ep.steps),
            invalid_steps=sum(s.agent.invalid for s in ep.steps),
            error="unfinished: no episode.json (the run was interrupted)",
        )
    r.category = episode_category(run, ep)
    r.apps = episode_apps(run, ep)
    return r


def run_scoreboard(run: Run) -> Scoreboard:
    """`harness.scoring.episodes.scoreboard` of every episode on disk: what summary.json, the report, the final line of
    `droidharness run` and `droidharness report` print."""
    return scoreboard(outcome(run, ep) for ep in run.episodes.values())


def run_price(run: Run) -> Price | None:
    """The price the run was made with (`manifest.config.price`, `droidharness run --price`); None: unpriced."""
    return Price.from_json(run.manifest.config.get("price")) if run.manifest else None


def step_cost(step: StepRecord, price: Price | None) -> float | None:
    u = step.agent.usage
    return usage_cost(u.prompt_tokens, u.completion_tokens, price)


def episode_cost(ep: EpisodeRecord, price: Price | None) -> float | None:
    """The cost of every model call the episode's steps made (None without a price)."""
    if price is None:
        return None
    return sum(price.cost(s.agent.usage.prompt_tokens, s.agent.usage.completion_tokens) for s in ep.steps)


def model_latencies(steps: list[StepRecord]) -> list[float]:
    """The round trip of every model call of `steps`, in seconds (agents that call no model record none)."""
    out: list[float] = []
    for s in steps:
        raw = s.agent.meta.get("model_seconds")
        out += [float(x) for x in raw if isinstance(x, (int, float))] if isinstance(raw, list) else []
    return out


def _row(score: Score, eps: list[EpisodeRecord], price: Price | None = None) -> dict[str, Any]:
    """A table row: the score, plus the step-level figures of the same episodes (tokens, cost, timings, model
    call latency)."""
    steps = [s for ep in eps for s in ep.steps]
    tokens = sum(s.agent.usage.total_tokens for s in steps)
    timings = {
        ph: {
            "p50": percentile([getattr(s.timings, ph) for s in steps], 50),
            "p95": percentile([getattr(s.timings, ph) for s in steps], 95),
        }
        for ph in TIMING_PHASES
    }
    calls = model_latencies(steps)
    timings[MODEL_LATENCY] = {"p50": percentile(calls, 50), "p95": percentile(calls, 95)}
    cost = None if price is None else sum(episode_cost(ep, price) or 0.0 for ep in eps)
    return {
        **score.to_json(),
        "steps": len(steps),
        "tokens": tokens,
        "tokens_per_episode": tokens / len(eps) if eps else None,
        "cost": cost,
        "cost_per_episode": cost / len(eps) if cost is not None and eps else None,
        "cost_per_step": cost / len(steps) if cost is not None and steps else None,
        "model_calls": len(calls),
        "timings": timings,
    }


def summarize(run: Run, price: Price | None = None) -> dict[str, Any]:
    """The numbers of summary.json and the report's tables (times in seconds, SR/ATP as fractions or None when
    nothing was scored), all from `harness.scoring.episodes` over `outcome()` of each episode; costs in USD at
    `price` (default: the run's own, `run_price`; None: unpriced). A QA run's (kind "qa"): `run_summary`."""
    if run.kind == "qa":
        return run_summary(run)
    price = price or run_price(run)
    eps = list(run.episodes.values())
    results = [outcome(run, ep) for ep in eps]
    board = scoreboard(results)
    groups: dict[str, dict[str, list[EpisodeRecord]]] = {name: defaultdict(list) for name in BREAKDOWNS}
    for ep, result in zip(eps, results, strict=True):
        for name, key in BREAKDOWNS.items():
            groups[name][key(result)].append(ep)
    scores = {"by_category": board.by_category, "by_language": board.by_language, "by_app_count": board.by_app_count}
    perturb = perturb_summary(run)
    return {
        "run_id": run.manifest.run_id if run.manifest else run.path.name,
        "headline": headline(board.overall),
        "exit_code": board.exit_code,
        "overall": _row(board.overall, eps, price),
        **{name: {k: _row(scores[name][k], v, price) for k, v in sorted(g.items())} for name, g in groups.items()},
        "price": price.to_json() if price else None,
        "episode_costs": {ep.key: episode_cost(ep, price) for ep in eps} if price else {},
        "infra_failures": board.to_json()["infra_failures"],
        "skipped": board.to_json()["skipped"],
        "statuses": dict(sorted(Counter(ep.status for ep in eps).items())),
        **({"perturb": perturb} if perturb else {}),
        **({"androidworld": aw} if (aw := androidworld_figure(results)) is not None else {}),
    }


def perturb_summary(run: Run) -> dict[str, Any] | None:
    """The run's perturbations (`run --perturb`: manifest.json `perturb`) and, for each, how many of the finished
    episodes it was applied to; None for a run without them."""
    plan = (run.manifest.model_extra or {}).get("perturb") if run.manifest else None
    if not isinstance(plan, dict):
        return None
    applied: Counter[str] = Counter()
    finished = [ep.meta for ep in run.episodes.values() if ep.meta is not None]
    labels = [str(x) for x in plan.get("perturbations") or []]
    for meta in finished:  # a drawn dialog (`dialog=anr`) counts for the `dialog` asked
        applied.update(
            label for p in meta.perturbations if p.applied for label in labels if p.record().counts_for(label)
        )
    return {
        "perturbations": labels,
        "seed": plan.get("seed"),
        "episodes": len(finished),
        "applied": {label: applied[label] for label in labels},
    }
