"""Simple Calendar Pro's main screen's views, each drawn from the events the database holds when shown:

- the monthly view (MonthFragment): `top_navigation` (`top_left_arrow`, `top_value` "October", `top_right_arrow`)
  over the month's grid (`month_view`: six weeks from the Sunday before the 1st; the days' numbers and their events'
  titles are drawn, not text of the hierarchy, as the app's MonthView draws them; each day a clickable
  `month_view_background` opening that day's daily view);
- the daily view (DayFragment): `top_navigation` with the day ("October 16 (Mon)") over `day_events`, its events
  (`event_item_holder`: `event_item_title`, `event_item_time` "03:00 PM - 04:00 PM", with the other day's date in
  brackets when the event starts or ends on another day, `event_item_description`); a click opens the event, a
  long press selects it (the action mode: `cab_delete`);
- the simple event list (EventListFragment): the events from a day ago on for six months (`calendar_events_list`:
  a month's `event_section_title` "October", a day's "16 Monday", its events), or `calendar_empty_list_placeholder`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from functools import partial
from typing import Any

from ..ui import widgets as w
from ..ui.fonts import text_width
from ..ui.layout import Ctx, Row, V, vlist
from ..ui.theme import Color
from ..ui.view import View
from .calendar_data import (
    DAY,
    WEEKDAY_LETTERS_EN,
    WEEKDAY_LETTERS_ZH,
    Occurrence,
    at,
    day_code,
    events_between,
    events_on,
    fmt_date,
    fmt_day_section,
    fmt_month_year,
    fmt_time,
    now,
    today,
    tr,
    ts_of,
)

ORANGE: Color = (245, 124, 0)  # the app's default primary colour (Simple-Commons' orange 700)
ORANGE_TEXT_LIGHT: Color = (230, 81, 0)  # orange 900: the orange of a text on the light theme's white
CHIP_TEXT: Color = (51, 51, 51)  # Simple-Commons' DARK_GREY, what getContrastColor gives on a light colour
RELATIVE = "android.widget.RelativeLayout"
Box = tuple[int, int, int, int]


def accent_text(ctx: Ctx) -> Color:
    """The orange a text is drawn in: the primary colour on the dark theme, a darker orange on the light one (the
    primary's orange stands out too little from white)."""
    return ORANGE if ctx.theme.dark else ORANGE_TEXT_LIGHT


def _meets(a: tuple[float, float, float, float], b: Box | None) -> bool:
    return b is not None and min(a[2], b[2]) > max(a[0], b[0]) and min(a[3], b[3]) > max(a[1], b[1])


def _nav(ctx: Ctx, box: Box, title: str, step: Callable[[int], None], on_title: Callable[[], None] | None) -> View:
    """top_navigation: the arrows and the period's title between them."""
    l, t, r, b = box
    holder = V(ctx, RELATIVE, box, "calendar_wrapper")
    isz = ctx.dp(48)
    y0 = t + (b - t - isz) // 2
    holder.children.append(
        w.icon(
            ctx,
            (l + ctx.dp(8), y0, l + ctx.dp(8) + isz, y0 + isz),
            "back",
            ctx.theme.text,
            "top_left_arrow",
            on_click=lambda: step(-1),
        )
    )
    holder.children.append(
        w.text(
            ctx,
            (l + isz + ctx.dp(16), t, r - isz - ctx.dp(16), b),
            title,
            "top_value",
            size=18,
            align="c",
            clickable=on_title is not None,
            on_click=on_title,
        )
    )
    holder.children.append(
        w.icon(
            ctx,
            (r - ctx.dp(8) - isz, y0, r - ctx.dp(8), y0 + isz),
            "forward",
            ctx.theme.text,
            "top_right_arrow",
            on_click=lambda: step(1),
        )
    )
    for v in holder.children:
        v.clickable = True
    return holder


# --- month -----------------------------------------------------------------------------------------------------------
def month_view(
    ctx: Ctx,
    box: Box,
    month: dt.date,
    step: Callable[[int], None],
    open_day: Callable[[dt.date], None],
    covered: Box | None = None,
) -> list[View]:
    """The month's grid filling `box` below its navigation. What MonthView draws where `covered` is (the
    floating button's box, drawn over it) is left out of the canvas: it does not show."""
    l, t, r, b = box
    th = ctx.theme
    nav_h = ctx.dp(56)
    holder = V(ctx, RELATIVE, box, "month_calendar_holder")
    holder.children.append(_nav(ctx, (l, t, r, t + nav_h), fmt_month_year(ctx, month), step, None))
    wrapper = V(ctx, RELATIVE, (l, t + nav_h, r, b), "month_view_wrapper")
    holder.children.append(wrapper)
    letters_h = ctx.dp(28)
    grid_t = t + nav_h + letters_h
    cw = (r - l) // 7
    ch = max(1, (b - grid_t - ctx.dp(8)) // 6)  # six weeks inside month_view, however short the window
    canvas = V(ctx, "android.view.View", (l, t + nav_h, r, b), "month_view")
    wrapper.children.append(canvas)
    letters = WEEKDAY_LETTERS_ZH if ctx.zh else WEEKDAY_LETTERS_EN
    for i, s in enumerate(letters):
        canvas.children.append(
            V(
                ctx,
                "android.view.View",
                (l + i * cw, t + nav_h, l + (i + 1) * cw, grid_t),
                style={"label": s, "align": "c", "size": ctx.sp(12), "fg": th.text2},
            )
        )
    first = month.replace(day=1)
    start = first - dt.timedelta(days=(first.weekday() + 1) % 7)
    span = events_between(ctx, ts_of(ctx.model, start), ts_of(ctx.model, start + dt.timedelta(days=42)) - 60)
    now_day = today(ctx.model)
    line = ctx.dp(14)
    for i in range(42):
        day = start + dt.timedelta(days=i)
        x0, y0 = l + (i % 7) * cw, grid_t + (i // 7) * ch
        cell = V(
            ctx,
            w.FRAME,
            (x0, y0, x0 + cw, y0 + ch),
            "month_view_background",
            clickable=True,
            focusable=True,
            on_click=lambda day=day: open_day(day),
        )
        wrapper.children.append(cell)
        inside = day.month == month.month
        is_today = day == now_day
        num_size = ctx.sp(13)
        half = text_width(str(day.day), num_size, is_today) / 2
        cx = x0 + cw / 2
        if not _meets((cx - half, y0 + ctx.dp(2), cx + half, y0 + ctx.dp(20)), covered):
            canvas.children.append(
                V(
                    ctx,
                    "android.view.View",
                    (x0 + ctx.dp(2), y0 + ctx.dp(2), x0 + cw - ctx.dp(2), y0 + ctx.dp(20)),
                    style={
                        "label": str(day.day),
                        "align": "c",
                        "size": num_size,
                        "bold": is_today,
                        "fg": accent_text(ctx) if is_today else (th.text if inside else th.text2),
                    },
                )
            )
        day_start = ts_of(ctx.model, day)
        shown = [o for o in span if o.start <= day_start + DAY - 60 and o.end >= day_start]
        room = max(0, (ch - ctx.dp(24)) // line)
        for k, o in enumerate(shown[:room]):
            ty = y0 + ctx.dp(22) + k * line
            chip = (x0 + ctx.dp(2), ty, x0 + cw - ctx.dp(2), ty + line - ctx.dp(1))
            if _meets(chip, covered):
                continue
            canvas.children.append(
                V(
                    ctx,
                    "android.view.View",
                    chip,
                    style={
                        "label": o.title,
                        "size": ctx.sp(9),
                        "fg": CHIP_TEXT,
                        "bg": ORANGE,
                        "radius": ctx.dp(2),
                        "align": "l",
                        "ellipsize": True,
                        "dim": not inside,
                    },
                )
            )
    return [holder]


# --- event rows ------------------------------------------------------------------------------------------------------
def time_text(ctx: Ctx, o: Occurrence, shown_day: dt.date | None) -> str:
    """DayEventsAdapter / EventListAdapter: the start time, and " - " the end's; a start or end on another day than
    the one listed gets that day's date in brackets; an all-day event says so."""
    start, end = at(ctx.model, o.start), at(ctx.model, o.end)
    all_day = bool(int(o.row["flags"]) & 1)
    if all_day:
        text = tr(ctx, "all_day")
        if end.date() != start.date() and shown_day is not None and end.date() != shown_day:
            text += f" - ({fmt_date(ctx, end.date(), False)})"
        return text
    text = fmt_time(ctx, start)
    if o.start == o.end:
        return text
    start_day = f" ({fmt_date(ctx, start.date(), False)})" if shown_day and start.date() != shown_day else ""
    end_day = f" ({fmt_date(ctx, end.date(), False)})" if shown_day and end.date() != shown_day else ""
    return f"{text}{start_day} - {fmt_time(ctx, end)}{end_day}"


def event_row(
    ctx: Ctx,
    o: Occurrence,
    shown_day: dt.date | None,
    on_click: Callable[[], None],
    on_long_click: Callable[[], None] | None = None,
    selected: bool = False,
) -> Row:
    th = ctx.theme
    desc = str(o.row["description"]).replace("\n", " ")
    # the lines' boxes are dp, grown with the font scale where their text needs it (wrap_content)
    e1 = max(0, ctx.line_h(16) - ctx.dp(22))
    e2 = max(0, ctx.line_h(13) - ctx.dp(18))
    h = ctx.dp(64 if desc else 48) + e1 + e2 * (2 if desc else 1)
    past = o.end < int(now(ctx.model).timestamp())

    def build(x: int, y: int, wd: int) -> View:
        holder = V(
            ctx,
            w.FRAME,
            (x, y, x + wd, y + h),
            "event_item_holder",
            clickable=True,
            focusable=True,
            long_clickable=True,
            selected=selected,
            on_click=on_click,
            on_long_click=on_long_click or on_click,
            style={"bg": th.primary_container if selected else None},
        )
        fg = th.text2 if past else th.text
        holder.children.append(
            V(
                ctx,
                w.IMAGE,
                (x + ctx.dp(12), y + ctx.dp(8), x + ctx.dp(16), y + h - ctx.dp(8)),
                "event_item_color_bar",
                style={"bg": ORANGE},
            )
        )
        tx = x + ctx.dp(28)
        holder.children.append(
            w.text(
                ctx,
                (tx, y + ctx.dp(4), x + wd - ctx.dp(16), y + ctx.dp(26) + e1),
                o.title,
                "event_item_title",
                size=16,
                color=fg,
                style={"ellipsize": True},
            )
        )
        holder.children.append(
            w.text(
                ctx,
                (tx, y + ctx.dp(26) + e1, x + wd - ctx.dp(16), y + ctx.dp(44) + e1 + e2),
                time_text(ctx, o, shown_day),
                "event_item_time",
                size=13,
                color=fg,
                style={"ellipsize": True},
            )
        )
        if desc:
            holder.children.append(
                w.text(
                    ctx,
                    (tx, y + ctx.dp(44) + e1 + e2, x + wd - ctx.dp(16), y + ctx.dp(62) + e1 + 2 * e2),
                    desc,
                    "event_item_description",
                    size=13,
                    color=th.text2,
                    style={"ellipsize": True},
                )
            )
        return holder

    return Row(h, build)


def day_view(
    ctx: Ctx,
    box: Box,
    day: dt.date,
    step: Callable[[int], None],
    open_event: Callable[[Occurrence], None],
    selection: list[list[int]] | None,
    toggle: Callable[[Occurrence], None],
) -> list[View]:
    l, t, r, b = box
    nav_h = ctx.dp(56)
    holder = V(ctx, RELATIVE, box, "day_holder")
    holder.children.append(_nav(ctx, (l, t, r, t + nav_h), fmt_date(ctx, day), step, None))
    rows: list[Row] = []
    sel = {(int(a), int(c)) for a, c in (selection or [])}
    for o in events_on(ctx, day):
        picked = (o.id, o.start) in sel

        def click(o: Occurrence = o) -> None:
            if selection:
                toggle(o)
            else:
                open_event(o)

        rows.append(event_row(ctx, o, day, click, partial(toggle, o), picked))
    holder.children.append(
        vlist(ctx, f"day_{day_code(day)}", (l, t + nav_h, r, b), rows, "day_events", pad_bottom=ctx.dp(88))
    )
    return [holder]


def list_view(ctx: Ctx, box: Box, open_event: Callable[[Occurrence], None], create: Callable[[], None]) -> list[View]:
    """EventListFragment: from now less a day (displayPastEvents) to six months on."""
    l, t, r, b = box
    moment = int(now(ctx.model).timestamp())
    occurrences = events_between(ctx, moment - DAY, moment + 183 * DAY)
    holder = V(ctx, RELATIVE, box, "calendar_events_list_holder")
    if not occurrences:
        holder.children.append(
            w.text(
                ctx,
                (l + ctx.dp(16), t + ctx.dp(120), r - ctx.dp(16), t + ctx.dp(160)),
                tr(ctx, "no_upcoming_events"),
                "calendar_empty_list_placeholder",
                size=18,
                align="c",
            )
        )
        holder.children.append(
            w.text(
                ctx,
                (l + ctx.dp(16), t + ctx.dp(164), r - ctx.dp(16), t + ctx.dp(204)),
                tr(ctx, "create_new_event"),
                "calendar_empty_list_placeholder_2",
                size=18,
                align="c",
                color=ctx.theme.primary,
                clickable=True,
                on_click=create,
            )
        )
        return [holder]
    holder.children.append(
        vlist(
            ctx,
            "event_list",
            box,
            event_list_rows(ctx, occurrences, open_event),
            "calendar_events_list",
            pad_bottom=ctx.dp(88),
        )
    )
    return [holder]


def event_list_rows(ctx: Ctx, occurrences: list[Occurrence], open_event: Callable[[Occurrence], None]) -> list[Row]:
    """getEventListItems: a month's section, a day's section, the day's events (listed under their start's day)."""
    rows: list[Row] = []
    prev_month = prev_day = ""
    for o in occurrences:
        d = at(ctx.model, o.start).date()
        month = fmt_month_year(ctx, d)
        if month != prev_month:
            rows.append(_section(ctx, month, 20, True))
            prev_month = month
        code = day_code(d)
        if code != prev_day:
            rows.append(_section(ctx, fmt_day_section(ctx, d), 15, False))
            prev_day = code
        rows.append(event_row(ctx, o, d, partial(open_event, o)))
    return rows


def _section(ctx: Ctx, text: str, size: int, bold: bool) -> Row:
    h = ctx.dp(44 if bold else 36)
    color: Any = ctx.theme.primary if bold else ctx.theme.text
    return Row(
        h,
        lambda x, y, wd: w.text(
            ctx,
            (x + ctx.dp(16), y, x + wd - ctx.dp(16), y + h),
            text,
            "event_section_title",
            size=size,
            bold=bold,
            color=color,
        ),
    )
