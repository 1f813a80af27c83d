"""The Overview (recents) screen: one card per task, most recent in the centre, older ones to its left.

Tap a card to bring its task to the front; swipe a card up to dismiss it (the task goes and its process is
stopped, as on Android 14); swipe sideways to browse; "Clear all" dismisses every task.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .textlayout import LINE_SPACING, pill_size, sp_px
from .theme import Theme, mix
from .view import View, int_bounds
from .windowstate import WindowState

if TYPE_CHECKING:  # pragma: no cover
    from .host import Device

LAUNCHER = "com.google.android.apps.nexuslauncher"


def _v(cls: str, bounds: tuple[float, float, float, float], rid: str = "", **kw: Any) -> View:
    style = kw.pop("style", {})
    v = View(
        cls=cls,
        bounds=int_bounds(bounds),
        package=LAUNCHER,
        resource_id=f"{LAUNCHER}:id/{rid}" if rid else "",
        **kw,
    )
    v.style.update(style)
    return v


def build_recents(
    model: Device,
    theme: Theme,
    size: tuple[int, int],
    area: tuple[int, int, int, int],
    state: WindowState,
    icon_style: Callable[[str], dict[str, Any]],
    open_task: Callable[[str], None],
    dismiss: Callable[[str], None],
    clear_all: Callable[[], None],
    go_home: Callable[[], None],
) -> View:
    W, H = size
    s = model.scale
    zh = model.locale == "zh"
    root = _v(
        "android.widget.FrameLayout",
        (0, 0, W, H),
        "overview_panel",
        style={"bg": mix(theme.wallpaper, (0, 0, 0), 0.45)},
    )
    pkgs = model.recent_packages()
    l, t, r, b = area
    if not pkgs:
        msg = _v(
            "android.widget.TextView",
            (l, t, r, b),
            "recents_empty",
            text="无近期项目" if zh else "No recent items",
            clickable=True,
            style={"fg": (255, 255, 255), "size": sp_px(16, s, model.settings), "align": "c"},
        )
        msg.on_click = go_home
        root.children.append(msg)
        return root
    title_size = sp_px(16, s, model.settings)
    avail_h = b - t
    card_h = int(avail_h * 0.68)
    card_w = min(int((r - l) * 0.62), int(card_h * W / max(1, H)) if W < H else int((r - l) * 0.5))
    gap = int(16 * s)
    cx = (l + r) // 2
    off = state.recents_scroll
    max_off = (len(pkgs) - 1) * (card_w + gap)
    off = max(0, min(off, max_off))
    state.recents_scroll = off
    top = t + (avail_h - card_h) // 2
    header = int(40 * s)
    lst = _v(
        "androidx.recyclerview.widget.RecyclerView",
        (l, t, r, b),
        "overview_list",
        scrollable=len(pkgs) > 1,
        style={"clip": True, "scroll": "h"},
    )

    def scroll(dx: int, dy: int) -> bool:
        if abs(dx) <= abs(dy):
            return False
        state.recents_scroll = max(0, min(max_off, state.recents_scroll + int(dx)))
        return True

    lst.on_scroll = scroll
    root.children.append(lst)
    for i, pkg in enumerate(pkgs):
        x0 = cx - card_w // 2 - i * (card_w + gap) + off
        if x0 + card_w <= l or x0 >= r:
            continue
        p = model.packages.get(pkg)
        label = p.label(model.locale) if p else pkg
        task = _v("android.widget.FrameLayout", (x0, top - header, x0 + card_w, top + card_h), "task_view", desc=label)
        ist = icon_style(pkg)
        isz = int(32 * s)
        ic = _v(
            "android.widget.ImageView",
            (
                x0 + card_w // 2 - isz // 2,
                top - header + (header - isz) // 2,
                x0 + card_w // 2 + isz // 2,
                top - header + (header - isz) // 2 + isz,
            ),
            "icon",
            desc=label,
            style=dict(ist, radius=isz // 2),
        )
        snap = _v(
            "android.widget.FrameLayout",
            (x0, top, x0 + card_w, top + card_h),
            "snapshot",
            desc=label,
            clickable=True,
            focusable=True,
            style={"bg": theme.surface, "radius": int(20 * s)},
        )
        big = int(64 * s)
        snap.children.append(
            _v(
                "android.widget.ImageView",
                (x0 + card_w // 2 - big // 2, top + card_h // 2 - big, x0 + card_w // 2 + big // 2, top + card_h // 2),
                style=dict(ist, radius=big // 2),
            )
        )
        snap.children.append(
            _v(
                "android.widget.TextView",
                (
                    x0 + int(8 * s),
                    top + card_h // 2 + int(8 * s),
                    x0 + card_w - int(8 * s),
                    top + card_h // 2 + int(8 * s) + max(int(32 * s), int(title_size * LINE_SPACING)),
                ),
                "title",
                text=label,
                style={"fg": theme.text, "size": title_size, "align": "c", "ellipsize": True},
            )
        )
        snap.on_click = lambda pkg=pkg: open_task(pkg)

        def swipe_card(dx: int, dy: int, pkg: str = pkg) -> bool:
            if dy < -abs(dx) and -dy > 60 * s:
                dismiss(pkg)
                return True
            return False

        snap.on_scroll = swipe_card
        task.children.extend([ic, snap])
        lst.children.append(task)
    label = "全部清除" if zh else "Clear all"
    clear_size = sp_px(14, s, model.settings)
    bw, bh = pill_size(label, clear_size, s)
    clear = _v(
        "android.widget.Button",
        (cx - bw // 2, b - bh - int(12 * s), cx + bw // 2, b - int(12 * s)),
        "clear_all",
        text=label,
        clickable=True,
        focusable=True,
        style={
            "bg": theme.surface,
            "fg": theme.text,
            "radius": bh // 2,
            "size": clear_size,
            "align": "c",
            "bold": True,
        },
    )
    clear.on_click = clear_all
    root.children.append(clear)
    return root
