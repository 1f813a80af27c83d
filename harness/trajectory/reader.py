"""The trajectory reader: a run directory read back (`load_run` -> `Run`, its `EpisodeRecord`s with their steps,
frames and result), one episode (`load_episode`), a steps.jsonl streamed (`iter_steps`), summary.json
(`load_summary`) and the episodes `--resume` skips (`completed_episode_keys`). The records it validates with are
`harness.trajectory.records`'s.

A corrupt step line raises `TrajectoryError` naming the file and line (or is skipped and counted with
`skip_bad`); a cut-off final line (a killed writer) is tolerated and reported. Both layouts are read: version 2
names content-addressed frames in `runs/<run_id>/frames/`, version 1 stored `NNN.png` / `NNN.xml` in the episode
directory; `EpisodeRecord.frame_path` / `image` / `xml` resolve either.
"""

from __future__ import annotations

import dataclasses
import gzip
import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from harness.trajectory.records import (
    EPISODE_FILE,
    EPISODE_SCHEMA,
    EPISODES_DIR,
    FRAMES_DIR,
    MANIFEST_FILE,
    STEP_SCHEMA,
    STEPS_FILE,
    SUMMARY_FILE,
    EpisodeMeta,
    Manifest,
    ObservationRecord,
    StepRecord,
    SummaryRecord,
    TrajectoryError,
    check_schema,
    episode_key,
    frame_name,
    parse_episode_key,
    schema_major,
)

log = logging.getLogger(__name__)


@dataclasses.dataclass
class ReadStats:
    lines: int = 0
    bad_lines: list[int] = dataclasses.field(default_factory=list)  # skipped corrupt lines (1-based)
    truncated: bool = False  # the last line was cut off (a killed writer)


def iter_steps(path: str | Path, *, skip_bad: bool = False, stats: ReadStats | None = None) -> Iterator[StepRecord]:
    """Stream the steps of a steps.jsonl. A corrupt line raises TrajectoryError naming file and line (or, with
    `skip_bad`, is counted in `stats.bad_lines`); a cut-off final line is tolerated (`stats.truncated`)."""
    p = Path(path)
    st = stats if stats is not None else ReadStats()
    try:
        f = open(p, "rb")
    except OSError as e:
        raise TrajectoryError(f"{p}: cannot read: {e.strerror or e}") from None
    with f:
        lineno = 0
        for raw in f:
            lineno += 1
            last = not raw.endswith(b"\n")
            if not raw.strip():
                continue
            st.lines += 1
            try:
                data = json.loads(raw.decode("utf-8"))
                if not isinstance(data, dict):
                    raise ValueError(f"a step line must be a JSON object, got {type(data).__name__}")
            except (ValueError, UnicodeDecodeError) as e:
                if last:
                    st.truncated = True
                    log.warning("%s:%d: truncated final line ignored (the writer was killed?)", p, lineno)
                    return
                if skip_bad:
                    st.bad_lines.append(lineno)
                    continue
                raise TrajectoryError(f"{p}:{lineno}: corrupt step line: {e}") from None
            check_schema(data.get("schema"), "step", schema_major(STEP_SCHEMA), f"{p}:{lineno}")
            try:
                yield StepRecord.model_validate(data)
            except ValidationError as e:
                if skip_bad:
                    st.bad_lines.append(lineno)
                    continue
                first = e.errors()[0]
                loc = ".".join(str(x) for x in first["loc"])
                raise TrajectoryError(f"{p}:{lineno}: invalid step record: {loc}: {first['msg']}") from None


def _read_json(path: Path, family: str, model: type[BaseModel], supported: int = 1) -> Any:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise TrajectoryError(f"{path}: cannot read: {e.strerror or e}") from None
    except (ValueError, UnicodeDecodeError) as e:
        raise TrajectoryError(f"{path}: not valid JSON: {e}") from None
    if not isinstance(data, dict):
        raise TrajectoryError(f"{path}: expected a JSON object")
    check_schema(data.get("schema"), family, supported, str(path))
    try:
        return model.model_validate(data)
    except ValidationError as e:
        first = e.errors()[0]
        raise TrajectoryError(f"{path}: {'.'.join(str(x) for x in first['loc'])}: {first['msg']}") from None


@dataclasses.dataclass
class EpisodeRecord:
    path: Path
    task_id: str
    lang: str
    meta: EpisodeMeta | None  # None: unfinished (killed, or still running)
    steps: list[StepRecord]
    stats: ReadStats

    @property
    def key(self) -> str:
        return self.path.name

    @property
    def finished(self) -> bool:
        return self.meta is not None

    @property
    def status(self) -> str:
        return self.meta.status if self.meta else "unfinished"

    @property
    def run_path(self) -> Path:
        """The run directory (episodes/<key>/ and stale/<key>.<n>/ are both two levels below it)."""
        return self.path.parent.parent

    @property
    def final_step(self) -> int | None:
        """The frame number of the final observation (the screen after the last step): last step + 1; None when
        the episode recorded none."""
        fo = self.meta.final_observation if self.meta else None
        if fo is None:
            return None
        stem = (fo.screenshot or "").split(".")[0]
        if schema_major(self.meta.schema_ if self.meta else None) < 2 and stem.isdigit():
            return int(stem)
        return (self.steps[-1].step if self.steps else 0) + 1

    def observation(self, step: int) -> tuple[ObservationRecord, int] | None:
        """The observation record of frame `step` (a step's, or the final one) and its record's schema major."""
        for s in self.steps:
            if s.step == step:
                return s.observation, schema_major(s.schema_)
        if self.meta is not None and self.meta.final_observation is not None and step == self.final_step:
            return self.meta.final_observation, schema_major(self.meta.schema_)
        return None

    def frame_path(self, step: int, kind: str = "screenshot") -> Path | None:
        """The file holding frame `step`'s screenshot (`kind` "screenshot", or "png" as v1 code says) or its
        hierarchy ("xml"), in either layout; None when there is none. v2: runs/<run_id>/frames/<name>; v1:
        <episode>/NNN.png|NNN.xml."""
        if kind not in ("screenshot", "png", "xml"):
            raise ValueError(f"frame kind {kind!r} is not screenshot or xml")
        field = "xml" if kind == "xml" else "screenshot"
        found = self.observation(step)
        if found is not None and found[1] >= 2:
            name = getattr(found[0], field)
            if not name or "/" in name or "\\" in name or name.startswith("."):
                return None
            p = self.run_path / FRAMES_DIR / name
        else:  # v1: the frame file of the step number, recorded or not (an unfinished episode's last frame)
            p = self.path / f"{frame_name(step)}.{'xml' if field == 'xml' else 'png'}"
        return p if p.is_file() else None

    def image(self, step: int) -> Any:
        """The screenshot the agent acted on at `step` (or the final one, last step + 1), as a PIL image."""
        from PIL import Image

        p = self.frame_path(step, "screenshot")
        if p is None:
            return None
        with Image.open(p) as im:
            im.load()
            return im

    def xml(self, step: int) -> str | None:
        """The hierarchy XML of frame `step` (gunzipped when stored as .gz), or None."""
        p = self.frame_path(step, "xml")
        if p is None:
            return None
        data = p.read_bytes()
        if p.name.endswith(".gz"):
            data = gzip.decompress(data)
        return data.decode("utf-8")


def load_episode(path: str | Path, *, skip_bad: bool = False) -> EpisodeRecord:
    p = Path(path)
    task_id, lang = parse_episode_key(p.name)
    meta = (
        _read_json(p / EPISODE_FILE, "episode", EpisodeMeta, schema_major(EPISODE_SCHEMA))
        if (p / EPISODE_FILE).is_file()
        else None
    )
    stats = ReadStats()
    steps = list(iter_steps(p / STEPS_FILE, skip_bad=skip_bad, stats=stats)) if (p / STEPS_FILE).is_file() else []
    if meta is not None:
        task_id, lang = meta.task_id, meta.lang
    return EpisodeRecord(p, task_id, lang, meta, steps, stats)


@dataclasses.dataclass
class Run:
    path: Path
    manifest: Manifest | None
    summary: dict[str, Any] | None
    episodes: dict[str, EpisodeRecord]  # by directory name "<task_id>__<lang>", sorted

    def episode(self, task_id: str, lang: str) -> EpisodeRecord:
        return self.episodes[episode_key(task_id, lang)]

    @property
    def kind(self) -> str:
        """ "qa" for a run of screen questions (its manifest says so), else "task"."""
        return self.manifest.kind if self.manifest is not None else "task"


def load_run(run_dir: str | Path, *, skip_bad: bool = False) -> Run:
    """Read a run directory (finished or not). Raises TrajectoryError naming the offending file."""
    p = Path(run_dir)
    if not p.is_dir():
        raise TrajectoryError(f"{p}: no such run directory")
    manifest = _read_json(p / MANIFEST_FILE, "manifest", Manifest) if (p / MANIFEST_FILE).is_file() else None
    summary = load_summary(p)
    eps: dict[str, EpisodeRecord] = {}
    root = p / EPISODES_DIR
    for d in sorted(root.iterdir()) if root.is_dir() else []:
        if d.is_dir() and "__" in d.name and not d.name.startswith("."):
            eps[d.name] = load_episode(d, skip_bad=skip_bad)
    return Run(p, manifest, summary, eps)


def load_summary(run_dir: str | Path) -> dict[str, Any] | None:
    """A run directory's summary.json as `load_run` reads it (None before the run wrote one)."""
    path = Path(run_dir) / SUMMARY_FILE
    if not path.is_file():
        return None
    return _read_json(path, "summary", SummaryRecord).model_dump(mode="json", by_alias=True)


def completed_episode_keys(run_dir: str | Path) -> set[tuple[str, str]]:
    """(task_id, lang) of every episode whose episode.json exists: `--resume` skips these."""
    root = Path(run_dir) / EPISODES_DIR
    if not root.is_dir():
        return set()
    return {
        parse_episode_key(d.name)
        for d in root.iterdir()
        if "__" in d.name and not d.name.startswith(".") and (d / EPISODE_FILE).is_file()
    }


__all__ = [
    "EpisodeRecord",
    "Run",
    "ReadStats",
    "load_run",
    "load_episode",
    "iter_steps",
    "completed_episode_keys",
    "load_summary",
]
