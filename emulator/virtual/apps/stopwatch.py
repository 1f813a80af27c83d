"""Clock's Stopwatch tab: the elapsed time (`MM:SS.hh`, hours in front past an hour), the laps newest first (number,
lap time, total), and under them DeskClock's three round image buttons, known by their content descriptions
(StopwatchFragment's sw_*_button strings): the big `fab` is Start, or Pause while it runs; `left_button` Reset
once it has counted; `right_button` Lap while it runs. Unlike the frozen status-bar clock, a running stopwatch
counts the device's clock (SystemClock.elapsedRealtime, as DeskClock's does: the host's time on a real clock,
simulated time on a virtual one), so a pause after a wait shows that wait.

State in the Clock app's data: {"running", "started" (the device's uptime at the last start, seconds), "elapsed"
(seconds before it), "laps" (totals at each lap)}; `pm clear` resets it, `am force-stop` keeps it, as DeskClock
keeps it."""

from __future__ import annotations

from typing import Any

from ..ui import widgets as w
from ..ui.layout import Ctx, Row, V
from ..ui.view import View
from ..ui.widgets import Click

MAX_LAPS = 98  # DeskClock records no more (canRecordMoreLaps): the Lap button goes


def fresh() -> dict[str, Any]:
    return {"running": False, "started": 0.0, "elapsed": 0.0, "laps": []}


def elapsed(sw: dict[str, Any], now: float) -> float:
    """Seconds on the stopwatch at the device's uptime `now`."""
    run = now - sw["started"] if sw["running"] else 0.0
    return sw["elapsed"] + max(0.0, run)


def fmt(seconds: float) -> str:
    """DeskClock's stopwatch text: `MM:SS.hh`, `H:MM:SS.hh` from an hour."""
    hundredths = int(seconds * 100)
    h, rest = divmod(hundredths, 360_000)
    m, rest = divmod(rest, 6000)
    s, hh = divmod(rest, 100)
    return f"{h}:{m:02d}:{s:02d}.{hh:02d}" if h else f"{m:02d}:{s:02d}.{hh:02d}"


def start(sw: dict[str, Any], now: float) -> None:
    if not sw["running"]:
        sw.update(running=True, started=now)


def pause(sw: dict[str, Any], now: float) -> None:
    if sw["running"]:
        sw.update(running=False, elapsed=elapsed(sw, now), started=0.0)


def lap(sw: dict[str, Any], now: float) -> None:
    if sw["running"]:
        sw["laps"].append(elapsed(sw, now))


def reset(sw: dict[str, Any]) -> None:
    sw.update(fresh())


def rows(ctx: Ctx, sw: dict[str, Any]) -> list[Row]:
    """The tab's scrolling body: the time, the laps."""
    th = ctx.theme
    now = elapsed(sw, ctx.model.uptime())
    out: list[Row] = [
        Row(
            ctx.dp(120),
            lambda x, y, wd: w.text(
                ctx, (x, y, x + wd, y + ctx.dp(120)), fmt(now), "stopwatch_time_text", size=56, align="c"
            ),
        )
    ]
    laps = sw["laps"]
    h = ctx.dp(48)
    for i in range(len(laps), 0, -1):
        total = laps[i - 1]
        split = total - (laps[i - 2] if i > 1 else 0.0)

        def build(x: int, y: int, wd: int, i: int = i, split: float = split, total: float = total) -> View:
            number = ctx.tr(f"Lap {i}", f"第 {i} 圈")
            item = w.card_bg(ctx, (x + ctx.dp(16), y, x + wd - ctx.dp(16), y + h), "lap_item", desc=number)
            third = (wd - ctx.dp(64)) // 3
            x0 = x + ctx.dp(32)
            for k, (s, rid) in enumerate([(number, "lap_number"), (fmt(split), "lap_time"), (fmt(total), "lap_total")]):
                item.children.append(
                    w.text(
                        ctx,
                        (x0 + k * third, y, x0 + (k + 1) * third, y + h),
                        s,
                        rid,
                        size=16,
                        color=th.text if k else th.text2,
                        align="l" if k == 0 else "r",
                    )
                )
            return item

        out.append(Row(h, build))
    return out


BUTTONS_H_DP = 112  # the band the buttons take at the bottom of the content area (the body scrolls above it)


def _round_button(ctx: Ctx, cx: int, cy: int, size: int, icon: str, desc: str, on_click: Click, rid: str) -> View:
    """A FloatingActionButton: an ImageButton with an icon and a content description, no text."""
    th = ctx.theme
    big = rid == "fab"
    return V(
        ctx,
        w.IMAGE_BUTTON,
        (cx - size // 2, cy - size // 2, cx + size // 2, cy + size // 2),
        rid,
        desc=desc,
        clickable=True,
        focusable=True,
        on_click=on_click,
        style={
            "bg": th.primary_container if big else th.surface2,
            "radius": ctx.dp(28) if big else size // 2,
            "icon": icon,
            "icon_color": th.on_primary_container if big else th.text,
            "inset": size // 4,
            "shadow": big,
        },
    )


def buttons(ctx: Ctx, sw: dict[str, Any]) -> list[View]:
    """The buttons at the bottom of the content area (`ctx.area`), as DeskClock's fab container: Reset, Start or
    Pause, Lap; a button that is INVISIBLE there (Reset before a start, Lap unless running) is not in the tree."""
    l, _, r, b = ctx.area
    uptime = ctx.model.uptime
    cx, cy = (l + r) // 2, b - ctx.dp(BUTTONS_H_DP // 2)
    gap = min(ctx.dp(120), (r - l) // 3)
    out: list[View] = []
    if sw["running"] or elapsed(sw, uptime()) > 0:
        out.append(
            _round_button(
                ctx, cx - gap, cy, ctx.dp(56), "delete", ctx.tr("Reset", "重置"), lambda: reset(sw), "left_button"
            )
        )
    if sw["running"]:
        fab = _round_button(
            ctx, cx, cy, ctx.dp(80), "pause", ctx.tr("Pause", "暂停"), lambda: pause(sw, uptime()), "fab"
        )
    else:
        fab = _round_button(
            ctx, cx, cy, ctx.dp(80), "play", ctx.tr("Start", "开始"), lambda: start(sw, uptime()), "fab"
        )
    out.append(fab)
    if sw["running"] and len(sw["laps"]) < MAX_LAPS:
        out.append(
            _round_button(
                ctx,
                cx + gap,
                cy,
                ctx.dp(56),
                "stopwatch",
                ctx.tr("Lap", "一圈"),
                lambda: lap(sw, uptime()),
                "right_button",
            )
        )
    return out
