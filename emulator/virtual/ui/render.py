"""Pillow renderer: draws the window roots from `view_roots()`, so pixels agree with the XML bounds.

Each view draws its background, its bitmap (`style["image"]`: a PIL image scaled to the view's box), border,
kind-specific widget (switch, checkbox, field, avatar, icon), its text (none of these with `style["invisible"]`)
and then its children; containers with `style["clip"]` draw their children into a cropped layer. Views whose
bounds were clipped keep the unclipped box in `style["draw"]`. Drawing never reads app state: everything comes
from the views (plus the theme for widget colours).
"""

from __future__ import annotations

import math
from typing import Any

from PIL import Image, ImageDraw

from .damage import RecordingDraw, Rows, Trace, fills
from .fonts import font_for, text_width, wrap
from .glyphs import draw_text
from .kept import KeptByBytes
from .textlayout import EDIT_TEXT, checkbox_size, icon_inset, label_box, layout_text
from .theme import Color, Theme, mix
from .view import View

_DIM_LUT = [int(v * 0.55) for v in range(256)] * 3


class ScaledBitmaps:
    """Bitmaps as drawn: converted to RGB and scaled to their view's box, the most recently drawn kept, bounded by
    the bytes of their pixels (as Pillow keeps RGB: 4 a pixel) and by their number (`kept.KeptByBytes`; one past
    the bytes alone is scaled, not kept). An app keeps a picture no larger than its source (`picture`: a small
    photo, OsmAnd's map at a third of the screen, a gallery's paletted thumbnails) and the frame scales it up: every
    frame drawn with it on screen scaled it again (~23 ms for the map's 360x761 to 1080x2285). Named by the source
    bitmap's identity and the size: the source is kept with its scaled bitmap, so its id is not reused meanwhile."""

    def __init__(self, max_bytes: int = 12 << 20, max_items: int = 64) -> None:
        self._kept: KeptByBytes[tuple[int, tuple[int, int]], tuple[Image.Image, Image.Image]] = KeptByBytes(
            max_bytes, max_items, lambda kept: kept[1].width * kept[1].height * 4, keep_one=False
        )

    @property
    def max_bytes(self) -> int:
        return self._kept.max_bytes

    def get(self, image: Any, size: tuple[int, int]) -> Image.Image:
        """`image` as an RGB bitmap of `size` (itself when it is one already). Something drawn afresh for each
        frame in place of a bitmap (a drawing app's strokes: `convert` gives its pixels) is never kept."""
        if image.mode == "RGB" and image.size == size:
            return image
        if not isinstance(image, Image.Image):
            return _scaled(image, size)
        return self._kept.get((id(image), size), lambda: (image, _scaled(image, size)))[1]

    def held(self) -> dict[str, int]:
        """What is kept: bitmaps and the bytes of their pixels."""
        return {"scaled bitmaps": len(self._kept), "scaled bitmap bytes": self._kept.nbytes}

    def clear(self) -> None:
        self._kept.clear()


def _scaled(image: Any, size: tuple[int, int]) -> Image.Image:
    """`image` (a bitmap, or anything whose `convert` gives one) in RGB at `size`."""
    out = image if image.mode == "RGB" else image.convert("RGB")
    return out if out.size == size else out.resize(size)


SCALED = ScaledBitmaps()  # the process's (a device's; thread devices in one harness share it, as they share fonts)


class Painter:
    """Draws views onto `img`, whose (0, 0) is the frame's (ox, oy) and which stands for the frame's `region` (what
    the image covers when the whole frame is drawn: the frame, or a clipping container's box). With a `trace`
    (`damage.Trace`) it reports the rows each item draws (cut to `clip`, the frame's rows its drawing can reach)
    and, drawing the band `band` of a frame (absolute rows), skips the items known to miss it."""

    def __init__(
        self,
        img: Image.Image,
        theme: Theme,
        ox: int = 0,
        oy: int = 0,
        filled: View | None = None,
        trace: Trace | None = None,
        region: tuple[int, int, int, int] | None = None,
        clip: Rows | None = None,
        band: Rows | None = None,
    ) -> None:
        self.img = img
        self.theme = theme
        self.ox, self.oy = ox, oy
        self.filled = filled  # a view whose background the image was created with (not drawn again)
        self.trace, self.band = trace, band
        self.region = region or (ox, oy, ox + img.width, oy + img.height)
        self.clip = clip or (self.region[1], self.region[3])
        self.d: Any = ImageDraw.Draw(img) if trace is None else RecordingDraw(ImageDraw.Draw(img), trace, oy, self.clip)

    # --- entry -----------------------------------------------------------------------------------
    def view(self, v: View) -> None:
        st = v.style
        l, t, r, b = st.get("draw", v.bounds)
        box = (l - self.ox, t - self.oy, r - self.ox, b - self.oy)
        if box[2] <= box[0] or box[3] <= box[1]:
            return
        item, draw = self.trace.enter(self.band) if self.trace is not None else (0, True)
        if draw:
            self._decor(v, box, st)
        if st.get("clip") and v.children:
            cl, ct, cr, cb = v.bounds
            if cr > cl and cb > ct:
                self._clipped(v.children, (cl, ct, cr, cb), item)
            return
        for c in v.children:
            self.view(c)

    def _clipped(self, children: list[View], rect: tuple[int, int, int, int], item: int) -> None:
        """Draw `children` clipped to `rect` (the frame's coordinates): into a copy of that region, pasted back;
        or, when it is most of the region the image stands for, straight onto the image, whatever they drew outside
        it put back afterwards - a clip either way, at the cost of copying the smaller part. Drawing a band, the
        copy holds only the band's rows of the rectangle (`damage`: no band starts inside a drawing at a fractional
        row); the choice is the whole frame's."""
        rl, rt, rr, rb = self.region
        area = max(0, min(rr, rect[2]) - max(rl, rect[0])) * max(0, min(rb, rect[3]) - max(rt, rect[1]))
        crop = (rect[0] - self.ox, rect[1] - self.oy, rect[2] - self.ox, rect[3] - self.oy)
        clip = (max(self.clip[0], rect[1]), min(self.clip[1], rect[3]))
        tr = self.trace
        W, H = self.img.size
        if 2 * area <= (rr - rl) * (rb - rt):
            if self.band is not None:  # the band's rows of the rectangle only
                crop = (crop[0], max(crop[1], 0), crop[2], min(crop[3], H))
                if crop[3] <= crop[1]:
                    if tr is not None:
                        tr.skip_subtree(item)
                    return
            layer = self.img.crop(crop)
            sub = Painter(layer, self.theme, crop[0] + self.ox, crop[1] + self.oy, None, tr, rect, clip, self.band)
            for c in children:
                sub.view(c)
            self.img.paste(layer, crop[:2])
            return
        l, t, r, b = max(0, crop[0]), max(0, crop[1]), min(W, crop[2]), min(H, crop[3])
        outside = [(0, 0, W, t), (0, b, W, H), (0, t, l, b), (r, t, W, b)]
        kept = [(box, self.img.crop(box)) for box in outside if box[2] > box[0] and box[3] > box[1]]
        d, inner = self.d, self.clip
        if tr is not None:
            self.d, self.clip = d.cut(clip), clip
        for c in children:
            self.view(c)
        self.d, self.clip = d, inner
        for box, part in kept:
            self.img.paste(part, box[:2])

    def _touch(self, top: int, bottom: int) -> None:
        """Report rows drawn other than through `self.d` (a pasted bitmap, a line of text), in image rows."""
        if self.trace is not None:
            self.d.note(top, bottom)

    # --- pieces ----------------------------------------------------------------------------------
    def _decor(self, v: View, box: tuple[int, int, int, int], st: dict[str, Any]) -> None:
        if st.get("invisible"):  # in the hierarchy, not drawn (e.g. annotations over a recorded screenshot)
            return
        d = self.d
        radius = int(st.get("radius", 0) or 0)
        radius = min(radius, (box[2] - box[0]) // 2, (box[3] - box[1]) // 2)
        if st.get("shadow"):
            sh = (box[0] + 2, box[1] + 4, box[2] + 2, box[3] + 4)
            self._rect(sh, (0, 0, 0) if self.theme.dark else (170, 170, 178), radius)
        bg = st.get("bg")
        if bg is not None and v is not self.filled:
            self._rect(box, bg, radius)
        image = st.get("image")
        if image is not None:  # a bitmap (PIL image) filling the view's box, e.g. a recorded screenshot
            self.img.paste(SCALED.get(image, (box[2] - box[0], box[3] - box[1])), box[:2])
            self._touch(box[1], box[3])
        border = st.get("border")
        if border is not None:
            w = max(1, int(st.get("border_w", max(1, (box[3] - box[1]) // 40))))
            if radius:
                d.rounded_rectangle(box, radius, outline=border, width=w)
            else:
                d.rectangle(box, outline=border, width=w)
        kind = st.get("kind", "")
        if kind == "switch":
            self._switch(box, v.checked, v.enabled)
            return
        if kind == "seekbar":
            self._seekbar(box, float(st.get("progress", 0.0)), v.enabled)
            return
        if kind == "field":
            self._field(v, box, st)
            return
        if kind == "avatar":
            self._letter(box, st.get("letter", ""), st.get("fg", (255, 255, 255)), st.get("size"))
            return
        if kind in ("checkbox", "radio"):
            self._checkbox(v, box, st, kind == "radio")
        elif kind == "appicon":
            self._appicon(box, st)
        else:
            if kind == "indicator" and v.selected:
                h = max(2, (box[3] - box[1]) // 16)
                cx = (box[0] + box[2]) // 2
                half = max((box[2] - box[0]) // 4, 8)
                d.rounded_rectangle((cx - half, box[3] - h, cx + half, box[3]), h // 2, fill=st.get("accent"))
            name = st.get("icon")
            if name:
                inset = icon_inset(st, box)
                if st.get("icon_left") and (v.text or st.get("label")) and v.cls != EDIT_TEXT:
                    side = box[3] - box[1]
                    ib = (box[0] + inset, box[1] + inset, box[0] + side - inset, box[3] - inset)
                else:
                    w, h = box[2] - box[0], box[3] - box[1]
                    inset = min(inset, max(0, (min(w, h) - 8) // 2))
                    ib = (box[0] + inset, box[1] + inset, box[2] - inset, box[3] - inset)
                draw_icon(d, ib, name, st.get("icon_color", self.theme.text), st.get("letter", ""))
        label = label_box(v, box)
        if label is not None:
            self._text(*label)

    def _rect(self, box: tuple[int, int, int, int], fill: Color, radius: int) -> None:
        if radius > 0:
            self.d.rounded_rectangle(box, radius, fill=fill)
        else:
            self.d.rectangle((box[0], box[1], box[2] - 1, box[3] - 1), fill=fill)

    def _text(self, box: tuple[int, int, int, int], s: str, st: dict[str, Any], color: Color | None = None) -> None:
        lay = layout_text(box, s, st)
        if lay is None:
            return
        fg = color or st.get("fg", self.theme.text)
        align = st.get("align", "l")
        l, _, r, _ = lay.box
        y = lay.top
        for line in lay.lines:
            if line:
                font = font_for(line, lay.size, lay.bold)
                w = text_width(line, lay.size, lay.bold)
                x = l if align == "l" else (r - w if align == "r" else l + (r - l - w) / 2)
                self._touch(*draw_text(self.img, (x, y + lay.glyph_offset(line)), line, font, fg))
            y += lay.line_height

    def _switch(self, box: tuple[int, int, int, int], on: bool, enabled: bool) -> None:
        th = self.theme
        w, h = box[2] - box[0], box[3] - box[1]
        th_h = min(h, int(w * 0.6))
        tw = int(th_h * 1.6)
        x1 = box[2]
        x0 = x1 - tw
        y0 = box[1] + (h - th_h) // 2
        track = (x0, y0, x1, y0 + th_h)
        if on:
            self.d.rounded_rectangle(track, th_h // 2, fill=th.primary if enabled else mix(th.primary, th.bg, 0.6))
            r = int(th_h * 0.36)
            cx, cy = x1 - th_h // 2, y0 + th_h // 2
            self.d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=th.on_primary)
        else:
            self.d.rounded_rectangle(
                track, th_h // 2, fill=th.switch_off_track, outline=th.switch_off_thumb, width=max(1, th_h // 16)
            )
            r = int(th_h * 0.24)
            cx, cy = x0 + th_h // 2, y0 + th_h // 2
            self.d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=th.switch_off_thumb)

    def _seekbar(self, box: tuple[int, int, int, int], frac: float, enabled: bool) -> None:
        th = self.theme
        h = box[3] - box[1]
        inset, cy = h // 2, (box[1] + box[3]) // 2
        x0, x1 = box[0] + inset, box[2] - inset
        tx = x0 + int((x1 - x0) * max(0.0, min(1.0, frac)))
        lw = max(2, h // 10)
        self.d.rounded_rectangle((x0, cy - lw, x1, cy + lw), lw, fill=th.switch_off_track)
        color = th.primary if enabled else th.text2
        self.d.rounded_rectangle((x0, cy - lw, max(tx, x0 + 2 * lw), cy + lw), lw, fill=color)
        r = max(4, h // 4)
        self.d.ellipse((tx - r, cy - r, tx + r, cy + r), fill=color)

    def _checkbox(self, v: View, box: tuple[int, int, int, int], st: dict[str, Any], radio: bool) -> None:
        th = self.theme
        h = box[3] - box[1]
        s = checkbox_size(box, st)
        x0, y0 = box[0] + max(0, (min(h, box[2] - box[0]) - s) // 2), box[1] + (h - s) // 2
        cb = (x0, y0, x0 + s, y0 + s)
        lw = max(2, s // 9)
        if radio:
            self.d.ellipse(cb, outline=th.primary if v.checked else th.text2, width=lw)
            if v.checked:
                q = s // 4
                self.d.ellipse((cb[0] + q, cb[1] + q, cb[2] - q, cb[3] - q), fill=th.primary)
        elif v.checked:
            self.d.rounded_rectangle(cb, max(1, s // 8), fill=th.primary)
            draw_icon(self.d, (cb[0] + lw, cb[1] + lw, cb[2] - lw, cb[3] - lw), "check", th.on_primary)
        else:
            self.d.rounded_rectangle(cb, max(1, s // 8), outline=th.text2, width=lw)

    def _appicon(self, box: tuple[int, int, int, int], st: dict[str, Any]) -> None:
        isz = int(st.get("icon_size", (box[2] - box[0]) * 0.6))
        cx = (box[0] + box[2]) // 2
        top = box[1] + int(st.get("icon_top", 0))
        ib = (cx - isz // 2, top, cx + isz // 2, top + isz)
        self.d.ellipse(ib, fill=st.get("icon_bg", self.theme.primary))
        inset = int(isz * 0.24)
        draw_icon(
            self.d,
            (ib[0] + inset, ib[1] + inset, ib[2] - inset, ib[3] - inset),
            st.get("icon", "letter"),
            st.get("icon_color", (255, 255, 255)),
            st.get("letter", ""),
        )

    def _letter(self, box: tuple[int, int, int, int], letter: str, fg: Color, size: int | None) -> None:
        if not letter:
            return
        size = int(size or (box[3] - box[1]) * 0.5)
        self._text(box, letter, {"size": size, "align": "c", "bold": True, "fg": fg})

    def _field(self, v: View, box: tuple[int, int, int, int], st: dict[str, Any]) -> None:
        th = self.theme
        pad = int(st.get("pad", 0))
        focused = v.focused
        accent = st.get("accent", th.primary)
        if st.get("box") == "underline":
            lw = max(2, (box[3] - box[1]) // 24) if focused else max(1, (box[3] - box[1]) // 48)
            self.d.rectangle((box[0], box[3] - lw, box[2], box[3]), fill=accent if focused else st.get("line"))
        inner = (box[0] + pad, box[1], box[2] - pad, box[3])
        size = int(st.get("size", 16))
        empty = st.get("empty", not v.text)
        s = v.text
        if empty:
            self._text(inner, s, st, st.get("hint_color", th.text2))
            if focused:
                self._cursor(inner, inner[0], st, size, accent)
            return
        if int(st.get("lines", 1)) > 1:
            self._text(inner, s, st)
            if focused:
                lines = wrap(s, size, inner[2] - inner[0])
                lh = int(size * 1.35)
                n = min(len(lines), max(1, (inner[3] - inner[1]) // lh))
                last = lines[n - 1] if lines else ""
                x = inner[0] + text_width(last, size)
                top = inner[1] + int(st.get("pad_top", 0)) + (n - 1) * lh
                self._cursor((inner[0], top, inner[2], top + lh), x, st, size, accent, top_aligned=True)
            return
        avail = inner[2] - inner[0] - 4
        shown = s.replace("\n", " ")
        if focused and text_width(shown, size) > avail:
            # show the end of the text, as a scrolled single-line EditText does
            lo = 0
            while lo < len(shown) and text_width(shown[lo:], size) > avail:
                lo += 1
            shown = shown[lo:]
            self._text(inner, shown, dict(st, lines=1))
        else:
            self._text(inner, shown, dict(st, lines=1))
        if focused:
            x = inner[0] + min(avail, text_width(shown, size))
            self._cursor(inner, x, st, size, accent)

    def _cursor(
        self,
        box: tuple[int, int, int, int],
        x: float,
        st: dict[str, Any],
        size: int,
        color: Color,
        top_aligned: bool = False,
    ) -> None:
        h = int(size * 1.2)
        if top_aligned:
            y0 = box[1] + (box[3] - box[1] - h) // 2
        else:
            y0 = box[1] + (box[3] - box[1] - h) // 2
        w = max(2, size // 14)
        self.d.rectangle((int(x) + 1, y0, int(x) + w, y0 + h), fill=color)


def render(
    roots: list[View],
    size: tuple[int, int],
    theme: Theme,
    base: Color = (0, 0, 0),
    canvas: Image.Image | None = None,
    trace: Trace | None = None,
) -> Image.Image:
    """The windows `roots` drawn at `size`; over `canvas` (an RGB image of that size nobody else holds, painted
    over whole: the same pixels as a new image) when given. With `trace` (`damage.Trace` of `roots`' paint list)
    the rows each item drew are recorded in it."""
    fill, filled = _start(roots, size, base)
    if canvas is not None and canvas.size == size and canvas.mode == "RGB":
        img = canvas
        img.paste(fill, (0, 0, *size))
    else:
        img = Image.new("RGB", size, fill)
    return _paint(img, roots, size, theme, filled, trace, None)


def render_bands(
    roots: list[View], size: tuple[int, int], theme: Theme, canvas: Image.Image, trace: Trace, base: Color = (0, 0, 0)
) -> Image.Image:
    """`canvas`, the frame `trace.known` was drawn as, with the rows of `trace.bands` drawn again from `roots`:
    each band from the image's first colour, the items that reach it drawn in order into it (`damage`)."""
    fill, filled = _start(roots, size, base)
    for top, bottom in trace.bands:
        layer = Image.new("RGB", (size[0], bottom - top), fill)
        canvas.paste(_paint(layer, roots, size, theme, filled, trace, (top, bottom)), (0, top))
    return canvas


def _start(roots: list[View], size: tuple[int, int], base: Color) -> tuple[Color, View | None]:
    """The colour a frame's image starts in and the root whose background that is (None: `base`)."""
    first = roots[0] if roots else None
    filled = first if first is not None and fills(first, size) else None
    return (filled.style["bg"] if filled is not None else base), filled


def _paint(
    img: Image.Image,
    roots: list[View],
    size: tuple[int, int],
    theme: Theme,
    filled: View | None,
    trace: Trace | None,
    band: Rows | None,
) -> Image.Image:
    """`roots` drawn onto `img`, whose first row is the frame's row `band[0]` (0 without a band)."""
    oy = band[0] if band is not None else 0
    region = (0, 0, *size)
    if trace is not None:
        trace.index = 0
        trace.enter(band)  # the colour the image starts in
        trace.touch(0, size[1])
    for root in roots:
        if root.style.get("dim"):
            img = img.point(_DIM_LUT)
            if trace is not None:
                trace.enter(band)
                trace.touch(0, size[1])
        Painter(img, theme, 0, oy, filled, trace, region, None, band).view(root)
    return img


# --- icons ---------------------------------------------------------------------------------------


def draw_icon(
    d: ImageDraw.ImageDraw, box: tuple[int, int, int, int], name: str, color: Color, letter: str = ""
) -> None:
    """Simple vector glyphs (lines, circles, polygons) that read as the Material icons they stand for."""
    l, t, r, b = box
    w, h = r - l, b - t
    if w <= 2 or h <= 2:
        return
    s = min(w, h)
    cx, cy = (l + r) / 2, (t + b) / 2
    x0, y0 = cx - s / 2, cy - s / 2
    lw = max(2, int(s / 11))

    def P(fx: float, fy: float) -> tuple[float, float]:
        return (x0 + fx * s, y0 + fy * s)

    def line(*pts: tuple[float, float], width: int = lw) -> None:
        d.line([P(*p) for p in pts], fill=color, width=width, joint="curve")

    def circle(fx: float, fy: float, fr: float, fill: bool = True, width: int = lw) -> None:
        cxp, cyp = P(fx, fy)
        rr = fr * s
        if fill:
            d.ellipse((cxp - rr, cyp - rr, cxp + rr, cyp + rr), fill=color)
        else:
            d.ellipse((cxp - rr, cyp - rr, cxp + rr, cyp + rr), outline=color, width=width)

    def poly(*pts: tuple[float, float]) -> None:
        d.polygon([P(*p) for p in pts], fill=color)

    if name == "back":
        line((0.8, 0.5), (0.2, 0.5))
        line((0.45, 0.25), (0.2, 0.5), (0.45, 0.75))
    elif name == "forward" or name == "chevron":
        line((0.38, 0.22), (0.66, 0.5), (0.38, 0.78))
    elif name == "close":
        line((0.25, 0.25), (0.75, 0.75))
        line((0.75, 0.25), (0.25, 0.75))
    elif name == "search":
        circle(0.42, 0.42, 0.22, fill=False)
        line((0.58, 0.58), (0.82, 0.82), width=lw + 1)
    elif name == "add":
        line((0.5, 0.2), (0.5, 0.8))
        line((0.2, 0.5), (0.8, 0.5))
    elif name == "minus":
        line((0.22, 0.5), (0.78, 0.5))
    elif name == "more":
        for fy in (0.25, 0.5, 0.75):
            circle(0.5, fy, 0.07)
    elif name == "menu":
        for fy in (0.28, 0.5, 0.72):
            line((0.2, fy), (0.8, fy))
    elif name == "delete":
        line((0.2, 0.25), (0.8, 0.25))
        line((0.4, 0.25), (0.42, 0.15), (0.58, 0.15), (0.6, 0.25))
        d.rectangle((*P(0.28, 0.32), *P(0.72, 0.85)), outline=color, width=lw)
    elif name == "check":
        line((0.2, 0.52), (0.42, 0.74), (0.82, 0.3))
    elif name == "drop_down":  # arrow_drop_down: a spinner's or a menu's
        poly((0.28, 0.4), (0.72, 0.4), (0.5, 0.64))
    elif name == "send":
        poly((0.15, 0.18), (0.88, 0.5), (0.15, 0.82), (0.25, 0.5))
    elif name == "edit":
        line((0.25, 0.75), (0.72, 0.28), width=lw * 2)
        poly((0.18, 0.82), (0.2, 0.68), (0.32, 0.8))
    elif name == "copy":
        d.rectangle((*P(0.35, 0.3), *P(0.8, 0.85)), outline=color, width=lw)
        line((0.2, 0.7), (0.2, 0.15), (0.65, 0.15))
    elif name == "star":
        pts = []
        for i in range(10):
            ang = -math.pi / 2 + i * math.pi / 5
            rr = 0.45 if i % 2 == 0 else 0.2
            pts.append((0.5 + rr * math.cos(ang), 0.52 + rr * math.sin(ang)))
        poly(*pts)
    elif name == "cart":
        line((0.1, 0.2), (0.25, 0.2), (0.35, 0.65), (0.8, 0.65), (0.88, 0.32), (0.28, 0.32))
        circle(0.38, 0.8, 0.07)
        circle(0.75, 0.8, 0.07)
    elif name == "wifi":
        cxp, cyp = P(0.5, 0.86)
        for rr in (0.2, 0.42, 0.64):
            d.arc(
                (cxp - rr * s, cyp - rr * s, cxp + rr * s, cyp + rr * s),
                225,
                315,
                fill=color,
                width=max(2, int(s * 0.13)),
            )
        circle(0.5, 0.8, 0.08)
    elif name == "wifi_off":
        cxp, cyp = P(0.5, 0.82)
        rr = 0.45
        d.arc((cxp - rr * s, cyp - rr * s, cxp + rr * s, cyp + rr * s), 225, 315, fill=color, width=lw)
        line((0.2, 0.2), (0.8, 0.85))
    elif name == "signal":
        poly((0.15, 0.85), (0.85, 0.85), (0.85, 0.15))
    elif name == "battery":
        d.rectangle((*P(0.3, 0.2), *P(0.7, 0.9)), fill=color)
        d.rectangle((*P(0.42, 0.1), *P(0.58, 0.2)), fill=color)
    elif name == "bluetooth":
        line((0.3, 0.3), (0.7, 0.68), (0.5, 0.85), (0.5, 0.15), (0.7, 0.32), (0.3, 0.7))
    elif name in ("display", "brightness", "sun"):
        circle(0.5, 0.5, 0.2)
        for i in range(8):
            ang = i * math.pi / 4
            line(
                (0.5 + 0.3 * math.cos(ang), 0.5 + 0.3 * math.sin(ang)),
                (0.5 + 0.42 * math.cos(ang), 0.5 + 0.42 * math.sin(ang)),
            )
    elif name == "moon":
        d.arc((*P(0.12, 0.12), *P(0.88, 0.88)), 70, 290, fill=color, width=max(2, int(s * 0.16)))
    elif name == "cloud":
        circle(0.38, 0.58, 0.18)
        circle(0.6, 0.5, 0.24)
        d.rectangle((*P(0.2, 0.6), *P(0.82, 0.76)), fill=color)
        circle(0.78, 0.64, 0.12)
    elif name == "partly":
        circle(0.36, 0.38, 0.2)
        draw_icon(d, (int(l + w * 0.15), int(t + h * 0.2), r, b), "cloud", mix(color, (255, 255, 255), 0.5))
    elif name in ("rain", "storm", "snow"):
        draw_icon(d, (l, int(t - h * 0.15), r, int(b - h * 0.15)), "cloud", color)
        for fx in (0.32, 0.5, 0.68):
            if name == "snow":
                circle(fx, 0.86, 0.04)
            else:
                line((fx, 0.78), (fx - 0.06, 0.92))
    elif name in ("info", "about"):
        circle(0.5, 0.5, 0.42, fill=False)
        line((0.5, 0.45), (0.5, 0.75))
        circle(0.5, 0.3, 0.05)
    elif name in ("alarm", "clock"):
        circle(0.5, 0.54, 0.36, fill=False)
        line((0.5, 0.34), (0.5, 0.54), (0.64, 0.64))
        if name == "alarm":
            line((0.12, 0.24), (0.26, 0.12))
            line((0.88, 0.24), (0.74, 0.12))
    elif name == "timer":
        line((0.28, 0.15), (0.72, 0.15), (0.28, 0.85), (0.72, 0.85), (0.28, 0.15))
    elif name == "stopwatch":
        circle(0.5, 0.56, 0.34, fill=False)
        line((0.42, 0.12), (0.58, 0.12))
        line((0.5, 0.56), (0.5, 0.36))
    elif name == "play":
        poly((0.3, 0.18), (0.82, 0.5), (0.3, 0.82))
    elif name == "pause":
        d.rectangle((*P(0.26, 0.2), *P(0.42, 0.8)), fill=color)
        d.rectangle((*P(0.58, 0.2), *P(0.74, 0.8)), fill=color)
    elif name in ("person", "contacts"):
        circle(0.5, 0.33, 0.17)
        d.pieslice((*P(0.18, 0.58), *P(0.82, 1.15)), 180, 360, fill=color)
    elif name == "home":
        poly((0.5, 0.15), (0.88, 0.5), (0.76, 0.5), (0.76, 0.85), (0.24, 0.85), (0.24, 0.5), (0.12, 0.5))
    elif name == "nav_back":
        d.polygon([P(0.7, 0.2), P(0.7, 0.8), P(0.25, 0.5)], outline=color, width=lw)
    elif name == "nav_home":
        circle(0.5, 0.5, 0.32, fill=False)
    elif name == "nav_recents":
        d.rounded_rectangle((*P(0.22, 0.22), *P(0.78, 0.78)), max(1, int(s * 0.06)), outline=color, width=lw)
    elif name == "message":
        d.rounded_rectangle((*P(0.12, 0.16), *P(0.88, 0.7)), max(1, int(s * 0.1)), fill=color)
        poly((0.25, 0.66), (0.25, 0.88), (0.48, 0.66))
    elif name == "phone":
        d.rounded_rectangle((*P(0.3, 0.1), *P(0.7, 0.9)), max(1, int(s * 0.08)), outline=color, width=lw)
    elif name == "mail":
        d.rectangle((*P(0.12, 0.25), *P(0.88, 0.75)), outline=color, width=lw)
        line((0.12, 0.25), (0.5, 0.52), (0.88, 0.25))
    elif name in ("settings", "gear"):
        for i in range(8):
            ang = i * math.pi / 4
            line(
                (0.5 + 0.28 * math.cos(ang), 0.5 + 0.28 * math.sin(ang)),
                (0.5 + 0.44 * math.cos(ang), 0.5 + 0.44 * math.sin(ang)),
                width=lw * 2,
            )
        circle(0.5, 0.5, 0.24, fill=False, width=max(2, int(s * 0.14)))
    elif name == "apps":
        for fx in (0.3, 0.7):
            for fy in (0.3, 0.7):
                circle(fx, fy, 0.12)
    elif name == "devices":
        d.rectangle((*P(0.1, 0.2), *P(0.65, 0.65)), outline=color, width=lw)
        d.rectangle((*P(0.7, 0.35), *P(0.9, 0.85)), outline=color, width=lw)
    elif name == "bell":
        d.pieslice((*P(0.22, 0.18), *P(0.78, 0.9)), 180, 360, fill=color)
        d.rectangle((*P(0.22, 0.52), *P(0.78, 0.72)), fill=color)
        circle(0.5, 0.82, 0.07)
    elif name == "lock":
        d.rectangle((*P(0.22, 0.45), *P(0.78, 0.88)), fill=color)
        d.arc((*P(0.32, 0.12), *P(0.68, 0.62)), 180, 360, fill=color, width=lw)
    elif name == "location":
        circle(0.5, 0.38, 0.26)
        poly((0.28, 0.48), (0.72, 0.48), (0.5, 0.9))
    elif name == "storage":
        for fy in (0.2, 0.45, 0.7):
            d.rectangle((*P(0.15, fy), *P(0.85, fy + 0.18)), outline=color, width=lw)
    elif name == "sound":
        poly((0.15, 0.38), (0.35, 0.38), (0.6, 0.15), (0.6, 0.85), (0.35, 0.62), (0.15, 0.62))
        d.arc((*P(0.5, 0.3), *P(0.85, 0.7)), 300, 60, fill=color, width=lw)
    elif name == "mic":
        d.rounded_rectangle((*P(0.38, 0.1), *P(0.62, 0.6)), max(1, int(s * 0.12)), fill=color)
        d.arc((*P(0.25, 0.3), *P(0.75, 0.75)), 0, 180, fill=color, width=lw)
        line((0.5, 0.75), (0.5, 0.9))
    elif name == "shift":
        poly((0.5, 0.15), (0.85, 0.55), (0.65, 0.55), (0.65, 0.85), (0.35, 0.85), (0.35, 0.55), (0.15, 0.55))
    elif name == "backspace":
        d.polygon([P(0.3, 0.25), P(0.9, 0.25), P(0.9, 0.75), P(0.3, 0.75), P(0.08, 0.5)], outline=color, width=lw)
        line((0.45, 0.38), (0.7, 0.62))
        line((0.7, 0.38), (0.45, 0.62))
    elif name == "enter":
        line((0.8, 0.2), (0.8, 0.6), (0.2, 0.6))
        line((0.38, 0.42), (0.2, 0.6), (0.38, 0.78))
    elif name == "image":
        poly((0.12, 0.8), (0.38, 0.45), (0.55, 0.65), (0.68, 0.52), (0.88, 0.8))
        circle(0.7, 0.28, 0.09)
    elif name == "handle":
        d.rounded_rectangle(box, max(1, h // 2), fill=color)
    else:
        ch = (letter or name[:1]).upper()
        if ch:
            size = max(6, int(s * 0.55))
            font = font_for(ch, size, True)
            tw = text_width(ch, size, True)
            d.text((cx - tw / 2, cy - size * 0.62), ch, font=font, fill=color)
    if letter and name not in ("letter",) and name.startswith("app"):
        pass


def _bg_guess(color: Color) -> Color:
    """A contrasting 'hole' colour for glyphs drawn as shape-minus-shape."""
    return (0, 0, 0) if sum(color) > 382 else (255, 255, 255)
