"""Retro Music (`code.name.monkey.retromusic` 6.1.0, versionCode 10603 - the build AndroidWorld installs), launcher
label "Retro Music", its activity `code.name.monkey.retromusic.activities.MainActivity` (one activity: the nav
graph's fragments, the sliding player panel and the bottom navigation), over its own files: the Room database
`playlist.db`, MusicPlaybackQueueStore's `music_playback_state.db` and its preferences (`retromusic_data`), with
the songs MediaStore indexes on shared storage.

Modeled:
- the bottom navigation (`navigationView`: `action_home` For you, `action_song` Songs, `action_album` Albums,
  `action_artist` Artists, `action_playlist` Playlists; the last tab used opens at the next start), each tab's
  toolbar (the search icon, the title, menu_main in "More options"; on Playlists: New playlist) - `retromusic_lists`;
- quick-select mode on a list of songs (a long press, then taps) and its action bar - `retromusic_select`;
- the playlists: Add to playlist / New playlist from a song's menu or the Playlists tab, a playlist's screen and
  menu (Play, Play next, Add to playing queue, Add to playlist, Rename, Delete, Save as file: an .m3u through the
  system's document picker, on Downloads) - `retromusic_dialogs`;
- the playing queue and playback: a song tapped plays its list from there, Play next, Add to playing queue, the
  mini player, the Now Playing panel and its menu (Clear playing queue...), the playing queue screen (Clear
  queue, a song's menu) - `retromusic_player`;
- What's New (the changelog sheet) on the first start of this version.
Left out: the permission screen (PermissionActivity: the twin behaves as with READ_MEDIA_AUDIO and POST_NOTIFICATIONS
granted, as AndroidWorld's set-up grants them), settings, the tag editor, sharing, ringtones, the blacklist, deleting
songs, genres and folders, themes, album art, widgets, casting, audio.
"""

from __future__ import annotations

import functools
from typing import Any

from ..ui import widgets as w
from ..ui.layout import Ctx, vlist
from ..ui.view import View
from . import retromusic_dialogs as dialogs
from . import retromusic_lists as lists
from . import retromusic_player as player
from . import retromusic_select as select
from .base import App
from .retromusic_data import (
    LAST_USED_TAB,
    MAIN,
    PERMISSIONS,
    PKG,
    PLAYLIST_DB,
    PREFS,
    QUEUE_DB,
    VERSION_CODE,
    VERSION_NAME,
    all_songs,
    pref_int,
)
from .retromusic_widgets import ACCENT, push, routes, s, toolbar

NAV_DP = 80
TAB_IDS = [t[0] for t in lists.TABS]


class RetroMusicApp(App):
    package = PKG
    labels = {"en": "Retro Music", "zh": "Retro Music"}
    activities = {MAIN: "main"}
    launcher = MAIN
    color = ACCENT
    glyph = "sound"
    version_name = VERSION_NAME
    version_code = VERSION_CODE
    installed = True  # as AndroidWorld installs it
    permissions = PERMISSIONS
    databases = (PLAYLIST_DB, QUEUE_DB)

    def on_create(self, ctx: Ctx) -> None:
        QUEUE_DB.create(ctx.model.fs)  # the service opens its store at the start (restoring the queue)
        if dialogs.whats_new_due(ctx):
            dialogs.show_whats_new(ctx)

    # --- navigation -------------------------------------------------------------------------------------------
    def tab(self, ctx: Ctx) -> str:
        saved = pref_int(ctx.model.fs, LAST_USED_TAB, 0)
        return TAB_IDS[saved] if 0 <= saved < len(TAB_IDS) else TAB_IDS[0]

    def select_tab(self, ctx: Ctx, tab: str) -> None:
        PREFS.put(ctx.model.fs, LAST_USED_TAB, TAB_IDS.index(tab))
        ctx.ui["routes"] = []
        ctx.ui["selected"] = []
        ctx.ui.setdefault("scroll", {}).pop(tab, None)

    def open_dialog(self, ctx: Ctx, kind: str, spec: dict[str, Any]) -> None:
        if kind == "save_playlist":
            dialogs.save_as_file(ctx, int(spec.get("playlist", -1)))
            return
        ctx.show_dialog({"id": kind, **spec})
        if kind == "create_playlist":
            ctx.set_field("new_playlist", "")
            ctx.set_focus("new_playlist")
        elif kind == "rename_playlist":
            ctx.ui.setdefault("fields", {}).pop("rename_playlist", None)

    def on_back(self, ctx: Ctx) -> bool:
        if dialogs.picker_open(ctx):
            dialogs.picker_back(ctx)
            return True
        if ctx.ui.get("panel"):
            ctx.ui["panel"] = False
            return True
        if select.selection(ctx):  # quick-select mode ends
            select.selection(ctx).clear()
            return True
        if routes(ctx):
            lists.back(ctx)
            return True
        return False

    # --- the screen -------------------------------------------------------------------------------------------
    def screen_main(self, ctx: Ctx) -> list[View]:
        if dialogs.picker_open(ctx):
            return dialogs.picker_screen(ctx)
        q = player.queue(ctx)
        if ctx.ui.get("panel") and q.current is not None:
            return player.player_screen(ctx, self.open_dialog)
        ctx.ui["panel"] = False
        stack = routes(ctx)
        route = stack[-1] if stack else None
        l, t, r, b = ctx.area
        if route is not None and route.get("name") == "queue":
            return player.queue_screen(ctx, lambda: lists.back(ctx), self.open_dialog)
        nav_h = 0 if route is not None or ctx.keyboard else ctx.dp(NAV_DP)
        mini_h = ctx.dp(player.MINI_DP) if q.current is not None and not ctx.keyboard else 0
        bottom = b - nav_h - mini_h
        if route is None:
            views = self._tab_screen(ctx, bottom)
        elif route.get("name") == "search":
            views = lists.search_screen(ctx, self.open_dialog, bottom)
        else:
            views = lists.detail_screen(ctx, route, self.open_dialog, bottom)
        if mini_h:
            views.append(player.mini_player(ctx, (l, bottom, r, bottom + mini_h)))
        if nav_h:
            views.append(self._bottom_nav(ctx, (l, b - nav_h, r, b)))
        return views

    def _tab_screen(self, ctx: Ctx, bottom: int) -> list[View]:
        tab = self.tab(ctx)
        l, t, r, _ = ctx.area
        title = s(ctx, "app_name") if tab == "action_home" else s(ctx, dict((a, k) for a, k, _ in lists.TABS)[tab])

        def search() -> None:
            push(ctx, {"name": "search"})
            ctx.set_field("search", "")
            ctx.set_focus("search")

        def overflow() -> None:
            self.open_dialog(ctx, "main_menu", {"tab": tab, "top": t + ctx.dp(56)})

        bar = toolbar(ctx, title, ("search", s(ctx, "action_search"), search), overflow=overflow)
        if tab == "action_song" and select.selection(ctx):
            bar = select.action_mode(ctx, all_songs(ctx.model.fs), self.open_dialog)
        rows = lists.tab_rows(ctx, tab, bottom - bar.bounds[3], self.open_dialog)
        views = [bar, vlist(ctx, tab, (l, bar.bounds[3], r, bottom), rows, "recycler_view", pad_bottom=ctx.dp(80))]
        if tab == "action_song" and not ctx.keyboard:
            songs = all_songs(ctx.model.fs)

            def shuffle() -> None:
                if songs:
                    lists.shuffle_list(ctx, songs)

            fab = w.fab(
                ctx,
                "copy",
                s(ctx, "shuffle"),
                shuffle,
                rid="shuffle_button",
                bottom_dp=16 + (ctx.area[3] - bottom) / ctx.scale,
            )
            views.append(fab)
        return views

    def _bottom_nav(self, ctx: Ctx, box: tuple[int, int, int, int]) -> View:
        current = self.tab(ctx)
        items: list[tuple[str, bool, w.Click, str]] = [
            (s(ctx, key), tab == current, functools.partial(self.select_tab, ctx, tab), tab)
            for tab, key, _ in lists.TABS
        ]
        return w.tabs(ctx, box, items, bottom_nav=True, icons=[icon for _, _, icon in lists.TABS], rid="navigationView")

    # --- dialogs ----------------------------------------------------------------------------------------------
    def dialog_song_menu(self, ctx: Ctx, spec: dict[str, Any]) -> View:
        return lists.song_menu(ctx, spec, self.open_dialog)

    def dialog_cab_menu(self, ctx: Ctx, spec: dict[str, Any]) -> View:
        return select.cab_menu(ctx, spec, self.open_dialog)

    def dialog_playlist_menu(self, ctx: Ctx, spec: dict[str, Any]) -> View:
        return lists.playlist_menu(ctx, spec, self.open_dialog)

    def dialog_main_menu(self, ctx: Ctx, spec: dict[str, Any]) -> View:
        return lists.main_menu(ctx, spec, self.open_dialog)

    def dialog_player_menu(self, ctx: Ctx, spec: dict[str, Any]) -> View:
        return player.player_menu(ctx, spec, self.open_dialog)

    def dialog_queue_song_menu(self, ctx: Ctx, spec: dict[str, Any]) -> View:
        return player.queue_song_menu(ctx, spec, self.open_dialog)

    def dialog_add_to_playlist(self, ctx: Ctx, spec: dict[str, Any]) -> View:
        return dialogs.add_to_playlist_dialog(ctx, spec)

    def dialog_create_playlist(self, ctx: Ctx, spec: dict[str, Any]) -> View:
        return dialogs.create_playlist_dialog(ctx, spec)

    def dialog_rename_playlist(self, ctx: Ctx, spec: dict[str, Any]) -> View:
        return dialogs.rename_playlist_dialog(ctx, spec)

    def dialog_delete_playlist(self, ctx: Ctx, spec: dict[str, Any]) -> View:
        return dialogs.delete_playlist_dialog(ctx, spec)

    def dialog_remove_from_playlist(self, ctx: Ctx, spec: dict[str, Any]) -> View:
        return dialogs.remove_from_playlist_dialog(ctx, spec)

    def dialog_details(self, ctx: Ctx, spec: dict[str, Any]) -> View:
        return dialogs.details_dialog(ctx, spec)

    def dialog_save_playlist(self, ctx: Ctx, spec: dict[str, Any]) -> View | None:
        if dialogs.picker_open(ctx):
            return None  # the picker's window is over it
        return dialogs.save_playlist_dialog(ctx, spec)

    def dialog_whats_new(self, ctx: Ctx, spec: dict[str, Any]) -> View:
        return dialogs.whats_new_sheet(ctx, spec)


__all__ = ["RetroMusicApp"]
