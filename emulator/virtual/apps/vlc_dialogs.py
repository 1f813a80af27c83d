"""VLC's dialogs and sheets: an item's context sheet (More Actions: `ctx_title`, `ctx_list` of
`context_option_title`s), "Add to playlist" (SavePlaylistDialog: "Add to new playlist" with the `Playlist name`
field and Save - `dialog_playlist_save` -, "Add to existing playlist" and the playlists list, "No playlist found."),
the deletion confirmations, the toolbar's overflow menu (display in list / grid, Group videos, Refresh) and the
all-files access request (Permissions' "Allow VLC all file access", OK / Cancel).

A playlist name that exists already is refused under the field ("Playlist NAME already exists"); a playlist picked
from the list gets the media appended (duplicates too: the duplication warning is left out)."""

from __future__ import annotations

from typing import Any

from ..records import INTENT_DATA
from ..ui import dialogs
from ..ui import widgets as w
from ..ui.fonts import text_width
from ..ui.layout import Ctx, Row, V
from ..ui.view import View
from . import vlc_data as data
from . import vlc_lists as lists
from . import vlc_widgets as vw
from .vlc_player import play

ALL_FILES_ACTION = "android.settings.MANAGE_APP_ALL_FILES_ACCESS_PERMISSION"
ALL_FILES = "com.android.settings.Settings$AppManageExternalStorageActivity"


def ask_all_files(ctx: Ctx) -> None:
    ctx.show_dialog({"id": "all_access"})


def all_access(ctx: Ctx, spec: dict[str, Any]) -> View:
    def ok() -> None:
        ctx.dismiss_dialog()
        ctx.start(
            "com.android.settings",
            ALL_FILES,
            {"android.intent.action": ALL_FILES_ACTION, INTENT_DATA: f"package:{data.PKG}"},
        )

    def cancel() -> None:
        ctx.dismiss_dialog()
        ctx.finish()

    return dialogs.dialog(
        ctx,
        ctx.tr("Allow VLC all file access", "允许 VLC 访问所有文件"),
        ctx.tr(
            "To get all the capabilities of VLC and the support of all types of media files, we strongly suggest you "
            "to grant this permission.\n\nGrant permission?",
            "为获得 VLC 的全部功能并支持所有类型的媒体文件，强烈建议您授予此权限。\n\n授予权限？",
        ),
        dialogs.confirm_buttons(ctx, ctx.tr("OK", "确定"), ok, cancel),
        on_cancel=None,
        cancel_outside=False,
    )


# --- the context sheet -------------------------------------------------------------------------------------------
def _then(ctx: Ctx, fn: Any) -> Any:
    def run() -> None:
        ctx.dismiss_dialog()
        fn()

    return run


def context(ctx: Ctx, spec: dict[str, Any]) -> View:
    key, scope, kind = str(spec["key"]), str(spec["scope"]), str(spec.get("kind", ""))
    options: list[tuple[str, str, Any]] = []
    if kind in ("video", "audio", "file"):
        options.append(("play", ctx.tr("Play", "播放"), _then(ctx, lambda: _play(ctx, key))))
    elif kind in ("group", "playlist"):
        options.append(
            (
                "play",
                ctx.tr("Play all", "全部播放") if kind == "group" else ctx.tr("Play", "播放"),
                _then(ctx, lambda: _play(ctx, key)),
            )
        )
    if kind in ("video", "group", "audio", "file"):
        options.append(("add", ctx.tr("Add to playlist", "添加到播放列表"), lambda: add_to_playlist(ctx, [key])))
    if kind == "video" and scope.startswith("playlist:"):
        options.append(("close", ctx.tr("Remove", "移除"), _then(ctx, lambda: _remove(ctx, scope, key))))
    if kind == "video" and not scope.startswith("playlist:"):
        played = _played(ctx, key)
        label = ctx.tr("Mark as not played", "标记为未播放") if played else ctx.tr("Mark as played", "标记为已播放")
        mid = int(key.partition(":")[2]) if key.startswith("m:") else 0
        options.append(("check", label, _then(ctx, lambda: data.mark_played(ctx.model, mid, not played))))
    if kind in ("video", "audio", "file") and not scope.startswith("playlist:"):
        options.append(
            (
                "delete",
                ctx.tr("Delete", "删除"),
                lambda: ctx.show_dialog({"id": "delete", "key": key, "title": spec["title"]}),
            )
        )
    if kind == "playlist":
        options.append(
            (
                "delete",
                ctx.tr("Delete", "删除"),
                lambda: ctx.show_dialog({"id": "delete", "key": key, "title": spec["title"]}),
            )
        )
    rows = vw.option_rows(ctx, str(spec.get("title", "")), options)
    return vw.sheet(ctx, rows, ctx.dismiss_dialog, "context_sheet")


def _played(ctx: Ctx, key: str) -> bool:
    if not key.startswith("m:"):
        return False
    m = data.media_by_id(ctx.model, int(key[2:]))
    return bool(m and int(m["play_count"] or 0) > 0)


def _play(ctx: Ctx, key: str) -> None:
    if key.startswith("p:"):
        tracks = data.tracks(ctx.model, int(key[2:]))
        if tracks:
            play(ctx, int(tracks[0]["id_media"]))
        return
    ids = lists.media_ids(ctx, [key])
    if ids:
        play(ctx, ids[0])


def _remove(ctx: Ctx, scope: str, key: str) -> None:
    position = int(key.split(":")[1])
    data.remove_track(ctx.model, int(scope.partition(":")[2]), position)


def delete(ctx: Ctx, spec: dict[str, Any]) -> View:
    key = str(spec["key"])
    name = str(spec.get("title", ""))
    is_playlist = key.startswith("p:")

    def ok() -> None:
        ctx.dismiss_dialog()
        if is_playlist:
            data.delete_playlist(ctx.model, int(key[2:]))
            return
        if key.startswith("f:"):
            path = key[2:]
        else:
            m = data.media_by_id(ctx.model, int(key[2:]))
            path = str(m["path"]) if m else ""
        if path:
            ctx.model.fs.remove(path)
            data.scan(ctx.model)

    message = (
        ctx.tr(f"Delete playlist '{name}'?", f"删除播放列表“{name}”？")
        if is_playlist
        else ctx.tr(f"Delete the file '{name}'?", f"删除文件“{name}”？")
    )
    return dialogs.dialog(
        ctx,
        "",
        message,
        dialogs.confirm_buttons(ctx, ctx.tr("Delete", "删除"), ok, ctx.dismiss_dialog),
        on_cancel=ctx.dismiss_dialog,
    )


# --- Add to playlist ---------------------------------------------------------------------------------------------
def add_to_playlist(ctx: Ctx, keys: list[str]) -> None:
    """SavePlaylistDialog over the media the items stand for (the selection ended)."""
    ids = lists.media_ids(ctx, keys)
    lists.clear_selection(ctx)
    ctx.set_field("playlist_name", "")
    ctx.show_dialog({"id": "add_playlist", "media": ids})


def _save_new(ctx: Ctx, ids: list[int]) -> None:
    name = ctx.field_value("playlist_name").strip()
    if not name:
        return
    existing = data.playlist_named(ctx.model, name)
    if existing is not None:
        spec = dict(ctx.ui.get("dialog") or {})
        spec["error"] = ctx.tr(f"Playlist {existing['name']} already exists", f"播放列表 {existing['name']} 已存在")
        ctx.ui["dialog"] = spec
        return
    ctx.dismiss_dialog()
    ctx.hide_keyboard()
    playlist_id = data.create_playlist(ctx.model, name)
    data.append(ctx.model, playlist_id, ids)


def _save_existing(ctx: Ctx, playlist_id: int, ids: list[int]) -> None:
    ctx.dismiss_dialog()
    data.append(ctx.model, playlist_id, ids)


def add_playlist(ctx: Ctx, spec: dict[str, Any]) -> View:
    ids = [int(i) for i in spec.get("media", [])]
    th = ctx.theme
    count = lists.plural(ctx, len(ids), "1 media", "%d media", "%d 个媒体")
    pad = ctx.dp(16)
    out: list[Row] = []

    def label(text: str, rid: str, size: float = 16, bold: bool = True, color: Any = None) -> Row:
        h = ctx.line_h(size) + ctx.dp(12)
        return Row(h, lambda x, y, wd: w.text(ctx, (x + pad, y, x + wd - pad, y + h), text, rid, size, color, bold))

    out.append(label(ctx.tr("Add to new playlist", "添加到新播放列表"), "textView9"))
    out.append(label(count, "medias2", 12, False, th.text2))
    field_h = ctx.dp(64)
    error = str(spec.get("error", ""))

    def field(x: int, y: int, wd: int) -> View:
        box = V(ctx, w.LINEAR, (x + pad, y, x + wd - pad, y + field_h), "dialog_playlist_name")
        edit = w.edit(
            ctx,
            (x + pad, y + ctx.dp(4), x + wd - pad, y + field_h - ctx.dp(4)),
            "playlist_name",
            ctx.field_value("playlist_name"),
            ctx.tr("Playlist name", "播放列表名称"),
            lambda v: ctx.set_field("playlist_name", v),
            action=lambda: _save_new(ctx, ids),
            action_kind="send",
        )
        box.children.append(edit)
        return box

    out.append(Row(field_h, field, ("playlist_name",)))
    if error:
        out.append(label(error, "textinput_error", 12, False, th.error))
    btn_h = ctx.dp(56)
    save = ctx.tr("Save", "保存") if ids else ctx.tr("Add", "添加")

    def save_btn(x: int, y: int, wd: int) -> View:
        bw = int(text_width(save, ctx.sp(14), True)) + ctx.dp(48)
        b = w.button(
            ctx,
            (x + wd - pad - bw, y + ctx.dp(4), x + wd - pad, y + btn_h - ctx.dp(4)),
            save,
            lambda: _save_new(ctx, ids),
            "dialog_playlist_save",
        )
        b.style.update(bg=vw.BUTTON_BG, fg=(255, 255, 255))
        return b

    out.append(Row(btn_h, save_btn))
    out.append(label(ctx.tr("Add to existing playlist", "添加到现有播放列表"), "textView8"))
    out.append(label(count, "medias", 12, False, th.text2))
    existing = data.playlists(ctx.model)
    if not existing:
        out.append(label(ctx.tr("No playlist found.", "未找到播放列表。"), "android:id/empty", 14, False, th.text2))
    rh = ctx.line_h(16) + ctx.line_h(13) + ctx.dp(20)
    for p in existing:

        def item(x: int, y: int, wd: int, p: dict[str, Any] = p) -> View:
            pid = int(p["id_playlist"])
            v = V(
                ctx,
                w.VIEWGROUP,
                (x, y, x + wd, y + rh),
                "",
                clickable=True,
                focusable=True,
                on_click=lambda: _save_existing(ctx, pid, ids),
            )
            isz = ctx.dp(40)
            v.children.append(
                w.icon(
                    ctx,
                    (x + pad, y + (rh - isz) // 2, x + pad + isz, y + (rh + isz) // 2),
                    "menu",
                    th.text2,
                    "imageView8",
                )
            )
            tx = x + pad + isz + ctx.dp(16)
            h1 = ctx.line_h(16)
            v.children.append(
                w.text(ctx, (tx, y + ctx.dp(10), x + wd - pad, y + ctx.dp(10) + h1), str(p["name"]), "textView16", 16)
            )
            n = lists.plural(ctx, int(p["tracks"]), "1 media", "%d media", "%d 个媒体")
            v.children.append(
                w.text(ctx, (tx, y + ctx.dp(10) + h1, x + wd - pad, y + rh - ctx.dp(10)), n, "subtitle", 13, th.text2)
            )
            return v

        out.append(Row(rh, item))
    return vw.sheet(ctx, out, ctx.dismiss_dialog, "save_playlist")


# --- menus -------------------------------------------------------------------------------------------------------
def overflow(ctx: Ctx, spec: dict[str, Any]) -> View:
    """The toolbar's overflow: on the Video tab, list / grid and Group videos; Refresh everywhere."""
    items: list[tuple[str, Any]] = []
    if spec.get("tab") == "nav_video":
        cards = bool(data.pref(ctx.model, data.KEY_CARDS, True))
        items.append(
            (
                ctx.tr("Display in list", "以列表显示") if cards else ctx.tr("Display in grid", "以网格显示"),
                _then(ctx, lambda: data.PREFS.put(ctx.model.fs, data.KEY_CARDS, not cards)),
            )
        )
        items.append((ctx.tr("Group videos", "视频分组"), lambda: ctx.show_dialog({"id": "grouping"})))
    items.append(
        (
            ctx.tr("Refresh", "刷新"),
            _then(ctx, lambda: data.scan(ctx.model) if data.can_read_storage(ctx.model) else None),
        )
    )
    return vw.popup_menu(ctx, items)


def grouping(ctx: Ctx, spec: dict[str, Any]) -> View:
    def put(value: str) -> Any:
        return _then(ctx, lambda: data.PREFS.put(ctx.model.fs, data.KEY_GROUPING, value))

    return vw.popup_menu(
        ctx,
        [
            (ctx.tr("Group by name", "按名称分组"), put(data.GROUP_BY_NAME)),
            (ctx.tr("Do not group videos", "不分组"), put(data.GROUP_NONE)),
        ],
    )


DIALOGS = {
    "all_access": all_access,
    "context": context,
    "delete": delete,
    "add_playlist": add_playlist,
    "overflow": overflow,
    "grouping": grouping,
}
