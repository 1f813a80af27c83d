"""Retro Music's library screens: the five tabs of the bottom navigation (For you, Songs, Albums, Artists,
Playlists) and what they open (a playlist, an album, an artist, History / Last added / Most played, Search), with
the popup menus of a song (menu_item_song, menu_item_playlist_song) and of a playlist (menu_item_playlist,
menu_playlist_detail).

- Songs: `item_list` rows (cover, `title`, `text` = the artist, overflow `menu`) by title; a tap plays the whole
  list from that song (MusicPlayerRemote.openQueue), a long press checks it (quick-select mode: `retromusic_select`);
  the `shuffle_button` plays it shuffled.
- Albums / Artists: the grid of `item_grid` cards (`title`, `text`), an album's or an artist's songs.
- Playlists: a two-column grid of `item_grid` cards (`title`, `text` "N Songs  •  mm:ss", `menu`); a card opens
  the playlist (fragment_playlist_detail_new: `title`, `subtitle`, `play_button`, `shuffle_button`, its songs in
  song_key order in `item_queue` rows); leaving it saves its songs in the order shown (OrderablePlaylistSongAdapter.
  saveSongs: re-inserted with REPLACE, new song_keys, same order).
- For you: `history`, `lastAdded`, `topPlayed` and `actionShuffle` under the welcome header.
- Search (the toolbar's navigation icon): `searchView`, the filter chips, songs / albums / artists matching.
Left out: grid sizes and styles, sort orders, selecting albums, artists or playlists, album art, genres and
folders, the suggestions.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable
from typing import Any

from ..ui import widgets as w
from ..ui.layout import Ctx, Row, V, grid_rows, vlist
from ..ui.view import View
from . import retromusic_player as player
from .retromusic_data import (
    PREFS,
    SAVED_SHUFFLE_MODE,
    Playlist,
    Song,
    all_songs,
    count_text,
    info_text,
    insert_songs,
    last_added,
    playlist,
    playlists,
)
from .retromusic_select import action_mode, selection, toggle
from .retromusic_widgets import ACCENT, empty_row, pop, popup_menu, push, s, song_row, toolbar

Opener = Callable[[Ctx, str, dict[str, Any]], None]
TABS = (  # (menu id, string, icon)
    ("action_home", "for_you", "home"),
    ("action_song", "songs", "sound"),
    ("action_album", "albums", "storage"),
    ("action_artist", "artists", "star"),
    ("action_playlist", "playlists", "menu"),
)
GRID = "item_grid"
Card = tuple[str, str, Callable[[], None], Callable[[int], None] | None]  # title, text, open, its menu


def song_by_id(ctx: Ctx, song_id: int) -> Song | None:
    found = next((x for x in all_songs(ctx.model.fs) if x.id == song_id), None)
    if found is None:
        for p in playlists(ctx.model.fs):
            found = next((x for x in p.songs if x.id == song_id), found)
    if found is None:
        found = next((x for x in player.queue(ctx).playing if x.id == song_id), None)
    return found


# --- menus ---------------------------------------------------------------------------------------------------------
def song_menu(ctx: Ctx, spec: dict[str, Any], open_dialog: Opener) -> View:
    """menu_item_song (a playlist's song: menu_item_playlist_song, "Remove from playlist" first)."""
    song = song_by_id(ctx, int(spec.get("song", -1)))
    pid = spec.get("playlist")

    def run(fn: Callable[[Song], None]) -> Callable[[], None]:
        def go() -> None:
            ctx.dismiss_dialog()
            if song is not None:
                fn(song)

        return go

    def add(x: Song) -> None:
        open_dialog(ctx, "add_to_playlist", {"songs": [x.id]})

    def album(x: Song) -> None:
        push(ctx, {"name": "album", "key": x.album_id, "title": x.album_name})

    def artist(x: Song) -> None:
        push(ctx, {"name": "artist", "key": x.artist_id, "title": x.artist_name})

    def details(x: Song) -> None:
        open_dialog(ctx, "details", {"song": x.id})

    def remove(x: Song) -> None:
        open_dialog(ctx, "remove_from_playlist", {"song": x.id, "playlist": pid})

    nothing = ctx.dismiss_dialog
    items: list[tuple[str, Callable[[], None]]] = []
    if pid is not None:
        items.append((s(ctx, "action_remove_from_playlist"), run(remove)))
    items += [
        (s(ctx, "action_play_next"), run(lambda x: player.play_next(ctx, [x]))),
        (s(ctx, "action_add_to_playing_queue"), run(lambda x: player.enqueue(ctx, [x]))),
        (s(ctx, "action_add_to_playlist"), run(add)),
        (s(ctx, "action_go_to_album"), run(album)),
        (s(ctx, "action_go_to_artist"), run(artist)),
        (s(ctx, "action_share"), nothing),
        (s(ctx, "action_tag_editor"), nothing),
        (s(ctx, "action_details"), run(details)),
        (s(ctx, "action_set_as_ringtone"), nothing),
    ]
    if pid is None:
        items.append((s(ctx, "action_add_to_blacklist"), nothing))
    items.append((s(ctx, "action_delete_from_device"), nothing))
    return popup_menu(ctx, items, int(spec.get("top", ctx.area[1])))


def playlist_menu(ctx: Ctx, spec: dict[str, Any], open_dialog: Opener) -> View:
    """menu_item_playlist / menu_playlist_detail (PlaylistMenuHelper)."""
    p = playlist(ctx.model.fs, int(spec.get("playlist", -1)))

    def run(fn: Callable[[Playlist], None]) -> Callable[[], None]:
        def go() -> None:
            ctx.dismiss_dialog()
            if p is not None:
                fn(p)

        return go

    items = [
        (s(ctx, "action_play"), run(lambda x: player.open_queue(ctx, list(x.songs), 0, True))),
        (s(ctx, "action_play_next"), run(lambda x: player.play_next(ctx, list(x.songs)))),
        (s(ctx, "action_add_to_playing_queue"), run(lambda x: player.enqueue(ctx, list(x.songs)))),
        (
            s(ctx, "action_add_to_playlist"),
            run(lambda x: open_dialog(ctx, "add_to_playlist", {"songs": [y.id for y in x.songs]})),
        ),
        (
            s(ctx, "action_rename"),
            run(lambda x: open_dialog(ctx, "rename_playlist", {"playlist": x.id, "name": x.name})),
        ),
        (s(ctx, "action_delete"), run(lambda x: open_dialog(ctx, "delete_playlist", {"playlist": x.id}))),
        (s(ctx, "save_playlist_title"), run(lambda x: open_dialog(ctx, "save_playlist", {"playlist": x.id}))),
    ]
    return popup_menu(ctx, items, int(spec.get("top", ctx.area[1])))


def main_menu(ctx: Ctx, spec: dict[str, Any], open_dialog: Opener) -> View:
    """menu_main on a tab (Playlists adds New playlist and Import playlist; Cast left out: no cast device)."""
    nothing = ctx.dismiss_dialog
    items: list[tuple[str, Callable[[], None]]] = [(s(ctx, "action_grid_size"), nothing)]
    if spec.get("tab") != "action_playlist":
        items.append((s(ctx, "grid_style_label"), nothing))
    items.append((s(ctx, "action_sort_order"), nothing))
    if spec.get("tab") == "action_playlist":
        items.append((s(ctx, "action_new_playlist"), lambda: open_dialog(ctx, "create_playlist", {"songs": []})))
        items.append((s(ctx, "import_playlist"), nothing))
    items.append((s(ctx, "action_settings"), nothing))
    return popup_menu(ctx, items, int(spec.get("top", ctx.area[1])))


# --- rows ----------------------------------------------------------------------------------------------------------
def song_rows(
    ctx: Ctx, songs: list[Song], open_dialog: Opener, playlist_id: int | None = None, selectable: bool = True
) -> list[Row]:
    """The list's rows: a tap plays the list from the song (checks it in quick-select mode), a long press checks
    it (playlist songs: no quick select here)."""
    rows = []
    current = player.queue(ctx).current
    selectable = selectable and playlist_id is None
    sel = selection(ctx) if selectable else []
    for i, song in enumerate(songs):

        def menu(top: int, song: Song = song) -> None:
            spec: dict[str, Any] = {"song": song.id, "top": top}
            if playlist_id is not None:
                spec["playlist"] = playlist_id
            open_dialog(ctx, "song_menu", spec)

        def tap(i: int = i, song: Song = song) -> None:
            if selection(ctx) and selectable:
                toggle(ctx, song.id)
            else:
                player.open_queue(ctx, songs, i, True)

        checked = song.id in sel
        row = song_row(
            ctx,
            song,
            tap,
            None if checked else menu,
            playing=current is not None and current.id == song.id,
            on_long_click=functools.partial(toggle, ctx, song.id) if selectable else None,
            activated=checked,
        )
        rows.append(row)
    return rows


def _card(
    ctx: Ctx,
    box: tuple[int, int, int, int],
    title: str,
    text: str,
    on_click: Callable[[], None],
    menu: Callable[[int], None] | None,
    icon: str,
) -> View:
    x, y, r, b = box
    th = ctx.theme
    pad = ctx.dp(8)
    card = V(
        ctx,
        "android.view.ViewGroup",
        box,
        clickable=True,
        focusable=True,
        long_clickable=True,
        on_click=on_click,
        on_long_click=lambda: None,
    )
    side = r - x - 2 * pad
    card.children.append(
        V(
            ctx,
            w.FRAME,
            (x + pad, y + pad, r - pad, y + pad + side),
            "imageContainer",
            style={"bg": th.surface2, "radius": ctx.dp(12), "icon": icon, "icon_color": th.text2},
        )
    )
    ty = y + pad + side + ctx.dp(6)
    right = r - pad - (ctx.dp(40) if menu else 0)
    card.children.append(
        w.text(ctx, (x + pad, ty, right, ty + ctx.line_h(16)), title, "title", size=16, style={"ellipsize": True})
    )
    card.children.append(
        w.text(
            ctx,
            (x + pad, ty + ctx.line_h(16), right, ty + ctx.line_h(16) + ctx.line_h(13)),
            text,
            "text",
            size=13,
            color=th.text2,
            style={"ellipsize": True},
        )
    )
    if menu is not None:
        my = ty + (ctx.line_h(16) + ctx.line_h(13) - ctx.dp(40)) // 2
        card.children.append(
            w.icon(
                ctx,
                (right, my, right + ctx.dp(40), my + ctx.dp(40)),
                "more",
                th.text2,
                "menu",
                on_click=lambda: menu(my + ctx.dp(40)),
            )
        )
    return card


def _grid(ctx: Ctx, items: list[Card], icon: str) -> list[Row]:
    cols = 2
    cw = (ctx.area[2] - ctx.area[0] - ctx.dp(16)) // cols
    h = cw + ctx.line_h(16) + ctx.line_h(13) + ctx.dp(24)

    def cell(i: int, x: int, y: int, wd: int, ht: int) -> View:
        title, text, cb, menu = items[i]
        return _card(ctx, (x + ctx.dp(8), y, x + wd + ctx.dp(8), y + ht), title, text, cb, menu, icon)

    return grid_rows(len(items), cols, h, cell)


# --- the tabs ------------------------------------------------------------------------------------------------------
def tab_rows(ctx: Ctx, tab: str, height: int, open_dialog: Opener) -> list[Row]:
    fs = ctx.model.fs
    if tab == "action_home":
        return _home_rows(ctx)
    if tab == "action_song":
        songs = all_songs(fs)
        return song_rows(ctx, songs, open_dialog) or [empty_row(ctx, s(ctx, "no_songs"), height)]
    if tab in ("action_album", "action_artist"):
        album = tab == "action_album"
        groups: dict[int, tuple[str, str, list[Song]]] = {}
        for x in all_songs(fs):
            key = x.album_id if album else x.artist_id
            name = x.album_name if album else x.artist_name
            groups.setdefault(key, (name, x.artist_name, []))[2].append(x)
        ordered = sorted(groups.items(), key=lambda kv: kv[1][0].casefold())
        cards: list[Card] = []
        for key, (name, artist, songs) in ordered:
            route = {"name": "album" if album else "artist", "key": key, "title": name}
            cards.append(
                (name, artist if album else count_text(ctx.zh, len(songs)), functools.partial(push, ctx, route), None)
            )
        if not cards:
            return [empty_row(ctx, s(ctx, "no_albums" if album else "no_artists"), height)]
        return _grid(ctx, cards, "storage" if album else "star")
    items: list[Card] = []
    for p in playlists(fs):

        def menu(top: int, p: Playlist = p) -> None:
            open_dialog(ctx, "playlist_menu", {"playlist": p.id, "top": top})

        items.append(
            (
                p.name or "-",
                info_text(ctx.zh, list(p.songs)),
                functools.partial(push, ctx, {"name": "playlist", "id": p.id}),
                menu,
            )
        )
    if not items:
        return [empty_row(ctx, s(ctx, "no_playlists"), height)]
    return _grid(ctx, items, "menu")


def _home_rows(ctx: Ctx) -> list[Row]:
    th = ctx.theme

    def header(x: int, y: int, wd: int) -> list[View]:
        return [
            V(
                ctx,
                w.IMAGE,
                (x + ctx.dp(16), y + ctx.dp(8), x + ctx.dp(64), y + ctx.dp(56)),
                "userImage",
                style={"bg": th.surface2, "radius": ctx.dp(24)},
            ),
            w.text(
                ctx,
                (x + ctx.dp(76), y + ctx.dp(8), x + wd - ctx.dp(16), y + ctx.dp(30)),
                s(ctx, "welcome"),
                "text",
                size=14,
                color=th.text2,
            ),
            w.text(
                ctx,
                (x + ctx.dp(76), y + ctx.dp(30), x + wd - ctx.dp(16), y + ctx.dp(56)),
                "User",
                "titleWelcome",
                size=20,
                bold=True,
            ),
        ]

    buttons = [
        ("history", "history", lambda: push(ctx, {"name": "smart", "kind": "history"})),
        ("lastAdded", "last_added", lambda: push(ctx, {"name": "smart", "kind": "last_added"})),
        ("topPlayed", "my_top_tracks", lambda: push(ctx, {"name": "smart", "kind": "top"})),
        ("actionShuffle", "shuffle", lambda: _shuffle_all(ctx)),
    ]

    def grid(x: int, y: int, wd: int) -> list[View]:
        out = []
        bw = (wd - ctx.dp(48)) // 2
        for i, (rid, key, cb) in enumerate(buttons):
            bx = x + ctx.dp(16) + (i % 2) * (bw + ctx.dp(16))
            by = y + (i // 2) * ctx.dp(64)
            out.append(w.button(ctx, (bx, by, bx + bw, by + ctx.dp(52)), s(ctx, key), cb, rid, kind="tonal"))
        return out

    return [Row(ctx.dp(72), header), Row(ctx.dp(136), grid)]


def _shuffle_all(ctx: Ctx) -> None:
    songs = all_songs(ctx.model.fs)
    if songs:
        PREFS.put(ctx.model.fs, SAVED_SHUFFLE_MODE, 1)
        player.open_queue(ctx, songs, random.randrange(len(songs)), True)


# --- the destinations over a tab -----------------------------------------------------------------------------------
def leave_playlist(ctx: Ctx, route: dict[str, Any]) -> None:
    """PlaylistDetailsFragment.onPause: its songs saved again in the order shown."""
    p = playlist(ctx.model.fs, int(route.get("id", -1)))
    if p is not None and p.songs:
        insert_songs(ctx.model.fs, p.id, list(p.songs))


def back(ctx: Ctx) -> None:
    stack = ctx.ui.get("routes") or []
    if stack and stack[-1].get("name") == "playlist":
        leave_playlist(ctx, stack[-1])
    pop(ctx)


def detail_screen(ctx: Ctx, route: dict[str, Any], open_dialog: Opener, bottom: int) -> list[View]:
    l, t, r, _ = ctx.area
    name = route.get("name")
    nav = ("back", s(ctx, "navigate_up"), lambda: back(ctx))
    height = bottom - t - ctx.dp(64)
    if name == "playlist":
        p = playlist(ctx.model.fs, int(route.get("id", -1)))
        if p is None:  # gone (deleted): back to the list
            pop(ctx)
            return []

        def overflow() -> None:
            open_dialog(ctx, "playlist_menu", {"playlist": p.id, "top": t + ctx.dp(56)})

        bar = toolbar(ctx, "", nav, overflow=overflow, centered=False)
        rows = [_playlist_header(ctx, p)]
        rows += song_rows(ctx, list(p.songs), open_dialog, p.id) or [empty_row(ctx, s(ctx, "no_songs"), ctx.dp(200))]
        return [bar, vlist(ctx, f"playlist{p.id}", (l, bar.bounds[3], r, bottom), rows, "recyclerView")]
    fs = ctx.model.fs
    if name == "smart":
        kind = route.get("kind")
        songs = last_added(fs) if kind == "last_added" else []
        title = s(ctx, {"history": "history", "last_added": "last_added"}.get(str(kind), "my_top_tracks"))
    else:
        key = int(route.get("key", -1))
        songs = [x for x in all_songs(fs) if (x.album_id if name == "album" else x.artist_id) == key]
        title = str(route.get("title") or "")
    bar = toolbar(ctx, title, nav, centered=False)
    if selection(ctx):
        bar = action_mode(ctx, songs, open_dialog)
    rows = song_rows(ctx, songs, open_dialog) or [empty_row(ctx, s(ctx, "no_songs"), height)]
    return [
        bar,
        vlist(ctx, f"{name}{route.get('key', route.get('kind'))}", (l, bar.bounds[3], r, bottom), rows, "recyclerView"),
    ]


def _playlist_header(ctx: Ctx, p: Playlist) -> Row:
    th = ctx.theme
    h = ctx.dp(160)

    def build(x: int, y: int, wd: int) -> list[View]:
        side = ctx.dp(128)
        tx = x + ctx.dp(32) + side
        out = [
            V(
                ctx,
                w.IMAGE,
                (x + ctx.dp(16), y + ctx.dp(16), x + ctx.dp(16) + side, y + ctx.dp(16) + side),
                "image",
                style={"bg": th.surface2, "radius": ctx.dp(12), "icon": "menu", "icon_color": th.text2},
            ),
            w.text(
                ctx,
                (tx, y + ctx.dp(16), x + wd - ctx.dp(16), y + ctx.dp(16) + ctx.line_h(22)),
                p.name,
                "title",
                size=22,
                bold=True,
                style={"ellipsize": True},
            ),
            w.text(
                ctx,
                (
                    tx,
                    y + ctx.dp(16) + ctx.line_h(22),
                    x + wd - ctx.dp(16),
                    y + ctx.dp(16) + ctx.line_h(22) + ctx.line_h(14),
                ),
                info_text(ctx.zh, list(p.songs)),
                "subtitle",
                size=14,
                color=th.text2,
            ),
        ]
        by = y + ctx.dp(16) + side - ctx.dp(48)
        out.append(
            w.icon(
                ctx,
                (tx, by, tx + ctx.dp(48), by + ctx.dp(48)),
                "play",
                th.on_primary_container,
                "play_button",
                bg=th.primary_container,
                cls=w.BUTTON,
                on_click=lambda: player.open_queue(ctx, list(p.songs), 0, True),
            )
        )
        out.append(
            w.icon(
                ctx,
                (tx + ctx.dp(56), by, tx + ctx.dp(104), by + ctx.dp(48)),
                "copy",
                (255, 255, 255),
                "shuffle_button",
                bg=ACCENT,
                cls=w.BUTTON,
                on_click=lambda: shuffle_list(ctx, list(p.songs)),
            )
        )
        return out

    return Row(h, build)


def shuffle_list(ctx: Ctx, songs: list[Song]) -> None:
    """MusicPlayerRemote.openAndShuffleQueue."""
    if songs:
        PREFS.put(ctx.model.fs, SAVED_SHUFFLE_MODE, 1)
        player.open_queue(ctx, songs, random.randrange(len(songs)), True)


def search_screen(ctx: Ctx, open_dialog: Opener, bottom: int) -> list[View]:
    l, t, r, _ = ctx.area
    th = ctx.theme
    query = ctx.field_value("search")
    bar = V(ctx, "androidx.appcompat.widget.Toolbar", (l, t, r, t + ctx.dp(64)), "toolbar", style={"bg": th.bg})
    bar.children.append(
        w.icon_button(
            ctx,
            (l + ctx.dp(4), t + ctx.dp(8), l + ctx.dp(52), t + ctx.dp(56)),
            "back",
            s(ctx, "navigate_up"),
            lambda: back(ctx),
        )
    )
    bar.children.append(
        w.edit(
            ctx,
            (l + ctx.dp(60), t + ctx.dp(8), r - ctx.dp(16), t + ctx.dp(56)),
            "search",
            query,
            s(ctx, "action_search"),
            lambda v: ctx.set_field("search", v),
            "searchView",
            action=ctx.hide_keyboard,
            action_kind="search",
            box="filled",
        )
    )
    chips_y = t + ctx.dp(64)
    chips = V(ctx, "android.widget.HorizontalScrollView", (l, chips_y, r, chips_y + ctx.dp(48)), "searchFilterGroup")
    x = l + ctx.dp(16)
    for rid, key in (
        ("chip_audio", "songs"),
        ("chip_artists", "artists"),
        ("chip_albums", "albums"),
        ("chip_playlists", "playlists"),
    ):
        cw = ctx.dp(96)
        if x + cw > r:
            break
        chips.children.append(
            w.chip(ctx, (x, chips_y + ctx.dp(6), x + cw, chips_y + ctx.dp(42)), s(ctx, key), False, None, rid)
        )
        x += cw + ctx.dp(8)
    rows: list[Row] = []
    q = query.strip().casefold()
    if q:
        songs = [x for x in all_songs(ctx.model.fs) if q in x.title.casefold()]
        if songs:
            rows.append(w.text_row(ctx, s(ctx, "songs"), "title", size=14, color=ACCENT, bold=True))
            rows += song_rows(ctx, songs, open_dialog, selectable=False)
        if not rows:
            rows.append(w.text_row(ctx, s(ctx, "no_results"), "android:id/empty", size=16, align="c", height_dp=120))
    return [bar, chips, vlist(ctx, "search", (l, chips_y + ctx.dp(48), r, bottom), rows, "recyclerView")]


__all__ = [
    "TABS",
    "back",
    "detail_screen",
    "leave_playlist",
    "main_menu",
    "playlist_menu",
    "search_screen",
    "song_by_id",
    "song_menu",
    "shuffle_list",
    "song_rows",
    "tab_rows",
]
