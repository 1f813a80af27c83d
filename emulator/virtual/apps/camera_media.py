"""What the Camera twin's sensor sees and what it saves: a drawn scene (sky, sun, hills, a house - no real camera),
a photo as a JPEG with its EXIF, a video as an MP4 (`media.encode_mp4`), named and placed as Camera2 names and
places them on Android 10 and later: inserted into MediaStore without a relative path, so images land in
Pictures/ and videos in Movies/, titled with the device's clock (`'IMG'_yyyyMMdd_HHmmss`, `'VID'_yyyyMMdd_HHmmss`;
a second capture in the same second gets `_1`, `_2` ...)."""

from __future__ import annotations

import io
import math
import posixpath
from datetime import datetime

from PIL import Image, ImageDraw

from ..clock import zone_named
from ..fs import FileSystem
from ..ui.host import Device

PICTURES = "/sdcard/Pictures"
MOVIES = "/sdcard/Movies"
PHOTO_SIZE = (640, 480)  # the sensor's 4:3 frame, landscape as it reads out
VIDEO_SIZE = (176, 144)  # CamcorderProfile QUALITY_QCIF: small, as every frame is kept uncompressed
VIDEO_FRAMES_PER_SECOND = 1  # the few frames kept of a recording (each I_PCM frame is 1.5 bytes a pixel)
MAX_VIDEO_FRAMES = 10
_SCENES: dict[tuple[int, int, bool, float], Image.Image] = {}


def scene(size: tuple[int, int], front: bool = False, phase: float = 0.0, keep: bool = False) -> Image.Image:
    """The view in front of the lens at `size` (the front camera sees a wall and a face-like shape); `phase` in
    [0, 1) moves the clouds. With `keep` the image is remembered (the viewfinder's few small ones), so a frame
    costs a resize."""
    key = (size[0], size[1], front, round(phase, 2))
    img = _SCENES.get(key)
    if img is not None:
        return img
    w, h = size
    top, bottom = ((224, 210, 190), (190, 170, 150)) if front else ((66, 133, 244), (187, 222, 251))
    # a vertical gradient: one column of rows, stretched across (no numpy in the app's process until a video)
    column = Image.new("RGB", (1, h))
    rows = [tuple(round(a + (b - a) * y / max(1, h - 1)) for a, b in zip(top, bottom, strict=True)) for y in range(h)]
    column.putdata(rows)
    img = column.resize((w, h), Image.Resampling.NEAREST)
    d = ImageDraw.Draw(img)
    if front:
        cx, cy, r = w / 2, h * 0.48, min(w, h) * 0.22
        d.ellipse((cx - r, cy - r * 1.2, cx + r, cy + r * 1.2), fill=(241, 194, 160))
        for ex in (-0.4, 0.4):
            d.ellipse((cx + ex * r - r * 0.1, cy - r * 0.3, cx + ex * r + r * 0.1, cy - r * 0.1), fill=(60, 50, 40))
        d.arc((cx - r * 0.45, cy + r * 0.1, cx + r * 0.45, cy + r * 0.6), 20, 160, fill=(150, 60, 60), width=3)
    else:
        d.ellipse((w * 0.72, h * 0.1, w * 0.88, h * 0.1 + w * 0.16), fill=(255, 214, 79))
        for i in range(3):
            x = (w * (0.1 + 0.35 * i) + phase * w) % (w * 1.2) - w * 0.1
            y = h * (0.15 + 0.08 * i)
            d.ellipse((x, y, x + w * 0.22, y + h * 0.07), fill=(250, 250, 250))
        far = [(0, h * 0.62)] + [(x, h * (0.55 + 0.06 * math.sin(x / w * 7))) for x in range(0, w + 8, 8)] + [(w, h)]
        d.polygon([*far, (0, h)], fill=(104, 159, 56))
        near = [(x, h * (0.72 + 0.05 * math.sin(x / w * 4 + 1))) for x in range(0, w + 8, 8)]
        d.polygon([(0, h), *near, (w, h)], fill=(56, 142, 60))
        hx, hy, hw = w * 0.18, h * 0.6, w * 0.2
        d.rectangle((hx, hy, hx + hw, hy + hw * 0.7), fill=(239, 235, 233))
        d.polygon([(hx - hw * 0.1, hy), (hx + hw / 2, hy - hw * 0.45), (hx + hw * 1.1, hy)], fill=(183, 28, 28))
        d.rectangle((hx + hw * 0.4, hy + hw * 0.3, hx + hw * 0.6, hy + hw * 0.7), fill=(121, 85, 72))
    if keep:
        if len(_SCENES) >= 4:
            _SCENES.clear()
        _SCENES[key] = img
    return img


def capture_name(model: Device, prefix: str, when: float, folder: str, ext: str) -> str:
    """The path a capture at `when` (the device's clock) is saved at: PREFIX_yyyyMMdd_HHmmss[_N].EXT."""
    t = datetime.fromtimestamp(when, zone_named(model.time_zone))
    stem = f"{prefix}_{t:%Y%m%d_%H%M%S}"
    path, n = posixpath.join(folder, stem + ext), 1
    while model.fs.exists(path):
        path = posixpath.join(folder, f"{stem}_{n}{ext}")
        n += 1
    return path


def photo_jpeg(model: Device, when: float, front: bool) -> bytes:
    """The photo: the scene at the sensor's size, JPEG quality 90, with its EXIF (make, model, time taken)."""
    img = scene(PHOTO_SIZE, front)
    exif = Image.Exif()
    t = datetime.fromtimestamp(when, zone_named(model.time_zone)).strftime("%Y:%m:%d %H:%M:%S")
    exif[0x010F] = model.profile.manufacturer  # Make
    exif[0x0110] = model.profile.model  # Model
    exif[0x0132] = t  # DateTime
    out = io.BytesIO()
    img.save(out, "JPEG", quality=90, exif=exif)
    return out.getvalue()


def video_mp4(seconds: float, front: bool) -> bytes:
    """A recording of `seconds`: a few frames of the scene (the clouds drifting) spread over its length, the last
    one shown for a frame's time at its end, so the file lasts as long as the recording did."""
    import numpy as np  # loaded with the video encoder, only when a video is saved

    from ..media import encode_mp4

    n = max(2, min(MAX_VIDEO_FRAMES, int(seconds * VIDEO_FRAMES_PER_SECOND) + 1))
    last = max(0.0, seconds - 1 / 30)
    frames = [(np.asarray(scene(VIDEO_SIZE, front, i / n)), last * i / (n - 1)) for i in range(n)]
    return encode_mp4(frames, *VIDEO_SIZE)


def save(fs: FileSystem, path: str, data: bytes, when: float) -> None:
    fs.write(path, data, mtime=int(when), parents=True)
