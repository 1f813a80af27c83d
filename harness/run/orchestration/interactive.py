"""Episodes driven from outside (a Gymnasium policy, an MCP client) on one device, recorded like a run.

The same pieces as `droidharness run`: the device pool (one slot: an embedded virtual device, or a phone /
emulator by serial) leases the device for each episode - health check, then a reset by the fastest method the
device has, in the episode's language - and `EpisodeSession` (harness/run/loop/session.py) steps it. With recording,
each episode is a run directory made by the run's own lifecycle (`RunLifecycle`: manifest, lock, the episode's
trajectory writer, then summary.json and report.html), so `droidharness report` works on it.

    pool = DevicePool(1, serials, isolation="thread").start()
    rec = EpisodeRecording.create(out, run_id, task, lang, agent={"name": "gym"}, devices=[pool.describe(0)])
    session = begin_episode(pool, task, lang, seed, sink=rec.sink)
    ... session.apply(step) ...
    result = session.finish(); rec.finish()
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.errors import ConfigError
from harness.perturbation import PerturbPlan
from harness.run.fleet.pool import DevicePool
from harness.run.loop.session import EpisodeSession
from harness.run.orchestration.leasing import lease_episode
from harness.run.orchestration.lifecycle import RunLifecycle
from harness.trajectory.episode_writer import EpisodeWriter
from harness.trajectory.reader import Run
from harness.trajectory.records import ManifestTask
from tasks.schema import Task
from tasks.suite import load_suite


def find_task(suite: str, task_id: str) -> Task:
    """Task `task_id` of the bundled (or given) suite; an unknown id is a `ConfigError` naming it."""
    tasks = load_suite(suite)
    for t in tasks:
        if t.id == task_id:
            return t
    raise ConfigError(f"unknown task id {task_id!r} in suite {suite!r}; see `droidharness tasks list`")


def check_lang(task: Task, lang: str) -> None:
    if lang not in task.languages:
        raise ConfigError(f"task {task.id} has no instruction in {lang!r} (has {', '.join(task.languages)})")


@dataclass
class EpisodeRecording:
    """One episode recorded as a run directory by the run's lifecycle (locked while it is written)."""

    life: RunLifecycle[tuple[Task, str]]
    sink: EpisodeWriter

    @classmethod
    def create(
        cls,
        out: Path,
        run_id: str | None,
        task: Task,
        lang: str,
        *,
        agent: dict[str, Any],
        devices: list[Any],
        suite: str | None = None,
        config: dict[str, Any] | None = None,
        extra: dict[str, Any] | None = None,
    ) -> EpisodeRecording:
        life: RunLifecycle[tuple[Task, str]] = RunLifecycle.begin([(task, lang)])
        writer = life.create_writer(
            out,
            run_id,
            devices=devices,
            agent=agent,
            seeds=None,
            suite_name=suite,
            tasks=[ManifestTask(id=task.id, category=task.category, instruction=task.instruction, apps=[*task.apps])],
            languages=[lang],
            config=config or {},
            extra=extra,
        )
        try:
            sink = writer.episode(task.id, lang, category=task.category, instruction=task.instruction_for(lang))
        except BaseException:
            life.release()
            raise
        return cls(life, sink)

    @property
    def path(self) -> Path:
        assert self.life.writer is not None
        return self.life.writer.path

    def finish(self, report: bool = True) -> Run:
        """summary.json and report.html from what is on disk (the episode finished first, or left unfinished);
        the run read back. Releases the run's lock."""
        try:
            return self.life.finish(None, report=report)
        finally:
            self.life.release()


def begin_episode(
    pool: DevicePool,
    task: Task,
    lang: str,
    seed: int,
    *,
    sink: EpisodeWriter | None = None,
    max_steps: int | None = None,
    slot: int = 0,
    perturb: PerturbPlan | None = None,
) -> EpisodeSession:
    """Lease the slot's device for an episode of `task` in `lang` (health check, reset by the pool's fastest
    method, the language - or a `locale=` perturbation's), then begin it: start state, the perturbations' screen
    conditions, first screen. The reset is recorded in the result."""
    lease, leased = lease_episode(pool, slot, task, lang, perturb)
    if sink is not None:
        sink.note_reset(lease.reset.method, lease.reset.seconds)
    session = EpisodeSession(
        task, lease.device, lang, max_steps=max_steps, seed=seed, sink=sink, perturb=perturb, leased=leased
    )
    session.result.reset_method, session.result.reset_seconds = lease.reset.method, lease.reset.seconds
    try:
        session.begin()
    except BaseException:
        session.release()  # what perturbations were put on before it failed: put back
        raise
    return session


__all__ = ["EpisodeRecording", "begin_episode", "check_lang", "find_task"]
