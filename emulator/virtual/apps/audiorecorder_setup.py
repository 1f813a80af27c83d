"""Audio Recorder's first run and settings screens.

- WelcomeActivity (`activity_welcome`): a one-page pager (`pager`: `txt_title` "Audio Recorder", `txt_details`
  "Welcome to a simple and fast application") and "Get started" (`btn_action`), which opens SetupActivity and
  finishes. AndroidWorld's activity map names this activity, so `am start -n` of it shows it whatever the state.
- SetupActivity (`activity_setup`): "Setup", the theme (`themeColor`) and naming (`name_format`) spinners, the
  SettingViews `setting_recording_format` (M4a / Wav / 3gp), `setting_frequency`, `setting_bitrate` (M4a only),
  `setting_channels` (3gp: 8 / 16 kHz, mono), the expected size a minute (`txt_size_per_min`), the last choice's
  information (`txt_information`), Reset (`btn_reset`) and Apply (`btn_apply`: the first run is over, MainActivity).
  A choice is stored at once (PrefsImpl's `setting_*`).
- SettingsActivity (`activity_settings`): back (`btnBack`), Trash, File browser, the theme, the records' location,
  "Keep screen ON while recording" (`swKeepScreenOn`), "Show rename dialog after recording is completed"
  (`swAskToRename`), naming, the same SettingViews, Reset, the records' count and total duration, the version.
"""

from __future__ import annotations

from typing import Any

from ..ui import widgets as w
from ..ui.layout import Ctx, Row, V
from ..ui.view import View
from . import audiorecorder_data as data
from .audiorecorder_data import MAIN, PRIMARY, PRIMARY_DARK, SETUP, TEXT, TEXT2
from .audiorecorder_widgets import replace_top, setting_view, spinner_popup, spinner_row
from .base import page

Spec = dict[str, Any]


# --- Welcome -----------------------------------------------------------------------------------------------------
def welcome_screen(ctx: Ctx) -> list[View]:
    l, t, r, b = ctx.area
    btn_h = ctx.dp(56)
    pager = V(ctx, "androidx.viewpager2.widget.ViewPager2", (l, t, r, b - btn_h - ctx.dp(16)), "pager")
    mid = (t + b) // 2
    title_h, text_h = ctx.line_h(34), ctx.line_h(18, 2)
    page_box = (l, mid - title_h, r, mid + ctx.dp(8) + text_h)
    item = V(ctx, w.LINEAR, page_box)
    item.children.append(
        w.text(
            ctx,
            (l + ctx.dp(24), mid - title_h, r - ctx.dp(24), mid),
            "Audio Recorder",
            "txt_title",
            size=34,
            color=TEXT,
            align="c",
        )
    )
    item.children.append(
        w.text(
            ctx,
            (l + ctx.dp(24), mid + ctx.dp(8), r - ctx.dp(24), mid + ctx.dp(8) + text_h),
            "Welcome to a simple and fast application",
            "txt_details",
            size=18,
            color=TEXT2,
            align="c",
            lines=2,
        )
    )
    pager.children.append(item)
    image = w.icon(
        ctx,
        (l + (r - l) // 3, t + ctx.dp(48), r - (r - l) // 3, mid - title_h - ctx.dp(24)),
        "sound",
        TEXT2,
        "item_image_first",
    )
    action = w.button(
        ctx,
        (l + ctx.dp(24), b - btn_h - ctx.dp(16), r - ctx.dp(24), b - ctx.dp(16)),
        "Get started",
        lambda: replace_top(ctx, SETUP),
        "btn_action",
    )
    action.style.update(bg=TEXT, fg=PRIMARY)
    return [image, pager, action]


# --- the recording settings (Setup and Settings) ------------------------------------------------------------------
def _last_info(ctx: Ctx, text: str) -> None:
    ctx.ui["setup_info"] = text


def _pick_format(ctx: Ctx, fmt: str) -> None:
    fs = ctx.model.fs
    data.put_setting(fs, "setting_recording_format", fmt)
    s = data.settings(fs)
    if fmt == "3gp":  # only 8 and 16 kHz, mono
        if s.sample_rate not in (8000, 16000):
            data.put_setting(fs, "setting_sample_rate", 16000)
        data.put_setting(fs, "setting_channel_count", 1)
    ctx.ui["setup_info"] = data.INFO[("fmt", fmt)]


def recording_settings(ctx: Ctx) -> list[Row]:
    """The four SettingViews, as the settings stand (Bitrate only for M4a; 3gp: 8 / 16 kHz, mono)."""
    fs = ctx.model.fs
    s = data.settings(fs)
    rates = data.SAMPLE_RATES[:2] if s.fmt == "3gp" else data.SAMPLE_RATES
    channels = data.CHANNELS[1:] if s.fmt == "3gp" else data.CHANNELS

    def put(key: str, kind: str) -> Any:
        def pick(value: Any) -> None:
            data.put_setting(fs, key, value)
            ctx.ui["setup_info"] = data.INFO.get((kind, value), "")

        return pick

    def fmt(f: Any) -> None:
        _pick_format(ctx, str(f))

    info = data.SECTION_INFO
    rows = [
        setting_view(ctx, "setting_recording_format", "Recording format:", data.FORMATS, s.fmt, fmt, info["fmt"]),
        setting_view(
            ctx,
            "setting_frequency",
            "Sample rate:",
            rates,
            s.sample_rate,
            put("setting_sample_rate", "rate"),
            info["rate"],
        ),
    ]
    if s.fmt == "m4a":
        rows.append(
            setting_view(
                ctx,
                "setting_bitrate",
                "Bitrate:",
                data.BITRATES,
                s.bitrate,
                put("setting_bitrate", "bitrate"),
                info["bitrate"],
            )
        )
    rows.append(
        setting_view(
            ctx,
            "setting_channels",
            "Channel count:",
            channels,
            s.channels,
            put("setting_channel_count", "channels"),
            info["channels"],
        )
    )
    return rows


def _naming_labels(ctx: Ctx) -> list[str]:
    when = data.local_time(ctx.model, int(ctx.model.now() * 1000))
    return [f"Naming: {data.record_name(n, 1, when)}.m4a" for n in data.NAMINGS]


def naming_row(ctx: Ctx) -> Row:
    s = data.settings(ctx.model.fs)
    index = data.NAMINGS.index(s.naming) if s.naming in data.NAMINGS else 0
    return spinner_row(
        ctx, "name_format", _naming_labels(ctx)[index], lambda: ctx.show_dialog({"id": "naming"}), "edit"
    )


def theme_row(ctx: Ctx) -> Row:
    return spinner_row(ctx, "themeColor", data.THEMES[0], lambda: ctx.show_dialog({"id": "theme"}), "display")


def info_rows(ctx: Ctx) -> list[Row]:
    s = data.settings(ctx.model.fs)
    info = str(ctx.ui.get("setup_info") or data.INFO.get(("fmt", s.fmt), ""))
    return [
        w.text_row(ctx, data.size_per_min(s), "txt_size_per_min", size=16, color=TEXT, bold=True),
        w.text_row(ctx, info, "txt_information", size=14, color=TEXT2, lines=4),
    ]


def setup_dialog(ctx: Ctx, spec: Spec) -> View | None:
    """The spinners' drop-downs."""
    kind = spec.get("id")
    fs = ctx.model.fs
    if kind == "naming":
        s = data.settings(fs)
        index = data.NAMINGS.index(s.naming) if s.naming in data.NAMINGS else 0
        return spinner_popup(
            ctx, _naming_labels(ctx), index, lambda i: data.put_setting(fs, "setting_naming_format", data.NAMINGS[i])
        )
    if kind == "theme":  # the other themes are left out: the pick keeps Blue Gray
        return spinner_popup(ctx, data.THEMES, 0, lambda i: None)
    return None


# --- Setup -------------------------------------------------------------------------------------------------------
def _apply(ctx: Ctx) -> None:
    data.first_run_executed(ctx.model.fs)
    replace_top(ctx, MAIN)


def _reset(ctx: Ctx) -> None:
    data.reset_settings(ctx.model.fs)
    ctx.ui.pop("setup_info", None)


def setup_screen(ctx: Ctx) -> list[View]:
    l, t, r, b = ctx.area
    bar_h = ctx.dp(56)
    bar = V(ctx, w.LINEAR, (l, t, r, t + bar_h), "toolbar", style={"bg": PRIMARY_DARK})
    bar.children.append(w.text(ctx, (l + ctx.dp(16), t, r - ctx.dp(16), t + bar_h), "Setup", size=20, color=TEXT))
    foot_h = ctx.dp(72)
    rows = [theme_row(ctx), naming_row(ctx), *recording_settings(ctx), *info_rows(ctx)]
    btn_y = b - foot_h + ctx.dp(12)
    half = (r - l) // 2
    reset = w.button(
        ctx,
        (l + ctx.dp(16), btn_y, l + half - ctx.dp(8), btn_y + ctx.dp(48)),
        "Reset",
        lambda: _reset(ctx),
        "btn_reset",
        kind="outlined",
    )
    reset.style.update(fg=TEXT, border=TEXT2)
    apply = w.button(
        ctx,
        (l + half + ctx.dp(8), btn_y, r - ctx.dp(16), btn_y + ctx.dp(48)),
        "Apply",
        lambda: _apply(ctx),
        "btn_apply",
    )
    apply.style.update(bg=TEXT, fg=PRIMARY)
    return page(
        ctx, [bar], rows, key="setup", rid="", footer=[reset, apply], footer_h=foot_h, cls="android.widget.ScrollView"
    )


# --- Settings ----------------------------------------------------------------------------------------------------
def _switch_row(ctx: Ctx, rid: str, label: str, key: str, default: bool) -> Row:
    fs = ctx.model.fs
    on = data.prefs(fs).get(key, default) is not False
    h = max(ctx.dp(56), ctx.line_h(16, 2) + ctx.dp(16))

    def flip() -> None:
        data.PREFS.put(fs, key, not on)

    def build(x: int, y: int, wd: int) -> View:
        row = V(ctx, w.LINEAR, (x, y, x + wd, y + h))
        row.children.append(
            w.text(ctx, (x + ctx.dp(16), y, x + wd - ctx.dp(72), y + h), label, size=16, color=TEXT, lines=2)
        )
        row.children.append(
            w.switch(ctx, (x + wd - ctx.dp(64), y + ctx.dp(12), x + wd - ctx.dp(16), y + h - ctx.dp(12)), on, rid, flip)
        )
        return row

    return Row(h, build)


def _text_row(ctx: Ctx, rid: str, text: str, on_click: Any = None, lines: int = 1) -> Row:
    h = max(ctx.dp(52), ctx.line_h(16, lines) + ctx.dp(16))
    return Row(
        h,
        lambda x, y, wd: w.text(
            ctx,
            (x + ctx.dp(16), y, x + wd - ctx.dp(16), y + h),
            text,
            rid,
            size=16,
            color=TEXT,
            lines=lines,
            clickable=on_click is not None,
            on_click=on_click,
        ),
    )


def settings_screen(ctx: Ctx) -> list[View]:
    l, t, r, b = ctx.area
    fs = ctx.model.fs
    bar_h = ctx.dp(56)
    bar = V(ctx, w.LINEAR, (l, t, r, t + bar_h), "toolbar", style={"bg": PRIMARY_DARK})
    isz = ctx.dp(48)
    y0 = t + (bar_h - isz) // 2
    bar.children.append(
        w.icon_button(ctx, (l + ctx.dp(4), y0, l + ctx.dp(4) + isz, y0 + isz), "back", "", ctx.finish, "btnBack", TEXT)
    )
    bar.children.append(w.text(ctx, (l + ctx.dp(64), t, r - ctx.dp(16), t + bar_h), "Settings", size=20, color=TEXT))
    rows_db = data.records(fs)
    total = sum(int(r["duration"]) for r in rows_db) // 1000
    left_out = lambda: ctx.toast("Left out in this twin")  # noqa: E731
    rows = [
        _text_row(ctx, "btnTrash", "Trash", left_out),
        _text_row(ctx, "btn_file_browser", "File browser", left_out),
        theme_row(ctx),
        w.text_row(ctx, f"Records location:\n{data.RECORDS_DIR}", "txt_records_location", size=16, color=TEXT, lines=8),
        _switch_row(ctx, "swKeepScreenOn", "Keep screen ON while recording", "keep_screen_on", False),
        _switch_row(
            ctx,
            "swAskToRename",
            "Show rename dialog after recording is completed",
            "is_ask_rename_after_stop_recording",
            True,
        ),
        naming_row(ctx),
        *info_rows(ctx),
        Row(
            ctx.dp(64),
            lambda x, y, wd: _reset_button(ctx, (x + ctx.dp(16), y + ctx.dp(8), x + wd - ctx.dp(16), y + ctx.dp(56))),
        ),
        *recording_settings(ctx),
        _text_row(ctx, "btnRate", "Rate app", left_out),
        _text_row(ctx, "btnRequest", "Request or feedback", left_out),
        _text_row(ctx, "txt_records_count", f"Total records count: {len(rows_db)}"),
        _text_row(ctx, "txt_total_duration", f"Total recorded duration: {data.fmt_duration(total)}"),
        _text_row(ctx, "txtAbout", f"Audio Recorder\nVersion {data.VERSION_NAME}", lines=2),
    ]
    return page(ctx, [bar], rows, key="settings", rid="", cls="android.widget.ScrollView")


def _reset_button(ctx: Ctx, box: tuple[int, int, int, int]) -> View:
    v = w.button(ctx, box, "Reset", lambda: _reset(ctx), "btnReset", kind="outlined")
    v.style.update(fg=TEXT, border=TEXT2)
    return v
