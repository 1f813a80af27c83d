"""Run a task suite: every (task, language) episode over N devices in parallel, recorded and reported.

Each device slot has a worker thread (`harness.run.workers`); every episode attempt gets a fresh agent instance.
Failures follow the taxonomy of docs/scoring.md: an infrastructure failure (a device, adb server, transport or
endpoint error, or any exception outside the agent) is retried on a fresh device (`infra_retries` times) and, if it
persists, recorded as `infra_error`, listed and left out of SR / ATP; what the agent causes is scored by
`run_episode` and never retried. `resume` runs only the episodes of an existing run directory that have no
`episode.json`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console

from harness.actions import gesture_seconds
from harness.errors import ConfigError
from harness.perturbation import Perturbation, PerturbPlan, parse_perturbations
from harness.plugins import available_qa_agents, create_agent, create_qa_agent
from harness.qa_agent import QAAgent
from harness.report.summary import outcome, run_scoreboard
from harness.run.fleet.affinity import CpuAffinity
from harness.run.fleet.kinds import Isolation
from harness.run.fleet.pool import DevicePool, open_pool
from harness.run.fleet.processes import cancel_prestart, prestart
from harness.run.loop.episode import Limits, episode_seed, run_episode
from harness.run.loop.outside import OutsideSuite
from harness.run.orchestration.driver import Executor, PoolExecutor, WorkSpec, close_quietly, drive
from harness.run.orchestration.leasing import lease_episode
from harness.run.orchestration.lifecycle import RunLifecycle, agent_settings, content_hash, harness_source, item_label
from harness.run.orchestration.live import LiveView
from harness.scoring.cost import Price, money, results_cost
from harness.scoring.episodes import Scoreboard, headline, score
from harness.trajectory.episode_writer import EpisodeWriter
from harness.trajectory.records import ManifestTask, episode_key
from harness.trajectory.result import INFRA_ERROR, SKIPPED, EpisodeResult
from harness.trajectory.writer import RunWriter, WriterOptions
from tasks.schema import Task
from tasks.suite import load_suite, task_packages

log = logging.getLogger(__name__)


@dataclass
class SuiteOptions:
    suite: str = "virtual"
    langs: tuple[str, ...] = ("en", "zh")
    task_ids: tuple[str, ...] = ()  # run only these (default: all)
    agent: str = "heuristic"
    agent_options: dict[str, Any] = field(default_factory=dict)
    devices: int = 1
    isolation: Isolation | None = None  # embedded devices: "process" | "thread" (default) | "in_process"
    cpu_affinity: CpuAffinity = "auto"  # device processes pinned to cores: "auto" | "on" | "off" (run.fleet.affinity)
    serials: tuple[str, ...] = ()
    profile: str = "medium_phone"
    latency: str = "instant"
    clock: str = "real"  # embedded devices' clock: real, or virtual (simulated time: waits advance it)
    out: Path = Path("runs")
    run_id: str | None = None
    resume: Path | None = None
    limits: Limits = field(default_factory=Limits)
    seed: int = 0
    infra_retries: int = 2
    report: bool = True
    writer: WriterOptions = field(default_factory=WriterOptions)  # trajectory storage (fsync, frame encoding)
    # who answers the tasks' probes: "auto" = the agent's own QA mode when it has one (openai), else the lexical
    # baseline; "none" = ask nothing; or a QA agent's name (options: `probe_agent_options`)
    probe_agent: str = "auto"
    probe_agent_options: dict[str, Any] = field(default_factory=dict)
    price: Price | None = None  # USD per million input / output tokens (`--price`): cost in every surface
    rerun: dict[str, Any] | None = None  # the command's own options, recorded for `droidharness run --like`
    final_line: bool = False  # the caller prints the final headline (the CLI): the live view's log copy leaves it out
    # perturbations every episode runs under (`--perturb`, docs/robustness.md): the option's comma-separated text or
    # its items, parsed here into `Perturbation`s (a ConfigError naming the item); `perturb_seed` draws the steps of
    # the interruptions (with each episode's seed)
    perturb: str | Sequence[str | Perturbation] = ()
    perturb_seed: int = 0
    # another package's suite (`--suite androidworld`: harness.androidworld): its tasks, set-up and judge
    outside: OutsideSuite | None = None

    def __post_init__(self) -> None:
        items = [self.perturb] if isinstance(self.perturb, str) else list(self.perturb)
        self.perturb = parse_perturbations([p.label if isinstance(p, Perturbation) else p for p in items])

    @property
    def plan(self) -> PerturbPlan:
        """The perturbations as a typed plan (empty: none)."""
        return PerturbPlan(tuple(p for p in self.perturb if isinstance(p, Perturbation)), self.perturb_seed)


def probe_agent_factory(opts: SuiteOptions) -> Callable[[], QAAgent] | None:
    """What answers the probes (`SuiteOptions.probe_agent`); None: no probe is asked."""
    name, options = opts.probe_agent, opts.probe_agent_options
    if name == "none":
        return None
    if name == "auto":
        same = opts.agent in available_qa_agents()
        name, options = (opts.agent, dict(opts.agent_options)) if same else ("lexical", {})
        if options.get("cassette"):  # the probes' calls get their own cassette beside the agent's
            c = Path(str(options["cassette"]))
            options["cassette"] = str(c.with_name(f"{c.stem}.probes{c.suffix}"))
    create_qa_agent(name, **options)  # fail fast on a bad name or options, before any device starts
    return lambda: create_qa_agent(name, **options)


@dataclass
class SuiteResult:
    run_dir: Path
    results: list[EpisodeResult]  # the episodes this invocation ran (a resumed run: only the missing ones)
    skipped: int  # already complete (resume)
    board: Scoreboard  # the whole run as recorded on disk: what summary.json and the report say

    @property
    def sr(self) -> float | None:
        return self.board.overall.sr

    @property
    def atp(self) -> float | None:
        return self.board.overall.atp

    @property
    def exit_code(self) -> int:
        return self.board.exit_code


def select_tasks(tasks: list[Task], task_ids: tuple[str, ...]) -> list[Task]:
    """The tasks named by `task_ids` (all when empty), in suite order; an unknown id is a `ConfigError`."""
    known = {t.id for t in tasks}
    missing = [i for i in task_ids if i not in known]
    if missing:
        raise ConfigError(f"unknown task id(s) {missing}; see `droidharness tasks list`")
    return [t for t in tasks if not task_ids or t.id in task_ids]


def select_episodes(tasks: list[Task], langs: tuple[str, ...], task_ids: tuple[str, ...]) -> list[tuple[Task, str]]:
    return [(t, lang) for t in select_tasks(tasks, task_ids) for lang in langs if lang in t.languages]


Episode = tuple[Task, str]  # a work item of a task run: (task, lang)
# one attempt of an episode on an executor's slot, recorded into its trajectory:
# (slot, task, lang, seed, attempt number, the attempt's episode writer) -> the scored result
EpisodeAttempt = Callable[[int, Task, str, int, int, EpisodeWriter], EpisodeResult]


STEP_SECONDS = 0.5  # a step apart from its gesture (capture, answer, action): only ranks the tasks, so one guess


def expected_seconds(task: Task, lang: str) -> float:
    """How long an episode of `task` is expected to take, to rank it: each step of its reference solution in
    `lang` costs STEP_SECONDS plus its gesture (a long press holds 1 s, a swipe 0.3 s: `gesture_seconds`), so a
    short solution of long presses outranks a longer one of taps; without a solution, its step limit."""
    steps = task.reference.get(lang, ())
    if not steps:
        return task.max_steps * STEP_SECONDS
    total = 0.0
    for step in steps:
        duration = (step.model_extra or {}).get("duration")
        if isinstance(duration, bool) or not isinstance(duration, (int, float)) or duration <= 0:
            duration = None  # not a duration: the action's default
        total += STEP_SECONDS + gesture_seconds(step.type, duration)
    return total


def longest_first(items: list[Episode]) -> list[Episode]:
    """The order in which several devices take the episodes: the longest expected first (`expected_seconds`), so
    that no long episode starts last while the other devices stand idle (longest-processing-time-first
    scheduling); ties keep the suite's order. Only the order changes: every episode has its own seed and a
    freshly reset device."""
    return sorted(items, key=lambda it: -expected_seconds(it[0], it[1]))


def live_headline(outcomes: list[EpisodeResult], price: Price | None = None) -> str:
    """The live view's running headline: the final line's, over the results so far (and, priced, their cost)."""
    cost = results_cost(outcomes, price)
    return headline(score(outcomes)) + (f"  cost {money(cost)}" if cost is not None else "")


@dataclass
class RunPlan:
    """What a task run does, worked out before any device starts (every executor - threads over a device pool,
    or Ray actors - starts from one): the run's lifecycle (the episodes, those still to run, a resumed run's
    locked writer), the results already on disk, the agent factories."""

    opts: SuiteOptions
    life: RunLifecycle[Episode]
    earlier: list[EpisodeResult]
    make_agent: Callable[[], Any]
    make_qa: Callable[[], QAAgent] | None
    prompt_hash: str | None
    agent_settings: dict[str, Any] = field(default_factory=dict)  # the manifest's `agent` (lifecycle.agent_settings)

    @property
    def episodes(self) -> list[Episode]:
        return self.life.items

    @property
    def todo(self) -> list[Episode]:
        return self.life.todo

    def create_writer(self, devices: list[Any], slots: int, **config: Any) -> RunWriter:
        """A new run's directory and manifest (a resumed run keeps its own), locked: `devices` known now (more
        arrive with `RunLifecycle.record_devices`), `slots` the run's device count."""
        o = self.opts
        return self.life.create_writer(
            o.out,
            o.run_id,
            devices=devices,
            agent=self.agent_settings or {"name": o.agent, **o.agent_options},
            prompt_hash=self.prompt_hash,
            seeds={
                "base": o.seed,
                "episodes": {episode_key(t.id, lang): episode_seed(o.seed, t.id, lang) for t, lang in self.episodes},
            },
            suite_name=o.suite,
            tasks=[
                ManifestTask(id=t.id, category=t.category, instruction=t.instruction, apps=list(t.apps))
                for t, _ in self.episodes
            ],
            languages=list(o.langs),
            config={
                "profile": o.profile,
                "latency": o.latency,
                "clock": o.clock,
                "devices": slots,
                "max_steps": o.limits.max_steps,
                "agent_timeout": o.limits.agent_timeout,
                "infra_retries": o.infra_retries,
                "probe_agent": o.probe_agent,
                "price": o.price.to_json() if o.price else None,
                **config,
            },
            extra={
                "suite": {"hash": content_hash(list({t.id: t for t, _ in self.episodes}.values()))},
                "harness": harness_source(),
                "rerun": o.rerun,
                **({"perturb": o.plan.to_json()} if o.plan else {}),
            },
        )

    def live(self, console: Console | None, slots: int) -> LiveView[EpisodeResult]:
        price = self.opts.price
        return LiveView(
            console,
            len(self.todo),
            slots,
            lambda outs: live_headline(outs, price),
            self.earlier,
            final_line=self.opts.final_line,
        )

    def spec(self, writer: RunWriter, run: EpisodeAttempt) -> WorkSpec[Episode, EpisodeResult]:
        """One episode as a work item of the driver: an attempt opens its trajectory and `run`s it on the slot
        (a failed attempt's trajectory stays unfinished); giving up records `infra_error`."""
        opts = self.opts

        def attempt(slot: int, item: Episode, n: int) -> EpisodeResult:
            task, lang = item
            ep = writer.episode(task.id, lang, category=task.category, instruction=task.instruction_for(lang))
            try:
                return run(slot, task, lang, episode_seed(opts.seed, task.id, lang), n, ep)
            except BaseException:
                close_quietly(ep)
                raise

        return WorkSpec(
            label=item_label,
            attempt=attempt,
            give_up=lambda item, error, attempts: record_infra_error(item[0], item[1], error, attempts, writer, opts),
            retries=opts.infra_retries,
        )

    def execute(
        self,
        executor: Executor,
        writer: RunWriter,
        run: EpisodeAttempt,
        console: Console | None,
        release: Callable[[], None] | None = None,
    ) -> SuiteResult:
        """Drive the episodes still to do on `executor`, record its quarantined devices, finish the run. `release`:
        what closes the devices (a pool the run owns), called in the background once the episodes are done, while
        the run's summary is written; its failure is raised after the summary."""
        live = self.live(console, executor.size)
        order = self.todo if executor.size == 1 else longest_first(self.todo)
        drive(executor, order, self.spec(writer, run), live)
        writer.add_quarantined(executor.quarantined())
        with ThreadPoolExecutor(1, thread_name_prefix="devices-close") as closing:
            closed = closing.submit(release) if release is not None else None
            board = run_scoreboard(self.life.finish(console, report=self.opts.report))
            if closed is not None:
                closed.result()
        return SuiteResult(writer.path, live.results, self.life.skipped, board)


def plan_run(
    opts: SuiteOptions,
    agent_factory: Callable[[], Any] | None = None,
    probe_agent: Callable[[], QAAgent] | None = None,
) -> RunPlan:
    """Load the suite, check the agent (a bad name or option fails here, before any device starts) and, for
    `opts.resume`, lock the run directory and find what is left to run."""
    if opts.outside is not None:
        episodes = select_episodes(opts.outside.tasks(), opts.langs, opts.outside.select(opts.task_ids))
    else:
        episodes = select_episodes(load_suite(opts.suite), opts.langs, opts.task_ids)
    make_agent = agent_factory or (lambda: create_agent(opts.agent, **opts.agent_options))
    probe = make_agent()
    make_qa = probe_agent or (probe_agent_factory(opts) if any(t.probes for t, _ in episodes) else None)
    life = RunLifecycle.begin(episodes, resume=opts.resume, options=opts.writer)
    prior = life.prior
    recorded = (prior.manifest.model_extra or {}).get("perturb") if prior and prior.manifest else None
    recorded = recorded if isinstance(recorded, dict) else None
    if prior is not None and (recorded or None) != (opts.plan.to_json() if opts.plan else None):
        life.release()
        made = f"--perturb {','.join(recorded['perturbations'])} --perturb-seed {recorded['seed']}" if recorded else ""
        raise ConfigError(
            f"--resume {opts.resume}: the run was made {'with ' + made if made else 'without --perturb'}; "
            "resume it with the same perturbations"
        )
    earlier = (
        []
        if prior is None
        else [outcome(prior, e) for e in prior.episodes.values() if (e.task_id, e.lang) in life.done]
    )
    settings = agent_settings(opts.agent, opts.agent_options, probe)
    return RunPlan(opts, life, earlier, make_agent, make_qa, getattr(probe, "prompt_hash", None), settings)


def pool_attempt(pool: DevicePool, plan: RunPlan) -> EpisodeAttempt:
    """An episode attempt on a local pool's slot: lease the device (health check, then a timed reset in the
    episode's language, or a `locale=` perturbation's), take a fresh agent, run the episode (under the run's
    perturbations) into its trajectory."""

    def run(slot: int, task: Task, lang: str, seed: int, n: int, ep: EpisodeWriter) -> EpisodeResult:
        perturb, outside = plan.opts.plan, plan.opts.outside
        lease, leased = lease_episode(pool, slot, task, lang, perturb)
        ep.note_reset(lease.reset.method, lease.reset.seconds)
        judge = None
        if outside is not None:
            why = outside.skip_reason(task, lease.device)
            if why is not None:
                return record_skipped(task, lang, why, seed, ep)
            judge = outside.judge(task, lease.device, pool.slot_doors(slot))
        agent = plan.make_agent()  # fresh per attempt: a late answer of an abandoned call reaches no one
        qa = plan.make_qa() if plan.make_qa is not None and task.probes else None
        result = run_episode(
            task,
            agent,
            lease.device,
            lang,
            plan.opts.limits,
            seed=seed,
            sink=ep,
            attempt=n,
            probe_agent=qa,
            perturb=perturb,
            leased=leased,
            outside=judge,
        )
        result.reset_method, result.reset_seconds = lease.reset.method, lease.reset.seconds
        return result

    return run


def run_suite(
    opts: SuiteOptions,
    console: Console | None = None,
    agent_factory: Callable[[], Any] | None = None,
    pool: DevicePool | None = None,
    probe_agent: Callable[[], QAAgent] | None = None,
) -> SuiteResult:
    """Run the suite. Every episode attempt gets a FRESH agent from `agent_factory` (default: `opts.agent`
    with its options), so nothing an agent kept - not even a timed-out call still running in its abandoned
    thread - reaches another episode. `pool` (started, not closed here) overrides the devices the options
    describe; `probe_agent` (a factory) overrides `opts.probe_agent` for the tasks' probe questions."""
    if pool is None and not opts.serials and opts.isolation == "process" and opts.devices > 1:
        prestart(opts.profile, opts.langs)  # the pool's device zygote warms up while the suite loads
    try:
        plan = plan_run(opts, agent_factory, probe_agent)
    except BaseException:
        cancel_prestart()
        raise
    with plan.life:  # unlocked at the end; a stop says what it left, once the devices are closed
        with open_pool(
            pool,
            opts.devices,
            opts.serials,
            profile=opts.profile,
            latency=opts.latency,
            clock=opts.clock,
            isolation=None if opts.serials else opts.isolation,
            langs=opts.langs,
            cpu_affinity=opts.cpu_affinity,
            image=opts.outside.image if opts.outside is not None else "phone",
            apps=list(task_packages(task for task, _ in plan.todo)),
        ) as devices:
            writer = plan.create_writer([], devices.size)
            plan.life.record_devices(devices)  # in the manifest as each comes up
            release = devices.close if pool is None else None  # its own pool: closed while the summary is written
            return plan.execute(PoolExecutor(devices), writer, pool_attempt(devices, plan), console, release)


def skipped_result(task: Task, lang: str, reason: str, seed: int) -> EpisodeResult:
    """An outside suite's instance the leased device cannot host (`skipped`: listed with why, never started, never
    counted)."""
    return EpisodeResult(task.id, lang, status=SKIPPED, category=task.category, apps=1, error=reason, seed=seed)


def record_skipped(task: Task, lang: str, reason: str, seed: int, ep: EpisodeWriter) -> EpisodeResult:
    result = skipped_result(task, lang, reason, seed)
    ep.finish(result)
    return result


def record_infra_error(
    task: Task, lang: str, error: str, attempts: int, writer: RunWriter, opts: SuiteOptions
) -> EpisodeResult:
    """Record an episode that could not be run (its attempts failed on the infrastructure) as `infra_error`."""
    seed = episode_seed(opts.seed, task.id, lang)
    result = EpisodeResult(
        task.id,
        lang,
        status=INFRA_ERROR,
        category=task.category,
        apps=len(task.apps) or 1,
        error=error,
        seed=seed,
        attempts=attempts,
        terminated_by="error",
    )
    ep = writer.episode(task.id, lang, category=task.category, instruction=task.instruction_for(lang))
    ep.finish(result)
    return result
