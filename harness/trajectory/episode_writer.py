"""One episode's trajectory on disk: `EpisodeWriter`, a `TrajectorySink` writing `episodes/<task_id>__<lang>/`
(steps.jsonl line by line, the frames through the run's `FrameStore`, episode.json last), off the agent's hot path
on a writer thread of its own; and the step records it builds from the sink's typed events (`observation_fields`,
`agent_fields`, `result_fields`). The run directory around it (manifest, episodes handed out, summary) is
`harness.trajectory.writer.RunWriter`'s; the layout and crash safety are described there and in
docs/trajectory-format.md.
"""

from __future__ import annotations

import atexit
import json
import logging
import os
import queue
import threading
import time
import weakref
from pathlib import Path
from typing import Any

from harness.actions import describe
from harness.agent import AgentStep
from harness.errors import DiskFullError
from harness.observation import ActionResult, DeviceInfo
from harness.priority import lower_this_thread
from harness.scrub import redact, scrub
from harness.trajectory.diskfull import as_disk_full, is_disk_full, writing
from harness.trajectory.frames import FrameStore, WriterOptions, image_bytes
from harness.trajectory.records import (
    EPISODE_FILE,
    EPISODE_KINDS,
    EPISODE_SCHEMA,
    EPISODE_SCHEMA_V1,
    STEP_SCHEMA,
    STEP_SCHEMA_V1,
    STEP_WALL,
    STEPS_FILE,
    TIMING_KEYS,
    EpisodeMeta,
    QARecord,
    StepRecord,
    TrajectoryError,
    atomic_write_bytes,
    atomic_write_json,
    frame_name,
    jsonable,
    now_iso,
    utf8,
)
from harness.trajectory.result import EpisodeResult
from harness.trajectory.sink import Frame, StepEvent

log = logging.getLogger(__name__)


def _dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def _r(x: Any, nd: int = 4) -> float | None:
    try:
        return None if x is None else round(float(x), nd)
    except (TypeError, ValueError):
        return None


# --- records from the sink's typed events --------------------------------------------------------------------
def observation_fields(frame: Frame) -> dict[str, Any]:
    return {
        "package": frame.package,
        "activity": frame.activity,
        "size": list(frame.size) if frame.size is not None else None,
        "rotation": frame.rotation,
        "paths": jsonable(frame.paths),
        "timings": jsonable(frame.timings),
        **({"captured_at": _r(frame.captured_at, 3)} if frame.captured_at else {}),
        **({"fallbacks": jsonable(frame.fallbacks)} if frame.fallbacks else {}),
    }


def agent_fields(agent_step: AgentStep) -> dict[str, Any]:
    action = agent_step.action
    action_json: Any = None
    text = None
    if action is not None:
        action_json = jsonable(action.model_dump(mode="json", exclude_none=True))
        if isinstance(action_json, dict) and "type" in action_json:  # `type` first: easier to read and diff
            action_json = {"type": action_json["type"], **{k: v for k, v in action_json.items() if k != "type"}}
        try:
            text = describe(action)
        except Exception:  # noqa: BLE001 - a description is a nicety (an agent may hand over a malformed action)
            text = None
    u = agent_step.usage
    return {
        "thought": agent_step.thought,
        "raw_output": agent_step.raw_output,
        "action": action_json,
        "action_text": text,
        "usage": {
            "prompt_tokens": u.prompt_tokens,
            "completion_tokens": u.completion_tokens,
            "total_tokens": u.total_tokens,
        },  # fmt: skip
        "invalid": bool(agent_step.invalid),
        "error": None if agent_step.error is None else str(agent_step.error),
        "repair_attempts": int(agent_step.repair_attempts or 0),
        "meta": jsonable(agent_step.meta or {}),
    }


def result_fields(result: ActionResult | None) -> dict[str, Any] | None:
    if result is None:
        return None
    optional = {"path": result.path, "typed_text": result.typed_text, "package": result.package,
                "settle_polls": result.settle_polls}  # fmt: skip
    return {
        "ok": result.ok,
        "pixels": jsonable(result.pixels),
        "readback": jsonable(result.readback),
        "readback_matches": result.readback_matches,
        "settled": result.settled,
        "error": None if result.error is None else str(result.error),
        "timings": jsonable(result.timings),
        **{k: jsonable(v) for k, v in optional.items() if v not in (None, "")},
    }


def _timing(d: dict[str, float], *names: str) -> float | None:
    for n in names:
        if d.get(n) is not None:
            return _r(d[n])
    return None


class EpisodeWriter:
    """Writes one episode. `write_step` per step, then `finish(...)` (or the episode stays unfinished)."""

    def __init__(
        self,
        path: Path,
        task_id: str,
        lang: str,
        options: WriterOptions,
        *,
        category: str | None = None,
        instruction: str | None = None,
        frames: FrameStore | None = None,
    ) -> None:
        self.path, self.task_id, self.lang, self.options = path, task_id, lang, options
        self.frames = frames if frames is not None else FrameStore(path.parent.parent, options)
        self.category, self.instruction = category, instruction
        self.run_dir = path.parent.parent  # runs/<run_id>/episodes/<key>
        with writing(path / STEPS_FILE, self.run_dir):
            path.mkdir(parents=True, exist_ok=True)
            self._fd = os.open(path / STEPS_FILE, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        self._started = now_iso()
        self._t0 = time.perf_counter()
        self._last_step: int | None = None
        self._sums = {k: 0.0 for k in TIMING_KEYS}  # episode.json `timings` (the steps' `wall` as STEP_WALL)
        self._tokens = {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}
        self._invalid = self._repairs = self._count = 0
        self._reset: tuple[str, float] | None = None  # (method, seconds) of the pool's reset before the episode
        self._error: BaseException | None = None
        self._closed = False
        self._final: tuple[Frame, dict[str, str | None]] | None = None  # `final_screen`: the frame, its names
        self._queue: queue.Queue[Any] | None = None
        self._thread: threading.Thread | None = None
        if options.background:
            self._queue = queue.Queue(maxsize=max(1, options.queue_size))
            self._thread = threading.Thread(target=self._work, name=f"trajectory-{path.name}", daemon=True)
            self._thread.start()

    def note_reset(self, method: str, seconds: float) -> None:
        """How the device pool reset the device before this episode (episode.json `reset_method` /
        `reset_seconds`, unless the result says otherwise)."""
        self._reset = (method, seconds)

    # the writer thread ---------------------------------------------------------------------------------
    def _work(self) -> None:
        assert self._queue is not None
        lower_this_thread()  # no step waits for this thread unless its queue is full
        while True:
            job = self._queue.get()
            try:
                if job is None:
                    return
                if self._error is None:
                    job()
            except BaseException as e:  # noqa: BLE001 - re-raised on the caller's thread
                self._error = e
            finally:
                self._queue.task_done()

    def _submit(self, job: Any) -> None:
        self._raise_pending()
        if self._queue is None:
            job()
        else:
            self._queue.put(job)

    def _raise_pending(self) -> None:
        if self._error is not None:
            e, self._error = self._error, None
            if isinstance(e, DiskFullError):  # the run stops on it (harness.run.orchestration.driver)
                raise DiskFullError(e.path, e.run_dir, e.needed) from e
            raise TrajectoryError(f"{self.path}: writing the trajectory failed: {e}") from e

    def _store_frame(
        self, step: int, screenshot: Any, xml: str | bytes | None, encoded: bytes | None = None
    ) -> tuple[str | None, str | None]:
        """Write the frame's files (on the writer thread) and return the names the record gives them. `encoded`:
        the screenshot as the device encoded it (`Observation.screenshot_bytes`), kept byte for byte (v2)."""
        if self.options.layout == 1:
            name = frame_name(step)
            shot_name = xml_name = None
            if screenshot is not None:
                t0 = time.perf_counter()
                data = image_bytes(screenshot, self.options.compress_level)
                self.frames.add_encode(time.perf_counter() - t0, len(data))
                shot_name = f"{name}.png"
                with writing(self.path / shot_name, self.run_dir, len(data)):
                    atomic_write_bytes(self.path / shot_name, data, self.options.fsync)
            if xml is not None:
                xml_name = f"{name}.xml"
                xml_data = redact(xml).encode("utf-8", "replace") if isinstance(xml, str) else xml
                with writing(self.path / xml_name, self.run_dir, len(xml_data)):
                    atomic_write_bytes(self.path / xml_name, xml_data, self.options.fsync)
            return shot_name, xml_name
        return (
            self.frames.put_image(screenshot, encoded) if screenshot is not None else None,
            self.frames.put_xml(xml) if xml is not None else None,
        )

    def _append(self, line: str) -> None:
        """One `os.write` of the whole line (O_APPEND). A line the disk has no room for is cut off again (the
        file is truncated back to where it ended), so steps.jsonl never ends in half a line of this writer's."""
        data = utf8(line)
        end = os.fstat(self._fd).st_size
        try:
            n = os.write(self._fd, data)
            if n != len(data):  # a short write: writing the rest says why (ENOSPC, EDQUOT, EFBIG, ...)
                os.write(self._fd, data[n:])
            if self.options.fsync:
                os.fsync(self._fd)
        except OSError as e:
            try:
                os.ftruncate(self._fd, end)
            except OSError:
                pass
            if is_disk_full(e):
                raise as_disk_full(e, self.path / STEPS_FILE, self.run_dir, len(data)) from e
            raise

    # public -------------------------------------------------------------------------------------------------
    def write_step(self, event: StepEvent) -> None:
        """Record one step (`TrajectorySink`): the frame acted on, the agent's step, the action's result, the
        milestone progress after it, its timings (seconds: capture, agent, actuation, settle, total, and the
        device's `device` seconds with the `wall` seconds beside them; missing ones fall back to the frame's
        capture `total` and the result's `actuation` / `settle` / `device` / `wall`). Steps must increase.
        The frame must not be mutated afterwards (the writer thread stores it). The record is validated here; its
        frame names (hashes of the screen) are filled in and the line written on the writer thread."""
        if self._closed:
            raise TrajectoryError(f"{self.path}: episode already finished")
        step, frame, result = event.step, event.frame, event.result
        if self._last_step is not None and step <= self._last_step:
            raise TrajectoryError(f"{self.path}: step {step} after step {self._last_step}; steps must increase")
        self._last_step = step
        t, res_t = event.timings, result.timings if result is not None else {}
        tim = {
            "capture": _r(t["capture"]) if t.get("capture") is not None else _timing(frame.timings, "total"),
            "agent": _r(t.get("agent")),
            "actuation": _r(t["actuation"]) if t.get("actuation") is not None else _timing(res_t, "actuation"),
            "settle": _r(t["settle"]) if t.get("settle") is not None else _timing(res_t, "settle"),
            "total": _r(t.get("total")),
            "device": _r(t["device"], 2) if t.get("device") is not None else _r(res_t.get("device"), 2),
            "wall": _r(t["wall"]) if t.get("wall") is not None else _timing(res_t, "wall"),
        }
        if tim["total"] is None:
            parts = [tim[k] for k in ("capture", "agent", "actuation", "settle") if tim[k] is not None]
            tim["total"] = _r(sum(parts)) if parts else None
        rec = StepRecord.model_validate(
            {
                "schema": STEP_SCHEMA if self.options.layout == 2 else STEP_SCHEMA_V1,
                "step": step,
                "time": now_iso(),
                "observation": {"screenshot": None, "xml": None, **observation_fields(frame)},
                "agent": agent_fields(event.agent),
                "result": result_fields(result),
                "milestones": event.milestones.model_dump(mode="json") if event.milestones is not None else None,
                "timings": tim,
            }
        )
        # bookkeeping for episode.json
        self._count += 1
        self._invalid += rec.agent.invalid
        self._repairs += rec.agent.repair_attempts
        for k in self._tokens:
            self._tokens[k] += getattr(rec.agent.usage, k)
        for k in TIMING_KEYS:
            self._sums[k] += getattr(rec.timings, k) or 0.0

        def job() -> None:
            # files first, then the line naming them
            rec.observation.screenshot, rec.observation.xml = self._store_frame(
                step, frame.screenshot, frame.xml, frame.encoded
            )
            self._append(_dumps(rec.model_dump(mode="json", by_alias=True)) + "\n")

        self._submit(job)

    def flush(self) -> None:
        """Block until every step handed to `write_step` is on disk (fsynced when `fsync`)."""
        if self._queue is not None and self._thread is not None and self._thread.is_alive():
            self._queue.join()
        self._raise_pending()

    def finish(
        self,
        result: EpisodeResult,
        *,
        final: Frame | None = None,
        device: DeviceInfo | None = None,
        kind: str = "task",
        qa: QARecord | None = None,
    ) -> EpisodeMeta:
        """Flush the steps, write the final screen (as frame last step + 1) and then `episode.json`, the
        record of `result` (`EpisodeMeta`; `EpisodeMeta.to_result()` reads it back). Steps, invalid outputs,
        tokens and timings are what this writer recorded. `kind` "qa": a screen question, whose result is `qa`
        (none for a question that failed on the infrastructure)."""
        if kind not in EPISODE_KINDS:
            raise TrajectoryError(f"{self.path}: episode kind {kind!r} is not one of {', '.join(EPISODE_KINDS)}")
        if self._closed:
            raise TrajectoryError(f"{self.path}: episode already finished")
        if (result.task_id, result.lang) != (self.task_id, self.lang):
            raise TrajectoryError(f"{self.path}: the result of {result.task_id} [{result.lang}] does not belong here")
        final_fields: dict[str, Any] | None = None
        names: dict[str, str | None] = {}
        if final is not None:
            final_fields = observation_fields(final)
            if self._final is not None and self._final[0] is final:
                names = self._final[1]  # stored while the episode was judged
            else:
                names = self._store_final(final)
        self.close()  # flushes: the final frame is on disk (or the writer's error is raised)
        if final_fields is not None:
            final_fields = {"screenshot": names.get("screenshot"), "xml": names.get("xml"), **final_fields}
        dev = jsonable(device) if device is not None else {}
        if not isinstance(dev, dict):
            dev = {"serial": str(dev)}
        extra = {
            "terminated_by": result.terminated_by,
            "end_state": result.end_state,
            "probes": result.probes or None,
            **result.extra,
        }
        meta = EpisodeMeta.model_validate(
            {
                "schema": EPISODE_SCHEMA if self.options.layout == 2 else EPISODE_SCHEMA_V1,
                "kind": kind,
                "task_id": self.task_id,
                "lang": self.lang,
                "category": result.category or self.category,
                "instruction": self.instruction,
                "apps": result.apps,
                "status": result.status,
                "success": bool(result.success),
                "progress": _r(result.progress, 6),
                "milestones": jsonable(result.milestones),
                "answer": result.answer,
                "error": result.error,
                "steps": self._count,
                "invalid_outputs": self._invalid,
                "repair_attempts": self._repairs,
                "tokens": self._tokens,
                "timings": {
                    **{k: round(v, 2 if k == "device" else 4) for k, v in self._sums.items() if k != "wall"},
                    STEP_WALL: round(self._sums["wall"], 4),
                    "wall": round(time.perf_counter() - self._t0, 4),
                },
                "seed": result.seed,
                "device": scrub(dev),
                "attempts": result.attempts,
                "reset_method": result.reset_method or (self._reset[0] if self._reset else None),
                "reset_seconds": result.reset_seconds
                if result.reset_seconds is not None
                else (self._reset[1] if self._reset else None),
                "node": result.node,
                "perturbations": jsonable(result.perturbations),
                "started": self._started,
                "finished": now_iso(),
                "final_observation": final_fields,
                "extra": scrub(jsonable({k: v for k, v in extra.items() if v is not None})),
                "qa": qa,
            }
        )
        left_out = {k for k, absent in (("qa", qa is None), ("perturbations", not result.perturbations)) if absent}
        record = meta.model_dump(mode="json", by_alias=True, exclude=left_out or None)
        with writing(self.path / EPISODE_FILE, self.run_dir):  # none written: the episode stays unfinished
            atomic_write_json(self.path / EPISODE_FILE, record, self.options.fsync)
        return meta

    def final_screen(self, frame: Frame) -> None:
        """The screen the episode ended on, told before it is judged (`TrajectorySink`): its files are written on
        the writer thread meanwhile (the frame after the last step), and `finish`, given the same frame, waits only
        for them."""
        if not self._closed and self._final is None:
            self._final = (frame, self._store_final(frame))

    def _store_final(self, frame: Frame) -> dict[str, str | None]:
        """Queue the files of `frame` as the frame after the last step; the names they get once written."""
        fstep = (self._last_step or 0) + 1
        names: dict[str, str | None] = {}

        def store() -> None:
            shot, xml = self._store_frame(fstep, frame.screenshot, frame.xml, frame.encoded)
            names.update(screenshot=shot, xml=xml)

        self._submit(store)
        return names

    def close(self) -> None:
        """Flush and stop the writer thread WITHOUT writing episode.json (the episode stays unfinished)."""
        if self._closed:
            return
        try:
            self.flush()
        finally:
            self._closed = True
            if self._queue is not None and self._thread is not None:
                self._queue.put(None)
                self._thread.join()
            os.close(self._fd)
        self._raise_pending()

    def __enter__(self) -> EpisodeWriter:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


_LIVE: weakref.WeakSet[EpisodeWriter] = weakref.WeakSet()
_LIVE_LOCK = threading.Lock()


@atexit.register
def _flush_live_writers() -> None:
    """At interpreter exit, put queued steps of still-open episodes on disk (they stay unfinished)."""
    with _LIVE_LOCK:
        writers = list(_LIVE)
    for w in writers:
        if not w._closed:
            try:
                w.flush()
            except Exception as e:  # noqa: BLE001 - at exit: log, keep going
                log.warning("trajectory %s: %s", w.path, e)


def flush_at_exit(writer: EpisodeWriter) -> None:
    """Have `writer`'s queued steps put on disk at interpreter exit if it is still open then (the episode stays
    unfinished)."""
    with _LIVE_LOCK:
        _LIVE.add(writer)
