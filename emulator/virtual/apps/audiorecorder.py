"""Audio Recorder (`com.dimowner.audiorecorder` 0.9.26, version code 926: the build AndroidWorld installs), Dmytro
Ponomarenko's open-source recorder, over its records database, preferences and record files
(`audiorecorder_data`).

- MainActivity (the launcher's): on a first run (PrefsImpl's `is_first_run`) it opens WelcomeActivity and goes;
  WelcomeActivity's "Get started" (`btn_action`) opens SetupActivity, whose Apply (`btn_apply`) ends the first
  run and opens MainActivity (`audiorecorder_setup`). AndroidWorld's one-time set-up only launches the app (and
  force-stops it), so its tasks meet the welcome screen.
- The main screen (`activity_main`): `txt_progress` (the recording time, MM:SS), `txt_name` (the active record's
  name with a pencil, a tap renames it; "Recording…" / "Paused" while recording), `txt_record_info`
  ("0.01 Mb, M4a, 44.1kHz"), `txt_zero_time` / `txt_duration`, `play_progress`, and the bottom panel: `btn_settings`,
  `btn_record_delete`, `btn_record` (content description "Recording: %s", as the app's layout names it: it records,
  pauses and resumes), `btn_record_stop`, `btn_records_list`; the toolbar's `btn_import` and `btn_share` (the active
  record's menu: Share, Information, Rename, Open with…, Save as…, Delete).
- Recording counts the device's clock (elapsedRealtime) while it is not paused; the recording lives in the app's
  process (its RecordingService): a force-stop ends it, leaving the empty file and its row. Stop writes the file
  and shows the rename dialog ("New name", `input_name`, "Don't ask again" `check_box`, Cancel
  `dialog_negative_btn` / Save `dialog_positive_btn`) while `is_ask_rename_after_stop_recording` holds.
- The active record's file gone (deleted or moved behind the app's back), the app says so: "Warning!", "Some of
  your records was deleted or moved" (`dialog_ok_btn`, `dialog_details_btn`).
- RecordsActivity lists the records (`audiorecorder_records`); SettingsActivity the settings.
Left out: playback (the play button shows the playing state, no sound), import, sharing and "Open with" (they
need other apps), the waveform's amplitudes (a recording is silence), the recording notification, the trash,
lost-records and file-browser screens (a record moved to the trash stays in `trash`), themes other than the default,
the runtime permission request (AndroidWorld's set-up grants RECORD_AUDIO). PrefsImpl's long preferences
(`record_counter`, `active_record`) are written as `int` elements (appstorage.SharedPrefs writes no `long`).
"""

from __future__ import annotations

from typing import Any

from ..ui import widgets as w
from ..ui.fonts import text_width
from ..ui.layout import Ctx, Row, V
from ..ui.theme import Color
from ..ui.view import View
from . import audiorecorder_data as data
from .audiorecorder_data import MAIN, PKG, PRIMARY, RECORDS, SETTINGS, SETUP, TEXT, TEXT2, WELCOME
from .audiorecorder_dialogs import ask_name, record_dialog
from .audiorecorder_records import records_dialog, records_opened, records_screen
from .audiorecorder_setup import settings_screen, setup_dialog, setup_screen, welcome_screen
from .audiorecorder_widgets import replace_top, yes_no
from .base import App, page

PERMISSIONS = tuple(
    f"android.permission.{p}"
    for p in ("RECORD_AUDIO", "INTERNET", "FOREGROUND_SERVICE", "VIBRATE", "POST_NOTIFICATIONS")
)
RECORDING_DESC = "Recording: %s"  # @string/recording, unformatted, is btn_record's content description


def recording(ctx: Ctx) -> dict[str, Any] | None:
    """The recording under way in the app's process (its RecordingService), if any."""
    rec = ctx.ui.get("rec")
    return rec if isinstance(rec, dict) else None


def elapsed(ctx: Ctx, rec: dict[str, Any]) -> float:
    run = ctx.model.uptime() - float(rec["started"]) if not rec["paused"] else 0.0
    return float(rec["elapsed"]) + max(0.0, run)


class AudioRecorderApp(App):
    package = PKG
    labels = {"en": "Audio Recorder", "zh": "Audio Recorder"}
    activities = {MAIN: "main", WELCOME: "welcome", SETUP: "setup", RECORDS: "records", SETTINGS: "settings"}
    launcher = MAIN
    color = PRIMARY
    glyph = "mic"
    version_name = data.VERSION_NAME
    version_code = data.VERSION_CODE
    installed = True  # as AndroidWorld installs it
    permissions = PERMISSIONS
    databases = (data.DB,)

    def window_bg(self, ctx: Ctx) -> Color:
        return PRIMARY

    # --- lifecycle -----------------------------------------------------------------------------------
    def on_foreground(self, ctx: Ctx) -> None:
        ex = ctx.extras
        if ex.get("_created"):
            return
        ex["_created"] = True
        if ctx.activity == RECORDS:
            records_opened(ctx)
        if ctx.activity != MAIN:
            return
        fs = ctx.model.fs
        data.make_records_dir(fs)  # FileRepository.updateRecordingDir (onStart)
        if data.first_run(fs):  # MainPresenter.checkFirstRun: the welcome screen, this activity finishes
            replace_top(ctx, WELCOME)
            return
        if "is_ask_rename_after_stop_recording" not in data.prefs(fs):
            data.PREFS.put(fs, "is_ask_rename_after_stop_recording", True)
        self.check_lost(ctx)

    def check_lost(self, ctx: Ctx) -> None:
        """loadActiveRecord reads the active record; its file gone, the lost-records warning."""
        fs = ctx.model.fs
        row = data.record(fs, data.active_id(fs))
        if row is not None and recording(ctx) is None and data.lost(fs, [row]):
            ctx.show_dialog({"id": "lost"})

    # --- actions -------------------------------------------------------------------------------------
    def _record(self, ctx: Ctx) -> None:
        """btn_record: start a recording, or pause / resume the one under way."""
        rec = recording(ctx)
        now = ctx.model.uptime()
        if rec is None:
            rid, path = data.start_record(ctx.model)
            ctx.ui["rec"] = {"id": rid, "path": path, "started": now, "elapsed": 0.0, "paused": False}
            ctx.ui.pop("playing", None)
        elif rec["paused"]:
            rec.update(paused=False, started=now)
        else:
            rec.update(paused=True, elapsed=elapsed(ctx, rec))

    def _stop(self, ctx: Ctx) -> None:
        rec = recording(ctx)
        if rec is None:
            return
        ctx.ui.pop("rec", None)
        fs = ctx.model.fs
        row = data.finish_record(ctx.model, int(rec["id"]), str(rec["path"]), elapsed(ctx, rec))
        if row is not None and data.ask_to_rename(fs):
            ask_name(ctx, row, True)

    def _delete_recording(self, ctx: Ctx) -> None:
        """btn_record_delete: the recording pauses and the app asks whether to delete it."""
        rec = recording(ctx)
        if rec is None:
            return
        if not rec["paused"]:
            rec.update(paused=True, elapsed=elapsed(ctx, rec))
        ctx.show_dialog({"id": "discard"})

    def _discard(self, ctx: Ctx) -> None:
        rec = recording(ctx)
        ctx.dismiss_dialog()
        if rec is not None:
            ctx.ui.pop("rec", None)
            data.discard_record(ctx.model.fs, int(rec["id"]), str(rec["path"]))

    # --- screens -------------------------------------------------------------------------------------
    def screen_welcome(self, ctx: Ctx) -> list[View]:
        return welcome_screen(ctx)

    def screen_setup(self, ctx: Ctx) -> list[View]:
        return setup_screen(ctx)

    def screen_settings(self, ctx: Ctx) -> list[View]:
        return settings_screen(ctx)

    def screen_records(self, ctx: Ctx) -> list[View]:
        return records_screen(ctx)

    def screen_main(self, ctx: Ctx) -> list[View]:
        l, t, r, b = ctx.area
        fs = ctx.model.fs
        rec = recording(ctx)
        row = None if rec else data.record(fs, data.active_id(fs))
        bar_h = ctx.dp(56)
        bar = V(ctx, w.LINEAR, (l, t, r, t + bar_h), "toolbar", style={"bg": PRIMARY})
        isz = ctx.dp(54)
        y0 = t + (bar_h - isz) // 2
        if rec is None:
            bar.children.append(
                w.icon_button(
                    ctx, (l, y0, l + isz, y0 + isz), "add", "", lambda: ctx.toast("Left out"), "btn_import", TEXT
                )
            )
        bar.children.append(
            w.text(ctx, (l + isz, t, r - isz, t + bar_h), "Audio Recorder", size=20, color=TEXT, align="c")
        )
        if rec is None and row is not None:
            bar.children.append(
                w.icon_button(
                    ctx,
                    (r - isz, y0, r, y0 + isz),
                    "more",
                    "",
                    lambda: ctx.show_dialog({"id": "menu", "record": int(row["_id"])}),
                    "btn_share",
                    TEXT,
                )
            )
        # the waveform takes what the texts, the seek bar and the bottom panel leave (at least 120dp: where the
        # window is too low for all - the activity is portrait-only on a phone -, the screen scrolls)
        panel_h, seek_h = ctx.dp(84 + 16), ctx.dp(36)
        info_h = ctx.line_h(54) + ctx.line_h(22) + ctx.line_h(14) + ctx.dp(12)
        wave_h = max(ctx.dp(120), (b - t - bar_h) - panel_h - seek_h - info_h)

        def seek(x: int, y: int, wd: int) -> View:
            v = w.seekbar(
                ctx, (x + ctx.dp(8), y, x + wd - ctx.dp(8), y + seek_h), 0, 1000, lambda v: None, "play_progress"
            )
            v.enabled = rec is None
            return v

        rows = [
            Row(wave_h, lambda x, y, wd: self._waveform(ctx, (x, y, x + wd, y + wave_h), rec, row)),
            Row(info_h, lambda x, y, wd: self._texts(ctx, (x, y, x + wd, y + info_h), rec, row)),
            Row(seek_h, seek),
            Row(panel_h, lambda x, y, wd: self._panel(ctx, (x, y, x + wd, y + panel_h), rec)),
        ]
        return page(ctx, [bar], rows, key="main", rid="", cls="android.widget.LinearLayout")

    def _waveform(self, ctx: Ctx, box: tuple[int, int, int, int], rec: dict[str, Any] | None, row: Any) -> View:
        l, t, r, b = box
        cls = "com.dimowner.audiorecorder.app.widget."
        frame = V(ctx, w.FRAME, box)
        mid = (t + b) // 2
        line = max(1, ctx.dp(1))
        if rec is not None:
            view = V(ctx, cls + "RecordingWaveformView", box, "recording_view")
            view.children.append(V(ctx, "android.view.View", (l, mid - line, r, mid + line), style={"bg": data.RED}))
            frame.children.append(view)
            return frame
        if row is None:
            frame.children.append(
                w.icon(
                    ctx,
                    (l + (r - l) // 3, mid - ctx.dp(40), r - (r - l) // 3, mid + ctx.dp(40)),
                    "sound",
                    TEXT2,
                    "placeholder",
                )
            )
            return frame
        view = V(ctx, cls + "WaveformViewNew", box, "record")
        view.children.append(V(ctx, "android.view.View", (l, mid - line, r, mid + line), style={"bg": TEXT2}))
        frame.children.append(view)
        playing = ctx.ui.get("playing") == int(row["_id"])
        isz = ctx.dp(54)
        cx = (l + r) // 2
        play = w.icon_button(
            ctx,
            (cx - isz // 2, b - isz - ctx.dp(8), cx + isz // 2, b - ctx.dp(8)),
            "pause" if playing else "play",
            "",
            lambda: self._play(ctx, int(row["_id"])),
            "btn_play",
            TEXT,
        )
        frame.children.append(play)
        if playing:
            frame.children.append(
                w.icon_button(
                    ctx,
                    (cx + isz, b - isz - ctx.dp(8), cx + 2 * isz, b - ctx.dp(8)),
                    "close",
                    "",
                    lambda: ctx.ui.pop("playing", None),
                    "btn_stop",
                    TEXT,
                )
            )
        return frame

    def _play(self, ctx: Ctx, rid: int) -> None:
        if ctx.ui.get("playing") == rid:
            ctx.ui.pop("playing", None)
        else:
            ctx.ui["playing"] = rid

    def _texts(self, ctx: Ctx, box: tuple[int, int, int, int], rec: dict[str, Any] | None, row: Any) -> list[View]:
        l, t, r, b = box
        fs = ctx.model.fs
        out: list[View] = []
        y = t
        secs = elapsed(ctx, rec) if rec else 0.0
        h = ctx.line_h(54)
        out.append(
            w.text(
                ctx,
                (l, y, r, y + h),
                data.fmt_duration(int(secs * 1000)),
                "txt_progress",
                size=54,
                color=TEXT,
                bold=True,
                align="c",
            )
        )
        y += h
        h = ctx.line_h(22)
        if rec is not None:
            name, click = ("Paused" if rec["paused"] else "Recording\u2026"), None
        elif row is not None:
            name, click = str(row["name"]), lambda: ask_name(ctx, row, False)
        else:
            name, click = "", None
        if name:
            pencil = ctx.dp(28) if click else 0  # the drawableEnd: the text keeps its width on both sides
            tw = min(r - l - ctx.dp(48), int(text_width(name, ctx.sp(22))) + ctx.dp(8) + 2 * pencil)
            x0 = (l + r - tw) // 2
            v = w.text(
                ctx,
                (x0, y, x0 + tw, y + h),
                name,
                "txt_name",
                size=22,
                color=TEXT,
                align="c",
                clickable=click is not None,
                focusable=click is not None,
                on_click=click,
            )
            if click is not None:
                v.style.update(ellipsize=True, pad=pencil)
                v.children.append(
                    w.icon(
                        ctx,
                        (x0 + tw - ctx.dp(20), y + (h - ctx.dp(20)) // 2, x0 + tw, y + (h + ctx.dp(20)) // 2),
                        "edit",
                        TEXT2,
                    )
                )
            out.append(v)
        y += h
        s = data.settings(fs)
        if row is not None and rec is None:
            info = data.record_info(str(row["format"]), int(row["sample_rate"]), int(row["size"]))
        else:
            size = fs.stat(str(rec["path"])).size if rec and fs.stat(str(rec["path"])) else 0  # type: ignore[union-attr]
            info = data.record_info(s.fmt, s.sample_rate, size)
        h = ctx.line_h(14)
        out.append(
            w.text(
                ctx,
                (l + ctx.dp(72), y, r - ctx.dp(72), y + h),
                info,
                "txt_record_info",
                size=14,
                color=TEXT2,
                align="c",
                style={"ellipsize": True},
            )
        )
        if rec is None and row is not None:
            dur = data.fmt_duration(int(row["duration"]) // 1000)
            zh = ctx.line_h(16)
            out.append(
                w.text(
                    ctx,
                    (l + ctx.dp(16), b - zh - ctx.dp(8), l + ctx.dp(96), b - ctx.dp(8)),
                    "00:00",
                    "txt_zero_time",
                    size=16,
                    color=TEXT,
                )
            )
            out.append(
                w.text(
                    ctx,
                    (r - ctx.dp(112), b - zh - ctx.dp(8), r - ctx.dp(16), b - ctx.dp(8)),
                    dur,
                    "txt_duration",
                    size=16,
                    color=TEXT,
                    align="r",
                )
            )
        return out

    def _panel(self, ctx: Ctx, box: tuple[int, int, int, int], rec: dict[str, Any] | None) -> View:
        l, t, r, b = box
        panel = V(ctx, w.FRAME, box)
        big = ctx.dp(84)
        y0 = t + ctx.dp(8)
        panel.children.append(
            w.icon_button(
                ctx,
                (l + ctx.dp(8), y0, l + ctx.dp(8) + big, y0 + big),
                "settings",
                "Settings",
                lambda: ctx.push(SETTINGS),
                "btn_settings",
                TEXT,
            )
        )
        cx = (l + r) // 2
        group = V(ctx, w.LINEAR, (cx - big // 2 - ctx.dp(60), y0, cx + big // 2 + ctx.dp(60), y0 + big))
        small = ctx.dp(42)
        sy = y0 + (big - small) // 2
        if rec is not None:
            group.children.append(
                w.icon_button(
                    ctx,
                    (cx - big // 2 - small - ctx.dp(10), sy, cx - big // 2 - ctx.dp(10), sy + small),
                    "delete",
                    "Delete",
                    lambda: self._delete_recording(ctx),
                    "btn_record_delete",
                    TEXT,
                )
            )
        button = w.icon_button(
            ctx,
            (cx - big // 2, y0, cx + big // 2, y0 + big),
            "pause" if rec and not rec["paused"] else "",
            RECORDING_DESC,
            lambda: self._record(ctx),
            "btn_record",
            TEXT,
        )
        if not (rec and not rec["paused"]):  # ic_record: a red dot in a white ring
            ring = ctx.dp(30)
            button.children.append(
                V(
                    ctx,
                    "android.view.View",
                    (cx - ring, y0 + big // 2 - ring, cx + ring, y0 + big // 2 + ring),
                    style={"bg": data.RED, "radius": ring, "border": TEXT},
                )
            )
        group.children.append(button)
        if rec is not None:
            stop = ctx.dp(54)
            stop_y = y0 + (big - stop) // 2
            sv = w.icon_button(
                ctx,
                (cx + big // 2 + ctx.dp(4), stop_y, cx + big // 2 + ctx.dp(4) + stop, stop_y + stop),
                "",
                "",
                lambda: self._stop(ctx),
                "btn_record_stop",
                TEXT,
            )
            q = ctx.dp(10)
            scx, scy = (sv.bounds[0] + sv.bounds[2]) // 2, (sv.bounds[1] + sv.bounds[3]) // 2
            sv.children.append(V(ctx, "android.view.View", (scx - q, scy - q, scx + q, scy + q), style={"bg": TEXT}))
            group.children.append(sv)
        panel.children.append(group)
        panel.children.append(
            w.icon_button(
                ctx,
                (r - ctx.dp(8) - big, y0, r - ctx.dp(8), y0 + big),
                "menu",
                "",
                lambda: ctx.push(RECORDS),
                "btn_records_list",
                TEXT,
            )
        )
        return panel

    # --- dialogs -------------------------------------------------------------------------------------
    def dialog(self, ctx: Ctx) -> View | None:
        spec = ctx.ui.get("dialog")
        if not spec:
            return None
        if spec.get("id") == "discard":
            return yes_no(
                ctx,
                "Warning!",
                "Delete this record?",
                [
                    ("Yes", "dialog_positive_btn", lambda: self._discard(ctx)),
                    ("No", "dialog_negative_btn", ctx.dismiss_dialog),
                ],
            )
        return record_dialog(ctx, spec) or setup_dialog(ctx, spec) or records_dialog(ctx, spec)
