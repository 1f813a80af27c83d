"""The trajectory format: file names, schema versions and the pydantic models of every JSON record.

Written by `harness.trajectory.writer`, read back by `harness.trajectory.reader`; documented field by field in
docs/trajectory-format.md. Readers accept any minor version of a schema they know (`droidharness.step/2.x`,
extra fields kept) and refuse a newer major version with a `TrajectoryError` naming the file (`check_schema`).

Two layouts are read. Version 2 (steps `droidharness.step/2`, episodes `droidharness.episode/2`) stores every
screen once per run, content-addressed, in `runs/<run_id>/frames/`: `<sha256 of the pixels>.webp` (lossless) and
`<sha256 of the XML>.xml.gz`; records name those files. Version 1 stored `NNN.png` / `NNN.xml` in the episode
directory.
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import json
import os
import re
import threading
from datetime import datetime, timezone
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

from pydantic import BaseModel, ConfigDict, Field

from harness.agent import Usage  # the one token-usage record: what an agent reports is what a step line holds
from harness.device.preparation import DevicePreparation
from harness.errors import HarnessError
from harness.perturbation import PerturbationRecord
from harness.scrub import redact
from harness.trajectory.result import STATUSES, EpisodeResult

STEP_SCHEMA = "droidharness.step/2"
EPISODE_SCHEMA = "droidharness.episode/2"
STEP_SCHEMA_V1 = "droidharness.step/1"  # the NNN.png / NNN.xml layout (still read; written only on request)
EPISODE_SCHEMA_V1 = "droidharness.episode/1"
MANIFEST_SCHEMA = "droidharness.manifest/1"
SUMMARY_SCHEMA = "droidharness.summary/1"
STEPS_FILE, EPISODE_FILE = "steps.jsonl", "episode.json"
MANIFEST_FILE, SUMMARY_FILE = "manifest.json", "summary.json"
EPISODES_DIR = "episodes"
FRAMES_DIR = "frames"  # v2: content-addressed screenshots and hierarchies, once per run
EXPORTS_DIR = "exports"  # `droidharness export`: <episode key>.gif | .mp4 (the report links them)
TIMING_KEYS = ("capture", "agent", "actuation", "settle", "total", "device", "wall")  # a step's (StepTimings)
STEP_WALL = "step_wall"  # episode.json `timings`: the steps' `wall` summed (`wall` there is the episode's own)


class TrajectoryError(HarnessError):
    """A trajectory file is unreadable, corrupt or too new (names the file and, for steps, the line)."""


# --- JSON helpers -------------------------------------------------------------------------------------------
def jsonable(obj: Any) -> Any:
    """Plain JSON data from pydantic models, dataclasses, tuples, paths, bytes (described), enums."""
    if obj is None or isinstance(obj, (bool, int, str)):
        return obj
    if isinstance(obj, float):
        return obj if obj == obj and obj not in (float("inf"), float("-inf")) else None
    if isinstance(obj, BaseModel):
        return jsonable(obj.model_dump(mode="json"))
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: jsonable(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, dict):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (set, frozenset)):
        return sorted((jsonable(v) for v in obj), key=lambda v: json.dumps(v, sort_keys=True))
    if isinstance(obj, (list, tuple)):
        return [jsonable(v) for v in obj]
    if isinstance(obj, (bytes, bytearray)):
        return f"<{len(obj)} bytes>"
    if isinstance(obj, enum.Enum):
        return jsonable(obj.value)
    return str(obj)


def now_iso() -> str:
    """The records' timestamps: UTC, milliseconds, `Z` (`2026-01-31T12:00:00.000Z`)."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def atomic_write_bytes(path: Path, data: bytes, fsync: bool = True) -> None:
    """Write `data` to a temp file next to `path`, fsync (optional), then `os.replace` it into place."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            if fsync:
                os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:  # a full disk, ...: no half-written temp file is left behind
        tmp.unlink(missing_ok=True)
        raise


def atomic_write_json(path: Path, obj: Any, fsync: bool = True) -> None:
    text = json.dumps(jsonable(obj), ensure_ascii=False, indent=2, allow_nan=False) + "\n"
    atomic_write_bytes(path, utf8(text), fsync)


def utf8(json_text: str) -> bytes:
    """The bytes of a JSON text as written to disk: secrets redacted (`harness.scrub.redact`), then UTF-8."""
    return _utf8(redact(json_text))


def _utf8(json_text: str) -> bytes:
    """UTF-8 of a JSON text. A lone surrogate (a model can emit one) cannot be UTF-8: it is written as its JSON
    escape (`\\ud800`), which reads back as the same string; it can only occur inside a JSON string."""
    return json_text.encode("utf-8", "backslashreplace")


def episode_key(task_id: str, lang: str) -> str:
    """Directory name of an episode: `<task_id>__<lang>` (unsafe characters %-escaped)."""
    for what, v in (("task_id", task_id), ("lang", lang)):
        if not v or v in (".", ".."):
            raise TrajectoryError(f"episode {what} {v!r} cannot name a directory")
    if "__" in lang:
        raise TrajectoryError(f"episode lang {lang!r} must not contain '__'")
    return f"{quote(task_id, safe='-_.')}__{quote(lang, safe='-_.')}"


def parse_episode_key(name: str) -> tuple[str, str]:
    task, sep, lang = name.rpartition("__")
    if not sep or not task:
        raise TrajectoryError(f"{name!r} is not an episode directory name (<task_id>__<lang>)")
    return unquote(task), unquote(lang)


def frame_name(step: int) -> str:
    """v1 file stem of the frame of `step` in the episode directory: `003`."""
    return f"{step:03d}"


def pixel_digest(img: Any) -> str:
    """sha256 (hex) of a PIL image's decoded pixels, mode and size: identical screens get the same name whatever
    encoder wrote them."""
    h = hashlib.sha256(f"{img.mode} {img.size[0]}x{img.size[1]}\n".encode("ascii"))
    h.update(img.tobytes())
    return h.hexdigest()


def text_digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def schema_major(value: Any) -> int:
    """N of "droidharness.<kind>/N[.m]" (1 when it cannot be read: the oldest layout)."""
    m = re.search(r"/(\d+)", str(value or ""))
    return int(m.group(1)) if m else 1


# --- the JSON models (the reader validates with them; the writer produces exactly these shapes) -------------
class _Rec(BaseModel):
    model_config = ConfigDict(extra="allow")  # minor schema versions may add fields


class ObservationRecord(_Rec):
    screenshot: str | None = None  # v2: "<sha256>.webp" in runs/<run_id>/frames/; v1: "003.png" in the episode dir
    xml: str | None = None  # v2: "<sha256>.xml.gz" in frames/; v1: "003.xml" in the episode dir
    package: str | None = None
    activity: str | None = None
    size: tuple[int, int] | None = None  # (width, height) pixels of the screenshot
    rotation: int | None = None  # 0..3 (quarter turns)
    paths: dict[str, Any] = {}  # which capture path served each capability
    timings: dict[str, Any] = {}  # the device layer's capture timings, seconds


class AgentRecord(_Rec):
    """What the agent said at a step. `action` stays the action's JSON form (`harness.actions`), not a parsed
    `Action`: a stored run is read by other versions and tools, and a step must be readable even when its action
    would not validate today (a schema that grew stricter, a dataset replay's native action); consumers parse it
    with `harness.actions.parse_action` when they need the typed value."""

    thought: str | None = None
    raw_output: str | None = None
    action: dict[str, Any] | None = None  # the parsed action (harness.actions JSON), None when invalid
    action_text: str | None = None  # harness.actions.describe(action)
    usage: Usage = Usage()
    invalid: bool = False
    error: str | None = None
    repair_attempts: int = 0
    meta: dict[str, Any] = {}


class ResultRecord(_Rec):
    ok: bool | None = None
    pixels: Any = None  # pixel coordinates the action used (tap point, [start, end] of a swipe, ...)
    readback: Any = None
    readback_matches: bool | None = None
    settled: bool | None = None
    error: str | None = None
    timings: dict[str, Any] = {}


class MilestoneProgress(_Rec):
    new_hits: list[str] = []  # ids newly hit by this step
    progress: float = 0.0  # hit leaves / all leaves after this step
    hits: dict[str, int] = {}  # every leaf hit so far -> step it was hit at


class StepTimings(_Rec):
    """A step's seconds: its phases on the host (capture, agent, actuation, settle, total), then how long the
    device lived through it: `device`, seconds on the device's own clock from the action's start to the next
    observation captured (0.01 s; simulated time on a virtual-clock device, the host's on any other; 0 for an
    invalid step), and `wall`, the host's seconds of the same span beside them. Runs before have neither."""

    capture: float | None = None
    agent: float | None = None
    actuation: float | None = None
    settle: float | None = None
    total: float | None = None
    device: float | None = None
    wall: float | None = None


class StepRecord(_Rec):
    schema_: str = Field(STEP_SCHEMA, alias="schema")
    step: int
    time: str | None = None  # ISO 8601 UTC when the step line was produced
    observation: ObservationRecord = ObservationRecord()
    agent: AgentRecord = AgentRecord()
    result: ResultRecord | None = None  # None when nothing was executed (invalid output, terminal action)
    milestones: MilestoneProgress | None = None
    timings: StepTimings = StepTimings()
    model_config = ConfigDict(extra="allow", populate_by_name=True)


Box = tuple[int, int, int, int]  # [left, top, right, bottom] device pixels
EPISODE_KINDS = ("task", "qa")  # an agent's task episode; one screen question (ScreenQA on a live app)


class PerturbationEntry(_Rec):
    """One perturbation of the run (`run --perturb`) and what this episode did with it (episode.json
    `perturbations[i]`; harness.perturbation.PerturbationRecord): `step` is the step whose screen an interruption
    came before, None for a screen condition (put on at the start); `applied` False says why in `reason`."""

    name: str
    value: str | None = None
    step: int | None = None
    applied: bool = False
    reason: str = ""

    def record(self) -> PerturbationRecord:
        return PerturbationRecord(self.name, self.value, self.step, self.applied, self.reason)


class QAItem(_Rec):
    """One answer element: its bounds and content, and (for an agent's answer) its index on the screen."""

    bounds: Box
    text: str
    index: int | None = None


class QAGroundTruth(_Rec):
    elements: list[list[QAItem]] = []  # per annotator, in the annotator's order; [] = "no answer"
    short: list[str] = []  # every annotator's short answers ("<no answer>" for a no-answer annotator)


class QARecord(_Rec):
    """A screen question's result (episode.json `qa`, kind "qa"): what was asked, what the QA agent answered,
    the ground truth resolved on the same screen, and every ScreenQA score (harness.scoring.questions.score_answer)."""

    question: str
    app: str | None = None  # the package the question is about (the suite's by-app breakdown)
    tags: list[str] = []
    answer: str  # the short answer as scored ("<no answer>")
    no_answer: bool = False
    predicted: list[QAItem] = []  # the answer elements found on the screen, in the agent's rank order
    ground_truth: QAGroundTruth = QAGroundTruth()
    scores: dict[str, float] = {}  # sqa_s_em, sqa_s_f1, sqa_uic_em, sqa_uic_f1, sqa_uic_bb_*, ndcg_v, f1
    unknown_elements: int = 0  # element indices the agent gave that are not on the screen (dropped)
    raw_output: str | None = None
    error: str | None = None  # the agent's failure (an exception, unusable output), scored as the answer it gave
    usage: Usage = Usage()


class EpisodeMeta(_Rec):
    schema_: str = Field(EPISODE_SCHEMA, alias="schema")
    kind: str = "task"  # one of EPISODE_KINDS
    task_id: str
    lang: str
    category: str | None = None
    instruction: str | None = None
    apps: int | None = None  # number of apps the task uses (scoring's by-app-count breakdown)
    status: str
    success: bool = False  # the SR flag
    progress: float = 0.0
    milestones: list[dict[str, Any]] = []  # MilestoneTracker.status(): id, sub_target, hit_step
    answer: str | None = None
    error: str | None = None
    steps: int = 0
    invalid_outputs: int = 0
    repair_attempts: int = 0
    tokens: Usage = Usage()
    timings: dict[str, float] = {}  # sums over steps (seconds; the steps' `wall` as `step_wall`) + "wall"
    seed: int | None = None
    device: dict[str, Any] = {}
    attempts: int = 1
    reset_method: str | None = None  # how the pool reset the device before the episode (runs before: absent)
    reset_seconds: float | None = None
    node: str | None = None  # the Ray node id that ran it (`run --ray`); None: a local run, or a run before
    perturbations: list[PerturbationEntry] = []  # `run --perturb`: each perturbation, applied or why not
    started: str | None = None
    finished: str | None = None
    final_observation: ObservationRecord | None = None
    extra: dict[str, Any] = {}
    qa: QARecord | None = None  # kind "qa": the question's result (absent from task episodes)
    model_config = ConfigDict(extra="allow", populate_by_name=True)

    def to_result(self) -> EpisodeResult:
        """The episode's `EpisodeResult`, as the runner returned it (the one record scoring reads)."""
        return EpisodeResult(
            task_id=self.task_id,
            lang=self.lang,
            status=self.status,
            success=self.success,
            progress=self.progress,
            category=self.category or "",
            apps=self.apps or 1,
            milestones=list(self.milestones),
            steps=self.steps,
            invalid_steps=self.invalid_outputs,
            answer=self.answer,
            error=self.error,
            terminated_by=self.extra.get("terminated_by"),
            seed=self.seed or 0,
            serial=str(self.device.get("serial", "")),
            attempts=self.attempts,
            reset_method=self.reset_method,
            reset_seconds=self.reset_seconds,
            node=self.node,
            tokens={
                "prompt": self.tokens.prompt_tokens,
                "completion": self.tokens.completion_tokens,
                "total": self.tokens.total_tokens,
            },
            timings={k: v for k, v in self.timings.items() if k != "wall"},
            end_state=self.extra.get("end_state") if isinstance(self.extra.get("end_state"), dict) else None,
            probes=list(self.extra.get("probes") or []),
            perturbations=[p.record() for p in self.perturbations],
            extra={k: v for k, v in self.extra.items() if k not in ("terminated_by", "end_state", "probes")},
        )


class ManifestTask(_Rec):
    """A task (or screen question) of a run, as the manifest lists it."""

    id: str
    category: str | None = None
    instruction: dict[str, str] | str | None = None  # per language
    apps: list[str | None] = []


class Manifest(_Rec):
    schema_: str = Field(MANIFEST_SCHEMA, alias="schema")
    kind: str = "task"  # "qa": a run of screen questions (`droidharness qa run`), one episode per (question, lang)
    run_id: str
    created: str
    droidharness_version: str | None = None
    versions: dict[str, str | None] = {}
    devices: list[dict[str, Any]] = []  # DeviceInfo fields, and `preparation` (harness.device.prepare) when prepared
    agent: dict[str, Any] = {}
    prompt_hash: str | None = None
    seeds: Any = None
    suite: dict[str, Any] = {}  # name, task_ids, languages
    tasks: list[ManifestTask] = []
    cli_args: list[str] = []
    config: dict[str, Any] = {}
    model_config = ConfigDict(extra="allow", populate_by_name=True)

    def preparations(self) -> list[DevicePreparation | None]:
        """Each device's preparation (`devices[i].preparation`), typed; None for a device without one (a run
        written before preparation existed, or a device prepared by nobody). A malformed one is a TrajectoryError."""
        out: list[DevicePreparation | None] = []
        for i, d in enumerate(self.devices):
            raw = d.get("preparation") if isinstance(d, dict) else None
            try:
                out.append(DevicePreparation.from_json(raw) if raw is not None else None)
            except (TypeError, ValueError) as e:
                raise TrajectoryError(f"{MANIFEST_FILE}: devices[{i}].preparation: {e}") from None
        return out


class SummaryRecord(_Rec):
    """summary.json as the reader validates it: its schema; every other field kept as written."""

    schema_: str = Field(SUMMARY_SCHEMA, alias="schema")


def check_schema(value: Any, family: str, supported: int, where: str) -> None:
    """Raise TrajectoryError unless `value` is "droidharness.<family>/N" with N <= supported."""
    m = re.fullmatch(rf"droidharness\.{re.escape(family)}/(\d+)(?:\.\d+)*", str(value)) if value else None
    if m is None:
        raise TrajectoryError(f"{where}: schema {value!r} is not droidharness.{family}/<version>")
    if int(m.group(1)) > supported:
        raise TrajectoryError(
            f"{where}: written with schema {value} but this droidharness reads "
            f"droidharness.{family}/{supported} at most; upgrade droidharness to read it"
        )


__all__ = [
    "SummaryRecord",
    "TrajectoryError",
    "StepRecord",
    "EpisodeMeta",
    "QARecord",
    "QAItem",
    "QAGroundTruth",
    "PerturbationEntry",
    "EPISODE_KINDS",
    "Manifest",
    "ObservationRecord",
    "AgentRecord",
    "ResultRecord",
    "MilestoneProgress",
    "StepTimings",
    "Usage",
    "episode_key",
    "parse_episode_key",
    "frame_name",
    "pixel_digest",
    "text_digest",
    "schema_major",
    "check_schema",
    "jsonable",
    "now_iso",
    "atomic_write_bytes",
    "atomic_write_json",
    "STEP_SCHEMA",
    "EPISODE_SCHEMA",
    "MANIFEST_SCHEMA",
    "SUMMARY_SCHEMA",
    "STATUSES",
    "TIMING_KEYS",
    "STEP_WALL",
    "STEPS_FILE",
    "EPISODE_FILE",
    "MANIFEST_FILE",
    "SUMMARY_FILE",
    "EPISODES_DIR",
    "FRAMES_DIR",
    "EXPORTS_DIR",
    "STEP_SCHEMA_V1",
    "EPISODE_SCHEMA_V1",
]
