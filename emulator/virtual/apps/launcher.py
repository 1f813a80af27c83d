"""Pixel Launcher: home screen (date glance, icon grid, hotseat, search bar) and the all-apps drawer.

Swipe up on the home screen (or tap the search bar) opens the drawer; its search field filters apps by label
in either language or by package name, ENTER opens the first match. Icons are TextViews whose text and
content-desc are the app label in the device locale, as on a Pixel.
"""

from __future__ import annotations

from typing import Any

from ..records import LAUNCHER_ACTIVITY, LAUNCHER_PACKAGE
from ..ui import widgets as w
from ..ui.layout import Ctx, V, grid_rows, vlist
from ..ui.theme import Color, mix
from ..ui.view import View
from .base import App
from .common import DEVICE_DATE, fmt_date_long

HOME_ORDER = [
    "com.droidharness.notes",
    "com.droidharness.shop",
    "com.droidharness.weather",
    "com.google.android.deskclock",
]
HOTSEAT = ["com.google.android.apps.messaging", "com.google.android.contacts", "com.android.settings"]


class LauncherApp(App):
    package = LAUNCHER_PACKAGE
    labels = {"en": "Pixel Launcher", "zh": "Pixel 启动器"}
    activities = {LAUNCHER_ACTIVITY: "home"}
    launcher = None
    color = (66, 133, 244)
    glyph = "home"

    def window_bg(self, ctx: Ctx) -> Color:
        return ctx.theme.wallpaper

    def on_foreground(self, ctx: Ctx) -> None:
        ctx.ui["drawer"] = False
        ctx.ui.get("fields", {}).pop("apps_search", None)
        ctx.ui.get("scroll", {}).pop("apps_list", None)

    def on_back(self, ctx: Ctx) -> bool:
        if ctx.ui.get("drawer"):
            self._close_drawer(ctx)
            return True
        return False

    # --- helpers ---------------------------------------------------------------------------------
    def launchable(self, ctx: Ctx) -> list[str]:
        return [p.name for p in ctx.model.packages.values() if p.launcher_activity and p.name != self.package]

    def _label(self, ctx: Ctx, pkg: str) -> str:
        p = ctx.model.packages.get(pkg)
        return p.label(ctx.locale) if p else pkg

    def _open_app(self, ctx: Ctx, pkg: str) -> None:
        ctx.start(pkg)

    def _open_drawer(self, ctx: Ctx, search: bool = False) -> None:
        ctx.ui["drawer"] = True
        ctx.ui.setdefault("scroll", {})["apps_list"] = 0
        if search:
            ctx.set_focus("apps_search")

    def _close_drawer(self, ctx: Ctx) -> None:
        ctx.ui["drawer"] = False
        ctx.set_field("apps_search", "")
        ctx.set_focus(None)

    def _icon(self, ctx: Ctx, pkg: str, bounds: tuple[int, int, int, int], fg: Color, label: bool = True) -> View:
        app = ctx.mgr.app_for(pkg)
        st = app.icon_style()
        lbl = self._label(ctx, pkg)
        cw, ch = bounds[2] - bounds[0], bounds[3] - bounds[1]
        isz = min(ctx.dp(56), int(cw * 0.7), int(ch * (0.62 if label else 0.9)))
        top = (ch - isz - (int(ctx.sp(12) * 1.5) if label else 0)) // 2
        return V(
            ctx,
            w.TEXT,
            bounds,
            text=lbl,
            desc=lbl,
            clickable=True,
            focusable=True,
            long_clickable=True,
            on_click=lambda: self._open_app(ctx, pkg),
            style={
                "kind": "appicon",
                "icon_bg": st["bg"],
                "icon": st["icon"],
                "letter": st.get("letter", ""),
                "icon_color": st["icon_color"],
                "icon_size": isz,
                "icon_top": max(0, top),
                "fg": fg,
                "size": ctx.sp(12),
                "no_label": not label,
                "ellipsize": True,  # BubbleTextView: one line, a long label cut with an ellipsis
            },
        )

    # --- screens ---------------------------------------------------------------------------------
    def screen_home(self, ctx: Ctx) -> list[View]:
        if ctx.ui.get("drawer"):
            return self._drawer(ctx)
        l, t, r, b = ctx.area
        fg = (255, 255, 255)
        root = V(ctx, "android.widget.FrameLayout", ctx.area, "workspace", desc=ctx.tr("Home", "主屏幕"))

        def swipe(dx: int, dy: int) -> bool:
            if dy < -ctx.dp(40) and abs(dy) > abs(dx):
                self._open_drawer(ctx)
                return True
            return False

        root.on_scroll = swipe
        glance_h = ctx.dp(64)
        root.children.append(
            w.text(
                ctx,
                (l + ctx.dp(24), t + ctx.dp(8), r - ctx.dp(24), t + glance_h),
                fmt_date_long(DEVICE_DATE, ctx.zh),
                "date",
                size=20,
                color=fg,
                desc=fmt_date_long(DEVICE_DATE, ctx.zh),
            )
        )
        search_h = ctx.dp(48)
        hot_h = ctx.dp(88)
        sy1 = b - ctx.dp(12)
        sy0 = sy1 - search_h
        margin = ctx.dp(16)
        search = V(
            ctx,
            "android.widget.FrameLayout",
            (l + margin, sy0, r - margin, sy1),
            "search_container_hotseat",
            desc=ctx.tr("Search", "搜索"),
            clickable=True,
            focusable=True,
            on_click=lambda: self._open_drawer(ctx, search=True),
            style={
                "bg": mix(ctx.theme.surface, ctx.theme.wallpaper, 0.15),
                "radius": search_h // 2,
                "label": ctx.tr("Search", "搜索"),
                "fg": ctx.theme.text2,
                "size": ctx.sp(16),
                "pad": ctx.dp(4),
                "icon": "search",
                "icon_color": ctx.theme.text2,
                "icon_left": True,
                "inset": ctx.dp(14),
            },
        )
        hot_y0 = sy0 - ctx.dp(8) - hot_h
        hotseat = V(ctx, "android.view.ViewGroup", (l, hot_y0, r, sy0 - ctx.dp(8)), "hotseat")
        hot = [p for p in HOTSEAT if p in ctx.model.packages]
        cols = max(4, min(8, int(ctx.width_dp // 96)))
        cw = (r - l) // max(cols, len(hot) or 1)
        x0 = l + ((r - l) - cw * len(hot)) // 2
        for i, pkg in enumerate(hot):
            hotseat.children.append(
                self._icon(ctx, pkg, (x0 + i * cw, hot_y0, x0 + (i + 1) * cw, hot_y0 + hot_h), fg, label=False)
            )
        # workspace grid
        apps = [p for p in HOME_ORDER if p in ctx.model.packages]
        apps += sorted(p for p in self.launchable(ctx) if p not in HOME_ORDER and p not in HOTSEAT)
        grid_top = t + glance_h + ctx.dp(8)
        grid_bottom = hot_y0 - ctx.dp(8)
        rows_n = max(1, -(-len(apps) // cols))
        # a cell holds its icon and its label whole: what does not fit on the home screen is in the drawer only
        cell_min = ctx.dp(36) + int(ctx.sp(12) * 1.5) + ctx.dp(12)
        cell_h = max(cell_min, min(ctx.dp(100), (grid_bottom - grid_top) // rows_n))
        grid = V(ctx, "android.view.ViewGroup", (l, grid_top, r, grid_bottom), "workspace_grid")
        cw = (r - l) // cols
        for i, pkg in enumerate(apps):
            row, col = divmod(i, cols)
            y = grid_top + row * cell_h
            if y + cell_h > grid_bottom:
                break
            grid.children.append(self._icon(ctx, pkg, (l + col * cw, y, l + (col + 1) * cw, y + cell_h), fg))
        root.children.extend([grid, hotseat, search])
        return [root]

    def _drawer(self, ctx: Ctx) -> list[View]:
        l, t, r, b = ctx.area
        th = ctx.theme
        bg = mix(th.surface, th.wallpaper, 0.08) if not th.dark else th.bg
        panel = V(ctx, "android.widget.FrameLayout", ctx.area, "apps_view", style={"bg": bg, "radius": 0})

        def overscroll(dx: int, dy: int) -> bool:
            if dy > ctx.dp(40):
                self._close_drawer(ctx)
                return True
            return False

        panel.on_scroll = overscroll
        query = ctx.field_value("apps_search")
        q = query.strip().lower()
        apps = self.launchable(ctx)
        if q:

            def match(pkg: str) -> bool:
                p = ctx.model.packages[pkg]
                return any(q in lbl.lower() for lbl in p.labels.values()) or q in pkg.lower()

            apps = [p for p in apps if match(p)]
        apps.sort(key=lambda p: self._label(ctx, p).lower())
        first = apps[0] if apps else None

        def submit() -> None:
            if first:
                self._open_app(ctx, first)

        fh = ctx.dp(48)
        sb = w.edit(
            ctx,
            (l + ctx.dp(16), t + ctx.dp(12), r - ctx.dp(16), t + ctx.dp(12) + fh),
            "apps_search",
            query,
            ctx.tr("Search apps", "搜索应用"),
            lambda v: ctx.set_field("apps_search", v),
            "search_box_input",
            action=submit,
            action_kind="search",
            box="filled",
        )
        top = t + ctx.dp(12) + fh + ctx.dp(8)
        cols = max(4, min(8, int(ctx.width_dp // 90)))
        cell_h = ctx.dp(96)
        fg = th.text
        rows = grid_rows(
            len(apps), cols, cell_h, lambda i, x, y, cw, ch: self._icon(ctx, apps[i], (x, y, x + cw, y + ch), fg)
        )
        if not apps:
            rows = [w.text_row(ctx, ctx.tr("No apps found", "找不到应用"), "no_results", color=th.text2, align="c")]
        lst = vlist(ctx, "apps_list", (l, top, r, b), rows, "apps_list_view", on_overscroll=overscroll)
        panel.children.extend([sb, lst])
        return [panel]

    def icon_style(self, theme: Any = None) -> dict[str, Any]:
        return {"bg": self.color, "icon": "home", "icon_color": (255, 255, 255), "inset_frac": 0.22}
