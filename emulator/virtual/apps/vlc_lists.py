"""VLC's media lists and what a touch on their items does: the Video tab (the library's videos, grouped by name as
the app's default "Group by name" shows them, or not grouped), a video group, the Audio tab's tracks, the Browse
tab's storages and the file browser (folders, then the media files, by file name), the Playlists tab and a
playlist's tracks.

A tap plays a media (or opens a group, a folder, a playlist); a long press starts a selection, which taps then
grow or shrink in the order they come (the order "Add to playlist" adds them in); More Actions opens the item's
context sheet (`vlc_dialogs`). The selection is UI state of the process (`selection`: the list it belongs to and
the keys in order)."""

from __future__ import annotations

import posixpath
from typing import Any

from ..mediameta import MEDIA_TYPE_AUDIO, MEDIA_TYPE_VIDEO, media_type_of, mime_of
from ..ui.layout import Ctx, Row, grid_rows
from ..ui.view import View
from . import vlc_data as data
from . import vlc_widgets as vw
from .vlc_player import play

MAIN = "org.videolan.vlc.gui.MainActivity"
SECONDARY = "org.videolan.vlc.gui.SecondaryActivity"
PLAYLIST = "org.videolan.vlc.gui.HeaderMediaListActivity"
STORAGE = ("Internal memory", "内部存储")


def plural(ctx: Ctx, n: int, one: str, many: str, zh: str) -> str:
    """A quantity string (values/plurals.xml): `one` for 1, `many` (its %d the count) else; `zh` (%d) in Chinese."""
    if ctx.zh:
        return zh.replace("%d", str(n))
    return one if n == 1 else many.replace("%d", str(n))


def storage_name(ctx: Ctx) -> str:
    return ctx.tr(*STORAGE)


# --- entries ----------------------------------------------------------------------------------------------------
def video_entry(ctx: Ctx, v: dict[str, Any]) -> vw.Entry:
    played = int(v.get("play_count") or 0) > 0
    desc = ctx.tr("Video: ", "视频：") + str(v["title"]) + (ctx.tr(", Already played", "，已播放") if played else "")
    spoken = data.talkback_duration(v["duration"])
    desc += ctx.tr(", Duration: ", "，时长：") + spoken if spoken else ""
    return vw.Entry(f"m:{v['id_media']}", str(v["title"]), data.duration_text(v["duration"]), desc, "video", played)


def group_entry(ctx: Ctx, name: str, count: int) -> vw.Entry:
    n = plural(ctx, count, "1 video", "%d videos", "%d 个视频")
    return vw.Entry(f"g:{name}", name, n, ctx.tr(f"Video group: {name}, {n}", f"视频组：{name}，{n}"), "group")


def video_entries(ctx: Ctx, group: str | None = None) -> list[vw.Entry]:
    """The Video tab's items (or a group's videos): groups of one shown as their video."""
    videos = data.media(ctx.model, data.TYPE_VIDEO)
    grouping = str(data.pref(ctx.model, data.KEY_GROUPING, data.GROUP_BY_NAME))
    if group is None and grouping == data.GROUP_NONE:
        return [video_entry(ctx, v) for v in videos]
    out: list[vw.Entry] = []
    for name, members in data.video_groups(videos):
        if group is not None:
            if name == group:
                return [video_entry(ctx, v) for v in members]
            continue
        out.append(video_entry(ctx, members[0]) if len(members) == 1 else group_entry(ctx, name, len(members)))
    return out


def audio_entries(ctx: Ctx) -> list[vw.Entry]:
    out = []
    for a in data.media(ctx.model, data.TYPE_AUDIO):
        spoken = data.talkback_duration(a["duration"])
        desc = (
            ctx.tr("Audio track: ", "音轨：")
            + str(a["title"])
            + (ctx.tr(", Duration: ", "，时长：") + spoken if spoken else "")
        )
        out.append(vw.Entry(f"m:{a['id_media']}", str(a["title"]), data.duration_text(a["duration"]), desc, "audio"))
    return out


def _is_media(name: str) -> bool:
    return media_type_of(mime_of(name)) in (MEDIA_TYPE_VIDEO, MEDIA_TYPE_AUDIO)


def folder_entries(ctx: Ctx, path: str) -> list[vw.Entry]:
    """A folder as the file browser lists it: its folders, then its media files, each by name (hidden ones left
    out)."""
    fs = ctx.model.fs
    try:
        items = [(n, node) for n, node in fs.listdir(path) if not n.startswith(".")]
    except Exception:  # noqa: BLE001 - a folder gone meanwhile lists nothing
        return []
    folders, files = [], []
    for name, node in sorted(items, key=lambda it: it[0].lower()):
        full = posixpath.join(path, name)
        if node.is_dir:
            try:
                inner = [(n, nd) for n, nd in fs.listdir(full) if not n.startswith(".")]
            except Exception:  # noqa: BLE001
                inner = []
            subs = sum(1 for _, nd in inner if nd.is_dir)
            media = sum(1 for n, nd in inner if not nd.is_dir and _is_media(n))
            parts = [plural(ctx, subs, "1 subfolder", "%d subfolders", "%d 个子文件夹")] if subs else []
            parts += [plural(ctx, media, "1 media file", "%d media files", "%d 个媒体文件")] if media else []
            text = " \u00b7 ".join(parts)
            desc = ctx.tr("Folder: ", "文件夹：") + name + "".join(", " + p for p in parts or [ctx.tr("Empty", "空")])
            folders.append(vw.Entry(f"d:{full}", name, text if parts else "", desc, "folder"))
        elif _is_media(name):
            files.append(vw.Entry(f"f:{full}", name, "", ctx.tr("File: ", "文件：") + name, "file"))
    return folders + files


def playlist_entries(ctx: Ctx) -> list[vw.Entry]:
    out = []
    for p in data.playlists(ctx.model):
        n = plural(ctx, int(p["tracks"]), "1 track", "%d tracks", "%d 首曲目")
        desc = ctx.tr("Playlist: ", "播放列表：") + f"{p['name']}, {n}"
        out.append(vw.Entry(f"p:{p['id_playlist']}", str(p["name"]), n, desc, "playlist"))
    return out


def track_entries(ctx: Ctx, playlist_id: int) -> list[vw.Entry]:
    out = []
    for i, t in enumerate(data.tracks(ctx.model, playlist_id)):
        kind = "video" if int(t["type"]) == data.TYPE_VIDEO else "audio"
        out.append(vw.Entry(f"t:{i}:{t['id_media']}", str(t["title"]), data.duration_text(t["duration"]), "", kind))
    return out


# --- the selection ---------------------------------------------------------------------------------------------
def selection(ctx: Ctx, scope: str) -> list[str]:
    sel = ctx.ui.get("selection")
    return list(sel["keys"]) if isinstance(sel, dict) and sel.get("scope") == scope else []


def clear_selection(ctx: Ctx) -> None:
    ctx.ui.pop("selection", None)


def _toggle(ctx: Ctx, scope: str, key: str) -> None:
    keys = selection(ctx, scope)
    if key in keys:
        keys.remove(key)
    else:
        keys.append(key)
    if keys:
        ctx.ui["selection"] = {"scope": scope, "keys": keys}
    else:
        clear_selection(ctx)


def media_ids(ctx: Ctx, keys: list[str]) -> list[int]:
    """The media an item stands for, in order: a video, a group's videos, a file's media (discovered when new)."""
    out: list[int] = []
    for key in keys:
        kind, _, rest = key.partition(":")
        if kind == "m":
            out.append(int(rest))
        elif kind == "g":
            out += [int(e.key[2:]) for e in video_entries(ctx, rest)]
        elif kind == "f":
            mid = data.media_id_of(ctx.model, rest)
            if mid is not None:
                out.append(mid)
        elif kind == "t":
            out.append(int(rest.split(":")[1]))
    return out


# --- touches -----------------------------------------------------------------------------------------------------
def open_entry(ctx: Ctx, scope: str, entry: vw.Entry) -> None:
    if selection(ctx, scope):
        if entry.kind != "folder":
            _toggle(ctx, scope, entry.key)
        return
    kind, _, rest = entry.key.partition(":")
    if kind == "g":
        ctx.push(SECONDARY, {"kind": "group", "name": rest})
    elif kind == "d":
        ctx.extras["path"] = rest
    elif kind == "p":
        ctx.push(PLAYLIST, {"playlist": int(rest)})
    elif kind in ("m", "f"):
        ids = media_ids(ctx, [entry.key])
        if ids:
            play(ctx, ids[0])
    elif kind == "t":
        play(ctx, int(rest.split(":")[1]))


def long_entry(ctx: Ctx, scope: str, entry: vw.Entry) -> None:
    if entry.kind in ("folder", "playlist") or scope.startswith("playlist:"):
        return
    _toggle(ctx, scope, entry.key)


def more_entry(ctx: Ctx, scope: str, entry: vw.Entry) -> None:
    ctx.show_dialog({"id": "context", "scope": scope, "key": entry.key, "title": entry.title, "kind": entry.kind})


def item_rows(
    ctx: Ctx, scope: str, entries: list[vw.Entry], cards: bool, ids: tuple[str, str, str, str] | None = None
) -> list[Row]:
    """The rows of a list of entries: a grid of cards, or one row per entry."""
    keys = selection(ctx, scope)
    width = ctx.area[2] - ctx.area[0]

    def handlers(e: vw.Entry) -> tuple[Any, Any, Any]:
        return (
            lambda: open_entry(ctx, scope, e),
            lambda: long_entry(ctx, scope, e),
            lambda: more_entry(ctx, scope, e),
        )

    if cards:
        columns = max(2, int(ctx.width_dp // 180))
        cell_w = (width - ctx.dp(8)) // columns
        h = vw.card_height(ctx, cell_w)

        def cell(i: int, x: int, y: int, cw: int, ch: int) -> View:
            e = entries[i]
            return vw.card(ctx, (x + ctx.dp(4), y, x + cw, y + ch), e, e.key in keys, *handlers(e))

        return grid_rows(len(entries), columns, h, cell)
    rh = vw.row_height(ctx)
    rows = []
    for e in entries:

        def build(x: int, y: int, wd: int, e: vw.Entry = e) -> View:
            click, long, more = handlers(e)
            more = None if e.kind == "folder" else more
            box = (x, y, x + wd, y + rh)
            return vw.row(ctx, box, e, e.key in keys, click, long, more, ids=ids or vw.VIDEO_ROW_IDS)

        rows.append(Row(rh, build))
    return rows
