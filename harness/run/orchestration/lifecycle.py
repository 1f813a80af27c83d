"""The lifecycle every run directory goes through, whatever fills it (agent episodes or screen questions, local
threads or Ray actors): plan (the work items, those still to do), lock, resume, writer, finish.

    life = RunLifecycle.begin(items, resume=opts.resume, options=opts.writer)   # resume: lock, find the rest
    writer = life.create_writer(opts.out, opts.run_id, devices=..., ...)            # a new run: create, lock
    ... the driver fills writer with life.todo ...
    run = life.finish(console, report=True)   # summary.json, report.html; the run read back from disk
    life.release()                            # always (a `with life:` block does it)

A run stopped by a signal (`harness.stopping.Stopped`) is not finished: leaving the `with life:` block (after
the devices are closed, so no item begins any more) says what it left - the items done, those interrupted (begun,
no episode.json) and those not begun - and that `--resume` does the rest (`note_stop`).

One writer per run directory: both a new run and a resumed one hold the directory's `RunLock` until released.
A resumed run keeps its manifest and does only the items whose episode.json is missing.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

from rich.console import Console

import harness
from harness import __version__
from harness.errors import ConfigError
from harness.report.render import finish_run
from harness.run.fleet.pool import DevicePool
from harness.run.orchestration.lock import RunLock
from harness.stopping import Stopped
from harness.trajectory.reader import Run, completed_episode_keys, load_run
from harness.trajectory.records import EPISODES_DIR, MANIFEST_FILE, episode_key, jsonable
from harness.trajectory.writer import RunWriter, WriterOptions


class Identified(Protocol):
    """What a run's work items are about: a task or a question, named by its id."""

    @property
    def id(self) -> str: ...


T = TypeVar("T", bound=tuple[Identified, str])  # a work item: (task, lang), (question, lang)


def item_key(item: tuple[Identified, str]) -> tuple[str, str]:
    """A work item's (id, lang): its episode directory's name, what a resumed run matches."""
    return item[0].id, item[1]


def item_label(item: tuple[Identified, str]) -> str:
    """A work item as the live view and the logs name it: "task-id [en]"."""
    return f"{item[0].id} [{item[1]}]"


@dataclass
class RunLifecycle(Generic[T]):
    items: list[T]  # everything the run does
    todo: list[T]  # what is left to do: all of `items`, or a resumed run's unfinished ones
    options: WriterOptions = field(default_factory=WriterOptions)
    writer: RunWriter | None = None
    lock: RunLock | None = None
    prior: Run | None = None  # a resumed run as it was on disk before this invocation
    done: set[tuple[str, str]] = field(default_factory=set)  # (episode id, lang) complete on disk (resume)
    unit: str = "episodes"  # what its items are called (a stop's note)

    @classmethod
    def begin(
        cls,
        items: Sequence[T],
        *,
        resume: Path | None = None,
        options: WriterOptions | None = None,
        unit: str = "episodes",
    ) -> RunLifecycle[T]:
        """Plan a run of `items` (called `unit`). With `resume`, open and lock that run directory and keep only the
        items without an episode.json (`item_key`); `prior` is read under the lock (what another invocation had
        finished)."""
        life = cls(list(items), list(items), options or WriterOptions(), unit=unit)
        if resume is not None:
            life.writer = RunWriter.resume(resume, life.options)
            life.lock = RunLock(life.writer.path).acquire()
            life.done = completed_episode_keys(resume)
            life.todo = [item for item in items if item_key(item) not in life.done]
            life.prior = load_run(resume, skip_bad=True)
        return life

    @property
    def skipped(self) -> int:
        """Items already complete on disk (a resumed run)."""
        return len(self.items) - len(self.todo)

    def create_writer(
        self, out: Path, run_id: str | None, *, extra: dict[str, Any] | None = None, **manifest: Any
    ) -> RunWriter:
        """A new run's directory and manifest (`RunWriter.create`'s keywords, plus `extra` fields: merged into
        the manifest's own objects, e.g. `suite.hash`, or added beside them, e.g. `rerun`), locked; a resumed
        run's writer as it is."""
        if self.writer is None:
            self.writer = RunWriter.create(out, run_id, options=self.options, **manifest)
            self.lock = RunLock(self.writer.path).acquire()
            if extra:
                written = json.loads((self.writer.path / MANIFEST_FILE).read_text(encoding="utf-8"))
                for k, v in jsonable(extra).items():
                    both = isinstance(written.get(k), dict) and isinstance(v, dict)
                    written[k] = {**written[k], **v} if both else v
                self.writer.write_manifest(written)
        return self.writer

    def record_devices(self, pool: DevicePool) -> None:
        """A new run's manifest lists its devices as they come up (a resumed run keeps the devices it lists)."""
        if self.prior is None and self.writer is not None:
            pool.on_started(self.writer.record_device)

    def finish(self, console: Console | None, report: bool = True) -> Run:
        """summary.json and report.html (`harness.report.render.finish_run`); the run read back from disk, which
        is what every surface prints."""
        if self.writer is None:
            raise ConfigError("the run finished before its directory was created")
        if console is not None:
            console.line()
        return finish_run(self.writer, report=report)

    def note_stop(self, stop: Stopped) -> None:
        """Add to `stop` what the run left, read from its directory: how many of its items are done, interrupted
        (begun, no episode.json) and not begun, and the `--resume` that does the rest."""
        if self.writer is None:
            return
        path = self.writer.path
        done = completed_episode_keys(path)
        keys = [item_key(item) for item in self.items]
        finished = sum(k in done for k in keys)
        begun = sum(k not in done and (path / EPISODES_DIR / episode_key(*k)).is_dir() for k in keys)
        left = len(keys) - finished - begun
        # resumable even when all is done: the resumed run writes the summary and report the stop cut short
        stop.notes.append(
            f"{path}: {finished} of {len(keys)} {self.unit} done, {begun} interrupted, {left} not begun: "
            f"resume with --resume {path}"
        )

    def release(self) -> None:
        if self.lock is not None:
            self.lock.release()
            self.lock = None

    def __enter__(self) -> RunLifecycle[T]:
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            if isinstance(exc[1], Stopped):
                self.note_stop(exc[1])
        finally:
            self.release()


def harness_source() -> dict[str, Any]:
    """The harness that makes a run: its version and, run from a git checkout, the commit and whether the
    tracked files differ from it (`dirty`); commit None when there is no checkout or no git."""
    root = Path(harness.__file__).resolve().parents[1]  # the checkout holding the harness package
    out: dict[str, Any] = {"version": __version__, "git_commit": None, "git_dirty": None}
    if not (root / ".git").exists():
        return out
    try:
        head = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10, check=True
        )
        status = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        )
    except (OSError, subprocess.SubprocessError):
        return out
    out["git_commit"] = head.stdout.strip() or None
    out["git_dirty"] = bool(status.stdout.strip())
    return out


def content_hash(items: Sequence[object]) -> str:
    """sha256 of the canonical JSON of `items` (a run's tasks as loaded: what `suite.hash` pins)."""
    text = json.dumps(jsonable(list(items)), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def agent_settings(name: str, options: dict[str, Any], agent: object) -> dict[str, Any]:
    """The manifest's `agent`: its name, the options it was created with and, for an agent that says them
    (`settings()`, e.g. the openai agent: model, endpoint host, output format, sampling, image size, history,
    prompt templates and hash), every setting it runs with. Secrets are scrubbed when the manifest is written."""
    said = getattr(agent, "settings", None)
    full = said() if callable(said) else {}
    return {"name": name, **options, **(full if isinstance(full, dict) else {})}


__all__ = ["Identified", "RunLifecycle", "agent_settings", "content_hash", "harness_source", "item_key", "item_label"]
