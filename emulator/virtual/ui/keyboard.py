"""The soft keyboard window (Gboard look-alike, package com.google.android.inputmethod.latin).

Keys are views with a content-desc (as Gboard exposes them) and an empty text (so they never match an app's
text). The suggestion strip offers the clipboard as a paste chip. The action key shows the focused field's
IME action (search, send, done, next, or a newline in multi-line fields).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from .fonts import text_width
from .theme import Theme
from .view import View, int_bounds
from .windowstate import Layer, WindowState

if TYPE_CHECKING:  # pragma: no cover
    from .host import Device

IME_PACKAGE = "com.google.android.inputmethod.latin"

LETTER_ROWS = ["qwertyuiop", "asdfghjkl", "zxcvbnm"]
SYMBOL_ROWS = ["1234567890", "@#$_&-+()/", "*\"':;!?"]


def keyboard_height(model: Device, screen_h: int) -> int:
    s = model.scale
    row = _row_h(model, screen_h)
    return int(40 * s) + 4 * row + int(8 * s)


def _row_h(model: Device, screen_h: int) -> int:
    s = model.scale
    row = int(54 * s)
    strip = int(40 * s)
    budget = int(screen_h * 0.42) - strip - int(8 * s)
    return max(int(24 * s), min(row, budget // 4))


def _v(cls: str, bounds: tuple[float, float, float, float], rid: str = "", **kw: Any) -> View:
    style = kw.pop("style", {})
    v = View(
        cls=cls,
        bounds=int_bounds(bounds),
        package=IME_PACKAGE,
        resource_id=f"{IME_PACKAGE}:id/{rid}" if rid else "",
        **kw,
    )
    v.style.update(style)
    return v


def build_keyboard(
    model: Device,
    theme: Theme,
    width: int,
    bottom: int,
    screen_h: int,
    state: WindowState,
    action_kind: str,
    multiline: bool,
    commit: Callable[[str], None],
    press: Callable[[int], None],
    toggle: Callable[[Layer], None],
) -> View:
    s = model.scale
    zh = model.locale == "zh"
    h = keyboard_height(model, screen_h)
    top = bottom - h
    root = _v("android.widget.FrameLayout", (0, top, width, bottom), "keyboard_holder", style={"bg": theme.keyboard_bg})
    strip_h = int(40 * s)
    strip = _v("android.widget.LinearLayout", (0, top, width, top + strip_h), "suggestion_strip")
    root.children.append(strip)
    clip = model.clipboard
    if clip:
        label = clip.replace("\n", " ")
        cw = min(width - int(32 * s), int(220 * s))
        chip = _v(
            "android.widget.FrameLayout",
            (int(12 * s), top + int(4 * s), int(12 * s) + cw, top + strip_h - int(4 * s)),
            "clipboard_chip",
            desc=("粘贴：" if zh else "Paste: ") + label,
            clickable=True,
            focusable=True,
            style={
                "bg": theme.key_bg,
                "radius": int(14 * s),
                "label": label,
                "fg": theme.text,
                "size": int(13 * s),
                "align": "c",
                "pad": int(8 * s),
                "ellipsize": True,  # the chip shows the clip's start
            },
        )
        chip.on_click = lambda: commit(clip)
        strip.children.append(chip)
    row_h = _row_h(model, screen_h)
    pad = int(3 * s)
    rows = SYMBOL_ROWS if state.symbols else LETTER_ROWS
    shift = state.shift
    key_w = width / 10.0
    y = top + strip_h + int(4 * s)
    label_size = int(min(row_h * 0.45, 22 * s))

    def key(
        x0: float,
        x1: float,
        desc: str,
        label: str = "",
        icon: str = "",
        fn: bool = False,
        on_click: Callable[[], None] | None = None,
        rid: str = "key_pos",
    ) -> View:
        st: dict[str, Any] = {
            "bg": theme.key_fn_bg if fn else theme.key_bg,
            "radius": int(6 * s),
            "fg": theme.text,
            "size": label_size,
            "align": "c",
        }
        if label:
            st["label"] = label
            if len(label) > 1:  # a word on a key ("?123", the space bar's language) is smaller than a letter
                avail = x1 - x0 - 2 * pad - int(8 * s)
                size = min(label_size, int(16 * s))
                while size > 6 and text_width(label, size) > avail:
                    size -= 1
                st["size"] = size
        if icon:
            st.update(icon=icon, icon_color=theme.text, inset=max(2, int(row_h * 0.28)))
        k = _v(
            "android.widget.FrameLayout",
            (x0 + pad, y + pad, x1 - pad, y + row_h - pad),
            rid,
            desc=desc,
            clickable=True,
            focusable=False,
            style=st,
        )
        k.on_click = on_click
        root.children.append(k)
        return k

    for ri, chars in enumerate(rows):
        n = len(chars)
        if ri == 2:
            fn_w = (width - n * key_w) / 2
            if state.symbols:
                key(0, fn_w, "=\\<", "=\\<", fn=True, on_click=lambda: None)
            else:
                key(0, fn_w, "Shift", icon="shift", fn=not shift, on_click=lambda: toggle("shift"), rid="key_shift")
            x = fn_w
        else:
            x = (width - n * key_w) / 2
        for ch in chars:
            c = ch.upper() if shift and not state.symbols else ch
            key(x, x + key_w, c, c, on_click=partial(commit, c))
            x += key_w
        if ri == 2:
            key(
                x,
                width,
                "删除" if zh else "Delete",
                icon="backspace",
                fn=True,
                on_click=lambda: press(67),
                rid="key_delete",
            )
        y += row_h
    # bottom row: ?123, comma, space, period, action
    unit = width / 10.0
    x = 0.0
    key(
        x,
        x + 1.5 * unit,
        "ABC" if state.symbols else ("符号" if zh else "Symbols"),
        "ABC" if state.symbols else "?123",
        fn=True,
        on_click=lambda: toggle("symbols"),
        rid="key_symbols",
    )
    x += 1.5 * unit
    key(x, x + unit, ",", ",", on_click=lambda: commit(","))
    x += unit
    key(x, x + 5 * unit, "空格" if zh else "Space", "English", on_click=lambda: commit(" "), rid="key_space")
    x += 5 * unit
    key(x, x + unit, ".", ".", on_click=lambda: commit("."))
    x += unit
    if multiline and action_kind not in ("send", "search"):
        desc, icon = ("换行" if zh else "Enter"), "enter"
    else:
        desc, icon = {
            "search": ("搜索" if zh else "Search", "search"),
            "send": ("发送" if zh else "Send", "send"),
            "next": ("下一个" if zh else "Next", "forward"),
            "go": ("前往" if zh else "Go", "forward"),
        }.get(action_kind, ("完成" if zh else "Done", "check"))
    k = key(x, width, desc, icon=icon, on_click=lambda: press(66), rid="key_action")
    k.style.update(bg=theme.primary, icon_color=theme.on_primary)
    return root
