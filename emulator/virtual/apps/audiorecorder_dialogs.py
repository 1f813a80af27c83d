"""Audio Recorder's dialogs about a record, from the main screen and the records list: the rename dialog
(`dialog_rename`: "New name" `dialog_title`, `input_name`, "Don't ask again" `check_box` after a recording, Cancel
`dialog_negative_btn`, Save `dialog_positive_btn`), a record's menu (`menu_more`: Share, Information, Rename,
Open with…, Save as…, Delete), "Move to trash NAME?", the record's information, "Save as…" (a copy into Download)
and the lost-records warning."""

from __future__ import annotations

from typing import Any

from ..ui import dialogs
from ..ui import widgets as w
from ..ui.layout import Ctx, Row
from ..ui.view import View
from . import audiorecorder_data as data
from .audiorecorder_widgets import info_dialog, popup_menu, yes_no

Spec = dict[str, Any]
MENU = (
    ("menu_share", "Share"),
    ("menu_info", "Information"),
    ("menu_rename", "Rename"),
    ("menu_open_with", "Open with\u2026"),
    ("menu_save_as", "Save as\u2026"),
    ("menu_delete", "Delete"),
)


def ask_name(ctx: Ctx, row: dict[str, Any], checkbox: bool) -> None:
    """The rename dialog for `row`, its name in the field, the keyboard up (SOFT_INPUT_STATE_VISIBLE)."""
    ctx.set_field("rename", str(row["name"]))
    ctx.show_dialog({"id": "rename", "record": int(row["_id"]), "checkbox": checkbox, "dont_ask": False})
    ctx.set_focus("rename")


def _close(ctx: Ctx, spec: Spec) -> None:
    ctx.dismiss_dialog()
    ctx.set_focus(None)
    if spec.get("dont_ask"):
        data.PREFS.put(ctx.model.fs, "is_ask_rename_after_stop_recording", False)


def _rename(ctx: Ctx, spec: Spec) -> None:
    """MainActivity.setRecordName: a name other than the record's (ignoring case) renames it."""
    fs = ctx.model.fs
    new = ctx.field_value("rename")
    _close(ctx, spec)
    row = data.record(fs, int(spec["record"]))
    if row is None or str(row["name"]).lower() == new.lower():
        return
    error = data.rename_record(fs, int(spec["record"]), new)
    if error:
        ctx.toast(error)


def rename_dialog(ctx: Ctx, spec: Spec) -> View:
    value = ctx.field_value("rename")

    def change(v: str) -> None:
        ctx.set_field("rename", v[: data.MAX_NAME])

    def field(x: int, y: int, wd: int) -> View:
        return w.edit(
            ctx,
            (x + ctx.dp(20), y, x + wd - ctx.dp(20), y + ctx.dp(52)),
            "rename",
            value,
            "",
            change,
            "input_name",
            action=lambda: _rename(ctx, spec),
            size=18,
            box="underline",
        )

    def check(x: int, y: int, wd: int) -> View:
        def flip() -> None:
            spec["dont_ask"] = not spec.get("dont_ask")

        return w.checkbox(
            ctx,
            (x + ctx.dp(20), y, x + wd - ctx.dp(20), y + ctx.dp(44)),
            bool(spec.get("dont_ask")),
            "check_box",
            flip,
            "Don't ask again",
        )

    rows = [Row(ctx.dp(56), field, ("rename",))]
    if spec.get("checkbox"):
        rows.append(Row(ctx.dp(48), check))
    return dialogs.dialog(
        ctx,
        "New name",
        "",
        [
            ("Save", "dialog_positive_btn", lambda: _rename(ctx, spec)),
            ("Cancel", "dialog_negative_btn", lambda: _close(ctx, spec)),
        ],
        rows=rows,
        on_cancel=lambda: _close(ctx, spec),
        title_rid="dialog_title",
    )


def _menu_pick(ctx: Ctx, rid: int, item: str) -> None:
    row = data.record(ctx.model.fs, rid)
    ctx.dismiss_dialog()
    if row is None:
        return
    if item == "menu_rename":
        ask_name(ctx, row, False)
    elif item == "menu_delete":
        ctx.show_dialog({"id": "trash", "record": rid})
    elif item == "menu_info":
        ctx.show_dialog({"id": "record_info", "record": rid})
    elif item == "menu_save_as":
        ctx.show_dialog({"id": "save_as", "record": rid})
    else:  # sharing and opening go to other apps
        ctx.toast("No app found to handle this action")


def menu(ctx: Ctx, spec: Spec) -> View:
    rid = int(spec["record"])
    items = [(label, key, lambda key=key: _menu_pick(ctx, rid, key)) for key, label in MENU]
    return popup_menu(ctx, items, spec.get("top"))


def _trash(ctx: Ctx, rid: int) -> None:
    ctx.dismiss_dialog()
    if ctx.ui.get("playing") == rid:
        ctx.ui.pop("playing", None)
    data.trash_record(ctx.model, rid)
    ctx.toast("The record moved to trash")


def _save_as(ctx: Ctx, rid: int) -> None:
    """DownloadService: the record copied into Download."""
    ctx.dismiss_dialog()
    fs = ctx.model.fs
    row = data.record(fs, rid)
    src = fs.peek(str(row["path"])) if row else None
    name = str(row["path"]).rsplit("/", 1)[-1] if row else ""
    target = f"/sdcard/Download/{name}"
    if row is None or src is None:
        ctx.toast(f"Failed to copy: {name}")
    elif fs.exists(target):
        ctx.toast(f"Failed to copy. File with name {name} already exists")
    else:
        fs.write(target, src, parents=True)
        ctx.toast(f"{name} copied to the 'Downloads' directory")


def record_info(ctx: Ctx, rid: int) -> View:
    row = data.record(ctx.model.fs, rid)
    if row is None:
        return info_dialog(ctx, "")
    lines = [
        f"Name: {row['name']}",
        f"Format: {data.label_of(data.FORMATS, row['format'])}",
        f"Duration: {data.fmt_duration(int(row['duration']) // 1000)}",
        f"Size: {data.fmt_size(int(row['size']))}",
        f"Location: {row['path']}",
    ]
    rows = [w.text_row(ctx, line, "", size=14, lines=8, pad_dp=24, width=ctx.dp(312)) for line in lines]
    return dialogs.dialog(
        ctx,
        "Information",
        "",
        [("Ok", "dialog_positive_btn", ctx.dismiss_dialog)],
        rows=rows,
        on_cancel=ctx.dismiss_dialog,
        title_rid="dialog_title",
    )


def record_dialog(ctx: Ctx, spec: Spec) -> View | None:
    """The dialog `spec` names, if it is one of these."""
    kind = str(spec.get("id", ""))
    rid = int(spec.get("record", -1))
    if kind == "rename":
        return rename_dialog(ctx, spec)
    if kind == "menu":
        return menu(ctx, spec)
    if kind == "trash":
        row = data.record(ctx.model.fs, rid)
        return yes_no(
            ctx,
            "Warning!",
            f"Move to trash {row['name'] if row else ''}?",
            [
                ("Yes", "dialog_positive_btn", lambda: _trash(ctx, rid)),
                ("No", "dialog_negative_btn", ctx.dismiss_dialog),
            ],
        )
    if kind == "record_info":
        return record_info(ctx, rid)
    if kind == "save_as":
        return yes_no(
            ctx,
            "Save as\u2026",
            "The record will be copied to the 'Downloads' directory",
            [
                ("Yes", "dialog_positive_btn", lambda: _save_as(ctx, rid)),
                ("No", "dialog_negative_btn", ctx.dismiss_dialog),
            ],
        )
    if kind == "lost":
        return yes_no(
            ctx,
            "Warning!",
            "Some of your records was deleted or moved",
            [("Details", "dialog_details_btn", ctx.dismiss_dialog), ("Ok", "dialog_ok_btn", ctx.dismiss_dialog)],
        )
    if kind == "info_text":
        return info_dialog(ctx, str(spec.get("text", "")))
    return None
