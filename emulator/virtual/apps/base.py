"""The app framework: an App is data (package, labels, icon, activities -> screen methods) plus screen builders.

Each frame the window manager asks the foreground app to `build(ctx)` the content of its top activity from its
persistent data and `model.app_ui[pkg]` (per process: scroll offsets, drafts, dialogs; `am force-stop` empties it).
The persistent data is, for a twin of a real app, its files (`databases`, preferences, shared storage: appstorage.py,
the one truth `adb pull`, `sqlite3` and `pm clear` see), and for the device's own apps `model.app_data[pkg]`
(seeded by `seed()` on first use; `pm clear` empties it). Views carry
closures that change that state; nothing else is kept between frames, so every frame is a pure function of the
device state.

Adding an app: subclass `App`, set `package`, `labels`, `activities` ({full class name: screen method name}),
`launcher`, `color`, `glyph`, write `screen_<name>(ctx) -> list[View]` methods, and list it in
`apps/builtin.py` (docs/virtual-device.md, "Adding an app"). `StaticApp` builds simple apps entirely from a dict.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..appstorage import AppDatabase
from ..records import Package
from ..ui import widgets as w
from ..ui.fonts import text_width
from ..ui.host import Device
from ..ui.layout import RECYCLER, Ctx, Row, V, vlist
from ..ui.theme import Color
from ..ui.view import View


class App:
    package: str = ""
    labels: dict[str, str] = {}
    activities: dict[str, str] = {}  # full activity class -> screen method suffix
    launcher: str | None = None  # full activity class shown in the launcher
    # implicit intents the app's activities take: (action, "scheme:S" | "mime:TYPE" | "" for any, activity)
    intent_filters: list[tuple[str, str, str]] = []
    color: Color = (26, 115, 232)
    glyph: str = ""  # icon name for render.draw_icon ("" = first letter of the label)
    version_name: str = "1.0"
    version_code: int = 1
    installed: bool = (
        False  # installed by the user (`adb install`, as AndroidWorld installs its apps), not a system app
    )
    permissions: tuple[str, ...] = ()  # what its manifest requests (`pm grant` takes only these)
    receivers: tuple[str, ...] = ()  # broadcast actions the app's manifest receivers take (`am broadcast -a`)
    # the SQLite databases the app keeps under /data/data/PKG/databases/ (appstorage.py): made on its first start
    databases: tuple[AppDatabase, ...] = ()

    def package_record(self) -> Package:
        return Package(
            self.package,
            dict(self.labels),
            list(self.activities),
            self.launcher,
            version_name=self.version_name,
            version_code=self.version_code,
            system=not self.installed,
            first_install_time=1_700_000_000.0,
            intent_filters=list(self.intent_filters),
            permissions=list(self.permissions),
        )

    def label(self, locale: str) -> str:
        return self.labels.get(locale) or self.labels.get("en") or self.package

    # --- state -----------------------------------------------------------------------------------
    def data(self, model: Device) -> dict[str, Any]:
        """The app's persistent data, seeded with its default content on first use (and after pm clear)."""
        d = model.app_data.setdefault(self.package, {})
        if not d.get("_seeded"):
            self.seed(d, model.content_locale)
            d["_seeded"] = True
        return d

    def seed(self, data: dict[str, Any], locale: str) -> None:
        """Fill a fresh data dict with the app's initial content (deterministic)."""

    def on_create(self, ctx: Ctx) -> None:
        """The app's process started (first foreground after boot, force-stop or pm clear)."""

    def on_foreground(self, ctx: Ctx) -> None:
        """Any foreground change that leaves this app on top."""

    def on_intent(self, ctx: Ctx, action: str, extras: dict[str, Any]) -> None:
        """The top activity was started (or brought back) by an implicit intent (`am start -a ACTION ...`): its
        action, and the extras (`android.intent.data` / `.type`, the intent's own extras). Called once per intent,
        after on_foreground."""

    def on_broadcast(self, model: Device, action: str, extras: dict[str, Any]) -> tuple[int, str | None] | None:
        """A broadcast of one of `receivers` (its extras): the result code and data the receiver set, or None when
        it set none (`Broadcast completed: result=0`)."""
        return None

    def on_back(self, ctx: Ctx) -> bool:
        """BACK after the keyboard and dialogs: True when the app handled it (else the activity finishes)."""
        return False

    # --- building --------------------------------------------------------------------------------
    def build(self, ctx: Ctx) -> list[View]:
        name = self.activities.get(ctx.activity) or next(iter(self.activities.values()), "")
        fn: Callable[[Ctx], list[View]] | None = getattr(self, f"screen_{name}", None)
        if fn is None:
            return self.screen_placeholder(ctx)
        return fn(ctx)

    def window_bg(self, ctx: Ctx) -> Color:
        return ctx.theme.bg

    def dialog(self, ctx: Ctx) -> View | None:
        spec = ctx.ui.get("dialog")
        if not spec:
            return None
        fn = getattr(self, f"dialog_{spec.get('id', '')}", None)
        if fn is None:
            return None
        return fn(ctx, spec)

    def screen_placeholder(self, ctx: Ctx) -> list[View]:
        tb = w.toolbar(ctx, self.label(ctx.locale))
        l, t, r, b = ctx.area
        y = tb.bounds[3]
        return [
            tb,
            w.text(
                ctx,
                (l + ctx.dp(16), y, r - ctx.dp(16), b),
                ctx.tr("Hello from ", "来自 ") + self.package,
                "message",
                align="c",
                color=ctx.theme.text2,
                lines=4,  # a long package name wraps
            ),
        ]

    # --- helpers ---------------------------------------------------------------------------------
    def icon_style(self, theme: Any = None) -> dict[str, Any]:
        return {
            "bg": self.color,
            "icon": self.glyph or "letter",
            "letter": self.labels.get("en", "?")[:1],
            "icon_color": (255, 255, 255),
            "inset_frac": 0.22,
        }


def page(
    ctx: Ctx,
    header: list[View],
    rows: list[Row],
    key: str = "main",
    rid: str = "list",
    footer: list[View] | None = None,
    footer_h: int = 0,
    overlays: list[View] | None = None,
    cls: str | None = None,
    pad_bottom: int = 0,
    on_overscroll: Callable[[int, int], bool] | None = None,
) -> list[View]:
    """A screen: fixed header views on top, a scrolling body of rows, an optional fixed footer, overlays."""
    l, t, r, b = ctx.area
    top = max([v.bounds[3] for v in header] + [t])
    body = vlist(
        ctx,
        key,
        (l, top, r, b - footer_h),
        rows,
        rid,
        pad_bottom=pad_bottom,
        on_overscroll=on_overscroll,
        cls=cls or RECYCLER,
    )
    return header + [body] + (footer or []) + (overlays or [])


def bottom_bar(ctx: Ctx, h: int, rid: str = "bottom_bar") -> View:
    l, t, r, b = ctx.area
    return V(ctx, w.LINEAR, (l, b - h, r, b), rid, style={"bg": ctx.theme.surface})


class GenericApp(App):
    """Stands in for an installed package the virtual device has no built-in UI for (adb install)."""

    def __init__(self, package: str, labels: dict[str, str]) -> None:
        self.package = package
        self.labels = labels
        self.activities = {}
        self.color = (96, 125, 139)


class StaticApp(App):
    """An app described entirely as data:

    {"package": ..., "labels": {"en", "zh"}, "color": (r,g,b), "glyph": "...",
     "screens": {"main": {"title": {"en","zh"}, "items": [
         {"title": {"en","zh"}, "summary": {...}, "open": "other_screen"},
         {"title": {...}, "switch": "data_key"}, {"text": {...}}]}}}
    The first screen is the launcher activity (`<package>.MainActivity`), the others are `<package>.<Name>Activity`.
    """

    def __init__(self, spec: dict[str, Any]) -> None:
        self.spec = spec
        self.package = spec["package"]
        self.labels = spec["labels"]
        self.color = tuple(spec.get("color", (96, 125, 139)))
        self.glyph = spec.get("glyph", "")
        names = list(spec["screens"])
        self.activities = {self._activity(n, i == 0): "static" for i, n in enumerate(names)}
        self.launcher = self._activity(names[0], True)
        self._screen_by_activity = {self._activity(n, i == 0): n for i, n in enumerate(names)}

    def _activity(self, name: str, first: bool) -> str:
        return f"{self.package}.MainActivity" if first else f"{self.package}.{name.title().replace('_', '')}Activity"

    def screen_static(self, ctx: Ctx) -> list[View]:
        name = self._screen_by_activity.get(ctx.activity, next(iter(self.spec["screens"])))
        sc = self.spec["screens"][name]
        tr = lambda d: (d or {}).get(ctx.locale) or (d or {}).get("en", "")  # noqa: E731
        first = name == next(iter(self.spec["screens"]))
        tb = w.toolbar(
            ctx,
            tr(sc.get("title")) or self.label(ctx.locale),
            None if first else ("back", ctx.tr("Navigate up", "向上导航"), ctx.finish),
        )
        data = ctx.data
        rows: list[Row] = []
        for item in sc.get("items", []):
            if "text" in item:
                rows.append(w.text_row(ctx, tr(item["text"]), lines=6, color=ctx.theme.text2))
                continue
            title, summary = tr(item.get("title")), tr(item.get("summary"))
            h, n = w.list_item_height(ctx, ctx.area[2] - ctx.area[0], summary, trailing="switch" in item)

            def build(
                x: int,
                y: int,
                wd: int,
                item: dict[str, Any] = item,
                title: str = title,
                summary: str = summary,
                h: int = h,
                n: int = n,
            ) -> View:
                if "switch" in item:
                    k = item["switch"]
                    on = bool(data.get(k, item.get("default", False)))

                    def toggle(k: str = k, on: bool = on) -> None:
                        data[k] = not on

                    return w.list_item(
                        ctx,
                        (x, y, x + wd, y + h),
                        title,
                        summary,
                        on_click=toggle,
                        trailing=lambda b: w.switch(ctx, b, on),
                        summary_lines=n,
                        ellipsize=True,
                    )
                target = item.get("open")
                cb = (lambda t=target: ctx.push(self._activity(t, False))) if target else None
                return w.list_item(
                    ctx, (x, y, x + wd, y + h), title, summary, on_click=cb, summary_lines=n, ellipsize=True
                )

            rows.append(Row(h, build))
        return page(ctx, [tb], rows, key=f"static_{name}", rid="recycler_view")


def editor_bar(ctx: Ctx, rid: str, title: str, on_save: w.Click, save_rid: str, can_save: bool = True) -> View:
    """The top bar of an editor screen (an alarm, a contact), across the top of `ctx.area`: close (cancel) at the
    start, the title, and Save at the end (disabled while there is nothing to save), as wide as its label."""
    l, t, r, _ = ctx.area
    bar_h = ctx.dp(64)
    bar = V(ctx, w.VIEWGROUP, (l, t, r, t + bar_h), rid, style={"bg": ctx.theme.bg})
    isz = ctx.dp(48)
    y0 = t + (bar_h - isz) // 2
    close = (l + ctx.dp(4), y0, l + ctx.dp(4) + isz, y0 + isz)
    bar.children.append(w.icon_button(ctx, close, "close", ctx.tr("Cancel", "取消"), ctx.finish, "android:id/home"))
    label = ctx.tr("Save", "保存")
    bw = max(ctx.dp(88), int(text_width(label, ctx.sp(14), True)) + ctx.dp(32))
    title_box = (l + ctx.dp(64), t, r - bw - ctx.dp(24), t + bar_h)
    bar.children.append(w.text(ctx, title_box, title, "title", size=20, style={"ellipsize": True}))
    save = (r - bw - ctx.dp(16), y0 + ctx.dp(4), r - ctx.dp(16), y0 + isz - ctx.dp(4))
    bar.children.append(w.button(ctx, save, label, on_save, save_rid, enabled=can_save))
    return bar
