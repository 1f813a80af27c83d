"""Screen-QA answers drawn on the screenshot: the predicted answer elements boxed in red and numbered in rank order,
the ground truth's elements boxed in green (every annotator's). `droidharness qa` saves the full-size drawing;
the QA section of the report (harness/run/qa_report.py) embeds a downscaled one.
"""

from __future__ import annotations

from collections.abc import Sequence

from PIL import Image, ImageDraw, ImageFont

Box = tuple[int, int, int, int]

PREDICTED = (230, 30, 60)  # red, numbered
GROUND_TRUTH = (20, 160, 70)  # green


def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow < 10.1
        return ImageFont.load_default()


def draw_boxes(
    image: Image.Image, predicted: Sequence[Box], ground_truth: Sequence[Box] = (), scale: float = 1.0
) -> Image.Image:
    """A copy of `image` (RGB) with the ground-truth boxes in green, then the predicted boxes in red, each
    numbered in rank order. Boxes are in device pixels; `scale` maps them onto `image` (a downscaled screen)."""
    img = image.convert("RGB").copy()
    draw = ImageDraw.Draw(img)
    size = max(14, img.width // 40)
    width = max(3, size // 5)
    font = _font(size)

    def box(b: Box) -> tuple[int, int, int, int]:
        l, t, r, btm = (round(v * scale) for v in b)
        return l, t, max(l, r - 1), max(t, btm - 1)

    for b in ground_truth:
        draw.rectangle(box(b), outline=GROUND_TRUTH, width=width)
    for rank, b in enumerate(predicted, 1):
        l, t, r, btm = box(b)
        draw.rectangle((l, t, r, btm), outline=PREDICTED, width=width)
        draw.rectangle((l, t, l + size + 8, t + size + 8), fill=PREDICTED)
        draw.text((l + 4, t + 2), str(rank), fill=(255, 255, 255), font=font)
    return img


def draw_answer(screenshot: Image.Image, boxes: list[Box]) -> Image.Image:
    """The screenshot with each answer box drawn and numbered in rank order."""
    return draw_boxes(screenshot, boxes)


__all__ = ["draw_boxes", "draw_answer", "PREDICTED", "GROUND_TRUTH"]
