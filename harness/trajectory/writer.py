"""Trajectories on disk: the run writer, `RunWriter` - a run directory created (its scrubbed manifest) or resumed,
an `EpisodeWriter` (`harness.trajectory.episode_writer`: a `TrajectorySink` off the agent's hot path) handed out
per episode, the devices, quarantined devices and summary.json recorded. The records are
`harness.trajectory.records`', the reader (`load_run`) `harness.trajectory.reader`'s, the frame files
`harness.trajectory.frames`'; the format is docs/trajectory-format.md.

    runs/<run_id>/manifest.json                         run metadata (secrets scrubbed), written at start
    runs/<run_id>/summary.json, report.html             written at the end
    runs/<run_id>/frames/<sha256>.webp                  every distinct screen of the run, once (lossless WebP,
                                                        named by the hash of its decoded pixels, mode and size)
    runs/<run_id>/frames/<sha256>.xml.gz                every distinct hierarchy XML, once (gzip, named by the
                                                        hash of the XML)
    runs/<run_id>/episodes/<task_id>__<lang>/steps.jsonl   one "droidharness.step/2" JSON line per step, naming
                                                           the frames the agent acted on
                                             /episode.json   the episode's result, written LAST

Crash safety: a frame (image or XML) goes to a temp file and is `os.replace`d before the step line that names it
(a frame already in frames/ is complete: it only ever appears by that replace, so it is reused; two episodes
writing the same frame at once each replace it with identical bytes); a step line is ONE `os.write` of the whole
line to a file opened O_APPEND (then fsync, configurable); JSON files are replaced atomically. A killed run
therefore leaves every finished step readable and at worst a truncated final line, which the reader tolerates
and reports. Episodes without `episode.json` are unfinished.

Hashing, encoding and writing run on one writer thread per episode, off the agent's hot path. The version 1
layout (`NNN.png` / `NNN.xml` in the episode directory, `droidharness.step/1`) is still read everywhere and is
written only with `WriterOptions(layout=1)` (bench/trajectory.py compares the two).
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import sys
import threading
import weakref
from datetime import datetime
from importlib import metadata
from pathlib import Path
from typing import Any

from harness import __version__
from harness.errors import DiskFullError
from harness.scrub import scrub
from harness.trajectory.diskfull import is_disk_full, writing
from harness.trajectory.episode_writer import EpisodeWriter, flush_at_exit
from harness.trajectory.frames import FrameStore, WriterOptions
from harness.trajectory.records import (
    EPISODE_FILE,
    EPISODE_KINDS,
    EPISODES_DIR,
    MANIFEST_FILE,
    MANIFEST_SCHEMA,
    SUMMARY_FILE,
    SUMMARY_SCHEMA,
    Manifest,
    ManifestTask,
    TrajectoryError,
    atomic_write_json,
    episode_key,
    jsonable,
    now_iso,
)

log = logging.getLogger(__name__)
QUARANTINED_FILE = "quarantined.json"  # devices the pool quarantined during the run (summary.json `quarantined`)


def _version(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def environment_versions() -> dict[str, str | None]:
    import platform

    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        **{d: _version(d) for d in ("adbutils", "uiautomator2", "openai", "pillow", "pydantic")},
    }


def new_run_id() -> str:
    return datetime.now().strftime("%Y%m%d-%H%M%S-") + f"{os.getpid() % 100000:05d}"


class RunWriter:
    """Creates (or resumes) `runs/<run_id>/` and hands out `EpisodeWriter`s.

    with RunWriter.create("runs", agent={"name": "vlm", "model": m, "base_url": u}, suite_name=...) as run:
        ep = run.episode(task.id, "en", category=task.category, instruction=task.instruction_for("en"))
        ep.write_step(StepEvent(1, Frame.of(obs), agent_step, result, tracker.record(new), timings))
        ep.finish(result, final=Frame.of(obs_after))   # result: the runner's EpisodeResult
        finish_run(run)                                # harness.report.render: summary.json, report.html
    """

    def __init__(self, run_dir: str | Path, options: WriterOptions | None = None) -> None:
        self.path = Path(run_dir)
        self.options = options or WriterOptions()
        self.frames = FrameStore(self.path, self.options)  # shared by every episode of the run
        self._open: weakref.WeakSet[EpisodeWriter] = weakref.WeakSet()
        self._lock = threading.Lock()  # episodes are opened from several worker threads
        self._device_rows: dict[int, Any] = {}  # slot -> its device's manifest row (`record_device`)

    @classmethod
    def create(
        cls,
        runs_dir: str | Path,
        run_id: str | None = None,
        *,
        options: WriterOptions | None = None,
        devices: list[Any] | None = None,
        agent: dict[str, Any] | None = None,
        prompt_hash: str | None = None,
        seeds: Any = None,
        suite_name: str | None = None,
        tasks: list[ManifestTask] | None = None,
        languages: list[str] | None = None,
        cli_args: list[str] | None = None,
        config: dict[str, Any] | None = None,
        kind: str = "task",
    ) -> RunWriter:
        """Create `runs_dir/run_id` (must not exist) and write its scrubbed `manifest.json`.

        `tasks`: the run's tasks or questions as the manifest lists them; `agent`: name, model,
        base_url, ... (keys and tokens are scrubbed anyway); `devices`: DeviceInfo objects or dicts; `kind`:
        "task" (agent episodes) or "qa" (screen questions).
        """
        if kind not in EPISODE_KINDS:
            raise TrajectoryError(f"run kind {kind!r} is not one of {', '.join(EPISODE_KINDS)}")
        run_id = run_id or new_run_id()
        if not run_id or "/" in run_id or run_id in (".", ".."):
            raise TrajectoryError(f"run id {run_id!r} cannot name a directory")
        path = Path(runs_dir) / run_id
        try:
            path.mkdir(parents=True)
        except FileExistsError:
            raise TrajectoryError(f"{path}: run directory already exists (resume it with RunWriter.resume)") from None
        except OSError as e:
            if is_disk_full(e):
                raise DiskFullError(str(path), None, resumable=False) from e
            raise
        writer = cls(path, options)
        task_rows = [t.model_dump(mode="json") for t in tasks or []]
        manifest = {
            "schema": MANIFEST_SCHEMA,
            "kind": kind,
            "run_id": run_id,
            "created": now_iso(),
            "droidharness_version": __version__,
            "versions": environment_versions(),
            "devices": [jsonable(d) for d in (devices or [])],
            "agent": jsonable(agent or {}),
            "prompt_hash": prompt_hash,
            "seeds": jsonable(seeds),
            "suite": {"name": suite_name, "task_ids": [r["id"] for r in task_rows], "languages": list(languages or [])},
            "tasks": task_rows,
            "cli_args": [str(a) for a in (cli_args if cli_args is not None else sys.argv[1:])],
            "config": jsonable(config or {}),
        }
        try:
            (path / EPISODES_DIR).mkdir()
            writer.write_manifest(manifest)
        except OSError as e:  # a DiskFullError, or the OSError it stands for
            if not is_disk_full(e):
                raise
            shutil.rmtree(path, ignore_errors=True)  # a run directory without a manifest is no run to resume
            where = e.path if isinstance(e, DiskFullError) else MANIFEST_FILE
            raise DiskFullError(where, str(path), getattr(e, "needed", 0), resumable=False) from e
        return writer

    @classmethod
    def resume(cls, run_dir: str | Path, options: WriterOptions | None = None) -> RunWriter:
        path = Path(run_dir)
        if not (path / MANIFEST_FILE).is_file():
            raise TrajectoryError(f"{path}: not a run directory (no {MANIFEST_FILE})")
        (path / EPISODES_DIR).mkdir(exist_ok=True)
        return cls(path, options)

    def write_manifest(self, manifest: dict[str, Any]) -> None:
        clean = scrub(jsonable(manifest))
        Manifest.model_validate(clean)
        with writing(self.path / MANIFEST_FILE, self.path):
            atomic_write_json(self.path / MANIFEST_FILE, clean, self.options.fsync)

    def record_device(self, slot: int, info: Any) -> None:
        """Add slot `slot`'s device (a `DeviceInfo` or its dict) to the manifest's `devices` as it comes up:
        devices start together and arrive in any order; the list is kept in slot order."""
        with self._lock:
            self._device_rows[slot] = jsonable(info)
            manifest = json.loads((self.path / MANIFEST_FILE).read_text(encoding="utf-8"))
            manifest["devices"] = [self._device_rows[k] for k in sorted(self._device_rows)]
            self.write_manifest(manifest)

    def episode(
        self, task_id: str, lang: str, *, category: str | None = None, instruction: str | None = None
    ) -> EpisodeWriter:
        """A writer for `episodes/<task_id>__<lang>/`. A leftover unfinished attempt (a resumed run) is moved to
        `stale/<task_id>__<lang>.<n>/`; a finished one raises (it is complete: skip it)."""
        path = self.path / EPISODES_DIR / episode_key(task_id, lang)
        with self._lock:
            if (path / EPISODE_FILE).exists():
                raise TrajectoryError(f"{path}: episode already finished")
            if path.exists():
                stale = self.path / "stale"
                with writing(stale, self.path):
                    stale.mkdir(exist_ok=True)
                n = 1
                while (stale / f"{path.name}.{n}").exists():
                    n += 1
                shutil.move(str(path), str(stale / f"{path.name}.{n}"))
            w = EpisodeWriter(
                path, task_id, lang, self.options, category=category, instruction=instruction, frames=self.frames
            )
            self._open.add(w)
        flush_at_exit(w)
        return w

    def add_quarantined(self, entries: list[dict[str, Any]]) -> None:
        """Record devices the pool quarantined during this run (`quarantined.json`, appended across resumes;
        summary.json lists them as `quarantined`)."""
        if not entries:
            return
        with self._lock, writing(self.path / QUARANTINED_FILE, self.path):
            atomic_write_json(
                self.path / QUARANTINED_FILE, scrub(jsonable(self.quarantined() + entries)), self.options.fsync
            )

    def quarantined(self) -> list[dict[str, Any]]:
        """The devices quarantined during this run (see `add_quarantined`)."""
        try:
            data = json.loads((self.path / QUARANTINED_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return []
        return [d for d in data if isinstance(d, dict)] if isinstance(data, list) else []

    def write_summary(self, summary: dict[str, Any]) -> Path:
        """Write `summary.json` (the numbers are the report layer's: `harness.report.summary`)."""
        out = self.path / SUMMARY_FILE
        with writing(out, self.path):
            atomic_write_json(out, {"schema": SUMMARY_SCHEMA, **jsonable(summary)}, self.options.fsync)
        return out

    def close_episodes(self) -> None:
        """Close every open episode writer (an unfinished one stays unfinished: no episode.json)."""
        self._flush_open(close=True)

    def _flush_open(self, close: bool = False) -> None:
        with self._lock:
            writers = list(self._open)
        for w in writers:
            try:
                w.close() if close else w.flush()
            except Exception as e:  # noqa: BLE001 - at exit: log, keep going
                log.warning("trajectory %s: %s", w.path, e)

    def __enter__(self) -> RunWriter:
        return self

    def __exit__(self, *exc: Any) -> None:
        self._flush_open(close=True)
