"""Widget constructors: each returns a `View` with bounds, uiautomator attributes, behaviour and render style.

Style keys the renderer understands (see render.py): bg, radius, border, fg, size (px), bold, align (l|c|r),
valign (t|c), lines, pad, label (drawn when text is empty), icon, icon_color, kind (switch|checkbox|radio|
field|avatar|image|indicator), draw (unclipped bounds), clip, dim.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .fonts import text_width, wrap
from .layout import Ctx, FieldBinding, Row, V
from .theme import Color
from .view import Bounds, View

TEXT = "android.widget.TextView"
BUTTON = "android.widget.Button"
IMAGE = "android.widget.ImageView"
IMAGE_BUTTON = "android.widget.ImageButton"
EDIT = "android.widget.EditText"
SWITCH = "android.widget.Switch"
CHECKBOX = "android.widget.CheckBox"
RADIO = "android.widget.RadioButton"
FRAME = "android.widget.FrameLayout"
LINEAR = "android.widget.LinearLayout"
VIEWGROUP = "android.view.ViewGroup"

Click = Callable[[], Any] | None


def text(
    ctx: Ctx,
    bounds: Bounds,
    s: str,
    rid: str = "",
    size: float = 14,
    color: Color | None = None,
    bold: bool = False,
    align: str = "l",
    lines: int = 1,
    cls: str = TEXT,
    desc: str = "",
    valign: str = "c",
    **kw: Any,
) -> View:
    style = {
        "fg": color or ctx.theme.text,
        "size": ctx.sp(size),
        "bold": bold,
        "align": align,
        "lines": lines,
        "valign": valign,
    }
    style.update(kw.pop("style", {}))
    return V(ctx, cls, bounds, rid, text=s, desc=desc, style=style, **kw)


def text_row(
    ctx: Ctx,
    s: str,
    rid: str = "",
    size: float = 14,
    color: Color | None = None,
    bold: bool = False,
    height_dp: float = 0,
    pad_dp: float = 16,
    lines: int = 1,
    align: str = "l",
    width: int = 0,
) -> Row:
    """A text line (or paragraph, when lines > 1) as a list row; the height fits the wrapped text."""
    px = ctx.sp(size)
    h = ctx.dp(height_dp) if height_dp else 0
    if not h:
        avail = (width or (ctx.area[2] - ctx.area[0])) - 2 * ctx.dp(pad_dp)
        n = min(lines, max(1, len(wrap(s, px, avail, bold)))) if lines > 1 else 1
        h = int(n * px * 1.35) + ctx.dp(12)
    return Row(
        h,
        lambda x, y, w: text(
            ctx,
            (x + ctx.dp(pad_dp), y, x + w - ctx.dp(pad_dp), y + h),
            s,
            rid,
            size,
            color,
            bold,
            align,
            lines,
            valign="t" if lines > 1 else "c",
            style={"pad_top": ctx.dp(6)} if lines > 1 else {},
        ),
    )


def icon(
    ctx: Ctx,
    bounds: Bounds,
    name: str,
    color: Color | None = None,
    rid: str = "",
    desc: str = "",
    bg: Color | None = None,
    cls: str = IMAGE,
    on_click: Click = None,
    radius: int | None = None,
    letter: str = "",
) -> View:
    style: dict[str, Any] = {"icon": name, "icon_color": color or ctx.theme.text}
    if bg is not None:
        style["bg"] = bg
        style["radius"] = (min(bounds[2] - bounds[0], bounds[3] - bounds[1]) // 2) if radius is None else radius
    if letter:
        style["letter"] = letter
    return V(
        ctx,
        cls,
        bounds,
        rid,
        desc=desc,
        clickable=on_click is not None,
        on_click=on_click,
        focusable=on_click is not None,
        style=style,
    )


def icon_button(
    ctx: Ctx,
    bounds: Bounds,
    name: str,
    desc: str,
    on_click: Click,
    rid: str = "",
    color: Color | None = None,
    enabled: bool = True,
) -> View:
    v = icon(
        ctx,
        bounds,
        name,
        color or (ctx.theme.text if enabled else ctx.theme.text2),
        rid,
        desc,
        cls=IMAGE_BUTTON,
        on_click=on_click,
    )
    v.enabled = enabled
    v.style["inset"] = ctx.dp(12)
    return v


def button(
    ctx: Ctx,
    bounds: Bounds,
    label: str,
    on_click: Click,
    rid: str = "",
    kind: str = "filled",
    enabled: bool = True,
    desc: str = "",
    size: float = 14,
) -> View:
    th = ctx.theme
    style: dict[str, Any] = {"radius": (bounds[3] - bounds[1]) // 2, "align": "c", "bold": True, "size": ctx.sp(size)}
    if kind == "filled":
        style.update(bg=th.primary if enabled else th.surface2, fg=th.on_primary if enabled else th.text2)
    elif kind == "tonal":
        style.update(bg=th.primary_container, fg=th.on_primary_container)
    elif kind == "outlined":
        style.update(border=th.divider, fg=th.primary if enabled else th.text2)
    else:  # text button
        style.update(fg=th.primary if enabled else th.text2)
    return V(
        ctx,
        BUTTON,
        bounds,
        rid,
        text=label,
        desc=desc,
        clickable=True,
        focusable=True,
        enabled=enabled,
        on_click=on_click if enabled else None,
        style=style,
    )


def switch(
    ctx: Ctx,
    bounds: Bounds,
    checked: bool,
    rid: str = "android:id/switch_widget",
    on_click: Click = None,
    enabled: bool = True,
) -> View:
    return V(
        ctx,
        SWITCH,
        bounds,
        rid,
        checkable=True,
        checked=checked,
        enabled=enabled,
        focusable=True,
        clickable=on_click is not None,
        on_click=on_click,
        style={"kind": "switch"},
    )


SEEKBAR = "android.widget.SeekBar"


def seekbar(
    ctx: Ctx, bounds: Bounds, progress: int, maximum: int, on_seek: Callable[[int], None], rid: str = "", desc: str = ""
) -> View:
    """A SeekBar: a tap or a drag on it moves the thumb there and calls `on_seek(progress)` (0..maximum); the
    window manager finds the callback in the style (`on_seek`, a fraction of the track in, see `seek_to`)."""

    def seek(frac: float) -> None:
        on_seek(round(max(0.0, min(1.0, frac)) * maximum))

    return V(
        ctx,
        SEEKBAR,
        bounds,
        rid,
        desc=desc,
        clickable=True,
        focusable=True,
        style={"kind": "seekbar", "progress": progress / maximum if maximum else 0.0, "on_seek": seek},
    )


def checkbox(
    ctx: Ctx, bounds: Bounds, checked: bool, rid: str = "", on_click: Click = None, label: str = "", radio: bool = False
) -> View:
    return V(
        ctx,
        RADIO if radio else CHECKBOX,
        bounds,
        rid,
        text=label,
        checkable=True,
        checked=checked,
        focusable=True,
        clickable=on_click is not None,
        on_click=on_click,
        style={"kind": "radio" if radio else "checkbox", "size": ctx.sp(15), "fg": ctx.theme.text},
    )


def edit(
    ctx: Ctx,
    bounds: Bounds,
    key: str,
    value: str,
    hint: str,
    on_change: Callable[[str], None],
    rid: str = "",
    multiline: bool = False,
    action: Click = None,
    action_kind: str = "done",
    size: float = 16,
    box: str = "outlined",
    lines: int = 1,
    password: bool = False,
    getter: Callable[[], str] | None = None,
) -> View:
    """An EditText bound to (value, on_change). Like TextView, an empty field reports its hint as its text."""
    focused = ctx.focus == key
    th = ctx.theme
    style: dict[str, Any] = {
        "kind": "field",
        "box": box,
        "size": ctx.sp(size),
        "fg": th.text,
        "hint_color": th.text2,
        "empty": not value,
        "lines": lines if multiline else 1,
        "valign": "t" if multiline else "c",
        "pad": ctx.dp(16 if box == "outlined" else 4),
        "accent": th.primary,
        "line": th.divider,
        "field": FieldBinding(getter or (lambda: value), on_change, multiline, action, action_kind),
    }
    if box == "outlined":
        style.update(radius=ctx.dp(4), border=th.primary if focused else th.text2)
    elif box == "filled":
        style.update(radius=(bounds[3] - bounds[1]) // 2, bg=th.surface2)
    return V(
        ctx,
        EDIT,
        bounds,
        rid,
        text=("•" * len(value) if password else value) or hint,
        hint=hint,
        clickable=True,
        focusable=True,
        focused=focused,
        long_clickable=True,
        password=password,
        key=key,
        style=style,
    )


def field_row(
    ctx: Ctx,
    key: str,
    value: str,
    hint: str,
    on_change: Callable[[str], None],
    rid: str = "",
    multiline: bool = False,
    height_dp: float = 56,
    action: Click = None,
    action_kind: str = "next",
    label: str = "",
) -> Row:
    """An outlined text field as a list row (with an optional label above it)."""
    lab_h = ctx.dp(22) if label else 0
    h = ctx.dp(height_dp) + lab_h + ctx.dp(16)

    def build(x: int, y: int, w: int) -> View | list[View]:
        pad = ctx.dp(16)
        out = []
        if label:
            out.append(
                text(
                    ctx,
                    (x + pad, y + ctx.dp(4), x + w - pad, y + ctx.dp(4) + lab_h),
                    label,
                    size=12,
                    color=ctx.theme.text2,
                )
            )
        out.append(
            edit(
                ctx,
                (x + pad, y + ctx.dp(8) + lab_h, x + w - pad, y + ctx.dp(8) + lab_h + ctx.dp(height_dp)),
                key,
                value,
                hint,
                on_change,
                rid,
                multiline,
                action,
                action_kind,
                lines=max(1, int(height_dp // 26)) if multiline else 1,
            )
        )
        return out

    return Row(h, build, (key,))


def divider(ctx: Ctx, x: int, y: int, w: int, inset: int = 0) -> View:
    return V(
        ctx,
        "android.view.View",
        (x + inset, y, x + w, y + max(1, ctx.dp(1) // 2 or 1)),
        style={"bg": ctx.theme.divider},
    )


def toolbar(
    ctx: Ctx,
    title: str,
    nav: tuple[str, str, Click] | None = None,
    actions: list[tuple[str, str, Click, str]] | None = None,
    rid: str = "toolbar",
    bg: Color | None = None,
    title_rid: str = "",
    height_dp: float = 64,
) -> View:
    """A top app bar: optional navigation icon (icon, desc, click), title, action icons (icon, desc, click, rid)."""
    l, t, r, _ = ctx.area
    h = ctx.dp(height_dp)
    bar = V(ctx, "android.view.ViewGroup", (l, t, r, t + h), rid, style={"bg": bg or ctx.theme.bg})
    x = l + ctx.dp(4)
    isz = ctx.dp(48)
    top = t + (h - isz) // 2
    if nav:
        name, desc, cb = nav
        bar.children.append(
            icon_button(
                ctx,
                (x, top, x + isz, top + isz),
                name,
                desc,
                cb,
                rid="android:id/home" if name in ("back", "close") else "navigation",
            )
        )
        x += isz + ctx.dp(8)
    else:
        x = l + ctx.dp(16)
    ax = r - ctx.dp(4)
    act_views: list[View] = []
    for name, desc, cb, arid in reversed(actions or []):
        act_views.insert(0, icon_button(ctx, (ax - isz, top, ax, top + isz), name, desc, cb, rid=arid))
        ax -= isz
    bar.children.append(text(ctx, (x, t, max(x, ax - ctx.dp(4)), t + h), title, title_rid, size=22))
    bar.children.extend(act_views)
    return bar


def tabs(
    ctx: Ctx,
    bounds: Bounds,
    items: list[tuple[str, bool, Click, str]],
    bottom_nav: bool = False,
    icons: list[str] | None = None,
    rid: str = "tabs",
) -> View:
    """A row of tabs (label, selected, click, rid); the selected tab and its children report selected=true."""
    l, t, r, b = bounds
    th = ctx.theme
    bar = V(
        ctx,
        "android.widget.HorizontalScrollView" if not bottom_nav else FRAME,
        bounds,
        rid,
        style={"bg": th.surface if bottom_nav else th.bg},
    )
    inner = V(ctx, LINEAR, bounds)
    bar.children.append(inner)
    n = max(1, len(items))
    w = (r - l) // n
    for i, (label, sel, cb, trid) in enumerate(items):
        x0, x1 = l + i * w, (l + (i + 1) * w if i < n - 1 else r)
        tab = V(
            ctx,
            LINEAR if not bottom_nav else FRAME,
            (x0, t, x1, b),
            trid,
            desc=label,
            clickable=True,
            focusable=True,
            selected=sel,
            on_click=cb,
            style={"kind": "indicator" if not bottom_nav else "", "accent": th.primary},
        )
        color = th.primary if sel else th.text2
        if bottom_nav and icons:
            pill_w = ctx.dp(64)
            cx = (x0 + x1) // 2
            ib = (cx - pill_w // 2, t + ctx.dp(12), cx + pill_w // 2, t + ctx.dp(44))
            tab.children.append(
                icon(
                    ctx,
                    ib,
                    icons[i],
                    th.on_primary_container if sel else th.text2,
                    bg=th.primary_container if sel else None,
                    radius=ctx.dp(16),
                )
            )
            tab.children.append(
                text(
                    ctx,
                    (x0, t + ctx.dp(46), x1, b - ctx.dp(6)),
                    label,
                    size=12,
                    color=th.text if sel else th.text2,
                    align="c",
                    bold=sel,
                )
            )
        else:
            tab.children.append(text(ctx, (x0, t, x1, b), label, size=14, color=color, align="c", bold=sel))
        for c in tab.children:
            c.selected = sel
        inner.children.append(tab)
    return bar


def list_item(
    ctx: Ctx,
    bounds: Bounds,
    title: str,
    summary: str = "",
    on_click: Click = None,
    on_long_click: Click = None,
    leading: tuple[str, Color] | None = None,
    avatar: str = "",
    avatar_color: Color | None = None,
    trailing: Callable[[Bounds], View] | None = None,
    rid: str = "",
    title_rid: str = "android:id/title",
    summary_rid: str = "android:id/summary",
    cls: str = LINEAR,
    summary_lines: int = 1,
    trailing_text: str = "",
    trailing_rid: str = "",
    checked: bool | None = None,
    desc: str = "",
    ellipsize: bool = False,
) -> View:
    """A one- or two-line list row with optional leading icon/avatar and trailing widget or text. `summary_lines`
    lines of summary (see `list_item_height`); with `ellipsize` the title and the summary are cut with an ellipsis
    when longer (a conversation's snippet), as TextView's ellipsize="end" does."""
    l, t, r, b = bounds
    th = ctx.theme
    cut = {"ellipsize": True} if ellipsize else {}
    row = V(
        ctx,
        cls,
        bounds,
        rid,
        clickable=on_click is not None,
        focusable=on_click is not None,
        long_clickable=on_long_click is not None,
        on_click=on_click,
        on_long_click=on_long_click,
        desc=desc,
    )
    if checked is not None:
        row.checkable, row.checked = True, checked
    x = l + ctx.dp(16)
    h = b - t
    if leading or avatar:
        sz = ctx.dp(40)
        top = t + (h - sz) // 2
        if avatar:
            row.children.append(
                V(
                    ctx,
                    IMAGE,
                    (x, top, x + sz, top + sz),
                    "avatar" if rid else "",
                    style={
                        "kind": "avatar",
                        "letter": avatar[:1].upper(),
                        "bg": avatar_color or th.primary,
                        "fg": (255, 255, 255),
                        "radius": sz // 2,
                        "size": ctx.sp(18),
                    },
                )
            )
        else:
            assert leading is not None
            row.children.append(
                icon(
                    ctx,
                    (x + ctx.dp(4), top + ctx.dp(4), x + sz - ctx.dp(4), top + sz - ctx.dp(4)),
                    leading[0],
                    leading[1],
                )
            )
        x += sz + ctx.dp(16)
    right = r - ctx.dp(16)
    trail_view = None
    if trailing is not None:
        tw = ctx.dp(52)
        trail_view = trailing((right - tw, t + (h - ctx.dp(32)) // 2, right, t + (h + ctx.dp(32)) // 2))
        right -= tw + ctx.dp(12)
    elif trailing_text:
        tw = _trailing_width(ctx, r - l, trailing_text)
        trail_view = text(
            ctx, (right - tw, t, right, t + h), trailing_text, trailing_rid, size=12, color=th.text2, align="r"
        )
        right -= tw + ctx.dp(8)
    if summary:
        lh1, lh2 = _title_h(ctx), _summary_h(ctx) * summary_lines
        top = t + (h - lh1 - lh2) // 2
        row.children.append(text(ctx, (x, top, right, top + lh1), title, title_rid, size=16, style=cut))
        row.children.append(
            text(
                ctx,
                (x, top + lh1, right, top + lh1 + lh2),
                summary,
                summary_rid,
                size=14,
                color=th.text2,
                lines=summary_lines,
                valign="t",
                style=cut,
            )
        )
    else:
        row.children.append(text(ctx, (x, t, right, b), title, title_rid, size=16, style=cut))
    if trail_view is not None:
        row.children.append(trail_view)
    return row


def _title_h(ctx: Ctx) -> int:
    return int(ctx.sp(16) * 1.4)


def _summary_h(ctx: Ctx) -> int:
    return int(ctx.sp(14) * 1.4)


def _trailing_width(ctx: Ctx, width: int, s: str) -> int:
    """A trailing text's width (a time, a count): what it needs, within a third of the row."""
    return min(max(ctx.dp(48), int(text_width(s, ctx.sp(12))) + ctx.dp(4)), width // 3)


def list_item_height(
    ctx: Ctx,
    width: int,
    summary: str,
    leading: bool = False,
    trailing: bool = False,
    trailing_text: str = "",
    max_lines: int = 10,
) -> tuple[int, int]:
    """(height, summary lines) of a `list_item` `width` px wide whose summary wraps onto up to `max_lines` lines, as
    a Preference's summary does: at least 72 dp (56 without a summary), 16 dp above and below the text."""
    if not summary:
        return max(ctx.dp(56), _title_h(ctx) + ctx.dp(16)), 1
    avail = width - ctx.dp(32) - (ctx.dp(56) if leading else 0)
    if trailing:
        avail -= ctx.dp(64)
    elif trailing_text:
        avail -= _trailing_width(ctx, width, trailing_text) + ctx.dp(8)
    n = max(1, min(max_lines, len(wrap(summary, ctx.sp(14), avail))))
    return max(ctx.dp(72), _title_h(ctx) + _summary_h(ctx) * n + ctx.dp(32)), n


def fab(
    ctx: Ctx, name: str, desc: str, on_click: Click, rid: str = "fab", label: str = "", bottom_dp: float = 16
) -> View:
    """A floating action button at the bottom right of the content area (extended when it has a label)."""
    l, t, r, b = ctx.area
    sz = ctx.dp(56)
    w = sz if not label else ctx.dp(52) + int(text_width(label, ctx.sp(14), True)) + ctx.dp(20)
    w = min(w, (r - l) - ctx.dp(32))
    x1, y1 = r - ctx.dp(16), b - ctx.dp(bottom_dp)
    bounds = (x1 - w, y1 - sz, x1, y1)
    th = ctx.theme
    v = V(
        ctx,
        BUTTON if label else IMAGE_BUTTON,
        bounds,
        rid,
        text=label,
        desc=desc,
        clickable=True,
        focusable=True,
        on_click=on_click,
        style={
            "bg": th.primary_container,
            "radius": ctx.dp(16),
            "icon": name,
            "icon_color": th.on_primary_container,
            "fg": th.on_primary_container,
            "size": ctx.sp(14),
            "bold": True,
            "shadow": True,
            "inset": ctx.dp(16),
            "icon_left": bool(label),
        },
    )
    return v


def chip(ctx: Ctx, bounds: Bounds, label: str, selected: bool, on_click: Click, rid: str = "") -> View:
    th = ctx.theme
    return V(
        ctx,
        "android.widget.CompoundButton" if False else BUTTON,
        bounds,
        rid,
        text=label,
        clickable=True,
        checkable=True,
        checked=selected,
        focusable=True,
        on_click=on_click,
        style={
            "radius": ctx.dp(8),
            "border": th.divider if not selected else None,
            "bg": th.primary_container if selected else None,
            "align": "c",
            "size": ctx.sp(14),
            "fg": th.on_primary_container if selected else th.text,
        },
    )


def card_bg(ctx: Ctx, bounds: Bounds, rid: str = "", cls: str = FRAME, **kw: Any) -> View:
    return V(
        ctx,
        cls,
        bounds,
        rid,
        style={"bg": ctx.theme.surface2 if not ctx.theme.dark else ctx.theme.surface, "radius": ctx.dp(16)},
        **kw,
    )
