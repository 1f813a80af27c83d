"""Clock: bottom tabs Alarm / Clock / Timer / Stopwatch. Alarms list with on/off switches and an alarm editor (hour
and minute fields with +/- buttons, AM/PM, label, repeat days, delete); world clocks at the frozen device time;
a timer keypad (time does not pass on the virtual device, so a started timer shows its set duration); the
stopwatch (`stopwatch`). AlarmClock's intents: SET_ALARM (with HOUR: the alarm is set; without: the editor),
SET_TIMER (with LENGTH: the timer runs), SHOW_ALARMS, SHOW_TIMERS.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from ..ui import widgets as w
from ..ui.fonts import text_width
from ..ui.layout import Ctx, Row
from ..ui.view import View
from .base import App, editor_bar, page
from .common import DEVICE_DATE, DEVICE_HOUR, DEVICE_MINUTE, fmt_date_long, fmt_time
from .stopwatch import BUTTONS_H_DP
from .stopwatch import buttons as stopwatch_buttons
from .stopwatch import fresh as fresh_stopwatch
from .stopwatch import rows as stopwatch_rows

PKG = "com.google.android.deskclock"
MAIN = "com.android.deskclock.DeskClock"
EDIT = "com.android.deskclock.alarms.AlarmEditActivity"

DAYS_EN = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
DAYS_ZH = ["周一", "周二", "周三", "周四", "周五", "周六", "周日"]
# world clocks: (en, zh), offset from device time (America/Los_Angeles, PDT) in hours
WORLD = {
    "en": [(("London", "伦敦"), 8), (("New York", "纽约"), 3), (("Tokyo", "东京"), 16)],
    "zh": [(("Beijing", "北京"), 15), (("London", "伦敦"), 8), (("New York", "纽约"), 3)],
}


def _as_int(v: Any) -> int | None:
    """An intent extra given as `--ei` (int) or `-e` (string)."""
    try:
        return int(str(v).strip()) if v is not None else None
    except ValueError:
        return None


def _as_list(v: Any) -> list[int | None]:
    """An int-array extra (`--eia K 2,3`) or one value."""
    items = v if isinstance(v, list) else ([] if v is None else str(v).split(","))
    return [_as_int(x) for x in items]


def _alarm_set(ctx: Ctx, hour: int, minute: int) -> str:
    return ctx.tr(f"Alarm set for {fmt_time(hour, minute, False)}", f"闹钟已设为{fmt_time(hour, minute, True)}")


def days_summary(days: list[bool], zh: bool) -> str:
    names = DAYS_ZH if zh else DAYS_EN
    if all(days):
        return "每天" if zh else "Every day"
    if days[:5] == [True] * 5 and not any(days[5:]):
        return "工作日" if zh else "Mon – Fri"
    if not any(days):
        return "不重复" if zh else "Not scheduled"
    return ("、" if zh else ", ").join(n for n, on in zip(names, days, strict=False) if on)


class ClockApp(App):
    package = PKG
    labels = {"en": "Clock", "zh": "时钟"}
    activities = {MAIN: "main", EDIT: "edit"}
    launcher = MAIN
    color = (66, 133, 244)
    glyph = "alarm"
    intent_filters = [
        (f"android.intent.action.{a}", "", MAIN) for a in ("SET_ALARM", "SET_TIMER", "SHOW_ALARMS", "SHOW_TIMERS")
    ]

    def seed(self, data: dict[str, Any], locale: str) -> None:
        zh = locale == "zh"
        data["alarms"] = [
            {"id": 1, "hour": 7, "minute": 0, "label": "", "enabled": True, "days": [True] * 5 + [False] * 2},
            {
                "id": 2,
                "hour": 8,
                "minute": 30,
                "label": "健身" if zh else "Gym",
                "enabled": False,
                "days": [False] * 5 + [True] * 2,
            },
        ]
        data["next_id"] = 3
        data["timer"] = {"digits": "", "running": False, "paused": False}
        data["stopwatch"] = fresh_stopwatch()

    def on_intent(self, ctx: Ctx, action: str, extras: dict[str, Any]) -> None:
        """AlarmClock.ACTION_SET_ALARM / SET_TIMER / SHOW_ALARMS / SHOW_TIMERS, as DeskClock's HandleApiCalls."""
        if ctx.activity != MAIN:
            return
        kind = action.rsplit(".", 1)[-1]
        ctx.ui["tab"] = "timer" if kind in ("SET_TIMER", "SHOW_TIMERS") else "alarm"
        if kind == "SET_ALARM":
            hour = _as_int(extras.get("android.intent.extra.alarm.HOUR"))
            if hour is None or not 0 <= hour <= 23:
                self._edit(ctx, None)  # no time given: the editor for a new alarm
                return
            minute = max(0, min(59, _as_int(extras.get("android.intent.extra.alarm.MINUTES")) or 0))
            label = str(extras.get("android.intent.extra.alarm.MESSAGE") or "")
            days = [False] * 7
            for d in _as_list(extras.get("android.intent.extra.alarm.DAYS")):
                if d is not None and 1 <= d <= 7:  # Calendar.SUNDAY 1 .. SATURDAY 7; ours start on Monday
                    days[(d - 2) % 7] = True
            alarms = ctx.data["alarms"]
            a = next((x for x in alarms if (x["hour"], x["minute"], x["label"]) == (hour, minute, label)), None)
            if a is None:
                aid = int(ctx.data.get("next_id", 1))
                ctx.data["next_id"] = aid + 1
                a = {"id": aid, "hour": hour, "minute": minute, "label": label, "days": days}
                alarms.append(a)
                alarms.sort(key=lambda x: (x["hour"], x["minute"], x["id"]))
            a["enabled"] = True
            ctx.toast(_alarm_set(ctx, hour, minute))
        elif kind == "SET_TIMER":
            length = _as_int(extras.get("android.intent.extra.alarm.LENGTH"))
            if length is not None and 1 <= length <= 99 * 3600 + 99 * 60 + 99:
                h, rest = divmod(length, 3600)
                digits = f"{h:02d}{rest // 60:02d}{rest % 60:02d}".lstrip("0")
                ctx.data["timer"] = {"digits": digits, "running": True, "paused": False}

    # --- main: tabs ----------------------------------------------------------------------------------
    def screen_main(self, ctx: Ctx) -> list[View]:
        l, t, r, b = ctx.area
        tab = ctx.ui.get("tab", "alarm")
        nav_h = ctx.dp(80)
        names = [
            ("alarm", ctx.tr("Alarm", "闹钟"), "alarm"),
            ("clock", ctx.tr("Clock", "时钟"), "clock"),
            ("timer", ctx.tr("Timer", "计时器"), "timer"),
            ("stopwatch", ctx.tr("Stopwatch", "秒表"), "stopwatch"),
        ]

        def sel(k: str) -> None:
            ctx.ui["tab"] = k

        nav = w.tabs(
            ctx,
            (l, b - nav_h, r, b),
            [(label, tab == k, partial(sel, k), f"tab_menu_{k}") for k, label, _ in names],
            bottom_nav=True,
            icons=[ic for _, _, ic in names],
            rid="navigation_bar",
        )
        fn = {"alarm": self._alarms, "clock": self._clock, "timer": self._timer, "stopwatch": self._stopwatch}[tab]
        views = fn(ctx, b - nav_h)
        return views + [nav]

    def _title(self, ctx: Ctx, title: str) -> View:
        return w.toolbar(ctx, title, None, rid="toolbar", title_rid="action_bar_title")

    def _alarms(self, ctx: Ctx, bottom: int) -> list[View]:
        th = ctx.theme
        l, t, r, _ = ctx.area
        tb = self._title(ctx, ctx.tr("Alarm", "闹钟"))
        rows: list[Row] = []
        lab_h, clk_h = max(ctx.dp(20), ctx.text_h(14)), max(ctx.dp(48), ctx.text_h(40))
        card_h = ctx.dp(112) + max(0, clk_h - ctx.dp(48)) + 2 * max(0, lab_h - ctx.dp(20))
        for a in ctx.data["alarms"]:

            def build(x: int, y: int, wd: int, a: dict[str, Any] = a) -> View:
                card = w.card_bg(
                    ctx,
                    (x + ctx.dp(12), y + ctx.dp(6), x + wd - ctx.dp(12), y + card_h - ctx.dp(6)),
                    "alarm_card",
                    clickable=True,
                    focusable=True,
                    on_click=lambda: self._edit(ctx, a),
                )
                tstr = fmt_time(a["hour"], a["minute"], ctx.zh)
                card.desc = tstr + (f" {a['label']}" if a["label"] else "")
                x0 = x + ctx.dp(32)
                ty = y + ctx.dp(14)  # the label, the time, the days, one under the other
                if a["label"]:
                    card.children.append(
                        w.text(
                            ctx,
                            (x0, ty, x + wd - ctx.dp(100), ty + lab_h),
                            a["label"],
                            "edit_label",
                            size=14,
                            color=th.text2,
                            style={"ellipsize": True},
                        )
                    )
                ty += lab_h - ctx.dp(2)
                card.children.append(
                    w.text(
                        ctx,
                        (x0, ty, x + wd - ctx.dp(100), ty + clk_h),
                        tstr,
                        "digital_clock",
                        size=40,
                        color=th.text if a["enabled"] else th.text2,
                    )
                )
                ty += clk_h
                card.children.append(
                    w.text(
                        ctx,
                        (x0, ty, x + wd - ctx.dp(100), ty + lab_h),
                        days_summary(a["days"], ctx.zh),
                        "days_of_week",
                        size=14,
                        color=th.text2,
                        style={"ellipsize": True},
                    )
                )

                def toggle(a: dict[str, Any] = a) -> None:
                    a["enabled"] = not a["enabled"]
                    if a["enabled"]:
                        ctx.toast(ctx.tr("Alarm set", "闹钟已设置"))

                sy = y + card_h // 2
                card.children.append(
                    w.switch(
                        ctx,
                        (x + wd - ctx.dp(96), sy - ctx.dp(24), x + wd - ctx.dp(28), sy + ctx.dp(24)),
                        a["enabled"],
                        "onoff",
                        toggle,
                    )
                )
                return card

            rows.append(Row(card_h, build))
        if not ctx.data["alarms"]:
            rows.append(
                w.text_row(
                    ctx, ctx.tr("No alarms", "没有闹钟"), "alarms_empty_view", color=th.text2, align="c", height_dp=120
                )
            )
        saved = ctx.area
        ctx.area = (l, t, r, bottom)
        try:
            fab = w.fab(ctx, "add", ctx.tr("Add alarm", "添加闹钟"), lambda: self._edit(ctx, None), "fab")
            return page(ctx, [tb], rows, key="alarms", rid="alarm_recycler_view", overlays=[fab], pad_bottom=ctx.dp(88))
        finally:
            ctx.area = saved

    def _clock(self, ctx: Ctx, bottom: int) -> list[View]:
        th = ctx.theme
        l, t, r, _ = ctx.area
        tb = self._title(ctx, ctx.tr("Clock", "时钟"))
        rows: list[Row] = [
            Row(
                ctx.dp(88),
                lambda x, y, wd: w.text(
                    ctx,
                    (x, y, x + wd, y + ctx.dp(88)),
                    fmt_time(DEVICE_HOUR, DEVICE_MINUTE, ctx.zh),
                    "digital_clock",
                    size=56,
                    align="c",
                ),
            ),
            Row(
                ctx.dp(36),
                lambda x, y, wd: w.text(
                    ctx,
                    (x, y, x + wd, y + ctx.dp(36)),
                    fmt_date_long(DEVICE_DATE, ctx.zh),
                    "date",
                    size=16,
                    color=th.text2,
                    align="c",
                ),
            ),
        ]
        city_h, rel_h = max(ctx.dp(28), ctx.text_h(18)), max(ctx.dp(24), ctx.text_h(13))
        h = max(ctx.dp(80), ctx.dp(12 + 16) + city_h + rel_h, ctx.dp(12) + ctx.text_h(28))
        base = DEVICE_HOUR * 60 + DEVICE_MINUTE
        for names, offset in WORLD["zh" if ctx.zh else "en"]:
            mins = base + offset * 60
            day = ""
            if mins >= 24 * 60:
                day = ctx.tr("Tomorrow, ", "明天，")
            mins %= 24 * 60
            tstr = fmt_time(mins // 60, mins % 60, ctx.zh)
            rel = day + ctx.tr(f"{offset} hrs ahead", f"快 {offset} 小时")
            city = ctx.tr(*names)

            def build(x: int, y: int, wd: int, city: str = city, tstr: str = tstr, rel: str = rel) -> View:
                card = w.card_bg(
                    ctx,
                    (x + ctx.dp(12), y + ctx.dp(6), x + wd - ctx.dp(12), y + h - ctx.dp(6)),
                    "world_clock_item",
                    desc=f"{city} {tstr}",
                )
                x0 = x + ctx.dp(32)
                # the time at the end, as wide as it is; the city and how far ahead it is before it
                tx = x + wd - ctx.dp(32) - int(text_width(tstr, ctx.sp(28))) - ctx.dp(4)
                card.children.append(
                    w.text(
                        ctx,
                        (x0, y + ctx.dp(12), tx - ctx.dp(8), y + ctx.dp(12) + city_h),
                        city,
                        "city_name",
                        size=18,
                        style={"ellipsize": True},
                    )
                )
                card.children.append(
                    w.text(
                        ctx,
                        (x0, y + ctx.dp(12) + city_h, tx - ctx.dp(8), y + ctx.dp(12) + city_h + rel_h),
                        rel,
                        "city_day",
                        size=13,
                        color=th.text2,
                        style={"ellipsize": True},
                    )
                )
                card.children.append(
                    w.text(
                        ctx,
                        (tx, y + ctx.dp(6), x + wd - ctx.dp(32), y + h - ctx.dp(6)),
                        tstr,
                        "digital_clock",
                        size=28,
                        align="r",
                    )
                )
                return card

            rows.append(Row(h, build))
        saved = ctx.area
        ctx.area = (l, t, r, bottom)
        try:
            return page(ctx, [tb], rows, key="clock", rid="cities")
        finally:
            ctx.area = saved

    def _stopwatch(self, ctx: Ctx, bottom: int) -> list[View]:
        l, t, r, _ = ctx.area
        tb = self._title(ctx, ctx.tr("Stopwatch", "秒表"))
        sw = ctx.data.setdefault("stopwatch", fresh_stopwatch())
        saved = ctx.area
        ctx.area = (l, t, r, bottom)
        try:
            body, band = stopwatch_rows(ctx, sw), ctx.dp(BUTTONS_H_DP)
            overlays = stopwatch_buttons(ctx, sw)
            return page(ctx, [tb], body, key="stopwatch", rid="stopwatch_view", overlays=overlays, pad_bottom=band)
        finally:
            ctx.area = saved

    def _timer(self, ctx: Ctx, bottom: int) -> list[View]:
        th = ctx.theme
        l, t, r, _ = ctx.area
        tb = self._title(ctx, ctx.tr("Timer", "计时器"))
        timer = ctx.data.setdefault("timer", {"digits": "", "running": False, "paused": False})
        digits = timer["digits"].rjust(6, "0")
        disp = f"{digits[:2]}h {digits[2:4]}m {digits[4:]}s"
        rows: list[Row] = []
        if timer["running"]:
            rows.append(
                Row(
                    ctx.dp(120),
                    lambda x, y, wd: w.text(
                        ctx,
                        (x, y, x + wd, y + ctx.dp(120)),
                        f"{digits[:2]}:{digits[2:4]}:{digits[4:]}",
                        "timer_time_text",
                        size=56,
                        align="c",
                    ),
                )
            )
            rows.append(
                Row(
                    ctx.dp(32),
                    lambda x, y, wd: w.text(
                        ctx,
                        (x, y, x + wd, y + ctx.dp(32)),
                        ctx.tr("Paused", "已暂停") if timer["paused"] else ctx.tr("Running", "正在计时"),
                        "timer_label",
                        size=14,
                        color=th.text2,
                        align="c",
                    ),
                )
            )

            def pause() -> None:
                timer["paused"] = not timer["paused"]

            def delete() -> None:
                timer.update(running=False, paused=False, digits="")

            def buttons(x: int, y: int, wd: int) -> list[View]:
                bw = min(ctx.dp(140), (wd - ctx.dp(48)) // 2)
                cx = x + wd // 2
                return [
                    w.button(
                        ctx,
                        (cx - bw - ctx.dp(8), y + ctx.dp(8), cx - ctx.dp(8), y + ctx.dp(56)),
                        ctx.tr("Delete", "删除"),
                        delete,
                        "timer_delete",
                        kind="outlined",
                    ),
                    w.button(
                        ctx,
                        (cx + ctx.dp(8), y + ctx.dp(8), cx + ctx.dp(8) + bw, y + ctx.dp(56)),
                        ctx.tr("Resume", "继续") if timer["paused"] else ctx.tr("Pause", "暂停"),
                        pause,
                        "timer_pause",
                    ),
                ]

            rows.append(Row(ctx.dp(72), buttons))
        else:
            rows.append(
                Row(
                    ctx.dp(96),
                    lambda x, y, wd: w.text(
                        ctx,
                        (x, y, x + wd, y + ctx.dp(96)),
                        disp,
                        "timer_setup_time",
                        size=44,
                        align="c",
                        color=th.text if timer["digits"] else th.text2,
                    ),
                )
            )

            def press(d: str) -> None:
                if d == "del":
                    timer["digits"] = timer["digits"][:-1]
                elif len(timer["digits"]) < 6 and (timer["digits"] or d != "0"):
                    timer["digits"] += d

            keys = [["1", "2", "3"], ["4", "5", "6"], ["7", "8", "9"], ["00", "0", "del"]]
            kh = ctx.dp(64)
            for row in keys:

                def build(x: int, y: int, wd: int, row: list[str] = row) -> list[View]:
                    kw = min(ctx.dp(88), wd // 3)
                    x0 = x + (wd - 3 * kw) // 2
                    out = []
                    for i, k in enumerate(row):
                        b = (x0 + i * kw + ctx.dp(6), y + ctx.dp(4), x0 + (i + 1) * kw - ctx.dp(6), y + kh - ctx.dp(4))
                        if k == "del":
                            out.append(
                                w.icon_button(
                                    ctx,
                                    b,
                                    "backspace",
                                    ctx.tr("Delete", "删除"),
                                    lambda: press("del"),
                                    "timer_setup_delete",
                                )
                            )
                        else:

                            def tap(k: str = k) -> None:
                                for ch in k:
                                    press(ch)

                            out.append(w.button(ctx, b, k, tap, f"timer_setup_digit_{k}", kind="tonal", size=22))
                    return out

                rows.append(Row(kh, build))

            def start() -> None:
                timer.update(running=True, paused=False)

            rows.append(
                Row(
                    ctx.dp(80),
                    lambda x, y, wd: w.button(
                        ctx,
                        (x + wd // 2 - ctx.dp(48), y + ctx.dp(8), x + wd // 2 + ctx.dp(48), y + ctx.dp(72)),
                        ctx.tr("Start", "开始"),
                        start,
                        "fab",
                        enabled=bool(timer["digits"]),
                    ),
                )
            )
        saved = ctx.area
        ctx.area = (l, t, r, bottom)
        try:
            return page(ctx, [tb], rows, key="timer", rid="timer_view")
        finally:
            ctx.area = saved

    # --- alarm editor --------------------------------------------------------------------------------
    def _edit(self, ctx: Ctx, a: dict[str, Any] | None) -> None:
        hour, minute = (a["hour"], a["minute"]) if a else (DEVICE_HOUR, DEVICE_MINUTE)
        ctx.ui["draft"] = {"pm": hour >= 12, "days": list(a["days"]) if a else [False] * 7}
        ctx.set_field("hour", str(hour % 12 or 12))
        ctx.set_field("minute", f"{minute:02d}")
        ctx.set_field("label", a["label"] if a else "")
        ctx.push(EDIT, {"alarm_id": a["id"] if a else None})

    def _draft_time(self, ctx: Ctx) -> tuple[int, int]:
        try:
            h12 = max(1, min(12, int(ctx.field_value("hour") or "12")))
        except ValueError:
            h12 = 12
        try:
            m = max(0, min(59, int(ctx.field_value("minute") or "0")))
        except ValueError:
            m = 0
        pm = ctx.ui.get("draft", {}).get("pm", False)
        return (h12 % 12) + (12 if pm else 0), m

    def screen_edit(self, ctx: Ctx) -> list[View]:
        th = ctx.theme
        l, t, r, b = ctx.area
        draft = ctx.ui.setdefault("draft", {"pm": False, "days": [False] * 7})
        aid = ctx.extras.get("alarm_id")
        title = ctx.tr("Edit alarm", "修改闹钟") if aid else ctx.tr("Add alarm", "添加闹钟")
        bar = editor_bar(ctx, "toolbar", title, lambda: self._save(ctx), "save_button")

        def step(field: str, d: int) -> None:
            hour, minute = self._draft_time(ctx)
            if field == "hour":
                h12 = (hour % 12 or 12) + d
                h12 = 12 if h12 < 1 else (1 if h12 > 12 else h12)
                ctx.set_field("hour", str(h12))
            else:
                ctx.set_field("minute", f"{(minute + d) % 60:02d}")

        def set_digits(field: str, v: str) -> None:
            ctx.set_field(field, "".join(ch for ch in v if ch.isdigit())[:2])

        col_w = ctx.dp(88)

        def picker(x: int, y: int, wd: int) -> list[View]:
            out: list[View] = []
            total = 2 * col_w + ctx.dp(24) + ctx.dp(96)
            x0 = x + (wd - total) // 2
            for i, (field, desc_up, desc_down) in enumerate(
                [
                    ("hour", ctx.tr("Increase hour", "增加小时"), ctx.tr("Decrease hour", "减少小时")),
                    ("minute", ctx.tr("Increase minute", "增加分钟"), ctx.tr("Decrease minute", "减少分钟")),
                ]
            ):
                cx0 = x0 + i * (col_w + ctx.dp(24))
                out.append(
                    w.icon_button(
                        ctx,
                        (cx0 + ctx.dp(20), y, cx0 + col_w - ctx.dp(20), y + ctx.dp(48)),
                        "add",
                        desc_up,
                        partial(step, field, 1),
                        f"{field}_up",
                    )
                )
                out.append(
                    w.edit(
                        ctx,
                        (cx0, y + ctx.dp(52), cx0 + col_w, y + ctx.dp(124)),
                        field,
                        ctx.field_value(field),
                        "00",
                        partial(set_digits, field),
                        field,
                        action=ctx.hide_keyboard,
                        size=40,
                        box="filled",
                    )
                )
                out[-1].style["align"] = "c"
                out.append(
                    w.icon_button(
                        ctx,
                        (cx0 + ctx.dp(20), y + ctx.dp(128), cx0 + col_w - ctx.dp(20), y + ctx.dp(176)),
                        "minus",
                        desc_down,
                        partial(step, field, -1),
                        f"{field}_down",
                    )
                )
            ax = x0 + 2 * col_w + ctx.dp(40)

            def set_pm(pm: bool) -> None:
                draft["pm"] = pm

            out.append(
                w.chip(
                    ctx,
                    (ax, y + ctx.dp(52), ax + ctx.dp(80), y + ctx.dp(84)),
                    ctx.tr("AM", "上午"),
                    not draft["pm"],
                    lambda: set_pm(False),
                    "am_label",
                )
            )
            out.append(
                w.chip(
                    ctx,
                    (ax, y + ctx.dp(92), ax + ctx.dp(80), y + ctx.dp(124)),
                    ctx.tr("PM", "下午"),
                    draft["pm"],
                    lambda: set_pm(True),
                    "pm_label",
                )
            )
            return out

        rows: list[Row] = [
            Row(ctx.dp(184), picker, ("hour", "minute")),
            w.field_row(
                ctx,
                "label",
                ctx.field_value("label"),
                ctx.tr("Label", "标签"),
                lambda v: ctx.set_field("label", v),
                "label_edit",
                action=ctx.hide_keyboard,
                action_kind="done",
            ),
            w.text_row(ctx, ctx.tr("Repeat", "重复"), "repeat_title", size=14, color=th.text2, height_dp=32),
        ]
        names = DAYS_ZH if ctx.zh else DAYS_EN
        dh = ctx.dp(48)

        def day_row(i: int, n: str, toggle: Callable[[], None], x: int, y: int, wd: int) -> View:
            return w.checkbox(
                ctx,
                (x + ctx.dp(24), y, x + wd - ctx.dp(24), y + dh),
                draft["days"][i],
                f"day_button_{i}",
                toggle,
                n,
            )

        for i, n in enumerate(names):

            def toggle(i: int = i) -> None:
                draft["days"][i] = not draft["days"][i]

            rows.append(Row(dh, partial(day_row, i, n, toggle)))
        if aid:

            def delete() -> None:
                ctx.data["alarms"] = [a for a in ctx.data["alarms"] if a["id"] != aid]
                ctx.finish()
                ctx.toast(ctx.tr("Alarm deleted", "闹钟已删除"))

            rows.append(
                Row(
                    ctx.dp(72),
                    lambda x, y, wd: w.button(
                        ctx,
                        (x + ctx.dp(24), y + ctx.dp(12), x + ctx.dp(184), y + ctx.dp(60)),
                        ctx.tr("Delete", "删除"),
                        delete,
                        "delete",
                        kind="outlined",
                    ),
                )
            )
        return page(ctx, [bar], rows, key="edit", rid="alarm_editor", cls="android.widget.ScrollView")

    def _save(self, ctx: Ctx) -> None:
        hour, minute = self._draft_time(ctx)
        draft = ctx.ui.get("draft", {})
        data = ctx.data
        aid = ctx.extras.get("alarm_id")
        a = next((x for x in data["alarms"] if x["id"] == aid), None)
        if a is None:
            aid = int(data.get("next_id", 1))
            data["next_id"] = aid + 1
            a = {"id": aid}
            data["alarms"].append(a)
        a.update(
            hour=hour,
            minute=minute,
            label=ctx.field_value("label").strip(),
            enabled=True,
            days=list(draft.get("days", [False] * 7)),
        )
        data["alarms"].sort(key=lambda x: (x["hour"], x["minute"], x["id"]))
        ctx.finish()
        ctx.toast(_alarm_set(ctx, hour, minute))
