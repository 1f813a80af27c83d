"""The ONE module that converts between coordinate spaces. Nothing else in the harness does this arithmetic.

Spaces (docs/datasets.md):

- **normalized**: floats in [0, 1], x first. The unified action space (`harness.actions.Point`), AitW touch
  points (after swapping y/x), AndroidLens points and milestone boxes.
- **pixels**: integer pixel indices of a screen of `(width, height)`, x first. uiautomator `bounds`,
  ScreenQA `bounds`, AITZ `ui_positions`, adb `input tap`.
- **[0, 1000]**: integers, x first. AgentCPM-GUI model output and GUI Odyssey `info` / `sam2_bbox`.
- **(y, x)**: AitW `results/yx_touch`, AgentCPM / AITZ / AndroidLens `"[y, x]"` strings.

Rounding rule (points): a normalized coordinate `u` addresses the continuous screen `[0, w)`, the way every
dataset normalizes (`x_px / width`). Pixel `i` covers `[i / w, (i + 1) / w)`, so

    to_pixels:   i = min(floor(u * w + 1e-6), w - 1)        (1.0 lands on the last pixel)
    from_pixels: u = (i + 0.5) / w                           (the pixel's centre)

which makes `to_pixels(from_pixels(p)) == p` exact for every integer pixel, and also `to_pixels(i / w) == i`
(a dataset's `px / width` comes back to the same pixel despite float noise, thanks to the 1e-6 nudge).

Box edges are not pixels but lines between pixels, so box conversions use `round(u * w)` per edge and
`edge / w` back: exact from the pixel side.

Bad input (out-of-range or non-finite numbers, empty sizes, inverted boxes, unknown rotation) raises
`ValueError` naming the argument: callers (dataset adapters, the device) add the file / step context.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

Size = tuple[int, int]  # (width, height)
PointF = tuple[float, float]  # (x, y) normalized
PointPx = tuple[int, int]  # (x, y) pixels
Box = tuple[int, int, int, int]  # (left, top, right, bottom) pixels, right/bottom exclusive

_EPS = 1e-6  # float-noise nudge for floor(); far below one pixel of any real screen
_TOL = 1e-9  # tolerance on the [0, 1] range check


def _check_size(size: Sequence[int], name: str = "size") -> Size:
    if len(size) != 2:
        raise ValueError(f"{name} must be (width, height), got {size!r}")
    w, h = int(size[0]), int(size[1])
    if w <= 0 or h <= 0 or w != size[0] or h != size[1]:
        raise ValueError(f"{name} must be two positive integers, got {size!r}")
    return w, h


def _check_unit(value: float, name: str) -> float:
    v = float(value)
    if not math.isfinite(v) or v < -_TOL or v > 1 + _TOL:
        raise ValueError(f"{name}: {value!r} is outside [0, 1]")
    return min(max(v, 0.0), 1.0)


def _check_finite(value: float, name: str) -> float:
    v = float(value)
    if not math.isfinite(v):
        raise ValueError(f"{name}: {value!r} is not a finite number")
    return v


# --- normalized <-> pixels (unified actions, AitW, AndroidLens) -------------------------------------------
def axis_to_pixel(u: float, n: int) -> int:
    """One normalized coordinate -> pixel index on an axis of `n` pixels (floor, clamped to n - 1)."""
    return min(max(math.floor(_check_unit(u, "coordinate") * n + _EPS), 0), n - 1)


def axis_from_pixel(i: int, n: int) -> float:
    """One pixel index -> normalized coordinate of the pixel's centre."""
    if not 0 <= i < n:
        raise ValueError(f"pixel {i!r} is outside [0, {n - 1}]")
    return (i + 0.5) / n


def to_pixels(point: Sequence[float], size: Sequence[int]) -> PointPx:
    """Normalized (x, y) -> pixel (x, y) on a `(width, height)` screen. Used for every action the device runs."""
    w, h = _check_size(size)
    x = _check_unit(point[0], "x")
    y = _check_unit(point[1], "y")
    return axis_to_pixel(x, w), axis_to_pixel(y, h)


def from_pixels(px: Sequence[int], size: Sequence[int]) -> PointF:
    """Pixel (x, y) -> normalized (x, y) of the pixel centre (element centres, ScreenQA, uiautomator bounds)."""
    w, h = _check_size(size)
    x, y = int(px[0]), int(px[1])
    if x != px[0] or y != px[1]:
        raise ValueError(f"pixel coordinates must be integers, got {tuple(px)!r}")
    if not (0 <= x < w and 0 <= y < h):
        raise ValueError(f"pixel {tuple(px)!r} is outside the {w}x{h} screen")
    return axis_from_pixel(x, w), axis_from_pixel(y, h)


# --- [0, 1000] (AgentCPM-GUI output, GUI Odyssey) ----------------------------------------------------------
def from_1000(point: Sequence[float]) -> PointF:
    """[0, 1000] (x, y) -> normalized (x, y). AgentCPM-GUI output and GUI Odyssey `info` points."""
    x = _check_finite(point[0], "x")
    y = _check_finite(point[1], "y")
    for name, v in (("x", x), ("y", y)):
        if v < 0 or v > 1000:
            raise ValueError(f"{name}: {v!r} is outside [0, 1000]")
    return x / 1000.0, y / 1000.0


def to_1000(point: Sequence[float]) -> tuple[int, int]:
    """Normalized (x, y) -> integer [0, 1000] (x, y), rounded half to even. `to_1000(from_1000(p)) == p`."""
    return round(_check_unit(point[0], "x") * 1000), round(_check_unit(point[1], "y") * 1000)


# --- (y, x) order (AitW yx_touch / yx_lift, AgentCPM / AITZ / AndroidLens "[y, x]" strings) -------------
def yx_to_xy(point: Sequence[float]) -> PointF:
    """(y, x) -> (x, y). AitW `results/yx_touch`, `results/yx_lift`."""
    return float(point[1]), float(point[0])


def xy_to_yx(point: Sequence[float]) -> tuple[float, float]:
    """(x, y) -> (y, x), for writing AitW / AndroidLens records."""
    return float(point[1]), float(point[0])


_YX_RE = re.compile(r"^\s*\[\s*([^,\]]+?)\s*,\s*([^,\]]+?)\s*\]\s*$")
NO_POINT_YX = "[-1.0, -1.0]"


def parse_yx(value: str | Sequence[float]) -> PointF | None:
    """AndroidLens / AgentCPM / AITZ `"[y, x]"` (string or 2-list) -> normalized (x, y); `[-1, -1]` -> None.

    `"[0.52, 0.31]"` -> `(0.31, 0.52)`. Anything else negative, out of [0, 1] or malformed raises ValueError.
    """
    if isinstance(value, str):
        m = _YX_RE.match(value)
        if not m:
            raise ValueError(f"not a '[y, x]' point: {value!r}")
        try:
            y, x = float(m.group(1)), float(m.group(2))
        except ValueError:
            raise ValueError(f"not a '[y, x]' point: {value!r}") from None
    else:
        if len(value) != 2:
            raise ValueError(f"not a [y, x] point: {value!r}")
        y, x = float(value[0]), float(value[1])
    if y == -1.0 and x == -1.0:
        return None
    return _check_unit(x, "x"), _check_unit(y, "y")


def format_yx(point: Sequence[float] | None) -> str:
    """Normalized (x, y) -> `"[y, x]"` as AndroidLens writes it; None -> `"[-1.0, -1.0]"`. Inverse of parse_yx."""
    if point is None:
        return NO_POINT_YX
    x, y = _check_unit(point[0], "x"), _check_unit(point[1], "y")
    return f"[{y!r}, {x!r}]"


# --- a resized screenshot (what the model saw) <-> the device ---------------------------------------------
@dataclass(frozen=True, slots=True)
class ScreenMapping:
    """How a screenshot was resized before a model saw it: `device_size` -> `image_size` (each (w, h)).

    Pixel centres are mapped (`(i + 0.5) * scale`, floored and clamped), x and y scaled independently so a
    resize that changes the aspect ratio works too. Round trips are exact in the direction that does not lose
    resolution: image -> device -> image when the image is no larger than the device (the usual downscale),
    device -> image -> device when it is no smaller. Normalized points need no mapping: they are size-free.
    """

    device_size: Size
    image_size: Size

    def __post_init__(self) -> None:
        _check_size(self.device_size, "device_size")
        _check_size(self.image_size, "image_size")

    @property
    def scale(self) -> tuple[float, float]:
        """Device pixels per image pixel, (sx, sy)."""
        return (self.device_size[0] / self.image_size[0], self.device_size[1] / self.image_size[1])

    @staticmethod
    def _map(px: Sequence[float], src: Size, dst: Size, what: str) -> PointPx:
        out = []
        for name, v, s, d in (("x", px[0], src[0], dst[0]), ("y", px[1], src[1], dst[1])):
            v = _check_finite(v, name)
            if v < 0 or v > s:
                raise ValueError(f"{what} {name}: {v!r} is outside [0, {s}]")
            out.append(min(math.floor((v + 0.5) * d / s + _EPS), d - 1))
        return out[0], out[1]

    def image_to_device(self, px: Sequence[float]) -> PointPx:
        """A pixel of the resized image (e.g. a model's absolute click on 1092x2436) -> device pixel."""
        return self._map(px, self.image_size, self.device_size, "image")

    def device_to_image(self, px: Sequence[float]) -> PointPx:
        """A device pixel -> the pixel of the resized image showing it."""
        return self._map(px, self.device_size, self.image_size, "device")


# --- boxes ----------------------------------------------------------------------------------------------
def _edge(u: float, n: int, name: str) -> int:
    return min(max(round(_check_unit(u, name) * n), 0), n)


def _check_box(box: Sequence[int], size: Size | None = None) -> Box:
    if len(box) != 4:
        raise ValueError(f"box must have 4 numbers, got {box!r}")
    l, t, r, b = (int(v) for v in box)
    if (l, t, r, b) != tuple(box):
        raise ValueError(f"pixel box must hold integers, got {box!r}")
    if r < l or b < t:
        raise ValueError(f"box {tuple(box)!r} is inverted (right < left or bottom < top)")
    if size is not None and (l < 0 or t < 0 or r > size[0] or b > size[1]):
        raise ValueError(f"box {tuple(box)!r} is outside the {size[0]}x{size[1]} screen")
    return l, t, r, b


def yxhw_norm_to_ltrb(box: Sequence[float], size: Sequence[int]) -> Box:
    """AitW `image/ui_annotations_positions` `[y, x, h, w]` normalized -> (l, t, r, b) pixels."""
    if len(box) != 4:
        raise ValueError(f"[y, x, h, w] box must have 4 numbers, got {box!r}")
    W, H = _check_size(size)
    y, x, h, w = (float(v) for v in box)
    if h < 0 or w < 0:
        raise ValueError(f"[y, x, h, w] box has a negative size: {box!r}")
    return _edge(x, W, "x"), _edge(y, H, "y"), _edge(min(x + w, 1.0), W, "x + w"), _edge(min(y + h, 1.0), H, "y + h")


def ltrb_to_yxhw_norm(box: Sequence[int], size: Sequence[int]) -> tuple[float, float, float, float]:
    """(l, t, r, b) pixels -> AitW `[y, x, h, w]` normalized. Exact inverse of `yxhw_norm_to_ltrb` on pixels."""
    W, H = _check_size(size)
    l, t, r, b = _check_box(box, (W, H))
    return t / H, l / W, (b - t) / H, (r - l) / W


def yxhw_px_to_ltrb(box: Sequence[int]) -> Box:
    """AITZ `ui_positions` `[y, x, h, w]` in pixels -> (l, t, r, b) pixels."""
    if len(box) != 4:
        raise ValueError(f"[y, x, h, w] box must have 4 numbers, got {box!r}")
    y, x, h, w = box
    return _check_box((x, y, x + w, y + h))


def ltrb_to_yxhw_px(box: Sequence[int]) -> Box:
    """(l, t, r, b) pixels -> AITZ `[y, x, h, w]` pixels."""
    l, t, r, b = _check_box(box)
    return t, l, b - t, r - l


def xyxy_norm_to_ltrb(box: Sequence[float], size: Sequence[int]) -> Box:
    """AndroidLens milestone `bbox` `[x1, y1, x2, y2]` normalized -> (l, t, r, b) pixels."""
    if len(box) != 4:
        raise ValueError(f"[x1, y1, x2, y2] box must have 4 numbers, got {box!r}")
    W, H = _check_size(size)
    x1, y1, x2, y2 = box
    return _check_box((_edge(x1, W, "x1"), _edge(y1, H, "y1"), _edge(x2, W, "x2"), _edge(y2, H, "y2")))


def ltrb_to_xyxy_norm(box: Sequence[int], size: Sequence[int]) -> tuple[float, float, float, float]:
    """(l, t, r, b) pixels -> `[x1, y1, x2, y2]` normalized."""
    W, H = _check_size(size)
    l, t, r, b = _check_box(box, (W, H))
    return l / W, t / H, r / W, b / H


def xyxy_1000_to_ltrb(box: Sequence[float], size: Sequence[int]) -> Box:
    """GUI Odyssey v2 `sam2_bbox` `[x1, y1, x2, y2]` in [0, 1000] -> (l, t, r, b) pixels."""
    if len(box) != 4:
        raise ValueError(f"[x1, y1, x2, y2] box must have 4 numbers, got {box!r}")
    x1, y1 = from_1000(box[:2])
    x2, y2 = from_1000(box[2:])
    return xyxy_norm_to_ltrb((x1, y1, x2, y2), size)


def ltrb_to_xyxy_1000(box: Sequence[int], size: Sequence[int]) -> tuple[int, int, int, int]:
    """(l, t, r, b) pixels -> `[x1, y1, x2, y2]` in [0, 1000] (rounded; lossy when the screen exceeds 1000 px)."""
    x1, y1, x2, y2 = ltrb_to_xyxy_norm(box, size)
    return round(x1 * 1000), round(y1 * 1000), round(x2 * 1000), round(y2 * 1000)


# --- rotation (Surface.ROTATION_0..3) ------------------------------------------------------------------
# ROTATION_90 (1): the device is turned 90 degrees counter-clockwise; the display is (H, W) and its top-left
# corner is the natural top-right corner. In the continuous plane (natural W x H):
#   1: (X, Y) = (y, W - x)     2: (X, Y) = (W - x, H - y)     3: (X, Y) = (H - y, x)
# For pixel indices (centres at i + 0.5) the same maps become `W - 1 - x` etc.
def _check_rotation(rotation: int) -> int:
    if rotation not in (0, 1, 2, 3) or isinstance(rotation, bool):
        raise ValueError(f"rotation must be 0, 1, 2 or 3 (Surface.ROTATION_*), got {rotation!r}")
    return rotation


def rotated_size(natural_size: Sequence[int], rotation: int) -> Size:
    """Display (width, height) for a natural-orientation size: swapped for rotations 1 and 3."""
    w, h = _check_size(natural_size, "natural_size")
    return (h, w) if _check_rotation(rotation) % 2 else (w, h)


def rotate_point(px: Sequence[int], natural_size: Sequence[int], rotation: int) -> PointPx:
    """Natural-orientation pixel -> pixel of the display rotated by `rotation` (what screenshots show)."""
    w, h = _check_size(natural_size, "natural_size")
    x, y = int(px[0]), int(px[1])
    if not (0 <= x < w and 0 <= y < h):
        raise ValueError(f"pixel {tuple(px)!r} is outside the natural {w}x{h} screen")
    r = _check_rotation(rotation)
    if r == 0:
        return x, y
    if r == 1:
        return y, w - 1 - x
    if r == 2:
        return w - 1 - x, h - 1 - y
    return h - 1 - y, x


def unrotate_point(px: Sequence[int], natural_size: Sequence[int], rotation: int) -> PointPx:
    """Pixel of the rotated display -> natural-orientation pixel (what the touch panel reports)."""
    w, h = _check_size(natural_size, "natural_size")
    dw, dh = rotated_size((w, h), rotation)
    X, Y = int(px[0]), int(px[1])
    if not (0 <= X < dw and 0 <= Y < dh):
        raise ValueError(f"pixel {tuple(px)!r} is outside the rotated {dw}x{dh} display")
    r = rotation
    if r == 0:
        return X, Y
    if r == 1:
        return w - 1 - Y, X
    if r == 2:
        return w - 1 - X, h - 1 - Y
    return Y, h - 1 - X


def rotate_normalized(point: Sequence[float], rotation: int) -> PointF:
    """Normalized natural-orientation (x, y) -> normalized (x, y) on the rotated display."""
    x, y = _check_unit(point[0], "x"), _check_unit(point[1], "y")
    r = _check_rotation(rotation)
    return ((x, y), (y, 1.0 - x), (1.0 - x, 1.0 - y), (1.0 - y, x))[r]


def unrotate_normalized(point: Sequence[float], rotation: int) -> PointF:
    """Normalized (x, y) on the rotated display -> normalized natural-orientation (x, y)."""
    X, Y = _check_unit(point[0], "x"), _check_unit(point[1], "y")
    r = _check_rotation(rotation)
    return ((X, Y), (1.0 - Y, X), (1.0 - X, 1.0 - Y), (Y, 1.0 - X))[r]


# --- box geometry (any one space, `[left, top, right, bottom]`): the one IoU, area and point distance ----------
def box_area(box: Sequence[float]) -> float:
    """Area of an `[l, t, r, b]` box; an empty or inverted box has area 0."""
    return max(0.0, box[2] - box[0]) * max(0.0, box[3] - box[1])


def iou(a: Sequence[float], b: Sequence[float]) -> float:
    """Intersection over union of two `[l, t, r, b]` boxes in the same space; 0 when they do not overlap or
    both are empty."""
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = box_area(a) + box_area(b) - inter
    return inter / union if inter > 0 and union > 0 else 0.0


def iou_matrix(a: Sequence[Sequence[float]], b: Sequence[Sequence[float]]) -> np.ndarray:
    """Pairwise `iou` of two lists of `[l, t, r, b]` boxes: float[len(a), len(b)] (the same rule, vectorized)."""
    aa = np.asarray(a, dtype=np.float64).reshape(-1, 4)
    bb = np.asarray(b, dtype=np.float64).reshape(-1, 4)
    iw = np.minimum(aa[:, None, 2], bb[None, :, 2]) - np.maximum(aa[:, None, 0], bb[None, :, 0])
    ih = np.minimum(aa[:, None, 3], bb[None, :, 3]) - np.maximum(aa[:, None, 1], bb[None, :, 1])
    inter = np.maximum(iw, 0) * np.maximum(ih, 0)
    area_a = np.maximum(aa[:, 2] - aa[:, 0], 0) * np.maximum(aa[:, 3] - aa[:, 1], 0)
    area_b = np.maximum(bb[:, 2] - bb[:, 0], 0) * np.maximum(bb[:, 3] - bb[:, 1], 0)
    union = area_a[:, None] + area_b[None, :] - inter
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where((inter > 0) & (union > 0), inter / np.where(union > 0, union, 1), 0.0)


def normalize_box(box: Sequence[float], size: Sequence[int]) -> tuple[float, float, float, float]:
    """An `[l, t, r, b]` pixel box -> the same box in normalized units of a `(width, height)` screen (each edge
    divided by its axis). No range check: a live element may reach past the screen edge (`ltrb_to_xyxy_norm` is
    the checked conversion of a box that must lie on the screen)."""
    w, h = size
    l, t, r, b = box
    return l / w, t / h, r / w, b / h


def point_box_distance(point: Sequence[float], box: Sequence[float]) -> float:
    """Distance from an (x, y) point to an `[l, t, r, b]` box in the same space (0 inside or on an edge)."""
    x, y = point
    return math.hypot(max(box[0] - x, 0.0, x - box[2]), max(box[1] - y, 0.0, y - box[3]))
