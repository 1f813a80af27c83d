"""Clock's Stopwatch tab: the elapsed time (`MM:SS.hh`, hours in front past an hour), Start / Pause / Resume, Lap
while it runs and Reset while it is paused, and the laps newest first (number, lap time, total). Unlike the
frozen status-bar clock, a running stopwatch counts the device's clock (SystemClock.elapsedRealtime, as DeskClock's
does: the host's time on a real clock, simulated time on a virtual one), so a pause after a wait shows that wait.

State in the Clock app's data: {"running", "started" (the device's uptime at the last start, seconds), "elapsed"
(seconds before it), "laps" (totals at each lap)}; `pm clear` resets it, `am force-stop` keeps it, as DeskClock
keeps it."""

from __future__ import annotations

from typing import Any

from ..ui import widgets as w
from ..ui.layout import Ctx, Row
from ..ui.view import View


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
    """The tab's body: the time, the buttons, the laps."""
    th = ctx.theme
    uptime = ctx.model.uptime
    now = elapsed(sw, uptime())
    out: list[Row] = [
        Row(
            ctx.dp(120),
            lambda x, y, wd: w.text(
                ctx, (x, y, x + wd, y + ctx.dp(120)), fmt(now), "stopwatch_time_text", size=56, align="c"
            ),
        )
    ]

    def buttons(x: int, y: int, wd: int) -> list[View]:
        bw = min(ctx.dp(140), (wd - ctx.dp(48)) // 2)
        cx = x + wd // 2
        left = (cx - bw - ctx.dp(8), y + ctx.dp(8), cx - ctx.dp(8), y + ctx.dp(56))
        right = (cx + ctx.dp(8), y + ctx.dp(8), cx + ctx.dp(8) + bw, y + ctx.dp(56))
        if sw["running"]:
            return [
                w.button(ctx, left, ctx.tr("Lap", "计次"), lambda: lap(sw, uptime()), "stopwatch_lap", kind="outlined"),
                w.button(ctx, right, ctx.tr("Pause", "暂停"), lambda: pause(sw, uptime()), "stopwatch_pause"),
            ]
        label = ctx.tr("Resume", "继续") if now > 0 else ctx.tr("Start", "开始")
        views = [w.button(ctx, right, label, lambda: start(sw, uptime()), "stopwatch_start")]
        if now > 0:
            views.insert(
                0, w.button(ctx, left, ctx.tr("Reset", "重置"), lambda: reset(sw), "stopwatch_reset", kind="outlined")
            )
        return views

    out.append(Row(ctx.dp(72), buttons))
    laps = sw["laps"]
    h = ctx.dp(48)
    for i in range(len(laps), 0, -1):
        total = laps[i - 1]
        split = total - (laps[i - 2] if i > 1 else 0.0)

        def build(x: int, y: int, wd: int, i: int = i, split: float = split, total: float = total) -> View:
            item = w.card_bg(ctx, (x + ctx.dp(16), y, x + wd - ctx.dp(16), y + h), "lap_item", desc=f"Lap {i}")
            third = (wd - ctx.dp(64)) // 3
            x0 = x + ctx.dp(32)
            for k, (s, rid) in enumerate(
                [(ctx.tr(f"Lap {i}", f"第 {i} 圈"), "lap_number"), (fmt(split), "lap_time"), (fmt(total), "lap_total")]
            ):
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
