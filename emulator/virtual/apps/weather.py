"""Weather: a city's current conditions, a 24-hour row (horizontal scroll), and a 7-day forecast with
condition, precipitation chance and high/low; a °C/°F toggle and a city picker. All numbers are fixed tables,
so screen questions ("what is the high on Thursday in London?") have exact answers.
"""

from __future__ import annotations

import datetime as _dt
from typing import Any

from ..ui import dialogs
from ..ui import widgets as w
from ..ui.fonts import text_width, wrap
from ..ui.layout import Ctx, Row, V, hlist
from ..ui.view import View
from .base import App, page
from .common import DEVICE_DATE, DEVICE_HOUR, weekday

PKG = "com.droidharness.weather"
MAIN = f"{PKG}.MainActivity"

CONDITIONS = {
    "sun": ("Sunny", "晴"),
    "partly": ("Partly cloudy", "多云"),
    "cloud": ("Cloudy", "阴"),
    "rain": ("Rain", "雨"),
    "storm": ("Thunderstorms", "雷阵雨"),
}

# city key -> labels, current (temp °C, condition, feels, humidity %, wind km/h), 7 days (high, low, cond, precip %)
CITIES: dict[str, dict[str, Any]] = {
    "mountain_view": {
        "name": ("Mountain View", "山景城"),
        "now": (21, "sun", 21, 48, 11),
        "days": [
            (24, 13, "sun", 0),
            (26, 14, "sun", 0),
            (23, 13, "partly", 10),
            (19, 12, "cloud", 20),
            (17, 11, "rain", 70),
            (20, 12, "partly", 20),
            (25, 14, "sun", 0),
        ],
    },
    "beijing": {
        "name": ("Beijing", "北京"),
        "now": (29, "partly", 31, 55, 9),
        "days": [
            (32, 22, "partly", 10),
            (33, 23, "sun", 0),
            (30, 22, "storm", 60),
            (27, 20, "rain", 80),
            (29, 21, "cloud", 30),
            (31, 22, "sun", 0),
            (34, 24, "sun", 0),
        ],
    },
    "london": {
        "name": ("London", "伦敦"),
        "now": (16, "cloud", 15, 72, 19),
        "days": [
            (18, 11, "cloud", 40),
            (17, 10, "rain", 80),
            (19, 12, "partly", 30),
            (21, 13, "sun", 10),
            (20, 12, "partly", 20),
            (16, 10, "rain", 90),
            (18, 11, "cloud", 50),
        ],
    },
}
CITY_ORDER = ["mountain_view", "beijing", "london"]
# hourly shape: fraction of (high - low) above the low, for hours 0..23
_SHAPE = [
    0.1,
    0.05,
    0.02,
    0.0,
    0.0,
    0.02,
    0.08,
    0.2,
    0.35,
    0.5,
    0.65,
    0.78,
    0.88,
    0.95,
    1.0,
    1.0,
    0.95,
    0.85,
    0.7,
    0.55,
    0.42,
    0.3,
    0.22,
    0.15,
]


def to_unit(c: float, fahrenheit: bool) -> int:
    return round(c * 9 / 5 + 32) if fahrenheit else round(c)


def hourly(city: str) -> list[tuple[int, int, str]]:
    """24 hours from now (DEVICE_HOUR): (hour of day, temp °C, condition)."""
    days = CITIES[city]["days"]
    out = []
    for i in range(24):
        hour = (DEVICE_HOUR + i) % 24
        day = days[(DEVICE_HOUR + i) // 24]
        hi, lo, cond, _ = day
        temp = CITIES[city]["now"][0] if i == 0 else round(lo + (hi - lo) * _SHAPE[hour])
        if cond == "sun" and (hour >= 20 or hour < 6):
            cond = "moon"
        out.append((hour, temp, cond if i else CITIES[city]["now"][1]))
    return out


class WeatherApp(App):
    package = PKG
    labels = {"en": "Weather", "zh": "天气"}
    activities = {MAIN: "main"}
    launcher = MAIN
    color = (3, 155, 229)
    glyph = "partly"

    def seed(self, data: dict[str, Any], locale: str) -> None:
        data["city"] = "mountain_view"
        data["fahrenheit"] = locale == "en"

    def screen_main(self, ctx: Ctx) -> list[View]:
        th = ctx.theme
        data = ctx.data
        city: str = data["city"] if data.get("city") in CITIES else "mountain_view"
        info = CITIES[city]
        f = bool(data.get("fahrenheit"))
        deg = "°"
        l, t, r, b = ctx.area
        cname = ctx.tr(*info["name"])

        def set_unit(fahr: bool) -> None:
            data["fahrenheit"] = fahr

        bar_h = ctx.dp(64)
        bar = V(ctx, w.VIEWGROUP, (l, t, r, t + bar_h), "toolbar", style={"bg": th.bg})
        isz = ctx.dp(48)
        y0 = t + (bar_h - isz) // 2
        bar.children.append(
            w.icon_button(
                ctx,
                (l + ctx.dp(4), y0, l + ctx.dp(4) + isz, y0 + isz),
                "location",
                ctx.tr("Choose city", "选择城市"),
                lambda: ctx.show_dialog({"id": "city"}),
                "city_picker",
            )
        )
        cw = ctx.dp(52)
        bar.children.append(
            w.text(ctx, (l + ctx.dp(56), t, r - 2 * cw - ctx.dp(24), t + bar_h), cname, "city_name", size=22)
        )
        bar.children.append(
            w.chip(
                ctx,
                (r - 2 * cw - ctx.dp(20), y0 + ctx.dp(6), r - cw - ctx.dp(20), y0 + isz - ctx.dp(6)),
                "°C",
                not f,
                lambda: set_unit(False),
                "unit_celsius",
            )
        )
        bar.children.append(
            w.chip(
                ctx,
                (r - cw - ctx.dp(12), y0 + ctx.dp(6), r - ctx.dp(12), y0 + isz - ctx.dp(6)),
                "°F",
                f,
                lambda: set_unit(True),
                "unit_fahrenheit",
            )
        )
        now_t, now_c, feels, hum, wind = info["now"]
        hi0, lo0 = info["days"][0][0], info["days"][0][1]
        cond_name = ctx.tr(*CONDITIONS[now_c])
        wind_s = f"{round(wind / 1.609)} mph" if f else ctx.tr(f"{wind} km/h", f"{wind} 公里/小时")
        rows: list[Row] = []

        def current(x: int, y: int, wd: int) -> list[View]:
            big = ctx.dp(96)
            return [
                w.icon(
                    ctx,
                    (x + ctx.dp(24), y + ctx.dp(16), x + ctx.dp(24) + big, y + ctx.dp(16) + big),
                    now_c,
                    (255, 193, 7) if now_c == "sun" else th.text2,
                    "current_icon",
                    cond_name,
                ),
                w.text(
                    ctx,
                    (x + ctx.dp(136), y + ctx.dp(8), x + wd - ctx.dp(16), y + ctx.dp(88)),
                    f"{to_unit(now_t, f)}{deg}",
                    "current_temp",
                    size=64,
                ),
                w.text(
                    ctx,
                    (x + ctx.dp(136), y + ctx.dp(88), x + wd - ctx.dp(16), y + ctx.dp(116)),
                    cond_name,
                    "current_condition",
                    size=18,
                ),
                w.text(
                    ctx,
                    (x + ctx.dp(24), y + ctx.dp(124), x + wd - ctx.dp(16), y + ctx.dp(150)),
                    ctx.tr(
                        f"H:{to_unit(hi0, f)}{deg}  L:{to_unit(lo0, f)}{deg}",
                        f"最高 {to_unit(hi0, f)}{deg}  最低 {to_unit(lo0, f)}{deg}",
                    ),
                    "high_low",
                    size=16,
                    color=th.text2,
                ),
            ]

        rows.append(Row(ctx.dp(156), current))

        items = [
            (ctx.tr("Feels like", "体感温度"), f"{to_unit(feels, f)}{deg}", "feels_like"),
            (ctx.tr("Humidity", "湿度"), f"{hum}%", "humidity"),
            (ctx.tr("Wind", "风速"), wind_s, "wind"),
        ]
        cw3 = (r - l - ctx.dp(32)) // 3
        # a label over a value in each third; a value too wide for its third takes a second line
        val_lines = max(min(2, len(wrap(val, ctx.sp(18), cw3 - ctx.dp(8)))) for _, val, _ in items)
        lab_h, val_h = max(ctx.dp(24), ctx.line_h(13)), max(ctx.dp(28), ctx.line_h(18, val_lines))
        card_h = ctx.dp(12 + 2 + 10) + lab_h + val_h

        def details(x: int, y: int, wd: int) -> View:
            box = (x + ctx.dp(16), y + ctx.dp(4), x + wd - ctx.dp(16), y + ctx.dp(4) + card_h)
            card = w.card_bg(ctx, box, "details_card")
            for i, (lab, val, rid) in enumerate(items):
                cx0 = x + ctx.dp(16) + i * cw3
                vy = y + ctx.dp(14) + lab_h
                card.children.append(
                    w.text(
                        ctx,
                        (cx0, y + ctx.dp(12), cx0 + cw3, y + ctx.dp(12) + lab_h),
                        lab,
                        f"{rid}_label",
                        size=13,
                        color=th.text2,
                        align="c",
                        style={"ellipsize": True},
                    )
                )
                card.children.append(
                    w.text(
                        ctx,
                        (cx0, vy, cx0 + cw3, vy + val_h),
                        val,
                        rid,
                        size=18,
                        align="c",
                        lines=val_lines,
                        style={"pad": ctx.dp(4)},
                    )
                )
            return card

        rows.append(Row(card_h + ctx.dp(12), details))
        rows.append(
            w.text_row(ctx, ctx.tr("Hourly forecast", "逐小时预报"), "hourly_title", size=16, bold=True, height_dp=40)
        )
        hours = hourly(city)
        hw = ctx.dp(64)

        def hour_label(i: int, hour: int) -> str:
            if i == 0:
                return ctx.tr("Now", "现在")
            h12 = hour % 12 or 12
            return ctx.tr(f"{h12} {'AM' if hour < 12 else 'PM'}", f"{hour}时")

        def hour_cell(i: int) -> Any:
            hour, temp, cond = hours[i]

            def build(x: int, y: int, h: int) -> View:
                label = hour_label(i, hour)
                v = V(
                    ctx,
                    w.LINEAR,
                    (x, y, x + hw, y + h),
                    "hourly_item",
                    desc=f"{label} {to_unit(temp, f)}{deg} {ctx.tr(*CONDITIONS.get(cond, CONDITIONS['sun']))}",
                )
                v.children.append(
                    w.text(
                        ctx,
                        (x, y + ctx.dp(4), x + hw, y + ctx.dp(28)),
                        label,
                        "hour_time",
                        size=13,
                        color=th.text2,
                        align="c",
                    )
                )
                v.children.append(
                    w.icon(
                        ctx,
                        (x + ctx.dp(16), y + ctx.dp(32), x + ctx.dp(48), y + ctx.dp(64)),
                        cond,
                        (255, 193, 7) if cond == "sun" else th.text2,
                    )
                )
                v.children.append(
                    w.text(
                        ctx,
                        (x, y + ctx.dp(68), x + hw, y + ctx.dp(94)),
                        f"{to_unit(temp, f)}{deg}",
                        "hour_temp",
                        size=15,
                        align="c",
                    )
                )
                return v

            return build

        rows.append(
            Row(
                ctx.dp(104),
                lambda x, y, wd: hlist(
                    ctx,
                    f"hourly_{city}",
                    (x, y, x + wd, y + ctx.dp(100)),
                    [(hw, hour_cell(i)) for i in range(len(hours))],
                    "hourly_list",
                    pad=ctx.dp(8),
                ),
            )
        )
        rows.append(
            w.text_row(ctx, ctx.tr("7-day forecast", "7 天预报"), "daily_title", size=16, bold=True, height_dp=40)
        )
        # columns from the right, as wide as their widest text: low, high, precipitation; the day's name on the
        # left; the condition between them, on a second line when it needs one
        s14, s16 = ctx.sp(14), ctx.sp(16)
        days = info["days"]
        temp_w = max(text_width(f"{to_unit(v, f)}{deg}", s16) for d in days for v in d[:2]) + ctx.dp(4)
        pop_w = max(text_width(f"{d[3]}%", s14) for d in days) + ctx.dp(4)
        names = [
            ctx.tr("Today", "今天") if i == 0 else weekday(DEVICE_DATE + _dt.timedelta(days=i), ctx.zh)
            for i in range(len(days))
        ]
        name_w = max(ctx.dp(72), int(max(text_width(n, s16) for n in names)) + ctx.dp(4))
        cond_x = ctx.dp(16) + name_w + ctx.dp(4 + 28 + 6)  # after the name and the icon
        cond_w = (r - l) - ctx.dp(16) - int(2 * temp_w + pop_w) - ctx.dp(3 * 8) - cond_x
        for i, (hi, lo, cond, pop) in enumerate(days):
            dname = names[i]
            cn = ctx.tr(*CONDITIONS[cond])
            cond_lines = min(2, len(wrap(cn, s14, cond_w)))
            row_h = max(ctx.dp(56), ctx.line_h(16) + ctx.dp(16), ctx.line_h(14, cond_lines) + ctx.dp(8))

            def build(
                x: int,
                y: int,
                wd: int,
                hi: int = hi,
                lo: int = lo,
                cond: str = cond,
                pop: int = pop,
                dname: str = dname,
                cn: str = cn,
                cond_lines: int = cond_lines,
                row_h: int = row_h,
            ) -> View:
                v = V(
                    ctx,
                    w.LINEAR,
                    (x, y, x + wd, y + row_h),
                    "daily_item",
                    desc=f"{dname}, {cn}, {pop}%, {to_unit(hi, f)}{deg}/{to_unit(lo, f)}{deg}",
                )
                x0 = x + ctx.dp(16)
                iy = y + (row_h - ctx.dp(28)) // 2
                v.children.append(w.text(ctx, (x0, y, x0 + name_w, y + row_h), dname, "day_name", size=16))
                v.children.append(
                    w.icon(
                        ctx,
                        (x0 + name_w + ctx.dp(4), iy, x0 + name_w + ctx.dp(32), iy + ctx.dp(28)),
                        cond,
                        (255, 193, 7) if cond == "sun" else th.text2,
                        "day_icon",
                        cn,
                    )
                )
                lo_x = x + wd - ctx.dp(16) - int(temp_w)
                hi_x = lo_x - ctx.dp(8) - int(temp_w)
                pop_x = hi_x - ctx.dp(8) - int(pop_w)
                v.children.append(
                    w.text(
                        ctx,
                        (x + cond_x, y, pop_x - ctx.dp(8), y + row_h),
                        cn,
                        "day_condition",
                        size=14,
                        color=th.text2,
                        lines=cond_lines,
                        style={"ellipsize": True},
                    )
                )
                v.children.append(
                    w.text(
                        ctx,
                        (pop_x, y, hi_x - ctx.dp(8), y + row_h),
                        f"{pop}%",
                        "precip",
                        size=14,
                        color=(66, 133, 244) if pop else th.text2,
                        align="r",
                    )
                )
                v.children.append(
                    w.text(
                        ctx,
                        (hi_x, y, lo_x - ctx.dp(8), y + row_h),
                        f"{to_unit(hi, f)}{deg}",
                        "day_high",
                        size=16,
                        align="r",
                    )
                )
                v.children.append(
                    w.text(
                        ctx,
                        (lo_x, y, x + wd - ctx.dp(16), y + row_h),
                        f"{to_unit(lo, f)}{deg}",
                        "day_low",
                        size=16,
                        color=th.text2,
                        align="r",
                    )
                )
                return v

            rows.append(Row(row_h, build))
        rows.append(
            w.text_row(
                ctx,
                ctx.tr("Updated 12:00 PM · Source: DroidHarness Weather", "更新于 12:00 · 数据来源：DroidHarness 天气"),
                "attribution",
                size=12,
                color=th.text2,
                lines=3,
            )
        )
        return page(ctx, [bar], rows, key=f"weather_{city}", rid="weather_scroll", cls="android.widget.ScrollView")

    def dialog_city(self, ctx: Ctx, spec: dict[str, Any]) -> View:
        data = ctx.data
        rows = []
        h = ctx.dp(56)
        for key in CITY_ORDER:

            def pick(key: str = key) -> None:
                data["city"] = key
                ctx.dismiss_dialog()

            def build(x: int, y: int, wd: int, key: str = key, pick: Any = pick) -> View:
                v = w.checkbox(
                    ctx,
                    (x + ctx.dp(24), y, x + wd - ctx.dp(24), y + h),
                    data.get("city") == key,
                    "city_option",
                    pick,
                    ctx.tr(*CITIES[key]["name"]),
                    radio=True,
                )
                return v

            rows.append(Row(h, build))
        return dialogs.dialog(
            ctx,
            ctx.tr("Choose a city", "选择城市"),
            "",
            [(ctx.tr("Cancel", "取消"), "android:id/button2", ctx.dismiss_dialog)],
            rows=rows,
            on_cancel=ctx.dismiss_dialog,
        )
