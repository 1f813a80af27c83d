"""Screenshots for models: resizing (with the `ScreenMapping` that maps model pixels back to the device),
Qwen2.5-VL's smart resize, a set-of-marks overlay, and base64 data URLs.

Smart resize (facts from bytedance/UI-TARS `codes/ui_tars/action_parser.py` and Qwen2.5-VL's processor): both
sides become multiples of 28, the pixel count stays within [100*28*28, 16384*28*28], aspect ratio kept as
closely as possible. Models built on Qwen2.5-VL (UI-TARS-1.5, Qwen2.5-VL mobile_use) answer in pixels of that
resized image, so for those formats we send an image that is already smart-resized: the server's resize is then
the identity and the model's pixel frame is exactly the image we recorded in the mapping.
"""

from __future__ import annotations

import hashlib
import io
import math
from collections.abc import Iterable
from typing import Any

from PIL import Image, ImageDraw, ImageFont

from emulator import b64
from harness.coords import ScreenMapping

IMAGE_FACTOR = 28
MIN_PIXELS = 100 * 28 * 28
MAX_PIXELS = 16384 * 28 * 28


def smart_resize(
    height: int, width: int, factor: int = IMAGE_FACTOR, min_pixels: int = MIN_PIXELS, max_pixels: int = MAX_PIXELS
) -> tuple[int, int]:
    """(height, width) rounded to multiples of `factor` with min_pixels <= h*w <= max_pixels."""
    if height <= 0 or width <= 0:
        raise ValueError(f"image size must be positive, got {width}x{height}")
    h = max(factor, round(height / factor) * factor)
    w = max(factor, round(width / factor) * factor)
    if h * w > max_pixels:
        beta = math.sqrt(height * width / max_pixels)
        h = max(factor, math.floor(height / beta / factor) * factor)
        w = max(factor, math.floor(width / beta / factor) * factor)
    elif h * w < min_pixels:
        beta = math.sqrt(min_pixels / (height * width))
        h = math.ceil(height * beta / factor) * factor
        w = math.ceil(width * beta / factor) * factor
    return h, w


def target_size(size: tuple[int, int], max_side: int, smart: bool) -> tuple[int, int]:
    """(w, h) to send: long side <= max_side (never upscaled), then smart-resized when `smart`."""
    w, h = size
    scale = min(1.0, max_side / max(w, h))
    tw, th = max(1, round(w * scale)), max(1, round(h * scale))
    if smart:
        th, tw = smart_resize(th, tw)
    return tw, th


def prepare_image(
    screenshot: Image.Image, device_size: tuple[int, int], max_side: int, smart: bool = False
) -> tuple[Image.Image, ScreenMapping]:
    """The image to send and the mapping device <-> image pixels."""
    size = target_size(screenshot.size, max_side, smart)
    img = screenshot.convert("RGB")
    if img.size != size:
        img = img.resize(size, Image.Resampling.LANCZOS)
    return img, ScreenMapping(device_size=(int(device_size[0]), int(device_size[1])), image_size=size)


_MARK_COLORS = ((230, 25, 75), (60, 180, 75), (0, 130, 200), (245, 130, 48), (145, 30, 180), (70, 140, 140))


def _font(size: int) -> Any:
    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow < 10.1
        return ImageFont.load_default()


def draw_marks(img: Image.Image, elements: Iterable[Any], mapping: ScreenMapping) -> Image.Image:
    """Set-of-marks: each element's box and its index drawn on a copy of `img` (element bounds in device px)."""
    out = img.copy()
    draw = ImageDraw.Draw(out)
    ih = mapping.image_size[1]
    dw, dh = mapping.device_size
    font = _font(max(10, ih // 90))
    for k, el in enumerate(elements):
        l, t, r, b = el.bounds
        l, t = max(l, 0), max(t, 0)
        r, b = min(r, dw), min(b, dh)
        if r <= l or b <= t:
            continue
        x0, y0 = mapping.device_to_image((l, t))
        x1, y1 = mapping.device_to_image((r - 1, b - 1))
        color = _MARK_COLORS[k % len(_MARK_COLORS)]
        draw.rectangle((x0, y0, x1, y1), outline=color, width=2)
        label = str(el.index)
        tb = draw.textbbox((x0, y0), label, font=font)
        draw.rectangle((x0, y0, x0 + (tb[2] - tb[0]) + 4, y0 + (tb[3] - tb[1]) + 4), fill=color)
        draw.text((x0 + 2, y0 + 1 - (tb[1] - y0)), label, fill=(255, 255, 255), font=font)
    return out


def encode_image(img: Image.Image, fmt: str = "png", quality: int = 85) -> tuple[str, str]:
    """(data URL, sha256 hex of the encoded bytes). PNG/JPEG encoding of the same pixels is deterministic."""
    buf = io.BytesIO()
    if fmt == "jpeg":
        img.convert("RGB").save(buf, format="JPEG", quality=quality, optimize=False)
        mime = "image/jpeg"
    else:
        img.save(buf, format="PNG", optimize=False)
        mime = "image/png"
    data = buf.getvalue()
    return f"data:{mime};base64,{b64.encode(data).decode('ascii')}", hashlib.sha256(data).hexdigest()
