"""VLC for Android (`org.videolan.vlc` 3.5.4, version code 13050408: the build AndroidWorld installs) over its media
library, /data/data/org.videolan.vlc/app_db/vlc_media.db (`vlc_data`: the medialibrary's own tables), which is
its one truth: the lists show its rows, playlists are written there, and what `adb push` puts there is what the
app shows after a restart.

- MainActivity: the toolbar (the VLC cone and "VLC", the overflow: Display in list / grid, Group videos, Refresh),
  the bottom navigation (`navigation`: Video, Audio, Browse, Playlists, More) and the tab's list (`vlc_lists`):
  the videos as a grid of cards (or a list), grouped by name as the app's default groups them; the audio tracks;
  Browse's "Internal memory"; the playlists. Without all-files access the lists show "Permission not granted" and
  GRANT PERMISSION ("Allow VLC all file access", OK opens Settings' page for VLC). The media library discovers the
  storage when the main screen starts with access (the process's first start, or the access just granted) and
  on Refresh: media added while the app runs show after that, as on the real app.
- A video group or a folder of the file browser (SecondaryActivity), a playlist's tracks (HeaderMediaListActivity),
  the video player (`vlc_player`), the first start (`vlc_onboarding`), the dialogs and sheets (`vlc_dialogs`).
- A long press selects (the contextual bar: Play, Add to playlist); More Actions opens an item's context sheet.
Left out: the audio player and mini player (an audio file plays in the video player's screen, its title over
black), audio categories (artists, albums, genres), search, sorting, history, streams and the network browser,
favourites, video groups' editing (rename, ungroup, add to group), the media information screen, settings, casting,
thumbnails (a placeholder stands for each picture).
"""

from __future__ import annotations

import posixpath
from typing import Any

from ..ui import widgets as w
from ..ui.layout import Ctx, Row, V
from ..ui.theme import Color
from ..ui.view import View
from . import vlc_data as data
from . import vlc_dialogs as dlg
from . import vlc_lists as lists
from . import vlc_onboarding as onboarding
from . import vlc_player as player
from . import vlc_widgets as vw
from .base import App, page

MAIN, SECONDARY, PLAYLIST = lists.MAIN, lists.SECONDARY, lists.PLAYLIST
ACTION_IDS = {  # the contextual bar's Play and Add to playlist, by the list's menu (action_mode_*.xml)
    "videos": ("action_videogroup_play", "action_videogroup_add_playlist"),
    "list": ("action_video_play", "action_mode_audio_add_playlist"),
    "browse": ("action_mode_file_play", "action_mode_file_add_playlist"),
    "audio": ("action_mode_audio_play", "action_mode_audio_add_playlist"),
}


class VlcApp(App):
    package = data.PKG
    labels = {"en": "VLC", "zh": "VLC"}
    activities = {
        MAIN: "main",
        onboarding.ONBOARDING: "onboarding",
        SECONDARY: "secondary",
        PLAYLIST: "playlist",
        player.PLAYER: "player",
    }
    launcher = MAIN
    color: Color = vw.ORANGE
    glyph = "play"
    version_name = data.VERSION_NAME
    version_code = data.VERSION_CODE
    installed = True  # as AndroidWorld installs it
    permissions = (
        "android.permission.READ_EXTERNAL_STORAGE",
        "android.permission.WRITE_EXTERNAL_STORAGE",
        "android.permission.MANAGE_EXTERNAL_STORAGE",
        "android.permission.POST_NOTIFICATIONS",
        "android.permission.INTERNET",
        "android.permission.RECORD_AUDIO",
        "android.permission.WAKE_LOCK",
    )
    databases = (data.DB,)

    # --- lifecycle ---------------------------------------------------------------------------------------------
    def on_foreground(self, ctx: Ctx) -> None:
        ex = ctx.extras
        if ctx.activity == onboarding.ONBOARDING:
            onboarding.resume(ctx)
            return
        if ctx.activity != MAIN:
            return
        if not ex.get("_created"):
            ex["_created"] = True
            if not onboarding.done(ctx):
                ctx.push(onboarding.ONBOARDING)
                return
        if data.can_read_storage(ctx.model):
            if (ctx.ui.get("dialog") or {}).get("id") == "all_access":
                ctx.dismiss_dialog()
            if not ctx.ui.get("scanned"):  # reloadLibrary on start, or once the access is granted
                ctx.ui["scanned"] = True
                data.scan(ctx.model)

    def on_back(self, ctx: Ctx) -> bool:
        if ctx.activity == player.PLAYER:
            return player.on_back(ctx)
        if ctx.activity == onboarding.ONBOARDING:
            return onboarding.back(ctx)
        if ctx.ui.get("selection"):
            lists.clear_selection(ctx)
            return True
        if ctx.activity == SECONDARY and ctx.extras.get("kind") == "browser":
            path = str(ctx.extras.get("path", data.ROOT))
            if path != data.ROOT:
                ctx.extras["path"] = posixpath.dirname(path)
                return True
        return False

    def window_bg(self, ctx: Ctx) -> Color:
        return player.window_bg() if ctx.activity == player.PLAYER else ctx.theme.bg

    def dialog(self, ctx: Ctx) -> View | None:
        spec = ctx.ui.get("dialog")
        fn = dlg.DIALOGS.get(str((spec or {}).get("id", "")))
        return fn(ctx, spec) if fn and spec else None

    # --- bars --------------------------------------------------------------------------------------------------
    def _header(self, ctx: Ctx, scope: str, menu: str, title: str = "", up: Any = None, tab: str = "") -> View:
        keys = lists.selection(ctx, scope)
        if keys:
            play_id, add_id = ACTION_IDS[menu]

            def play_sel() -> None:
                ids = lists.media_ids(ctx, keys)
                lists.clear_selection(ctx)
                if ids:
                    player.play(ctx, ids[0])

            items: list[tuple[str, str, str, vw.Click]] = [
                (
                    "play",
                    ctx.tr("Play all", "全部播放") if menu == "browse" else ctx.tr("Play", "播放"),
                    play_id,
                    play_sel,
                ),
                ("add", ctx.tr("Add to playlist", "添加到播放列表"), add_id, lambda: dlg.add_to_playlist(ctx, keys)),
            ]
            return vw.action_bar(ctx, len(keys), items, lambda: lists.clear_selection(ctx))
        actions: list[tuple[str, str, vw.Click, str]] = [
            ("more", ctx.tr("More options", "更多选项"), lambda: ctx.show_dialog({"id": "overflow", "tab": tab}), "")
        ]
        if title:
            return vw.toolbar(ctx, title, actions, up)
        bar = vw.toolbar(ctx, "", actions)
        l, t, _, _ = ctx.area
        h = bar.bounds[3] - t
        isz = ctx.dp(32)
        bar.children.insert(
            0,
            w.icon(
                ctx,
                (l + ctx.dp(16), t + (h - isz) // 2, l + ctx.dp(16) + isz, t + (h + isz) // 2),
                "play",
                vw.ORANGE,
                "toolbar_icon",
            ),
        )
        tx = l + ctx.dp(60)
        bar.children.insert(1, w.text(ctx, (tx, t, tx + ctx.dp(160), t + h), "VLC", "toolbar_vlc_title", 22, bold=True))
        return bar

    def _missing(self, ctx: Ctx, header: View, footer: list[View], footer_h: int, text: str) -> list[View]:
        l, _, r, b = ctx.area
        box = (l, header.bounds[3], r, b - footer_h)
        granted = data.can_read_storage(ctx.model)
        state = vw.empty_state(ctx, box, not granted, lambda: dlg.ask_all_files(ctx), text)
        return [header, state, *footer]

    # --- MainActivity -------------------------------------------------------------------------------------------
    def screen_main(self, ctx: Ctx) -> list[View]:
        tab = str(ctx.ui.get("tab", "nav_video"))

        def select(rid: str) -> None:
            lists.clear_selection(ctx)
            ctx.ui["tab"] = rid

        nav, nav_h = vw.bottom_nav(ctx, tab, select)
        scope = {"nav_video": "videos", "nav_audio": "audio", "nav_playlists": "playlists"}.get(tab, tab)
        grouped = str(data.pref(ctx.model, data.KEY_GROUPING, data.GROUP_BY_NAME)) != data.GROUP_NONE
        header = self._header(ctx, scope, "videos" if grouped else "list", tab=tab)
        granted = data.can_read_storage(ctx.model)
        rows: list[Row]
        if tab == "nav_directories":
            rows = [vw.header_row(ctx, ctx.tr("Storages", "存储"))]
            name = lists.storage_name(ctx)
            entry = vw.Entry("d:" + data.ROOT, name, "", ctx.tr("Folder: ", "文件夹：") + name, "folder")
            rh = vw.row_height(ctx)

            def storage(x: int, y: int, wd: int) -> View:
                open_root = lambda: ctx.push(SECONDARY, {"kind": "browser", "path": data.ROOT})  # noqa: E731
                return vw.row(
                    ctx,
                    (x, y, x + wd, y + rh),
                    entry,
                    False,
                    open_root,
                    None,
                    None,
                    ids=("browser_container", "item_icon", "title", "text"),
                )

            rows.append(Row(rh, storage))
        elif tab == "nav_more":
            rows = [vw.header_row(ctx, ctx.tr("History", "历史记录"))]
            rows.append(w.text_row(ctx, ctx.tr("No media", "无媒体"), "emptyTextView", color=ctx.theme.text2))
            rows.append(vw.header_row(ctx, ctx.tr("About", "关于")))
            rows.append(w.text_row(ctx, f"VLC for Android\u2122 {data.VERSION_NAME}", "app_version"))
        else:
            entries = {
                "nav_video": lambda: lists.video_entries(ctx),
                "nav_audio": lambda: lists.audio_entries(ctx),
                "nav_playlists": lambda: lists.playlist_entries(ctx),
            }[tab]()
            if not granted or not entries:
                empty = (
                    ctx.tr("No playlist found.", "未找到播放列表。")
                    if tab == "nav_playlists"
                    else ctx.tr(
                        "No media files found, please transfer some files to your device or adjust your preferences.",
                        "未找到媒体文件，请将文件传输到设备或调整偏好设置。",
                    )
                )
                return self._missing(ctx, header, [nav], nav_h, empty)
            cards = tab == "nav_playlists" or (tab == "nav_video" and data.pref(ctx.model, data.KEY_CARDS, True))
            rows = lists.item_rows(ctx, scope, entries, bool(cards))
        rid = {"nav_video": "video_grid", "nav_audio": "audio_list", "nav_playlists": "playlist_list"}.get(tab, "list")
        return page(ctx, [header], rows, key=f"main_{tab}", rid=rid, footer=[nav], footer_h=nav_h)

    # --- SecondaryActivity: a video group, a folder -------------------------------------------------------------
    def screen_secondary(self, ctx: Ctx) -> list[View]:
        ex = ctx.extras
        if ex.get("kind") == "browser":
            path = str(ex.get("path", data.ROOT))
            scope = f"browse:{path}"
            title = lists.storage_name(ctx) if path == data.ROOT else posixpath.basename(path)
            header = self._header(ctx, scope, "browse", title, up=lambda: self._up(ctx))
            if not data.can_read_storage(ctx.model):
                return self._missing(ctx, header, [], 0, "")
            entries = lists.folder_entries(ctx, path)
            ids = ("browser_container", "item_icon", "title", "text")
            rows = lists.item_rows(ctx, scope, entries, False, ids)
            if not entries:
                rows = [w.text_row(ctx, ctx.tr("Empty", "空"), "empty", color=ctx.theme.text2, align="c", height_dp=96)]
            return page(ctx, [header], rows, key=f"browse_{path}", rid="network_list")
        name = str(ex.get("name", ""))
        scope = f"group:{name}"
        header = self._header(ctx, scope, "list", name, up=ctx.finish)
        entries = lists.video_entries(ctx, name)
        if not entries:
            return self._missing(ctx, header, [], 0, ctx.tr("No media files found", "未找到媒体文件"))
        cards = bool(data.pref(ctx.model, data.KEY_CARDS, True))
        return page(ctx, [header], lists.item_rows(ctx, scope, entries, cards), key=f"group_{name}", rid="video_grid")

    def _up(self, ctx: Ctx) -> None:
        lists.clear_selection(ctx)
        path = str(ctx.extras.get("path", data.ROOT))
        if path == data.ROOT:
            ctx.finish()
        else:
            ctx.extras["path"] = posixpath.dirname(path)

    # --- HeaderMediaListActivity: a playlist ---------------------------------------------------------------------
    def screen_playlist(self, ctx: Ctx) -> list[View]:
        pid = int(ctx.extras.get("playlist", 0))
        pl = data.playlist(ctx.model, pid)
        if pl is None:
            ctx.finish()
            return []
        scope = f"playlist:{pid}"
        tb = vw.toolbar(ctx, "", [], up=ctx.finish)
        th = ctx.theme
        entries = lists.track_entries(ctx, pid)
        head_h = ctx.line_h(22) + ctx.line_h(14) + ctx.dp(96)

        def head(x: int, y: int, wd: int) -> View:
            v = V(ctx, w.VIEWGROUP, (x, y, x + wd, y + head_h), "header_layout")
            pad = ctx.dp(16)
            h1, h2 = ctx.line_h(22), ctx.line_h(14)
            v.children.append(
                w.text(
                    ctx,
                    (x + pad, y + pad, x + wd - pad, y + pad + h1),
                    str(pl["name"]),
                    "header_list_title",
                    22,
                    bold=True,
                    desc=ctx.tr("Album: ", "专辑：") + str(pl["name"]),
                )
            )
            n = lists.plural(ctx, len(entries), "1 track", "%d tracks", "%d 首曲目")
            v.children.append(
                w.text(
                    ctx,
                    (x + pad, y + pad + h1, x + wd - pad, y + pad + h1 + h2),
                    f"{n} \u00b7 {data.duration_text(pl['duration'])}",
                    "header_list_artist",
                    14,
                    th.text2,
                )
            )
            by = y + pad + h1 + h2 + ctx.dp(12)
            first = entries[0] if entries else None
            btn = w.button(
                ctx,
                (x + pad, by, x + pad + ctx.dp(120), by + ctx.dp(44)),
                "PLAY",
                (lambda: lists.open_entry(ctx, scope, first)) if first else None,
                "play_btn",
                enabled=first is not None,
            )
            btn.style.update(bg=vw.BUTTON_BG, fg=(255, 255, 255))
            v.children.append(btn)
            return v

        rows = [
            Row(head_h, head),
            *lists.item_rows(ctx, scope, entries, False, ("", "media_cover", "title", "subtitle")),
        ]
        return page(ctx, [tb], rows, key=f"playlist_{pid}", rid="songs")

    # --- the others ------------------------------------------------------------------------------------------------
    def screen_player(self, ctx: Ctx) -> list[View]:
        return player.screen(ctx)

    def screen_onboarding(self, ctx: Ctx) -> list[View]:
        return onboarding.screen(ctx)
