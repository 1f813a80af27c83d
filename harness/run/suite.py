"""Run a task suite: every (task, language) episode over N devices in parallel, recorded and reported.

Each device slot has a worker thread; every episode attempt gets a fresh agent instance. Failures follow the
taxonomy of docs/scoring.md: an infrastructure failure (a device, adb server, transport or endpoint error, or
any exception outside the agent) is retried on a fresh device (`infra_retries` times) and, if it persists,
recorded as `infra_error`, listed and left out of SR / ATP; what the agent causes is scored by `run_episode`
and never retried. `resume` runs only the episodes of an existing run directory that have no `episode.json`.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console, Group
from rich.live import Live
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from agents.registry import create_agent
from harness.errors import ConfigError, HarnessError
from harness.run.episode import Limits, episode_seed, run_episode
from harness.run.lock import RunLock
from harness.run.pool import DevicePool
from harness.run.record import RunWriter, WriterOptions
from harness.run.report import outcome, run_scoreboard
from harness.run.result import INFRA_ERROR, EpisodeResult
from harness.run.scoring import Scoreboard, headline, score
from harness.run.trajectory import completed_episode_keys, load_run
from tasks.schema import Task
from tasks.suite import load_suite

log = logging.getLogger(__name__)


@dataclass
class SuiteOptions:
    suite: str = "virtual"
    langs: tuple[str, ...] = ("en", "zh")
    task_ids: tuple[str, ...] = ()  # run only these (default: all)
    agent: str = "heuristic"
    agent_options: dict[str, Any] = field(default_factory=dict)
    devices: int = 1
    serials: tuple[str, ...] = ()
    profile: str = "medium_phone"
    latency: str = "instant"
    out: Path = Path("runs")
    run_id: str | None = None
    resume: Path | None = None
    limits: Limits = field(default_factory=Limits)
    seed: int = 0
    infra_retries: int = 2
    report: bool = True
    writer: WriterOptions = field(default_factory=WriterOptions)  # trajectory storage (fsync, frame encoding)


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


class _Live:
    """The rich live view: a progress bar, a status line per device and the running score (the same
    `harness.run.scoring` headline the final line and the report print)."""

    def __init__(self, console: Console | None, total: int, slots: int, earlier: list[EpisodeResult]) -> None:
        self.console = console
        self.progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
            transient=False,
        )
        self.bar = self.progress.add_task("episodes", total=total)
        self.status = {i: "starting" for i in range(slots)}
        self.results: list[EpisodeResult] = []
        self.outcomes: list[EpisodeResult] = list(earlier)  # a resumed run starts from what is on disk
        self._lock = threading.Lock()
        self._live = Live(self._render(), console=console, refresh_per_second=4) if console else None

    def headline(self) -> str:
        return headline(score(self.outcomes))

    def _render(self) -> Group:
        t = Table.grid(padding=(0, 2))
        for i, s in sorted(self.status.items()):
            t.add_row(f"device {i}", s)
        return Group(self.progress, t, self.headline())

    def set(self, slot: int, text: str) -> None:
        with self._lock:
            self.status[slot] = text
            if self._live:
                self._live.update(self._render())

    def done(self, r: EpisodeResult) -> None:
        with self._lock:
            self.results.append(r)
            self.outcomes.append(r)
            self.progress.advance(self.bar)
            if self._live:
                self._live.update(self._render())

    def __enter__(self) -> _Live:
        if self._live:
            self._live.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._live:
            self._live.__exit__(*exc)


def run_suite(
    opts: SuiteOptions,
    console: Console | None = None,
    agent_factory: Callable[[], Any] | None = None,
    pool: DevicePool | None = None,
) -> SuiteResult:
    """Run the suite. Every episode attempt gets a FRESH agent from `agent_factory` (default: `opts.agent`
    with its options), so nothing an agent kept - not even a timed-out call still running in its abandoned
    thread - reaches another episode. `pool` (started, not closed here) overrides the devices the options
    describe."""
    tasks = load_suite(opts.suite)
    episodes = select_episodes(tasks, opts.langs, opts.task_ids)
    make_agent = agent_factory or (lambda: create_agent(opts.agent, **opts.agent_options))
    probe = make_agent()  # fail fast on bad agent options, before any device starts
    earlier: list[EpisodeResult] = []
    lock: RunLock | None = None  # one writer per run directory: a second --resume is refused, naming the pid
    if opts.resume:
        writer = RunWriter.resume(opts.resume, opts.writer)
        lock = RunLock(writer.path).acquire()
        done = set(completed_episode_keys(opts.resume))
        todo = [(t, lang) for t, lang in episodes if (t.id, lang) not in done]
        prior = load_run(opts.resume, skip_bad=True)
        earlier = [outcome(prior, ep) for ep in prior.episodes.values() if (ep.task_id, ep.lang) in done]
    else:
        todo = list(episodes)
    own_pool = pool is None
    try:
        if pool is None:
            pool = DevicePool(opts.devices, list(opts.serials), profile=opts.profile, latency=opts.latency).start()
        if not opts.resume:
            writer = RunWriter.create(
                opts.out,
                opts.run_id,
                options=opts.writer,
                devices=[pool.slot(i).info for i in range(pool.size)],
                agent={"name": opts.agent, **opts.agent_options},
                prompt_hash=getattr(probe, "prompt_hash", None),
                seeds={"base": opts.seed},
                suite_name=opts.suite,
                tasks=[t for t, _ in episodes],
                languages=list(opts.langs),
                config={
                    "profile": opts.profile,
                    "latency": opts.latency,
                    "devices": pool.size,
                    "max_steps": opts.limits.max_steps,
                    "agent_timeout": opts.limits.agent_timeout,
                    "infra_retries": opts.infra_retries,
                },
            )
            lock = RunLock(writer.path).acquire()
        work: queue.Queue[tuple[Task, str]] = queue.Queue()
        for ep in todo:
            work.put(ep)
        live = _Live(console, len(todo), pool.size, earlier)
        with live:
            threads = [
                threading.Thread(
                    target=_worker, args=(i, pool, make_agent, work, writer, opts, live), name=f"suite-{i}", daemon=True
                )
                for i in range(pool.size)
            ]
            for th in threads:
                th.start()
            for th in threads:
                th.join()
            _no_device_left(work, writer, opts, live)
        if console is not None:
            console.line()
        writer.finish(report=opts.report)
        board = run_scoreboard(load_run(writer.path, skip_bad=True))
        return SuiteResult(writer.path, live.results, len(episodes) - len(todo), board)
    finally:
        if own_pool and pool is not None:
            pool.close()
        if lock is not None:
            lock.release()


def _record_infra_error(
    task: Task, lang: str, error: str, attempts: int, writer: RunWriter, opts: SuiteOptions
) -> EpisodeResult:
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


def _no_device_left(work: queue.Queue[tuple[Task, str]], writer: RunWriter, opts: SuiteOptions, live: _Live) -> None:
    """Episodes still queued when every device slot has died: infrastructure failures, recorded and listed."""
    while True:
        try:
            task, lang = work.get_nowait()
        except queue.Empty:
            return
        live.done(
            _record_infra_error(
                task,
                lang,
                "no working device left: every device slot failed and could not be replaced",
                0,
                writer,
                opts,
            )
        )


def _worker(
    slot: int,
    pool: DevicePool,
    make_agent: Callable[[], Any],
    work: queue.Queue[tuple[Task, str]],
    writer: RunWriter,
    opts: SuiteOptions,
    live: _Live,
) -> None:
    """One device slot. Never dies silently: any exception is an infrastructure failure of the episode it
    happened in; when the slot's device cannot be replaced the slot stops (its episode recorded as such) and
    the other slots take the remaining work."""
    while True:
        try:
            task, lang = work.get_nowait()
        except queue.Empty:
            live.set(slot, "idle")
            return
        result, slot_alive = _run_with_retries(slot, pool, make_agent, task, lang, writer, opts, live)
        live.done(result)
        if not slot_alive:
            live.set(slot, "[red]stopped: no working device[/red]")
            return


def _run_with_retries(
    slot: int,
    pool: DevicePool,
    make_agent: Callable[[], Any],
    task: Task,
    lang: str,
    writer: RunWriter,
    opts: SuiteOptions,
    live: _Live,
) -> tuple[EpisodeResult, bool]:
    seed = episode_seed(opts.seed, task.id, lang)
    last_error = ""
    attempts = 0
    for attempt in range(1, opts.infra_retries + 2):
        attempts = attempt
        ep = None
        device = None
        t0 = time.perf_counter()
        try:
            device = pool.slot(slot)
            live.set(slot, f"{task.id} [{lang}] attempt {attempt} on {device.serial}")
            ep = writer.episode(task.id, lang, category=task.category, instruction=task.instruction_for(lang))
            pool.reset(slot)
            pool.ensure_locale(slot, lang)
            agent = make_agent()  # fresh per attempt: a late answer of an abandoned call reaches no one
            return run_episode(task, agent, device, lang, opts.limits, seed=seed, writer=ep, attempt=attempt), True
        except ConfigError as e:  # a setup mistake: a fresh device would not help
            last_error = str(e)
            _close_quietly(ep)
            break
        except Exception as e:  # noqa: BLE001 - infrastructure failure: retry on a fresh device
            last_error = f"{type(e).__name__}: {e}" if not isinstance(e, HarnessError) else str(e)
            log.warning(
                "%s [%s] attempt %d failed after %.1f s on %s: %s",
                task.id,
                lang,
                attempt,
                time.perf_counter() - t0,
                getattr(device, "serial", "?"),
                last_error,
            )
            _close_quietly(ep)
            try:
                pool.replace(slot)
            except Exception as e2:  # noqa: BLE001 - the slot is dead; the run goes on with the others
                last_error += f"; a fresh device could not be brought up: {e2}"
                return _record_infra_error(task, lang, last_error, attempts, writer, opts), False
    return _record_infra_error(task, lang, last_error, attempts, writer, opts), True


def _close_quietly(ep: Any) -> None:
    if ep is None:
        return
    try:
        ep.close()
    except Exception as e:  # noqa: BLE001 - the attempt failed already; keep its first error
        log.warning("closing the failed attempt's trajectory: %s", e)
