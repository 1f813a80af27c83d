"""Simple Calendar Pro (`com.simplemobiletools.calendar.pro` 6.22.2, the build AndroidWorld installs): the main
screen (`MainActivity`, its views in `calendar_views`) and the event editor (`EventActivity`, `calendar_editor`,
with the platform's pickers in `calendar_pickers`), over its Room database `events.db` (`calendar_data`), the one
truth every screen reads and every change writes. Resource ids, content descriptions and strings are the app's (and
its Simple-Commons').

- The top bar is Simple-Commons' MySearchMenu (`top_toolbar_search`: two characters or more list the events whose
  title, location or description holds them) with Go to today (while another period is shown) and Change view
  (Daily view, Monthly view, Simple event list; the view chosen is kept).
- The monthly view is the default; a day of it opens that day's daily view over it (Back returns to the month).
- `calendar_fab` ("New Event") opens its menu (`fab_event_label` "Event"); Event, or the + again, opens a new event
  on the day shown at the next full hour.
- In the daily view a long press selects events (the action mode: `cab_delete`, then the app's delete dialog).
Left out: the weekly, monthly-and-daily and yearly views, Go to date and the overflow menu's other items, the
settings, tasks, event types, CalDAV, widgets, reminders' notifications, the swipe between periods.
"""

from __future__ import annotations

import datetime as dt
from functools import partial
from typing import Any

from ..ui import dialogs
from ..ui import widgets as w
from ..ui.layout import Ctx, Row, V, vlist
from ..ui.view import View
from .base import App
from .calendar_data import (
    DB,
    EVENT,
    MAIN,
    PKG,
    VERSION_CODE,
    VERSION_NAME,
    Occurrence,
    today,
    tr,
)
from .calendar_editor import delete_dialog, editor_back, editor_created, editor_dialog, open_event, open_new, radio_row
from .calendar_editor import screen as editor_screen
from .calendar_views import ORANGE, RELATIVE, day_view, event_list_rows, list_view, month_view
from .simplecommons import Action, search_bar

# the manifest's <uses-permission>s (AndroidWorld's set-up grants READ_CALENDAR, WRITE_CALENDAR, POST_NOTIFICATIONS)
PERMISSIONS = (
    "RECEIVE_BOOT_COMPLETED",
    "READ_CONTACTS",
    "VIBRATE",
    "READ_CALENDAR",
    "WRITE_CALENDAR",
    "WAKE_LOCK",
    "SCHEDULE_EXACT_ALARM",
    "USE_EXACT_ALARM",
    "POST_NOTIFICATIONS",
)
VIEWS = (("day", "daily_view"), ("month", "monthly_view"), ("list", "simple_event_list"))


def _iso(d: dt.date) -> str:
    return d.isoformat()


def _date(ctx: Ctx, key: str) -> dt.date:
    v = ctx.ui.get(key)
    return dt.date.fromisoformat(v) if isinstance(v, str) else today(ctx.model)


def _view(ctx: Ctx) -> str:
    return str(ctx.data.setdefault("prefs", {}).get("view", "month"))


def _searching(ctx: Ctx) -> bool:
    return ctx.focus == "cal_search" or bool(ctx.field_value("cal_search"))


class SimpleCalendarApp(App):
    package = PKG
    labels = {"en": "Calendar", "zh": "日历"}
    activities = {MAIN: "main", EVENT: "event"}
    launcher = MAIN
    color = ORANGE
    version_name = VERSION_NAME
    version_code = VERSION_CODE
    installed = True  # as AndroidWorld installs it
    permissions = tuple(f"android.permission.{p}" for p in PERMISSIONS)
    databases = (DB,)

    # --- lifecycle -----------------------------------------------------------------------------------------------
    def on_foreground(self, ctx: Ctx) -> None:
        ex = ctx.extras
        if ex.get("_created"):
            return
        ex["_created"] = True
        if ctx.activity == MAIN:
            for key in ("month", "day", "top_day", "selected", "fab_open"):
                ctx.ui.pop(key, None)
            ctx.set_field("cal_search", "")
        elif ctx.activity == EVENT:
            editor_created(ctx)

    def on_back(self, ctx: Ctx) -> bool:
        if ctx.activity == EVENT:
            return editor_back(ctx)
        if _searching(ctx):
            self._close_search(ctx)
            return True
        for key in ("selected", "fab_open", "top_day"):
            if ctx.ui.get(key):
                ctx.ui.pop(key)
                return True
        return False

    def _close_search(self, ctx: Ctx) -> None:
        ctx.set_field("cal_search", "")
        ctx.set_focus(None)

    # --- screens ---------------------------------------------------------------------------------------------------
    def screen_event(self, ctx: Ctx) -> list[View]:
        return editor_screen(ctx)

    def _shown_day(self, ctx: Ctx) -> dt.date:
        """The day a new event starts on: the daily view's, else today (the month's first day in another month)."""
        if ctx.ui.get("top_day") or _view(ctx) == "day":
            return _date(ctx, "top_day" if ctx.ui.get("top_day") else "day")
        if _view(ctx) == "month":
            month = _date(ctx, "month")
            now_day = today(ctx.model)
            return now_day if (month.year, month.month) == (now_day.year, now_day.month) else month.replace(day=1)
        return today(ctx.model)

    def _open(self, ctx: Ctx, o: Occurrence) -> None:
        open_event(ctx, o.id, o.start)

    def screen_main(self, ctx: Ctx) -> list[View]:
        l, t, r, b = ctx.area
        selected = ctx.ui.get("selected") or []
        bar = self._action_mode(ctx, selected) if selected else self._search_bar(ctx)
        top = bar.bounds[3]
        body_box = (l, top, r, b)
        if _searching(ctx):
            return [bar, *self._search_results(ctx, body_box)]
        fab = self._fab(ctx)
        mode = _view(ctx)
        if ctx.ui.get("top_day") or mode == "day":
            key = "top_day" if ctx.ui.get("top_day") else "day"
            day = _date(ctx, key)

            def step(n: int) -> None:
                ctx.ui[key] = _iso(day + dt.timedelta(days=n))
                ctx.ui.pop("selected", None)

            body = day_view(
                ctx, body_box, day, step, lambda o: self._open(ctx, o), selected, lambda o: self._toggle(ctx, o)
            )
        elif mode == "list":
            body = list_view(ctx, body_box, lambda o: self._open(ctx, o), lambda: open_new(ctx, today(ctx.model)))
        else:
            month = _date(ctx, "month").replace(day=1)

            def shift(n: int) -> None:
                m = month.year * 12 + month.month - 1 + n
                ctx.ui["month"] = _iso(dt.date(m // 12, m % 12 + 1, 1))

            def open_day(day: dt.date) -> None:
                ctx.ui["top_day"] = _iso(day)

            body = month_view(ctx, body_box, month, shift, open_day, fab[-1].bounds if fab else None)
        return [bar, *body, *fab]

    def _toggle(self, ctx: Ctx, o: Occurrence) -> None:
        sel: list[list[int]] = list(ctx.ui.get("selected") or [])
        key = [o.id, o.start]
        sel = [s for s in sel if s != key] if key in sel else [*sel, key]
        ctx.ui["selected"] = sel

    def _fab(self, ctx: Ctx) -> list[View]:
        """calendar_fab: the first click opens its menu (Event / Task) over a veil (the window's background colour,
        as the app's fab_extended_overlay is), the second opens a new event."""
        if ctx.keyboard:
            return []
        out: list[View] = []
        is_open = bool(ctx.ui.get("fab_open"))

        def new_event() -> None:
            ctx.ui.pop("fab_open", None)
            open_new(ctx, self._shown_day(ctx))

        if is_open:
            l, t, r, b = ctx.area
            veil = V(
                ctx,
                RELATIVE,
                (l, t, r, b),
                "fab_extended_overlay",
                clickable=True,
                on_click=lambda: ctx.ui.pop("fab_open", None),
                style={"bg": ctx.theme.bg, "dim": True},
            )
            out.append(veil)
            y = b - ctx.dp(88) - ctx.dp(56)
            veil.children.append(  # drawn over the veil, which hides what is under it
                w.text(
                    ctx,
                    (r - ctx.dp(200), y, r - ctx.dp(80), y + ctx.dp(40)),
                    tr(ctx, "event"),
                    "fab_event_label",
                    size=16,
                    align="r",
                    clickable=True,
                    on_click=new_event,
                )
            )
        fab = w.fab(
            ctx,
            "add",
            tr(ctx, "new_event"),
            new_event if is_open else lambda: ctx.ui.update(fab_open=True),
            "calendar_fab",
        )
        return [*out, fab]

    # --- the top bar -----------------------------------------------------------------------------------------------
    def _search_bar(self, ctx: Ctx) -> View:
        searching = _searching(ctx)
        back = searching or bool(ctx.ui.get("top_day"))
        click = (lambda: self.on_back(ctx)) if back else (lambda: ctx.set_focus("cal_search"))
        actions: list[Action] = []
        if not searching:
            if not self._showing_today(ctx):
                actions.append(("alarm", tr(ctx, "go_to_today"), lambda: self._go_to_today(ctx), "go_to_today"))
            actions.append(("apps", tr(ctx, "change_view"), lambda: ctx.show_dialog({"id": "view"}), "change_view"))
        icon = ("back" if back else "search", tr(ctx, "back" if back else "search"), click)
        return search_bar(ctx, "cal_search", tr(ctx, "search"), icon, lambda v: ctx.set_field("cal_search", v), actions)

    def _showing_today(self, ctx: Ctx) -> bool:
        now_day = today(ctx.model)
        if ctx.ui.get("top_day"):
            return False
        mode = _view(ctx)
        if mode == "month":
            m = _date(ctx, "month")
            return (m.year, m.month) == (now_day.year, now_day.month)
        if mode == "day":
            return _date(ctx, "day") == now_day
        return True

    def _go_to_today(self, ctx: Ctx) -> None:
        for key in ("month", "day", "top_day", "selected"):
            ctx.ui.pop(key, None)

    def _action_mode(self, ctx: Ctx, selected: list[Any]) -> View:
        """The list's action mode: Done, "n / total", Delete."""
        l, t, r, _ = ctx.area
        h = ctx.dp(64)
        total = 0
        if ctx.ui.get("top_day") or _view(ctx) == "day":
            from .calendar_data import events_on

            total = len(events_on(ctx, _date(ctx, "top_day" if ctx.ui.get("top_day") else "day")))
        bar = V(
            ctx,
            "android.view.ViewGroup",
            (l, t, r, t + h),
            "action_mode_bar",
            style={"bg": ctx.theme.primary_container},
        )
        isz = ctx.dp(48)
        y0 = t + (h - isz) // 2
        bar.children.append(
            w.icon_button(
                ctx,
                (l + ctx.dp(4), y0, l + ctx.dp(4) + isz, y0 + isz),
                "close",
                ctx.tr("Done", "完成"),
                lambda: ctx.ui.pop("selected", None),
                "action_mode_close_button",
            )
        )
        bar.children.append(
            w.text(
                ctx, (l + ctx.dp(64), t, r - 2 * isz, t + h), f"{len(selected)} / {total}", "select_all_title", size=18
            )
        )
        spec = {"id": "cab_delete", "ids": sorted({int(s[0]) for s in selected}), "occurrences": selected}
        bar.children.append(
            w.icon_button(
                ctx,
                (r - ctx.dp(4) - isz, y0, r - ctx.dp(4), y0 + isz),
                "delete",
                tr(ctx, "delete"),
                lambda: ctx.show_dialog(self._with_repeating(ctx, spec)),
                "cab_delete",
            )
        )
        return bar

    def _with_repeating(self, ctx: Ctx, spec: dict[str, Any]) -> dict[str, Any]:
        from .calendar_data import event

        repeating = any(int((event(ctx, i) or {}).get("repeat_interval", 0)) for i in spec["ids"])
        return {**spec, "repeating": repeating}

    def _search_results(self, ctx: Ctx, box: tuple[int, int, int, int]) -> list[View]:
        query = ctx.field_value("cal_search")
        l, t, r, b = box
        holder = V(ctx, RELATIVE, box, "search_holder")
        if len(query) < 2:
            two_lines = max(ctx.dp(48), ctx.line_h(14, 2) + ctx.dp(4))  # its two lines' height at any font scale
            holder.children.append(
                w.text(
                    ctx,
                    (l + ctx.dp(16), t + ctx.dp(24), r - ctx.dp(16), t + ctx.dp(24) + two_lines),
                    tr(ctx, "type_2_characters"),
                    "search_placeholder_2",
                    align="c",
                    lines=2,
                )
            )
            return [holder]
        like = f"%{query}%"
        rows = DB.rows(
            ctx.model.fs,
            "SELECT * FROM events WHERE type = 0 AND (title LIKE ? OR location LIKE ? OR "
            "description LIKE ?) ORDER BY start_ts, id",
            (like, like, like),
        )
        found = [Occurrence(rw, int(rw["start_ts"]), int(rw["end_ts"])) for rw in rows]
        if not found:
            holder.children.append(
                w.text(
                    ctx,
                    (l + ctx.dp(16), t + ctx.dp(24), r - ctx.dp(16), t + ctx.dp(56)),
                    tr(ctx, "no_items_found"),
                    "search_placeholder",
                    align="c",
                )
            )
            return [holder]
        items: list[Row] = event_list_rows(ctx, found, lambda o: self._open(ctx, o))
        holder.children.append(vlist(ctx, "search", box, items, "search_results_list"))
        return [holder]

    # --- dialogs ---------------------------------------------------------------------------------------------------
    def dialog(self, ctx: Ctx) -> View | None:
        spec = ctx.ui.get("dialog")
        if not spec:
            return None
        if ctx.activity == EVENT:
            return editor_dialog(ctx, spec)
        if spec.get("id") == "view":
            return self._view_dialog(ctx)
        if spec.get("id") == "cab_delete":
            return delete_dialog(ctx, spec, lambda: ctx.ui.pop("selected", None))
        return None

    def _view_dialog(self, ctx: Ctx) -> View:
        current = _view(ctx)

        def choose(mode: str) -> None:
            ctx.dismiss_dialog()
            ctx.data.setdefault("prefs", {})["view"] = mode
            for key in ("top_day", "selected", "day", "month"):
                ctx.ui.pop(key, None)

        rows = [radio_row(ctx, mode == current, "", partial(choose, mode), tr(ctx, key)) for mode, key in VIEWS]
        dlg = dialogs.dialog(ctx, "", "", [], rows=rows, on_cancel=ctx.dismiss_dialog)
        for v in dlg.walk():
            if v.resource_id.endswith(":id/select_dialog_listview"):
                v.resource_id = f"{PKG}:id/dialog_radio_group"
        return dlg
