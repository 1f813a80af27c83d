"""Retro Music's dialogs: Add to playlist (AddToPlaylistDialog: "New playlist" first, then the playlists in the
order Room returns them), New playlist (CreatePlaylistDialog: `actionNewPlaylist` "Playlist name", Create /
Cancel), Rename playlist, Delete playlist, Remove song from playlist, the song's Details, What's New (the
changelog bottom sheet of a first start, `tgFab` "View on Telegram"), and "Save as file" (SavePlaylistDialog: its
loading dialog while the system's document picker asks where to save).

The picker is DocumentsUI's PickActivity for ACTION_CREATE_DOCUMENT (type audio/mpegurl, the playlist's name as
EXTRA_TITLE), drawn in Retro Music's task with DocumentsUI's package and ids until a DocumentsUI twin takes the
intent: it opens on Downloads (its default root: the toolbar's title, the folder's documents in `dir_list`), its
bottom bar holds the name (`android:id/title`) and Save (`android:id/button1`). Save creates `<name>.m3u` there
(" (1)" when taken, as the provider names a new document) and the app writes the playlist in M3U through it
(M3UWriter: `#EXTM3U`, then `#EXTINF:<ms>,<artist> - <title>` and the path per song), then says "Saved playlist to
msf:<id>." (the document's last path segment). BACK or the toolbar's close leaves the picker without a file.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from typing import Any

from ..mediastore import rows as media_rows
from ..mediastore import shown
from ..ui import widgets as w
from ..ui.layout import Ctx, Row, V, vlist
from ..ui.view import View
from .retromusic_data import (
    DOWNLOAD,
    LAST_CHANGELOG_VERSION,
    PLAYLIST_DB,
    PREFS,
    VERSION_CODE,
    add_to_playlist,
    delete_playlist,
    duration_text,
    m3u,
    playlist,
    remove_from_playlist,
    rename_playlist,
    save_document,
)
from .retromusic_lists import song_by_id
from .retromusic_widgets import alert, s

DOCS_PKG = "com.google.android.documentsui"
DOCS_ID = f"{DOCS_PKG}:id/"
Click = Callable[[], Any]


def _songs(ctx: Ctx, spec: dict[str, Any]) -> list[Any]:
    return [x for x in (song_by_id(ctx, int(i)) for i in spec.get("songs") or []) if x is not None]


def add_to_playlist_dialog(ctx: Ctx, spec: dict[str, Any]) -> View:
    names = [
        str(r["playlist_name"]) for r in PLAYLIST_DB.rows(ctx.model.fs, "SELECT playlist_name FROM PlaylistEntity")
    ]

    def pick(i: int) -> None:
        if i == 0:
            ctx.show_dialog({"id": "create_playlist", "songs": spec.get("songs") or []})
            ctx.set_field("new_playlist", "")
            ctx.set_focus("new_playlist")
            return
        ctx.dismiss_dialog()
        _add(ctx, names[i - 1], _songs(ctx, spec))

    rows = []
    for i, label in enumerate([s(ctx, "action_new_playlist"), *names]):

        def build(x: int, y: int, wd: int, i: int = i, label: str = label) -> View:
            row = V(
                ctx,
                w.TEXT,
                (x, y, x + wd, y + ctx.dp(48)),
                "android:id/text1",
                text=label,
                clickable=True,
                focusable=True,
                on_click=lambda: pick(i),
            )
            row.style.update(fg=ctx.theme.text, size=ctx.sp(16), pad=ctx.dp(24))
            return row

        rows.append(Row(ctx.dp(48), build))
    return alert(
        ctx,
        s(ctx, "add_playlist_title"),
        buttons=[(s(ctx, "action_cancel"), "android:id/button2", ctx.dismiss_dialog)],
        rows=rows,
    )


def _add(ctx: Ctx, name: str, songs: list[Any]) -> None:
    """LibraryViewModel.addToPlaylist and its toasts."""
    if add_to_playlist(ctx.model.fs, name, songs):
        ctx.toast(s(ctx, "playlist_created_sucessfully", name))
    ctx.toast(s(ctx, "added_song_count_to_playlist", len(songs), name))


def _name_field(ctx: Ctx, key: str) -> Row:
    value = ctx.field_value(key)

    def build(x: int, y: int, wd: int) -> View:
        return w.edit(
            ctx,
            (x + ctx.dp(16), y + ctx.dp(8), x + wd - ctx.dp(16), y + ctx.dp(64)),
            key,
            value,
            s(ctx, "playlist_name_empty"),
            lambda v: ctx.set_field(key, v),
            "actionNewPlaylist",
        )

    return Row(ctx.dp(72), build, (key,))


def create_playlist_dialog(ctx: Ctx, spec: dict[str, Any]) -> View:
    def create() -> None:
        name = ctx.field_value("new_playlist")
        ctx.dismiss_dialog()
        ctx.hide_keyboard()
        if name.strip():
            _add(ctx, name, _songs(ctx, spec))

    buttons = [
        (s(ctx, "create_action"), "android:id/button1", create),
        (s(ctx, "action_cancel"), "android:id/button2", ctx.dismiss_dialog),
    ]
    return alert(ctx, s(ctx, "action_new_playlist"), buttons=buttons, rows=[_name_field(ctx, "new_playlist")])


def rename_playlist_dialog(ctx: Ctx, spec: dict[str, Any]) -> View:
    key = "rename_playlist"
    if key not in ctx.ui.setdefault("fields", {}):
        ctx.set_field(key, str(spec.get("name") or ""))

    def rename() -> None:
        name = ctx.field_value(key)
        ctx.dismiss_dialog()
        ctx.ui["fields"].pop(key, None)
        if name.strip():
            rename_playlist(ctx.model.fs, int(spec.get("playlist", -1)), name)

    def cancel() -> None:
        ctx.dismiss_dialog()
        ctx.ui["fields"].pop(key, None)

    buttons = [
        (s(ctx, "action_rename"), "android:id/button1", rename),
        (s(ctx, "action_cancel"), "android:id/button2", cancel),
    ]
    return alert(ctx, s(ctx, "rename_playlist_title"), buttons=buttons, rows=[_name_field(ctx, key)])


def delete_playlist_dialog(ctx: Ctx, spec: dict[str, Any]) -> View:
    pid = int(spec.get("playlist", -1))
    p = playlist(ctx.model.fs, pid)

    def delete() -> None:
        ctx.dismiss_dialog()
        delete_playlist(ctx.model.fs, pid)

    buttons = [
        (s(ctx, "action_delete"), "android:id/button1", delete),
        (s(ctx, "action_cancel"), "android:id/button2", ctx.dismiss_dialog),
    ]
    return alert(ctx, s(ctx, "delete_playlist_title"), s(ctx, "delete_playlist_x", p.name if p else ""), buttons)


def remove_from_playlist_dialog(ctx: Ctx, spec: dict[str, Any]) -> View:
    song = song_by_id(ctx, int(spec.get("song", -1)))

    def remove() -> None:
        ctx.dismiss_dialog()
        if song is not None:
            remove_from_playlist(ctx.model.fs, int(spec.get("playlist", -1)), song.id)

    buttons = [
        (s(ctx, "remove_action"), "android:id/button1", remove),
        (s(ctx, "action_cancel"), "android:id/button2", ctx.dismiss_dialog),
    ]
    title = song.title if song else ""
    return alert(ctx, s(ctx, "remove_song_from_playlist_title"), s(ctx, "remove_song_x_from_playlist", title), buttons)


def details_dialog(ctx: Ctx, spec: dict[str, Any]) -> View:
    song = song_by_id(ctx, int(spec.get("song", -1)))
    lines = []
    if song is not None:
        node = ctx.model.fs.stat(song.path)
        size = node.size if node is not None else 0
        lines = [
            f"{s(ctx, 'label_file_name')}: {posixpath.basename(song.data)}",
            f"{s(ctx, 'label_file_path')}: {song.data}",
            f"{s(ctx, 'label_file_size')}: {size / 1048576:.2f} MB",
            f"{s(ctx, 'label_track_length')}: {duration_text(song.duration)}",
        ]
    return alert(ctx, s(ctx, "action_details"), "\n".join(lines), [("OK", "android:id/button1", ctx.dismiss_dialog)])


# --- What's New ----------------------------------------------------------------------------------------------------
CHANGELOG = (
    ("v6.1.0", "March 30, 2023"),
    (
        "App now targets Android 13, support for Granular media permissions, Photo picker, Per-app language"
        " preferences & Predictive back gesture",
        "",
    ),
    ("Fixed playlist reordering crash", ""),
    ("Other minor bugs fixes and improvements", ""),
)


def whats_new_due(ctx: Ctx) -> bool:
    v = PREFS.read(ctx.model.fs).get(LAST_CHANGELOG_VERSION, 0)
    return not isinstance(v, int) or v < VERSION_CODE


def show_whats_new(ctx: Ctx) -> None:
    """WhatsNewFragment.showChangeLog: once a version (marked read as it shows)."""
    PREFS.put(ctx.model.fs, LAST_CHANGELOG_VERSION, VERSION_CODE)
    ctx.show_dialog({"id": "whats_new"})


def whats_new_sheet(ctx: Ctx, spec: dict[str, Any]) -> View:
    l, t, r, b = ctx.mgr.dialog_area()
    th = ctx.theme
    top = t + (b - t) // 6
    root = V(
        ctx,
        w.FRAME,
        (l, top, r, b),
        "design_bottom_sheet",
        style={"bg": th.surface, "radius": ctx.dp(16), "modal": True, "dim": True, "on_cancel": ctx.dismiss_dialog},
    )
    rows = [w.text_row(ctx, s(ctx, "whats_new"), size=22, bold=True)]
    for text, date in CHANGELOG:
        rows.append(w.text_row(ctx, text, size=15, lines=4))
        if date:
            rows.append(w.text_row(ctx, date, size=12, color=th.text2))
    root.children.append(
        vlist(
            ctx,
            "whats_new",
            (l, top + ctx.dp(16), r, b),
            rows,
            "container",
            cls="androidx.core.widget.NestedScrollView",
        )
    )
    label = s(ctx, "view_on_telegram")
    fab = w.fab(ctx, "send", label, ctx.dismiss_dialog, rid="tgFab", label=label)
    root.children.append(fab)
    return root


# --- Save as file: the loading dialog and the system's picker ------------------------------------------------------
def save_as_file(ctx: Ctx, pid: int) -> None:
    """PlaylistMenuHelper's "Save as file": SavePlaylistDialog comes up and starts the picker (ACTION_CREATE_DOCUMENT,
    the playlist's name as the title)."""
    p = playlist(ctx.model.fs, pid)
    if p is None:
        return
    ctx.show_dialog({"id": "save_playlist", "playlist": pid})
    ctx.ui["picker"] = {"playlist": p.id}
    ctx.set_field("picker_name", p.name)
    ctx.set_focus("picker_name")


def save_playlist_dialog(ctx: Ctx, spec: dict[str, Any]) -> View:
    """SavePlaylistDialog: "Save as file" over a spinner while the picker is up (and after it is cancelled)."""
    root = alert(ctx, s(ctx, "save_playlist_title"))
    l, t, r, b = root.bounds
    cx = (l + r) // 2
    root.children.append(
        V(
            ctx,
            "android.widget.ProgressBar",
            (cx - ctx.dp(24), b - ctx.dp(64), cx + ctx.dp(24), b - ctx.dp(16)),
            "progressBar",
        )
    )
    return root


def picker_open(ctx: Ctx) -> bool:
    return bool(ctx.ui.get("picker"))


def picker_back(ctx: Ctx) -> None:
    """BACK / close: RESULT_CANCELED - no file, the app's loading dialog stays."""
    ctx.ui.pop("picker", None)
    ctx.hide_keyboard()


def _save(ctx: Ctx) -> None:
    spec = ctx.ui.get("picker") or {}
    name = ctx.field_value("picker_name").strip()
    p = playlist(ctx.model.fs, int(spec.get("playlist", -1)))
    if not name or p is None:
        return
    fs = ctx.model.fs
    path = save_document(fs, DOWNLOAD, name, "m3u", m3u(p.songs).encode())
    ctx.ui.pop("picker", None)
    ctx.hide_keyboard()
    ctx.dismiss_dialog()
    found = media_rows(fs, "_data = ?", (shown(path),))
    segment = f"msf:{found[0]['_id']}" if found else posixpath.basename(path)
    ctx.toast(s(ctx, "saved_playlist_to", segment))


def picker_screen(ctx: Ctx) -> list[View]:
    """DocumentsUI's PickActivity in create mode, on Downloads."""
    l, t, r, b = ctx.area
    th = ctx.theme
    pkg = DOCS_PKG
    bar = V(
        ctx, "android.view.ViewGroup", (l, t, r, t + ctx.dp(64)), DOCS_ID + "toolbar", package=pkg, style={"bg": th.bg}
    )
    isz = ctx.dp(48)
    y = t + ctx.dp(8)
    bar.children.append(
        w.icon(
            ctx,
            (l + ctx.dp(4), y, l + ctx.dp(4) + isz, y + isz),
            "menu",
            th.text,
            desc="Show roots",
            cls=w.IMAGE_BUTTON,
            on_click=lambda: None,
        )
    )
    title = ctx.tr("Downloads", "下载")
    bar.children.append(w.text(ctx, (l + ctx.dp(68), t, r - ctx.dp(56), t + ctx.dp(64)), title, size=20))
    bar.children.append(
        w.icon(
            ctx,
            (r - ctx.dp(4) - isz, y, r - ctx.dp(4), y + isz),
            "more",
            th.text,
            desc=ctx.tr("More options", "更多选项"),
            cls=w.IMAGE_BUTTON,
            on_click=lambda: None,
        )
    )
    bottom_h = ctx.dp(72)
    fs = ctx.model.fs
    try:
        names = sorted((n for n, node in fs.listdir(DOWNLOAD) if not n.startswith(".")), key=str.casefold)
    except Exception:  # noqa: BLE001 - no Download folder: an empty list
        names = []
    rows = [w.text_row(ctx, title, DOCS_ID + "header_title", size=14, color=th.text2)]
    for n in names:
        rows.append(w.text_row(ctx, n, "android:id/title", size=16, color=th.text2))
    if not names:
        rows.append(
            w.text_row(ctx, ctx.tr("No items", "没有任何文件"), DOCS_ID + "message", size=16, align="c", height_dp=120)
        )
    lst = vlist(ctx, "picker", (l, t + ctx.dp(64), r, b - bottom_h), rows, DOCS_ID + "dir_list")
    save_bar = V(
        ctx, w.LINEAR, (l, b - bottom_h, r, b), DOCS_ID + "container_save", package=pkg, style={"bg": th.surface}
    )
    value = ctx.field_value("picker_name")
    save_w = ctx.dp(88)
    save_bar.children.append(
        w.edit(
            ctx,
            (l + ctx.dp(56), b - bottom_h + ctx.dp(12), r - save_w - ctx.dp(16), b - ctx.dp(12)),
            "picker_name",
            value,
            "",
            lambda v: ctx.set_field("picker_name", v),
            "android:id/title",
            action=lambda: _save(ctx),
            box="underline",
        )
    )
    save_bar.children.append(
        w.button(
            ctx,
            (r - save_w - ctx.dp(8), b - bottom_h + ctx.dp(16), r - ctx.dp(8), b - ctx.dp(16)),
            ctx.tr("Save", "保存"),
            lambda: _save(ctx),
            "android:id/button1",
        )
    )
    views = [V(ctx, w.FRAME, (l, t, r, b), package=pkg, style={"bg": th.bg}), bar, lst, save_bar]
    for v in views:
        for x in v.walk():
            x.package = pkg
    return views


__all__ = [
    "add_to_playlist_dialog",
    "create_playlist_dialog",
    "delete_playlist_dialog",
    "details_dialog",
    "picker_back",
    "picker_open",
    "picker_screen",
    "remove_from_playlist_dialog",
    "rename_playlist_dialog",
    "save_as_file",
    "save_playlist_dialog",
    "show_whats_new",
    "whats_new_due",
    "whats_new_sheet",
]
