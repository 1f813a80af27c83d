"""The trajectory sink: what the episode loop records into, step by step.

`TrajectorySink` is the seam between producing an episode (the loop, `harness.run.loop.episode`) and storing it: the
run directory's `EpisodeWriter` implements it, and so does `QueueSink`, which streams the same typed events from a
Ray actor to the driver's writer (`harness.run.orchestration.distributed`). What travels:

- `Frame`: a screen as the trajectory stores it - the screenshot (the device's own encoded bytes when it came
  encoded, else its pixels), the hierarchy XML and the observation's fields. Pickled compactly (encoded bytes as
  they are, raw pixels zlib'd, other modes as PNG), so a frame crosses processes and nodes unchanged: the
  writer names and stores it exactly as a local run would (same bytes or pixels, same frame file).
- `StepEvent`: one step - the frame the agent acted on, the agent's step, the action's result, the milestone
  progress after it, the step's timings.
- `finish(result, final=..., device=...)`: the episode's result, the screen it ended on and the device.
"""

from __future__ import annotations

import io
import queue
import zlib
from dataclasses import dataclass, field
from typing import Protocol

from PIL import Image

from harness.agent import AgentStep
from harness.observation import ActionResult, DeviceInfo, Observation
from harness.trajectory.records import MilestoneProgress
from harness.trajectory.result import EpisodeResult

RAW_MODES = ("RGB", "RGBA", "L")  # pickled as zlib'd raw pixels; other modes as PNG


@dataclass(frozen=True)
class Frame:
    """One screen as recorded. `screenshot` is None only for a frame without one (a dataset step)."""

    screenshot: Image.Image | None
    xml: str | None
    package: str | None = None
    activity: str | None = None
    size: tuple[int, int] | None = None
    rotation: int | None = None
    timings: dict[str, float] = field(default_factory=dict)
    paths: dict[str, str] = field(default_factory=dict)
    captured_at: float | None = None
    fallbacks: tuple[str, ...] = ()
    encoded: bytes | None = field(default=None, repr=False)  # the device's own JPEG / PNG stream, kept byte for byte

    @classmethod
    def of(cls, obs: Observation) -> Frame:
        """The frame of an observation (no copy: the screenshot is shared, never mutated)."""
        return cls(
            obs.screenshot,
            obs.xml,
            obs.package,
            obs.activity,
            obs.size,
            obs.rotation,
            dict(obs.timings),
            dict(obs.paths),
            obs.captured_at,
            tuple(obs.fallbacks),
            obs.screenshot_bytes,
        )

    def __getstate__(self) -> dict[str, object]:
        state = dict(self.__dict__)
        img = state.pop("screenshot")
        if img is None or self.encoded is not None:
            state["_pixels"] = None  # the encoded bytes travel; the image is decoded from them on arrival
        elif isinstance(img, Image.Image) and img.mode in RAW_MODES:
            state["_pixels"] = ("raw", img.mode, img.size, zlib.compress(img.tobytes(), 1))
        else:
            buf = io.BytesIO()
            img.save(buf, "PNG", compress_level=1)
            state["_pixels"] = ("png", img.mode, img.size, buf.getvalue())
        return state

    def __setstate__(self, state: dict[str, object]) -> None:
        packed = state.pop("_pixels")
        img: Image.Image | None = None
        encoded = state.get("encoded")
        if isinstance(encoded, bytes):
            img = Image.open(io.BytesIO(encoded))  # decoded lazily, if ever: the writer keeps the bytes
        elif isinstance(packed, tuple):
            kind, mode, size, data = packed
            if kind == "raw":
                img = Image.frombytes(mode, size, zlib.decompress(data))
            else:
                with Image.open(io.BytesIO(data)) as im:
                    im.load()
                    img = im
        for k, v in {**state, "screenshot": img}.items():
            object.__setattr__(self, k, v)


@dataclass(frozen=True)
class StepEvent:
    """One step of an episode, as the loop hands it to its sink."""

    step: int
    frame: Frame  # the screen the agent acted on
    agent: AgentStep
    result: ActionResult | None  # None: nothing was executed (invalid output, a terminal action)
    milestones: MilestoneProgress | None = None  # progress after the step
    # seconds: capture, agent, actuation, settle, total; device (on the device's clock) and wall (StepTimings)
    timings: dict[str, float] = field(default_factory=dict)


class TrajectorySink(Protocol):
    """Where an episode is recorded: a step at a time, then its result."""

    def write_step(self, event: StepEvent) -> None: ...

    def final_screen(self, frame: Frame) -> None:
        """The screen the episode ended on, told before it is judged (a sink may store it meanwhile); `finish`
        gets the same frame."""

    def finish(
        self, result: EpisodeResult, *, final: Frame | None = None, device: DeviceInfo | None = None
    ) -> object: ...


@dataclass(frozen=True)
class Finished:
    """The last event of a streamed episode: its result, final screen and device."""

    result: EpisodeResult
    final: Frame | None
    device: DeviceInfo | None


class QueueSink:
    """A sink that puts each `StepEvent` on a queue (a Ray actor streams them to the driver, whose
    `EpisodeWriter` records them: `replay_into`). `finish` keeps the final screen and the device: the producer
    sends `finished(result)` last, once it has completed the result (e.g. with how its device was reset)."""

    def __init__(self, out: queue.Queue[StepEvent | Finished]) -> None:
        self.out = out
        self.final: Frame | None = None
        self.device: DeviceInfo | None = None

    def write_step(self, event: StepEvent) -> None:
        self.out.put(event)

    def final_screen(self, frame: Frame) -> None:
        """Nothing: `finish` keeps it (the driver's writer stores it)."""

    def finish(self, result: EpisodeResult, *, final: Frame | None = None, device: DeviceInfo | None = None) -> None:
        self.final, self.device = final, device

    def finished(self, result: EpisodeResult) -> Finished:
        return Finished(result, self.final, self.device)


def replay_into(sink: TrajectorySink, event: StepEvent | Finished) -> None:
    """Hand a streamed event to a sink, as the loop would have."""
    if isinstance(event, Finished):
        sink.finish(event.result, final=event.final, device=event.device)
    else:
        sink.write_step(event)
