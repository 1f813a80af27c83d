"""Which screenshot path a device takes, chosen by timing: when a device with more than one fast path (an emulator
with a gRPC door: its shared memory RGB888 rows, its RGBA8888 reply) is prepared, each candidate captures the screen
a few times (a raw frame's lazy image decoded too, as a recording reads it); the fastest that works every time
goes first, the others follow fastest first (they remain the fallbacks), and the choice with every candidate's
median time is recorded (manifest.json `devices[i].capture`).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass

from harness.device.capture import SCREENSHOT_PATHS, shot_parts
from harness.device.fastadb import U2RpcError
from harness.device.link import DeviceLink, DeviceLostError
from harness.errors import DeviceError

CANDIDATES = ("grpc_shm", "grpc", "u2", "screencap_raw")  # what is timed; the others keep their place behind these
ROUNDS = 3


@dataclass(frozen=True)
class CaptureChoice:
    """The paths in the order the device takes them, and each candidate's median seconds (None: it failed)."""

    order: tuple[str, ...]
    seconds: dict[str, float | None]
    errors: dict[str, str]

    def to_json(self) -> dict[str, object]:
        return {
            "screenshot": self.order[0] if self.order else None,
            "order": list(self.order),
            "median_seconds": {k: (None if v is None else round(v, 4)) for k, v in self.seconds.items()},
            "rounds": ROUNDS,
            **({"errors": dict(self.errors)} if self.errors else {}),
        }


def time_path(link: DeviceLink, name: str, rounds: int = ROUNDS) -> float:
    """The median seconds of `rounds` screenshots by path `name` (decoded, as an observation takes them)."""
    fn = SCREENSHOT_PATHS[name]
    times: list[float] = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        value = fn(link)
        image = shot_parts(value)[0]
        image.load()  # a lazily decoded JPEG counts its decoding too
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def choose_screenshot_path(
    link: DeviceLink, candidates: Sequence[str] = CANDIDATES, rounds: int = ROUNDS
) -> CaptureChoice:
    """Time each candidate the device has; the fastest that worked every round first."""
    seconds: dict[str, float | None] = {}
    errors: dict[str, str] = {}
    for name in candidates:
        if not link.has(name):
            continue
        try:
            seconds[name] = time_path(link, name, rounds)
        except DeviceLostError:
            raise
        except (DeviceError, U2RpcError) as e:
            seconds[name] = None
            errors[name] = str(e)[:200]
    worked = sorted((s, n) for n, s in seconds.items() if s is not None)
    return CaptureChoice(tuple(n for _, n in worked), seconds, errors)
