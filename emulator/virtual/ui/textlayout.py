"""Where a view's text goes and how it breaks, as TextView lays it out: one place for the renderer, which draws
it, and for the checks of the layouts, which ask whether it shows whole.

`label_box(view, box)` is the part of a view's drawn box its text goes in (beside a checkbox's box, under a
launcher icon, after a leading icon), the text and its style; `layout_text(box, text, style)` breaks it into the
lines drawn: one line cut with an ellipsis, or up to `lines` lines wrapped at spaces (anywhere in CJK) with an
ellipsis on the last shown, as TextView's `maxLines` + `ellipsize="end"` do. `TextLayout.whole` tells whether
every character shows, `TextLayout.fits` whether it also stays inside its box (the ink of its glyphs, top to
bottom).

Style keys read: size (px), bold, align (l|c|r), valign (c|t), lines, pad (left and right), pad_top (valign t).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from PIL import ImageFont

from .fonts import ellipsize, font_for, text_width, wrap
from .view import View

Box = tuple[int, int, int, int]
LINE_SPACING = 1.35  # a line's height, in text sizes
EDIT_TEXT = "android.widget.EditText"


@dataclass(frozen=True)
class TextLayout:
    box: Box  # the text's box, padding taken off
    lines: list[str]  # what is drawn, line by line
    size: int
    bold: bool
    line_height: int
    top: int  # the first line's top (its glyphs start a little below)
    whole: bool  # every character of the text is drawn (no ellipsis, no line left out)

    def glyph_offset(self, line: str) -> int:
        """How far below its line's top `line` is drawn (where its font's ascent starts): the font's ascent and
        descent centred in the line, as a line box holds them (a CJK face's are taller than a Latin face's)."""
        font = font_for(line, self.size, self.bold)
        ascent, descent = font.getmetrics() if isinstance(font, ImageFont.FreeTypeFont) else (self.size, 0)
        return (self.line_height - ascent - descent) // 2

    def extent(self) -> tuple[int, int]:
        """(top, bottom) of the ink drawn: the first line's highest glyph to the last line's lowest."""
        top, bottom = self.top + self.line_height, self.top
        for i, line in enumerate(self.lines):
            if line.strip():
                y = self.top + i * self.line_height + self.glyph_offset(line)
                _, t, _, b = font_for(line, self.size, self.bold).getbbox(line)
                top, bottom = min(top, y + int(t)), max(bottom, y + int(b))
        return top, max(top, bottom)

    @property
    def fits(self) -> bool:
        """The text shows whole and inside its box (a pixel of slack each way)."""
        top, bottom = self.extent()
        return self.whole and top >= self.box[1] - 1 and bottom <= self.box[3] + 1


def font_scale(settings: Mapping[str, Mapping[str, str]]) -> float:
    """`settings put system font_scale F`: what text sized in sp grows by (1.0 when unset or unreadable)."""
    try:
        scale = float(settings.get("system", {}).get("font_scale", "1.0"))
    except ValueError:
        return 1.0
    return scale if 0.1 <= scale <= 10 else 1.0


def sp_px(v: float, scale: float, settings: Mapping[str, Mapping[str, str]]) -> int:
    """`v` sp in px at `scale` px per dp and the font scale of `settings` (never under 6 px)."""
    return max(6, int(round(v * (scale * font_scale(settings)))))


def pill_size(label: str, size: int, scale: float) -> tuple[int, int]:
    """(width, height) of a pill button ("Clear all") holding bold `label` at `size` px: at least 120 x 40 dp,
    16 dp beside the text and 4 dp above and below its line."""
    height = max(int(40 * scale), int(size * LINE_SPACING) + int(8 * scale))
    width = max(int(120 * scale), int(text_width(label, size, True)) + int(32 * scale))
    return width, height


def layout_text(box: Box, s: str, st: dict[str, Any]) -> TextLayout | None:
    """The lines of `s` drawn in `box` with style `st`; None when there is no width to draw in."""
    size = int(st.get("size", 14) or 14)
    bold = bool(st.get("bold"))
    pad = int(st.get("pad", 0) if st.get("kind") != "field" else 0)
    l, t, r, b = box[0] + pad, box[1], box[2] - pad, box[3]
    avail = r - l
    if avail <= 0:
        return None
    lines = max(1, int(st.get("lines", 1)))
    lh = int(size * LINE_SPACING)
    if lines == 1:
        flat = s.replace("\n", " ")
        out = [ellipsize(flat, size, avail, bold)]
        whole = out[0] == flat
    else:
        wrapped = wrap(s, size, avail, bold)
        fit = max(1, min(lines, (b - t) // max(1, lh)))
        out = wrapped[:fit]
        whole = len(wrapped) <= fit
        if not whole:
            out[-1] = ellipsize(out[-1] + "…", size, avail, bold)
    total = lh * len(out)
    top = t + int(st.get("pad_top", 0)) if st.get("valign", "c") == "t" else t + (b - t - total) // 2
    return TextLayout((l, t, r, b), out, size, bold, lh, top, whole)


def checkbox_size(box: Box, st: dict[str, Any]) -> int:
    """The side of a checkbox's (radio button's) box, drawn at the start of its view."""
    return min(box[3] - box[1], max(12, int(st.get("size", 16) * 1.1)))


def label_box(v: View, box: Box) -> tuple[Box, str, dict[str, Any]] | None:
    """Where `v` draws its text inside `box` (its drawn bounds), the text and the style it is drawn in; None when
    it draws none (switches, seek bars, avatars' letters, icons without text, invisible views)."""
    st = v.style
    kind = st.get("kind", "")
    if st.get("invisible") or kind in ("switch", "seekbar", "avatar"):
        return None
    if kind in ("checkbox", "radio"):
        s = checkbox_size(box, st)
        x0 = box[0] + max(0, (min(box[3] - box[1], box[2] - box[0]) - s) // 2)
        return ((x0 + s + s // 2, box[1], box[2], box[3]), v.text, st) if v.text else None
    if kind == "field":  # its text, or its hint while empty
        pad = int(st.get("pad", 0))
        return (box[0] + pad, box[1], box[2] - pad, box[3]), v.text, st
    if kind == "appicon":
        if not v.text or st.get("no_label"):
            return None
        isz = int(st.get("icon_size", (box[2] - box[0]) * 0.6))
        top = box[1] + int(st.get("icon_top", 0)) + isz
        return (box[0] + 2, top, box[2] - 2, box[3]), v.text, dict(st, align="c", lines=1)
    txt = "" if v.cls == EDIT_TEXT else v.text or st.get("label", "")
    if txt and st.get("icon"):
        if st.get("icon_left"):
            side = box[3] - box[1]
            box = (box[0] + side - icon_inset(st, box) // 2, box[1], box[2], box[3])
        elif not st.get("icon_text"):
            txt = ""
    return (box, txt, st) if txt else None


def icon_inset(st: dict[str, Any], box: Box) -> int:
    """How far an icon is drawn inside its view's box."""
    if st.get("inset_frac"):
        return int(st["inset_frac"] * min(box[2] - box[0], box[3] - box[1]))
    return int(st.get("inset", 0))
