"""The framework's date and time pickers as Simple Calendar Pro opens them from its event editor (the platform's
DatePickerDialog and TimePickerDialog in their Material calendar and clock modes), over the app's window.

- DatePickerDialog: the header (`date_picker_header_year`, `date_picker_header_date` "Sun, Oct 15"), the month
  shown with `prev` / `next` ("Previous month" / "Next month") and its days (SimpleMonthView's virtual views: the
  day's number, described "15 October 2023"), Cancel / OK. Sunday first (the en-US locale's first day).
- TimePickerDialog: the header (`hours`, `minutes`, `am_label` / `pm_label` in 12-hour mode), the clock
  (`radial_picker`: its numbers, described by their value - the hours first, then the minutes every 5 - a picked
  hour turns it to the minutes), `toggle_mode` to the text input mode (`input_hour`, `input_minute`, the AM/PM
  `am_pm_spinner`) and back, Cancel / OK. 12- or 24-hour as the system's setting is.
Left out: the year list of the date picker, dragging the clock's hand.
"""

from __future__ import annotations

import calendar as _cal
import datetime as dt
import math
from collections.abc import Callable
from functools import partial
from typing import Any

from ..ui import dialogs
from ..ui import widgets as w
from ..ui.fonts import text_width
from ..ui.layout import Ctx, Row, V
from ..ui.view import View
from .calendar_data import WEEKDAY_LETTERS_EN, WEEKDAY_LETTERS_ZH, WEEKDAY_SHORT_EN, month_name, use_24h
from .common import MONTHS_EN

A = "android:id/"
TOGGLE_TO_TEXT = "Switch to text input mode for the time input."
TOGGLE_TO_CLOCK = "Switch to clock mode for the time input."


def _buttons(ctx: Ctx, ok: Callable[[], None]) -> list[tuple[str, str, Callable[[], None] | None]]:
    return [(ctx.tr("OK", "确定"), A + "button1", ok), (ctx.tr("Cancel", "取消"), A + "button2", ctx.dismiss_dialog)]


# --- date ----------------------------------------------------------------------------------------------------------
def date_dialog(ctx: Ctx, spec: dict[str, Any], on_set: Callable[[dt.date], None]) -> View:
    """spec: {"y", "m", "d"} the date picked, {"vy", "vm"} the month shown."""
    picked = dt.date(int(spec["y"]), int(spec["m"]), int(spec["d"]))
    vy, vm = int(spec.get("vy", picked.year)), int(spec.get("vm", picked.month))
    th = ctx.theme

    def pick(d: dt.date) -> None:
        ctx.ui["dialog"] = {**spec, "y": d.year, "m": d.month, "d": d.day}

    def shift(n: int) -> None:
        m = vy * 12 + (vm - 1) + n
        ctx.ui["dialog"] = {**spec, "vy": m // 12, "vm": m % 12 + 1}

    def ok() -> None:
        ctx.dismiss_dialog()
        on_set(picked)

    head_h, nav_h, cell = ctx.dp(96), ctx.dp(48), ctx.dp(40)

    def header(x: int, y: int, wd: int) -> View:
        # the header in the theme's primary container colour (light on the light theme, dark on the dark one)
        box = V(ctx, w.LINEAR, (x, y, x + wd, y + head_h), A + "date_picker_header", style={"bg": th.primary_container})
        fg = th.on_primary_container
        box.children.append(
            w.text(
                ctx,
                (x + ctx.dp(24), y + ctx.dp(12), x + wd, y + ctx.dp(36)),
                str(picked.year),
                A + "date_picker_header_year",
                size=16,
                color=fg,
            )
        )
        label = (
            f"{picked.month}月{picked.day}日 {WEEKDAY_LETTERS_ZH[(picked.weekday() + 1) % 7]}"
            if ctx.zh
            else f"{WEEKDAY_SHORT_EN[picked.weekday()]}, {MONTHS_EN[picked.month - 1][:3]} {picked.day}"
        )
        box.children.append(
            w.text(
                ctx,
                (x + ctx.dp(24), y + ctx.dp(40), x + wd, y + ctx.dp(84)),
                label,
                A + "date_picker_header_date",
                size=30,
                color=fg,
            )
        )
        return box

    def nav(x: int, y: int, wd: int) -> list[View]:
        isz = ctx.dp(48)
        title = f"{vy}年{vm}月" if ctx.zh else f"{MONTHS_EN[vm - 1]} {vy}"
        return [
            w.icon_button(
                ctx,
                (x + ctx.dp(8), y, x + ctx.dp(8) + isz, y + isz),
                "back",
                ctx.tr("Previous month", "上个月"),
                lambda: shift(-1),
                A + "prev",
            ),
            w.text(ctx, (x + isz, y, x + wd - isz, y + nav_h), title, "", size=14, bold=True, align="c"),
            w.icon_button(
                ctx,
                (x + wd - ctx.dp(8) - isz, y, x + wd - ctx.dp(8), y + isz),
                "forward",
                ctx.tr("Next month", "下个月"),
                lambda: shift(1),
                A + "next",
            ),
        ]

    letters = WEEKDAY_LETTERS_ZH if ctx.zh else WEEKDAY_LETTERS_EN

    def weekdays(x: int, y: int, wd: int) -> list[View]:
        cw = (wd - ctx.dp(24)) // 7
        return [
            w.text(
                ctx,
                (x + ctx.dp(12) + i * cw, y, x + ctx.dp(12) + (i + 1) * cw, y + cell),
                s,
                "",
                size=12,
                color=th.text2,
                align="c",
            )
            for i, s in enumerate(letters)
        ]

    first = dt.date(vy, vm, 1)
    lead = (first.weekday() + 1) % 7  # Sunday first
    ndays = _cal.monthrange(vy, vm)[1]
    weeks = (lead + ndays + 6) // 7

    def week(i: int, x: int, y: int, wd: int) -> list[View]:
        cw = (wd - ctx.dp(24)) // 7
        out: list[View] = []
        for c in range(7):
            n = i * 7 + c - lead + 1
            if not 1 <= n <= ndays:
                continue
            d = dt.date(vy, vm, n)
            sel = d == picked
            desc = f"{n} {month_name(ctx, vm)} {vy}" if not ctx.zh else f"{vy}年{vm}月{n}日"
            cx = x + ctx.dp(12) + c * cw
            out.append(
                V(
                    ctx,
                    "android.view.View",
                    (cx, y, cx + cw, y + cell),
                    text=str(n),
                    desc=desc,
                    clickable=True,
                    focusable=True,
                    selected=sel,
                    checkable=True,
                    checked=sel,
                    on_click=lambda d=d: pick(d),
                    style={
                        "fg": th.on_primary if sel else th.text,
                        "bg": th.primary if sel else None,
                        "radius": cell // 2,
                        "align": "c",
                        "size": ctx.sp(14),
                    },
                )
            )
        return out

    rows = [Row(head_h, header), Row(nav_h, nav), Row(cell, weekdays)]
    rows += [Row(cell, partial(week, i)) for i in range(weeks)]
    dlg = dialogs.dialog(ctx, "", "", _buttons(ctx, ok), rows=rows, on_cancel=ctx.dismiss_dialog, width_dp=328)
    _rename_list(dlg, A + "animator")
    return dlg


def _rename_list(dlg: View, rid: str) -> None:
    for v in dlg.walk():
        if v.resource_id.endswith(":id/select_dialog_listview"):
            v.resource_id = rid
        elif v.resource_id == "android:id/parentPanel":
            v.cls = w.FRAME


# --- time ----------------------------------------------------------------------------------------------------------
def time_dialog(ctx: Ctx, spec: dict[str, Any], on_set: Callable[[int, int], None]) -> View:
    """spec: {"h", "mi"} the time picked, "mode" hour | minute, "input" the text input mode, "spinner" its AM/PM
    menu open."""
    h24, mi = int(spec["h"]), int(spec["mi"])
    mode = spec.get("mode", "hour")
    is24 = use_24h(ctx.model)
    th = ctx.theme

    def put(**kw: Any) -> None:
        ctx.ui["dialog"] = {**spec, **kw}

    def ok() -> None:
        h, m = h24, mi
        if spec.get("input"):
            h, m = _typed(ctx, is24, h24, mi)
        ctx.dismiss_dialog()
        ctx.set_focus(None)
        on_set(h, m)

    def toggle() -> None:
        if spec.get("input"):
            h, m = _typed(ctx, is24, h24, mi)
            put(input=False, h=h, mi=m, spinner=False)
            ctx.set_focus(None)
        else:
            ctx.set_field("tp_hour", str(h24 if is24 else h24 % 12 or 12))
            ctx.set_field("tp_minute", f"{mi:02d}")
            put(input=True)

    time_h = max(ctx.dp(64), ctx.text_h(48))  # the time's labels' height, grown with the font scale
    head_h, clock_h, foot_h = ctx.dp(32) + time_h, ctx.dp(272), ctx.dp(48)
    pm = h24 >= 12

    def header(x: int, y: int, wd: int) -> View:
        box = V(ctx, w.LINEAR, (x, y, x + wd, y + head_h), A + "time_header")
        if spec.get("input"):
            box.children.append(
                w.text(
                    ctx,
                    (x + ctx.dp(24), y, x + wd, y + head_h),
                    ctx.tr("Type in time", "输入时间"),
                    A + "top_label",
                    size=12,
                    color=th.text2,
                )
            )
            return box
        big = 48
        # the labels' widths, grown with the font scale where their digits need it (wrap_content)
        hw = max(ctx.dp(72), int(text_width("00", ctx.sp(big))) + ctx.dp(4))
        sep = max(ctx.dp(20), int(text_width(":", ctx.sp(big))) + ctx.dp(4))
        x0 = x + ctx.dp(24)
        hour_txt = f"{h24:02d}" if is24 else str(h24 % 12 or 12)
        on, off = th.primary, th.text2
        box.children.append(
            w.text(
                ctx,
                (x0, y + ctx.dp(16), x0 + hw, y + ctx.dp(16) + time_h),
                hour_txt,
                A + "hours",
                size=big,
                color=on if mode == "hour" else off,
                align="r",
                clickable=True,
                on_click=lambda: put(mode="hour"),
            )
        )
        box.children.append(
            w.text(
                ctx,
                (x0 + hw, y + ctx.dp(16), x0 + hw + sep, y + ctx.dp(16) + time_h),
                ":",
                A + "separator",
                size=big,
                color=off,
                align="c",
            )
        )
        box.children.append(
            w.text(
                ctx,
                (x0 + hw + sep, y + ctx.dp(16), x0 + 2 * hw + sep, y + ctx.dp(16) + time_h),
                f"{mi:02d}",
                A + "minutes",
                size=big,
                color=on if mode == "minute" else off,
                clickable=True,
                on_click=lambda: put(mode="minute"),
            )
        )
        if not is24:
            ax = x0 + 2 * hw + sep + ctx.dp(16)
            for label, rid, sel, hh in (
                (ctx.tr("AM", "上午"), "am_label", not pm, h24 % 12),
                (ctx.tr("PM", "下午"), "pm_label", pm, h24 % 12 + 12),
            ):
                ty = y + ctx.dp(24) if rid == "am_label" else y + ctx.dp(52)
                box.children.append(
                    V(
                        ctx,
                        w.RADIO,
                        (ax, ty, ax + ctx.dp(56), ty + ctx.dp(28)),
                        A + rid,
                        text=label,
                        checkable=True,
                        checked=sel,
                        clickable=True,
                        focusable=True,
                        on_click=lambda hh=hh: put(h=hh),
                        style={"fg": th.primary if sel else th.text2, "size": ctx.sp(16), "bold": sel},
                    )
                )
        return box

    def clock(x: int, y: int, wd: int) -> list[View]:
        if spec.get("input"):
            return _inputs(ctx, spec, x, y, wd, is24, pm, put)
        size = min(wd - ctx.dp(48), clock_h - ctx.dp(16))
        cx, cy = x + wd // 2, y + clock_h // 2
        face = V(
            ctx,
            "android.view.View",
            (cx - size // 2, cy - size // 2, cx + size // 2, cy + size // 2),
            A + "radial_picker",
            style={"bg": th.surface2, "radius": size // 2},
        )
        values: list[tuple[int, float, int]] = []  # (value, radius factor, 12-o'clock-based position)
        if mode == "minute":
            values = [(m, 0.82, m // 5) for m in range(0, 60, 5)]
        elif is24:
            values = [(h, 0.82, h % 12) for h in (0, *range(1, 12))]
            values += [(h, 0.56, h % 12) for h in (12, *range(13, 24))]
        else:
            values = [(h, 0.82, h % 12) for h in (12, *range(1, 12))]
        cur = mi if mode == "minute" else (h24 if is24 else h24 % 12 or 12)
        nsz = ctx.dp(40)
        for value, rf, pos in values:
            ang = math.radians(pos * 30)
            px = cx + int(math.sin(ang) * rf * size / 2)
            py = cy - int(math.cos(ang) * rf * size / 2)
            label = f"{value:02d}" if mode == "minute" or (is24 and value in (0, 12)) else str(value)
            if is24 and value == 0:
                label = "00"
            sel = value == cur

            def choose(value: int = value) -> None:
                if mode == "minute":
                    put(mi=value)
                elif is24:
                    put(h=value, mode="minute")
                else:
                    put(h=(value % 12) + (12 if pm else 0), mode="minute")

            face.children.append(
                V(
                    ctx,
                    "android.view.View",
                    (px - nsz // 2, py - nsz // 2, px + nsz // 2, py + nsz // 2),
                    desc=str(value),
                    clickable=True,
                    selected=sel,
                    on_click=choose,
                    style={
                        "label": label,
                        "align": "c",
                        "size": ctx.sp(14),
                        "radius": nsz // 2,
                        "bg": th.primary if sel else None,
                        "fg": th.on_primary if sel else th.text,
                    },
                )
            )
        return [face]

    def footer(x: int, y: int, wd: int) -> View:
        isz = ctx.dp(48)
        return w.icon_button(
            ctx,
            (x + ctx.dp(12), y, x + ctx.dp(12) + isz, y + isz),
            "alarm" if spec.get("input") else "edit",
            TOGGLE_TO_CLOCK if spec.get("input") else TOGGLE_TO_TEXT,
            toggle,
            A + "toggle_mode",
        )

    rows = [Row(head_h, header), Row(clock_h, clock, ("tp_hour", "tp_minute")), Row(foot_h, footer)]
    if spec.get("spinner"):
        rows.insert(2, Row(ctx.dp(96), lambda x, y, wd: _spinner_menu(ctx, x, y, wd, h24, put)))
    dlg = dialogs.dialog(ctx, "", "", _buttons(ctx, ok), rows=rows, on_cancel=ctx.dismiss_dialog, width_dp=328)
    _rename_list(dlg, A + "time_picker_layout")
    return dlg


def _typed(ctx: Ctx, is24: bool, h24: int, mi: int) -> tuple[int, int]:
    """The text input mode's hour and minute fields as a time (what is not a number keeps its value)."""
    try:
        h = int(ctx.field_value("tp_hour"))
    except ValueError:
        h = h24 if is24 else h24 % 12 or 12
    try:
        m = int(ctx.field_value("tp_minute"))
    except ValueError:
        m = mi
    m = max(0, min(59, m))
    if is24:
        return max(0, min(23, h)), m
    h = max(1, min(12, h)) % 12
    return h + (12 if h24 >= 12 else 0), m


def _inputs(
    ctx: Ctx, spec: dict[str, Any], x: int, y: int, wd: int, is24: bool, pm: bool, put: Callable[..., None]
) -> list[View]:
    th = ctx.theme
    fw, fh = ctx.dp(88), ctx.dp(64)
    x0 = x + ctx.dp(24)
    y0 = y + ctx.dp(24)

    def digits(key: str) -> Callable[[str], None]:
        return lambda v: ctx.set_field(key, "".join(ch for ch in v if ch.isdigit())[:2])

    out = [
        w.edit(
            ctx,
            (x0, y0, x0 + fw, y0 + fh),
            "tp_hour",
            ctx.field_value("tp_hour"),
            "",
            digits("tp_hour"),
            A + "input_hour",
            size=28,
            box="filled",
        ),
        w.text(ctx, (x0 + fw, y0, x0 + fw + ctx.dp(24), y0 + fh), ":", A + "input_separator", size=28, align="c"),
        w.edit(
            ctx,
            (x0 + fw + ctx.dp(24), y0, x0 + 2 * fw + ctx.dp(24), y0 + fh),
            "tp_minute",
            ctx.field_value("tp_minute"),
            "",
            digits("tp_minute"),
            A + "input_minute",
            size=28,
            box="filled",
        ),
        w.text(
            ctx,
            (x0, y0 + fh, x0 + fw, y0 + fh + ctx.dp(24)),
            ctx.tr("hour", "小时"),
            A + "label_hour",
            size=12,
            color=th.text2,
        ),
        w.text(
            ctx,
            (x0 + fw + ctx.dp(24), y0 + fh, x0 + 2 * fw + ctx.dp(24), y0 + fh + ctx.dp(24)),
            ctx.tr("minute", "分钟"),
            A + "label_minute",
            size=12,
            color=th.text2,
        ),
    ]
    if not is24:
        sx = x0 + 2 * fw + ctx.dp(40)
        spinner = V(
            ctx,
            "android.widget.Spinner",
            (sx, y0, min(x + wd - ctx.dp(8), sx + ctx.dp(72)), y0 + fh),
            A + "am_pm_spinner",
            clickable=True,
            focusable=True,
            on_click=lambda: put(spinner=True),
        )
        spinner.children.append(
            w.text(ctx, spinner.bounds, ctx.tr("PM", "下午") if pm else ctx.tr("AM", "上午"), A + "text1", size=16)
        )
        out.append(spinner)
    return out


def _spinner_menu(ctx: Ctx, x: int, y: int, wd: int, h24: int, put: Callable[..., None]) -> list[View]:
    """The AM/PM Spinner's drop-down: its two CheckedTextViews."""
    out: list[View] = []
    for i, (label, pm) in enumerate(((ctx.tr("AM", "上午"), False), (ctx.tr("PM", "下午"), True))):
        top = y + i * ctx.dp(48)
        hh = h24 % 12 + (12 if pm else 0)
        out.append(
            V(
                ctx,
                "android.widget.CheckedTextView",
                (x + ctx.dp(140), top, x + wd - ctx.dp(8), top + ctx.dp(48)),
                A + "text1",
                text=label,
                checkable=True,
                checked=(h24 >= 12) == pm,
                clickable=True,
                focusable=True,
                on_click=lambda hh=hh: put(h=hh, spinner=False),
                style={"bg": ctx.theme.surface2, "size": ctx.sp(16), "fg": ctx.theme.text},
            )
        )
    return out
