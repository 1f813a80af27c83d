"""Audio Recorder's RecordsActivity (`activity_records`): back (`btn_back`), "Records" (`txt_title`) with the order
under it (`txt_sub_title`: "By date (newest)" ...), the order menu (`btn_sort`, kept in `pref_records_order`), and
the records (`recycler_view`) under date headers ("Today", "Yesterday", the date): each `container` with
`list_item_name`, `list_item_description` (the duration), `list_item_info` ("0.01 Mb, M4a, 44.1kHz") and
`list_item_more` (the record's menu). A tap makes the record the active one and opens the player panel
(`touch_layout`: `txt_name`, `txt_duration`, `btn_play`, `btn_stop`); "Records is empty" (`txtEmpty`) when there are
none. Left out: bookmarks, multi-selection, playback itself."""

from __future__ import annotations

import datetime as dt
from typing import Any

from ..ui import widgets as w
from ..ui.layout import Ctx, Row, V
from ..ui.view import View
from . import audiorecorder_data as data
from .audiorecorder_data import PRIMARY, PRIMARY_DARK, TEXT, TEXT2
from .audiorecorder_widgets import popup_menu
from .base import page

# AppConstants.SORT_*: (label, ORDER BY)
ORDERS = {
    1: ("By date (newest)", "added DESC"),
    4: ("By date (oldest)", "added ASC"),
    2: ("By name (A-Z)", "name ASC"),
    5: ("By name (Z-A)", "name DESC"),
    3: ("By duration (longest)", "duration DESC"),
    6: ("By duration (shortest)", "duration ASC"),
}
SORT_IDS = {
    1: "menu_date",
    4: "menu_date_desc",
    2: "menu_name",
    5: "menu_name_desc",
    3: "menu_duration",
    6: "menu_duration_desc",
}


def _order(ctx: Ctx) -> int:
    order = int(data.prefs(ctx.model.fs).get("pref_records_order", 1))
    return order if order in ORDERS else 1


def _day(ctx: Ctx, millis: int) -> str:
    """TimeUtils.formatDateSmartLocale: Today, Yesterday, or the date."""
    day = data.local_time(ctx.model, millis).date()
    today = data.local_time(ctx.model, int(ctx.model.now() * 1000)).date()
    if day == today:
        return "Today"
    if day == today - dt.timedelta(days=1):
        return "Yesterday"
    return f"{day:%B} {day.day}" + ("" if day.year == today.year else f", {day.year}")


def _select(ctx: Ctx, rid: int) -> None:
    """A tap: the record becomes the active one (`active_record`), the panel shows it playing."""
    data.PREFS.put(ctx.model.fs, "active_record", rid)
    ctx.ui["playing"] = rid


def sort_menu(ctx: Ctx) -> View:
    def pick(order: int) -> None:
        ctx.dismiss_dialog()
        data.PREFS.put(ctx.model.fs, "pref_records_order", order)

    items = [(label, SORT_IDS[k], lambda k=k: pick(k)) for k, (label, _) in ORDERS.items()]
    return popup_menu(ctx, items)


def _item(ctx: Ctx, row: dict[str, Any], active: bool) -> Row:
    name_h, sub_h = ctx.line_h(18), ctx.line_h(14)
    h = max(ctx.dp(72), name_h + sub_h + ctx.dp(24))
    rid = int(row["_id"])

    def build(x: int, y: int, wd: int) -> View:
        box = V(
            ctx,
            w.FRAME,
            (x, y, x + wd, y + h),
            "container",
            clickable=True,
            focusable=True,
            on_click=lambda: _select(ctx, rid),
            style={"bg": PRIMARY_DARK if active else PRIMARY},
        )
        more = ctx.dp(48)
        ty = y + ctx.dp(12)
        box.children.append(
            w.text(
                ctx,
                (x + ctx.dp(16), ty, x + wd - more - ctx.dp(8), ty + name_h),
                str(row["name"]),
                "list_item_name",
                size=18,
                color=TEXT,
                style={"ellipsize": True},
            )
        )
        ty += name_h
        dur = data.fmt_duration(int(row["duration"]) // 1000)
        box.children.append(
            w.text(
                ctx,
                (x + ctx.dp(16), ty, x + ctx.dp(96), ty + sub_h),
                dur,
                "list_item_description",
                size=14,
                color=TEXT2,
            )
        )
        info = data.record_info(str(row["format"]), int(row["sample_rate"]), int(row["size"]))
        box.children.append(
            w.text(
                ctx,
                (x + ctx.dp(96), ty, x + wd - more - ctx.dp(8), ty + sub_h),
                info,
                "list_item_info",
                size=14,
                color=TEXT2,
                align="r",
                style={"ellipsize": True},
            )
        )
        box.children.append(
            w.icon_button(
                ctx,
                (x + wd - more, y + (h - more) // 2, x + wd, y + (h + more) // 2),
                "more",
                "",
                lambda: ctx.show_dialog({"id": "menu", "record": rid, "top": y}),
                "list_item_more",
                TEXT,
            )
        )
        return box

    return Row(h, build)


def _panel(ctx: Ctx, row: dict[str, Any], box: tuple[int, int, int, int]) -> View:
    l, t, r, b = box
    panel = V(ctx, "com.dimowner.audiorecorder.app.widget.TouchLayout", box, "touch_layout", style={"bg": PRIMARY_DARK})
    h = ctx.line_h(18)
    panel.children.append(
        w.text(
            ctx,
            (l + ctx.dp(16), t + ctx.dp(8), r - ctx.dp(16), t + ctx.dp(8) + h),
            str(row["name"]),
            "txt_name",
            size=18,
            color=TEXT,
            align="c",
        )
    )
    dur = data.fmt_duration(int(row["duration"]) // 1000)
    y = t + ctx.dp(12) + h
    sh = ctx.line_h(14)
    panel.children.append(
        w.text(ctx, (l + ctx.dp(16), y, l + ctx.dp(96), y + sh), "00:00", "txt_progress", size=14, color=TEXT2)
    )
    panel.children.append(
        w.text(ctx, (r - ctx.dp(96), y, r - ctx.dp(16), y + sh), dur, "txt_duration", size=14, color=TEXT2, align="r")
    )
    isz = ctx.dp(56)
    cx = (l + r) // 2
    by = b - isz - ctx.dp(8)
    playing = ctx.ui.get("playing") == int(row["_id"])

    def toggle() -> None:
        if playing:
            ctx.ui.pop("playing", None)
        else:
            ctx.ui["playing"] = int(row["_id"])

    panel.children.append(
        w.icon_button(
            ctx,
            (cx - isz // 2, by, cx + isz // 2, by + isz),
            "pause" if playing else "play",
            "",
            toggle,
            "btn_play",
            TEXT,
        )
    )
    panel.children.append(
        w.icon_button(
            ctx,
            (cx + isz, by, cx + 2 * isz, by + isz),
            "close",
            "",
            lambda: ctx.ui.pop("playing", None),
            "btn_stop",
            TEXT,
        )
    )
    return panel


def records_screen(ctx: Ctx) -> list[View]:
    l, t, r, b = ctx.area
    fs = ctx.model.fs
    order = _order(ctx)
    bar_h = ctx.dp(64)
    bar = V(ctx, w.LINEAR, (l, t, r, t + bar_h), "toolbar", style={"bg": PRIMARY_DARK})
    isz = ctx.dp(48)
    y0 = t + (bar_h - isz) // 2
    bar.children.append(
        w.icon_button(ctx, (l + ctx.dp(4), y0, l + ctx.dp(4) + isz, y0 + isz), "back", "", ctx.finish, "btn_back", TEXT)
    )
    title = V(ctx, w.LINEAR, (l + ctx.dp(60), t, r - 2 * isz - ctx.dp(8), t + bar_h), "title")
    th, sh = ctx.line_h(20), ctx.line_h(13)
    ty = t + (bar_h - th - sh) // 2
    title.children.append(
        w.text(ctx, (title.bounds[0], ty, title.bounds[2], ty + th), "Records", "txt_title", size=20, color=TEXT)
    )
    title.children.append(
        w.text(
            ctx,
            (title.bounds[0], ty + th, title.bounds[2], ty + th + sh),
            ORDERS[order][0],
            "txt_sub_title",
            size=13,
            color=TEXT2,
        )
    )
    bar.children.append(title)
    bar.children.append(
        w.icon_button(
            ctx,
            (r - 2 * isz - ctx.dp(4), y0, r - isz - ctx.dp(4), y0 + isz),
            "menu",
            "",
            lambda: ctx.show_dialog({"id": "sort"}),
            "btn_sort",
            TEXT,
        )
    )
    bar.children.append(
        w.icon_button(
            ctx,
            (r - isz - ctx.dp(4), y0, r - ctx.dp(4), y0 + isz),
            "star",
            "",
            lambda: ctx.toast("Bookmarks is empty"),
            "btn_bookmarks",
            TEXT,
        )
    )
    rows_db = data.records(fs, ORDERS[order][1])
    active = data.active_id(fs)
    rows: list[Row] = []
    day = ""
    for row in rows_db:
        if order in (1, 4):
            label = _day(ctx, int(row["added"]))
            if label != day:
                day = label
                rows.append(w.text_row(ctx, label, "", size=14, color=TEXT2))
        rows.append(_item(ctx, row, int(row["_id"]) == active))
    playing = next((rw for rw in rows_db if int(rw["_id"]) == ctx.ui.get("playing")), None)
    panel_h = ctx.dp(128) if playing else 0
    overlays: list[View] = []
    if not rows_db:
        overlays.append(
            w.text(
                ctx,
                (l, (t + b) // 2 - ctx.dp(24), r, (t + b) // 2 + ctx.dp(24)),
                "Records is empty",
                "txtEmpty",
                size=18,
                color=TEXT2,
                align="c",
            )
        )
    footer = [_panel(ctx, playing, (l, b - panel_h, r, b))] if playing else []
    return page(
        ctx, [bar], rows, key="records", rid="recycler_view", footer=footer, footer_h=panel_h, overlays=overlays
    )


def records_opened(ctx: Ctx) -> None:
    """RecordsActivity created: loading the list checks for lost records (LocalRepositoryImpl.getRecords)."""
    if data.lost(ctx.model.fs, data.records(ctx.model.fs)):
        ctx.show_dialog({"id": "lost"})


def records_dialog(ctx: Ctx, spec: dict[str, Any]) -> View | None:
    return sort_menu(ctx) if spec.get("id") == "sort" else None
