"""What a device returns: `Observation` (one screen), `ActionResult` (one executed action), `DeviceInfo`.

Plain frozen dataclasses (pydantic stays at the edges). Times are seconds. `Observation.paths` names the capture
path that served each part ("u2", "screencap_raw", "screencap_png", "uiautomator_dump", "dumpsys"), so a run
record shows when a device fell back to a slower path.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
    from PIL.Image import Image

    from harness.hierarchy import UITree


@dataclass(frozen=True)
class DeviceInfo:
    serial: str
    model: str
    manufacturer: str
    size: tuple[int, int]  # (width, height) in the rotation at connect time
    density: int
    rotation: int  # Surface.ROTATION_0..3
    api_level: int
    release: str
    locale: str  # e.g. "en-US", "zh-CN"
    state: str  # adb state: "device", "offline", "unauthorized"
    capabilities: frozenset[str] = frozenset()

    def describe(self) -> str:
        w, h = self.size
        return (
            f"{self.serial}: {self.manufacturer} {self.model}, {w}x{h} @{self.density}dpi, rotation "
            f"{self.rotation}, Android {self.release} (API {self.api_level}), {self.locale}"
        )


@dataclass(frozen=True)
class Observation:
    """One screen: the screenshot and the view hierarchy captured together (concurrently), in the display's
    current rotation. `tree` indices are what `Click(element=...)` refers to."""

    screenshot: Image
    tree: UITree
    xml: str
    package: str
    activity: str
    size: tuple[int, int]  # (width, height) in the current rotation = screenshot size
    rotation: int
    timings: dict[str, float] = field(default_factory=dict)  # "screenshot", "hierarchy", "app", "total"
    paths: dict[str, str] = field(default_factory=dict)  # part -> capture path that served it
    captured_at: float = 0.0  # time.time() when the capture started
    fallbacks: tuple[str, ...] = ()  # "screenshot: u2 failed (...)" for every path that failed first
    # the screenshot exactly as the device encoded it (uiautomator2's JPEG, `screencap -p`'s PNG), when it came
    # encoded: trajectories store it byte for byte - the very pixels the harness decoded, with no re-encoding
    screenshot_bytes: bytes | None = field(default=None, repr=False)
    # the screenshot's RGB888 rows (height x width x 3, top down) when they came raw (an emulator's gRPC door writing
    # into shared memory, `DeviceConfig.pixels`): a uint8 numpy array of this capture's own, taken as it is
    pixels: np.ndarray | None = field(default=None, repr=False)


@dataclass(frozen=True)
class ActionResult:
    """What executing one action did. `ok` is False when the action could not be carried out on the device
    (e.g. no app with that label); device failures raise `DeviceError` instead."""

    action: Any  # harness.actions.Action
    ok: bool = True
    pixels: tuple[tuple[int, int], ...] = ()  # device pixels used: tap point, swipe start and end, ...
    path: str = ""  # how it was actuated: "u2", "input", "u2_paste", "input_text", "monkey", "launcher", "none"
    typed_text: str | None = None
    readback: str | None = None  # the focused field's text after typing (None: no focused field)
    readback_matches: bool | None = None  # rule: harness.device.actuate.readback_matches
    package: str | None = None  # OPEN_APP: the package brought to the front
    timings: dict[str, float] = field(default_factory=dict)  # "actuation", "settle"
    settled: bool = True
    settle_polls: int = 0
    error: str | None = None


def draw_overlay(screenshot: Image, tree: UITree, elements: Any = None) -> Image:
    """The screenshot with a box and the element index drawn for every element `tree.to_prompt()` lists (or
    `elements`): the numbers a model sees in the prompt, where they are on screen."""
    from PIL import ImageDraw, ImageFont

    img = screenshot.convert("RGB").copy()
    draw = ImageDraw.Draw(img)
    size = max(12, img.width // 60)
    try:
        font: Any = ImageFont.load_default(size=size)
    except TypeError:  # Pillow < 10.1
        font = ImageFont.load_default()
    palette = [(230, 25, 75), (60, 180, 75), (0, 130, 200), (245, 130, 48), (145, 30, 180), (0, 128, 128)]
    items = list(tree.prompt_elements() if elements is None else elements)
    for n, e in enumerate(items):
        color = palette[n % len(palette)]
        l, t, r, b = e.bounds
        draw.rectangle((l, t, max(l, r - 1), max(t, b - 1)), outline=color, width=max(2, size // 6))
        label = str(e.index)
        box = draw.textbbox((0, 0), label, font=font)
        tw, th = box[2] - box[0], box[3] - box[1]
        x, y = max(0, l), max(0, t)
        draw.rectangle((x, y, x + tw + 6, y + th + 6), fill=color)
        draw.text((x + 3 - box[0], y + 3 - box[1]), label, fill=(255, 255, 255), font=font)
    return img
