"""`droidharness qa run` as a real run: every (question, language) of a QA suite over N devices in parallel,
recorded in the trajectory format (docs/trajectory-format.md, docs/screenqa.md) and reported.

One episode directory per (question, lang), kind "qa": its one step is the screen the question was asked about
(screenshot + hierarchy, stored as frames like every step) with the answer as the step's ANSWER action, and its
episode.json carries the QA result (`QARecord`: ground truth, predicted items, every score, unknown elements,
the agent's raw output / error, usage). Then summary.json (`harness.report.summary.run_summary`) and report.html.

The work runs through the one driver (`harness.run.orchestration.driver`) and run lifecycle
(`harness.run.orchestration.lifecycle`) like agent episodes: one thread per device slot, every
attempt on a reset device in the question's language with a fresh QA agent; an `InfrastructureError` while
reaching the state or asking is retried on a fresh device and, if it persists, recorded as `infra_error`, listed
and left out of the scores. `resume` asks only the questions of an existing run directory without episode.json,
under the run-directory lock.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console

from harness.actions import Answer
from harness.agent import AgentStep
from harness.errors import ConfigError
from harness.observation import DeviceInfo, Observation
from harness.plugins import create_qa_agent
from harness.qa_agent import QAAgent, QAAnswer
from harness.report.summary import run_rows, run_summary
from harness.run.fleet.pool import DevicePool, open_pool
from harness.run.loop.questions import call_agent, reach
from harness.run.orchestration.driver import PoolExecutor, WorkSpec, close_quietly, drive
from harness.run.orchestration.lifecycle import RunLifecycle, item_label
from harness.run.orchestration.live import LiveView
from harness.scoring.questions import QAResult, ground_truth, headline, question_app, score_question
from harness.trajectory.episode_writer import EpisodeWriter
from harness.trajectory.reader import load_run
from harness.trajectory.records import ManifestTask
from harness.trajectory.result import INFRA_ERROR, UNSCORED, EpisodeResult
from harness.trajectory.sink import Frame, StepEvent
from harness.trajectory.writer import RunWriter, WriterOptions
from tasks.qa_suite import QAQuestion, load_qa_suite

Item = tuple[QAQuestion, str]


@dataclass
class QARunOptions:
    suite: str = "virtual"
    langs: tuple[str, ...] = ("en", "zh")
    question_ids: tuple[str, ...] = ()  # ask only these (default: all)
    agent: str = "lexical"
    agent_options: dict[str, Any] = field(default_factory=dict)
    devices: int = 1
    serials: tuple[str, ...] = ()  # real devices (phones, emulators) instead of embedded ones
    profile: str = "medium_phone"
    latency: str = "instant"
    clock: str = "real"  # embedded devices' clock: real, or virtual (simulated time: waits advance it)
    out: Path = Path("runs")
    run_id: str | None = None
    resume: Path | None = None
    infra_retries: int = 2
    report: bool = True
    writer: WriterOptions = field(default_factory=WriterOptions)
    final_line: bool = False  # the caller prints the final headline (the CLI): the live view's log copy leaves it out


@dataclass
class Outcome:
    """What one (question, lang) came to in this invocation: a scored result, or an infrastructure failure."""

    question_id: str
    lang: str
    result: QAResult | None  # None: infra_error
    error: str | None = None
    attempts: int = 1


@dataclass
class QARunResult:
    run_dir: Path
    outcomes: list[Outcome]  # what this invocation asked (a resumed run: only the missing questions)
    skipped: int  # already answered (resume)
    summary: dict[str, Any]  # the whole run as recorded on disk: what summary.json and the report say

    @property
    def results(self) -> list[QAResult]:
        return [o.result for o in self.outcomes if o.result is not None]

    @property
    def exit_code(self) -> int:
        return int(self.summary["exit_code"])


def select_questions(questions: list[QAQuestion], langs: tuple[str, ...], ids: tuple[str, ...] = ()) -> list[Item]:
    """(question, lang) of the questions named by `ids` (all when empty), in suite order; an unknown id is a
    `ConfigError`."""
    missing = sorted(set(ids) - {q.id for q in questions})
    if missing:
        raise ConfigError(f"unknown question id(s) {missing}; see the suite's files")
    return [(q, lg) for q in questions if not ids or q.id in ids for lg in langs if lg in q.languages]


def _live_headline(outcomes: list[Outcome]) -> str:
    return headline([o.result for o in outcomes if o.result is not None], sum(o.result is None for o in outcomes))


def run_qa(
    opts: QARunOptions,
    console: Console | None = None,
    agent_factory: Callable[[], QAAgent] | None = None,
    pool: DevicePool | None = None,
) -> QARunResult:
    """Run the QA suite. Every attempt gets a FRESH QA agent from `agent_factory` (default: `opts.agent` with
    its options). `pool` (started, not closed here) overrides the devices the options describe. A resumed run
    asks the questions of the suite and languages its manifest names."""
    suite, langs = opts.suite, opts.langs
    if opts.resume:
        prior = load_run(opts.resume, skip_bad=True)
        if prior.manifest is None or prior.kind != "qa":
            raise ConfigError(f"{opts.resume}: not a QA run directory (its manifest.json is not of kind 'qa')")
        suite = str(prior.manifest.suite.get("name") or suite)
        langs = tuple(prior.manifest.suite.get("languages") or langs)
        made_by = prior.manifest.agent.get("name")
        if made_by and made_by != opts.agent:
            raise ConfigError(
                f"{opts.resume}: this run was made with QA agent {made_by!r}; resume it with --agent {made_by}"
            )
    questions = select_questions(load_qa_suite(suite), langs, opts.question_ids)
    make_agent = agent_factory or (lambda: create_qa_agent(opts.agent, **opts.agent_options))
    probe = make_agent()  # fail fast on bad agent options, before any device starts
    with RunLifecycle.begin(questions, resume=opts.resume, options=opts.writer, unit="questions") as life:
        earlier = (
            []
            if life.prior is None
            else [
                Outcome(r.question_id, r.lang, r.result, r.error, r.attempts)
                for r in run_rows(life.prior)
                if r.status not in UNSCORED or r.status == INFRA_ERROR
            ]
        )
        with open_pool(
            pool, opts.devices, opts.serials, profile=opts.profile, latency=opts.latency, clock=opts.clock
        ) as devices:
            writer = life.create_writer(
                opts.out,
                opts.run_id,
                devices=[],
                agent={"name": opts.agent, **opts.agent_options},
                prompt_hash=getattr(probe, "prompt_hash", None),
                suite_name=suite,
                tasks=[
                    ManifestTask(id=q.id, category=question_app(q), instruction=q.question, apps=[question_app(q)])
                    for q in {q.id: q for q, _ in questions}.values()
                ],
                languages=list(langs),
                config={
                    "profile": opts.profile,
                    "latency": opts.latency,
                    "clock": opts.clock,
                    "devices": devices.size,
                    "infra_retries": opts.infra_retries,
                },
                kind="qa",
            )
            life.record_devices(devices)  # in the manifest as each comes up
            executor = PoolExecutor(devices)
            live: LiveView[Outcome] = LiveView(
                console,
                len(life.todo),
                devices.size,
                _live_headline,
                earlier,
                unit="questions",
                final_line=opts.final_line,
            )
            drive(executor, life.todo, _question_spec(devices, make_agent, writer, opts), live)
            writer.add_quarantined(executor.quarantined())
            run = life.finish(console, report=opts.report)  # the QA page: harness.report.render dispatches by kind
        return QARunResult(writer.path, live.results, life.skipped, run_summary(run))


def _answer_step(ans: QAAnswer, raised: bool, seconds: float) -> AgentStep:
    """The step's agent record: the answer as an ANSWER action (ranked element indices + short text, or no
    answer); an agent that raised or gave unusable output is an invalid step with its error."""
    indices = [i for i in ans.elements if i >= 0]
    if raised:
        action = None
    elif ans.no_answer or not (indices or ans.text):
        action = Answer(no_answer=True)
    else:
        action = Answer(text=ans.text, elements=indices)
    return AgentStep(
        action=action,
        raw_output=ans.raw_output,
        usage=ans.usage,
        invalid=ans.error is not None,
        error=ans.error,
        meta={"agent_seconds": round(seconds, 4)},
    )


def record_answer(
    ep: EpisodeWriter,
    result: QAResult,
    obs: Observation | None,
    ans: QAAnswer,
    raised: bool,
    seconds: float,
    *,
    device: DeviceInfo | None = None,
    attempts: int = 1,
) -> None:
    """Record one answered question as its episode: the screen asked about as step 1 (with the answer as its
    ANSWER action; no step when there is no screen), and the scored QA result in episode.json. Live runs and
    the offline ScreenQA evaluation record through this, so one report reads both."""
    if obs is not None:
        ep.write_step(StepEvent(1, Frame.of(obs), _answer_step(ans, raised, seconds), None, None, {"agent": seconds}))
    ep.finish(
        EpisodeResult(
            result.question_id,
            result.lang,
            status=result.status,
            success=result.status == "success",
            progress=result.scores.get("f1", 0.0),
            category=result.app or "",
            steps=1 if obs is not None else 0,
            invalid_steps=int(ans.error is not None),
            answer=result.answer_text,
            terminated_by="ANSWER",
            error=result.error,
            serial=device.serial if device is not None else "",
            attempts=attempts,
        ),
        device=device,
        kind="qa",
        qa=result.to_record(),
    )


def _question_spec(
    pool: DevicePool, make_agent: Callable[[], QAAgent], writer: RunWriter, opts: QARunOptions
) -> WorkSpec[Item, Outcome]:
    def attempt(slot: int, item: Item, n: int) -> Outcome:
        q, lang = item
        ep = writer.episode(q.id, lang, category=question_app(q), instruction=q.question[lang])
        try:
            app = question_app(q)
            lease = pool.lease(slot, [app] if app else [], lang)  # health check, reset, in this language
            ep.note_reset(lease.reset.method, lease.reset.seconds)
            device = lease.device
            agent = make_agent()  # fresh per attempt
            obs = reach(q, device, lang)
            gt = ground_truth(q, obs, lang)
            ans, raised, seconds = call_agent(agent, obs, q.question[lang], lang)
            result = score_question(q, lang, obs, gt, ans, raised)
            record_answer(ep, result, obs, ans, raised, seconds, device=device.info, attempts=n)
            return Outcome(q.id, lang, result, result.error, n)
        except BaseException:
            close_quietly(ep)
            raise

    def give_up(item: Item, error: str, attempts: int) -> Outcome:
        q, lang = item
        ep = writer.episode(q.id, lang, category=question_app(q), instruction=q.question[lang])
        ep.finish(
            EpisodeResult(
                q.id,
                lang,
                status=INFRA_ERROR,
                category=question_app(q) or "",
                error=error,
                attempts=attempts,
                terminated_by="error",
            ),
            kind="qa",
        )
        return Outcome(q.id, lang, None, error, attempts)

    return WorkSpec(label=item_label, attempt=attempt, give_up=give_up, retries=opts.infra_retries)


__all__ = ["QARunOptions", "QARunResult", "Outcome", "run_qa", "select_questions"]
