"""Retro Music's playback (MusicService as MusicPlayerRemote drives it) and its player screens.

The queue is the one `music_playback_state.db` holds (both tables rewritten on every change, the position in the
preferences), as the service saves it: opening a queue (a song tapped in a list: the whole list from that song,
a playlist's Play), "Play next" (after the current song; a new queue when there is none), "Add to playing queue"
(at the end; a new queue of those songs when there is none), removing a song, clearing the queue, shuffle (the
current song first, the rest shuffled; off: the original order back) and repeat (off, all, this song). Playing is
per process (the app's UI state, gone with `am force-stop`): the position in the song advances with the device's
clock and the queue moves on at a song's end (no audio is made).

Screens: the mini player (`miniPlayerFragment`: cover, `miniPlayerTitle` "title • artist", the circular progress
and `miniPlayerPlayPauseButton`; a tap opens the player), the Now Playing panel of the Normal theme (the
`playerToolbar` with menu_player: Sleep timer, Lyrics, Favorites and "Now playing queue" as icons, the rest in the
overflow; `songCurrentProgress`, `progressSlider`, `songTotalTime`, `title`, `text`, `songInfo`, `repeatButton`,
`previousButton`, `playPauseButton`, `nextButton`, `shuffleButton`), and the playing queue (toolbar "Now playing
queue" with "Up next  •  <time left>", the queue's songs in `item_queue` rows with menu_item_playing_queue_song,
the `clearQueue` button "Clear queue").
Left out: audio, audio focus, notifications, the sleep timer, lyrics, favorites, the other player themes, drag to
reorder, the equalizer, casting.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable
from typing import Any

from ..ui import widgets as w
from ..ui.layout import Ctx, Row, V, vlist
from ..ui.view import View
from .retromusic_data import (
    PREFS,
    REPEAT_ALL,
    REPEAT_NONE,
    REPEAT_THIS,
    SAVED_POSITION,
    SAVED_POSITION_IN_TRACK,
    SAVED_REPEAT_MODE,
    SAVED_SHUFFLE_MODE,
    Queue,
    Song,
    duration_text,
    load_queue,
    pref_int,
    save_queue,
)
from .retromusic_widgets import ACCENT, popup_menu, push, s, song_row, toolbar

Opener = Callable[[Ctx, str, dict[str, Any]], None]  # shows a dialog of the app (id, spec)


# --- the playback state ---------------------------------------------------------------------------------------------
def _state(ctx: Ctx) -> dict[str, Any]:
    st: dict[str, Any] = ctx.ui.setdefault("playback", {})
    if "base" not in st:
        st.update(
            playing=False, anchor=ctx.model.now(), base=max(0, pref_int(ctx.model.fs, SAVED_POSITION_IN_TRACK, 0))
        )
    return st


def queue(ctx: Ctx) -> Queue:
    """The queue now, the position moved on past the songs that played to their end since the last look."""
    q = load_queue(ctx.model.fs)
    st = _state(ctx)
    if not st["playing"] or q.current is None:
        return q
    now = ctx.model.now()
    elapsed = int(st["base"] + (now - st["anchor"]) * 1000)
    pos, repeat = q.position, pref_int(ctx.model.fs, SAVED_REPEAT_MODE, REPEAT_NONE)
    moved = False
    for _ in range(10_000):
        length = max(1000, q.playing[pos].duration)
        if elapsed < length:
            break
        elapsed -= length
        if repeat == REPEAT_THIS:
            continue
        if pos + 1 < len(q.playing):
            pos, moved = pos + 1, True
        elif repeat == REPEAT_ALL:
            pos, moved = 0, True
        else:  # the queue played out: stopped at the start of its last song
            st.update(playing=False, anchor=now, base=0)
            elapsed = 0
            break
    st.update(anchor=now, base=elapsed)
    if moved:
        q = Queue(q.playing, q.original, pos)
        PREFS.put(ctx.model.fs, SAVED_POSITION, pos)
    return q


def progress_ms(ctx: Ctx) -> int:
    queue(ctx)
    return int(_state(ctx)["base"])


def is_playing(ctx: Ctx) -> bool:
    queue(ctx)
    return bool(_state(ctx)["playing"])


def _set(ctx: Ctx, q: Queue, playing: bool | None = None, base: int | None = None) -> None:
    save_queue(ctx.model.fs, q)
    st = _state(ctx)
    st["anchor"] = ctx.model.now()
    if playing is not None:
        st["playing"] = playing and q.current is not None
    if base is not None:
        st["base"] = base
    if q.current is None:
        st.update(playing=False, base=0)
    PREFS.put(ctx.model.fs, SAVED_POSITION_IN_TRACK, int(st["base"]))


def _shuffled(songs: list[Song], first: int) -> list[Song]:
    """ShuffleHelper.makeShuffleList: the song at `first` first, the others shuffled after it."""
    rest = songs[:first] + songs[first + 1 :]
    random.shuffle(rest)
    return [songs[first], *rest] if songs else []


def open_queue(ctx: Ctx, songs: list[Song], start: int, play: bool) -> None:
    """MusicService.openQueue: the songs are the queue (shuffled from the start song when shuffle is on)."""
    if not songs or not 0 <= start < len(songs):
        return
    playing, pos = list(songs), start
    if pref_int(ctx.model.fs, SAVED_SHUFFLE_MODE, 0) == 1:
        playing, pos = _shuffled(playing, start), 0
    _set(ctx, Queue(tuple(playing), tuple(songs), pos), playing=play, base=0)


def _added_toast(ctx: Ctx, n: int) -> None:
    ctx.toast(s(ctx, "added_title_to_playing_queue") if n == 1 else s(ctx, "added_x_titles_to_playing_queue", n))


def enqueue(ctx: Ctx, songs: list[Song]) -> None:
    """MusicPlayerRemote.enqueue: at the end of the queue, or a new queue of these songs (not playing)."""
    q = queue(ctx)
    if q.playing:
        _set(ctx, Queue(q.playing + tuple(songs), q.original + tuple(songs), q.position))
    else:
        open_queue(ctx, songs, 0, False)
    _added_toast(ctx, len(songs))


def play_next(ctx: Ctx, songs: list[Song]) -> None:
    """MusicPlayerRemote.playNext: right after the current song (in both queues), or a new queue."""
    q = queue(ctx)
    if q.playing:
        at = q.position + 1
        playing = q.playing[:at] + tuple(songs) + q.playing[at:]
        original = q.original[:at] + tuple(songs) + q.original[at:]
        _set(ctx, Queue(playing, original, q.position))
    else:
        open_queue(ctx, songs, 0, False)
    _added_toast(ctx, len(songs))


def clear_queue(ctx: Ctx) -> None:
    _set(ctx, Queue((), (), -1), playing=False, base=0)


def remove_at(ctx: Ctx, index: int) -> None:
    """MusicService.removeSong(position): from both queues (shuffled: that song from the original), re-positioned."""
    q = queue(ctx)
    if not 0 <= index < len(q.playing):
        return
    song = q.playing[index]
    playing = q.playing[:index] + q.playing[index + 1 :]
    if pref_int(ctx.model.fs, SAVED_SHUFFLE_MODE, 0) == 0:
        original = q.original[:index] + q.original[index + 1 :]
    else:
        i = q.original.index(song) if song in q.original else -1
        original = q.original[:i] + q.original[i + 1 :] if i >= 0 else q.original
    pos = q.position
    if index < pos:
        pos -= 1
    elif index == pos and pos >= len(playing):
        pos -= 1
    _set(ctx, Queue(playing, original, pos if playing else -1), base=0 if index == q.position else None)


def play_at(ctx: Ctx, index: int) -> None:
    q = queue(ctx)
    if 0 <= index < len(q.playing):
        _set(ctx, Queue(q.playing, q.original, index), playing=True, base=0)


def toggle_play(ctx: Ctx) -> None:
    q = queue(ctx)
    _set(ctx, q, playing=not _state(ctx)["playing"])


def skip(ctx: Ctx, step: int) -> None:
    """Next / previous (previous restarts the song when more than 2 s of it played)."""
    q = queue(ctx)
    if q.current is None:
        return
    if step < 0 and progress_ms(ctx) > 2000:
        _set(ctx, q, base=0)
        return
    pos = q.position + step
    if pos >= len(q.playing):
        pos = 0
    elif pos < 0:
        pos = len(q.playing) - 1
    _set(ctx, Queue(q.playing, q.original, pos), base=0)


def toggle_shuffle(ctx: Ctx) -> None:
    q = queue(ctx)
    on = pref_int(ctx.model.fs, SAVED_SHUFFLE_MODE, 0) == 0
    PREFS.put(ctx.model.fs, SAVED_SHUFFLE_MODE, 1 if on else 0)
    if q.current is None:
        return
    song = q.current
    if on:
        _set(ctx, Queue(tuple(_shuffled(list(q.playing), q.position)), q.original, 0))
    else:
        _set(ctx, Queue(q.original, q.original, q.original.index(song) if song in q.original else 0))


def cycle_repeat(ctx: Ctx) -> None:
    mode = pref_int(ctx.model.fs, SAVED_REPEAT_MODE, REPEAT_NONE)
    PREFS.put(
        ctx.model.fs, SAVED_REPEAT_MODE, {REPEAT_NONE: REPEAT_ALL, REPEAT_ALL: REPEAT_THIS}.get(mode, REPEAT_NONE)
    )


# --- the mini player ------------------------------------------------------------------------------------------------
MINI_DP = 64


def mini_player(ctx: Ctx, box: tuple[int, int, int, int]) -> View:
    q = queue(ctx)
    song = q.current
    assert song is not None
    th = ctx.theme
    l, t, r, b = box
    root = V(
        ctx,
        w.LINEAR,
        box,
        "miniPlayerFragment",
        clickable=True,
        focusable=True,
        on_click=lambda: ctx.ui.update(panel=True),
        style={"bg": th.surface},
    )
    isz = ctx.dp(42)
    y = t + (b - t - isz) // 2
    root.children.append(
        V(
            ctx,
            w.IMAGE,
            (l + ctx.dp(16), y, l + ctx.dp(16) + isz, y + isz),
            "image",
            style={"bg": th.surface2, "radius": ctx.dp(8), "icon": "sound", "icon_color": th.text2},
        )
    )
    bsz = ctx.dp(48)
    bx = r - ctx.dp(8) - bsz
    by = t + (b - t - bsz) // 2
    playing = is_playing(ctx)
    root.children.append(
        w.text(
            ctx,
            (l + ctx.dp(16) + isz + ctx.dp(16), t, bx - ctx.dp(8), b),
            f"{song.title} \u2022 {song.artist_name}",
            "miniPlayerTitle",
            size=15,
            style={"ellipsize": True},
        )
    )
    root.children.append(
        V(
            ctx,
            "android.widget.ProgressBar",
            (bx, by, bx + bsz, by + bsz),
            "progressBar",
            style={"radius": bsz // 2, "border": ACCENT},
        )
    )
    root.children.append(
        w.icon(
            ctx,
            (bx + ctx.dp(8), by + ctx.dp(8), bx + bsz - ctx.dp(8), by + bsz - ctx.dp(8)),
            "pause" if playing else "play",
            th.text,
            "miniPlayerPlayPauseButton",
            on_click=lambda: toggle_play(ctx),
        )
    )
    return root


# --- the Now Playing panel ------------------------------------------------------------------------------------------
def player_screen(ctx: Ctx, open_dialog: Opener) -> list[View]:
    q = queue(ctx)
    song = q.current
    if song is None:
        ctx.ui["panel"] = False
        return []
    th = ctx.theme
    fs = ctx.model.fs
    l, t, r, b = ctx.area
    views: list[View] = [V(ctx, w.FRAME, (l, t, r, b), "colorGradientBackground", style={"bg": th.bg})]
    ctrl_h = ctx.dp(300)
    cover_b = max(t + ctx.dp(64), b - ctrl_h - ctx.dp(64))
    side = min(r - l - ctx.dp(64), cover_b - t - ctx.dp(32))
    cx = (l + r) // 2
    views.append(
        V(
            ctx,
            w.IMAGE,
            (cx - side // 2, t + ctx.dp(16), cx + side // 2, t + ctx.dp(16) + side),
            "player_image",
            style={"bg": th.surface2, "radius": ctx.dp(12), "icon": "sound", "icon_color": th.text2},
        )
    )
    y = cover_b + ctx.dp(8)
    pos, length = progress_ms(ctx), max(0, song.duration)
    playing = is_playing(ctx)
    pad = ctx.dp(24)
    views.append(
        w.text(
            ctx, (l + pad, y, l + pad + ctx.dp(64), y + ctx.dp(24)), duration_text(pos), "songCurrentProgress", size=12
        )
    )
    views.append(
        w.text(
            ctx,
            (r - pad - ctx.dp(64), y, r - pad, y + ctx.dp(24)),
            duration_text(length),
            "songTotalTime",
            size=12,
            align="r",
        )
    )
    y += ctx.dp(24)

    def seek(ms: int) -> None:
        _set(ctx, queue(ctx), base=ms)

    views.append(
        w.seekbar(ctx, (l + pad, y, r - pad, y + ctx.dp(32)), min(pos, length), max(1, length), seek, "progressSlider")
    )
    y += ctx.dp(40)
    views.append(
        w.text(
            ctx,
            (l + pad, y, r - pad, y + ctx.line_h(22)),
            song.title,
            "title",
            size=22,
            bold=True,
            style={"ellipsize": True},
        )
    )
    y += ctx.line_h(22)
    views.append(
        w.text(ctx, (l + pad, y, r - pad, y + ctx.line_h(16)), song.artist_name, "text", size=16, color=th.text2)
    )
    y += ctx.line_h(16) + ctx.dp(16)
    shuffle = pref_int(fs, SAVED_SHUFFLE_MODE, 0) == 1
    repeat = pref_int(fs, SAVED_REPEAT_MODE, REPEAT_NONE)
    big, small = ctx.dp(72), ctx.dp(48)
    slots = [
        ("repeatButton", "nav_recents", repeat != REPEAT_NONE, lambda: cycle_repeat(ctx), small),
        ("previousButton", "nav_back", False, lambda: skip(ctx, -1), small),
        ("playPauseButton", "pause" if playing else "play", True, lambda: toggle_play(ctx), big),
        ("nextButton", "forward", False, lambda: skip(ctx, 1), small),
        ("shuffleButton", "copy", shuffle, lambda: toggle_shuffle(ctx), small),
    ]
    step = (r - l - 2 * pad) // len(slots)
    for i, (rid, icon, on, cb, size) in enumerate(slots):
        mx = l + pad + step * i + step // 2
        my = y + big // 2
        box = (mx - size // 2, my - size // 2, mx + size // 2, my + size // 2)
        if rid == "playPauseButton":
            v = w.icon(ctx, box, icon, (255, 255, 255), rid, bg=ACCENT, cls=w.IMAGE_BUTTON, on_click=cb)
        else:
            v = w.icon(ctx, box, icon, ACCENT if on else th.text2, rid, cls=w.IMAGE_BUTTON, on_click=cb)
        v.style["inset"] = ctx.dp(12)
        views.append(v)
    views.append(_player_toolbar(ctx, b - ctx.dp(64), open_dialog))
    return views


def _player_toolbar(ctx: Ctx, top: int, open_dialog: Opener) -> View:
    def go_queue() -> None:
        push(ctx, {"name": "queue"})

    def overflow() -> None:
        open_dialog(ctx, "player_menu", {"top": top})

    nothing = ctx.dismiss_dialog
    return toolbar(
        ctx,
        "",
        None,
        [
            ("timer", s(ctx, "action_sleep_timer"), nothing, "action_sleep_timer"),
            ("message", s(ctx, "lyrics"), nothing, "action_toggle_lyrics"),
            ("star", s(ctx, "favorites"), nothing, "action_toggle_favorite"),
            ("menu", s(ctx, "now_playing_queue"), go_queue, "now_playing"),
        ],
        overflow,
        top=top,
        rid="playerToolbar",
    )


def player_menu(ctx: Ctx, spec: dict[str, Any], open_dialog: Opener) -> View:
    """menu_player's overflow items."""
    q = queue(ctx)
    song = q.current

    def add_to_playlist() -> None:
        if song is not None:
            open_dialog(ctx, "add_to_playlist", {"songs": [song.id]})

    def clear() -> None:
        ctx.dismiss_dialog()
        clear_queue(ctx)

    def save_queue_as_playlist() -> None:
        open_dialog(ctx, "create_playlist", {"songs": [x.id for x in q.playing]})

    def details() -> None:
        if song is not None:
            open_dialog(ctx, "details", {"song": song.id})

    nothing = ctx.dismiss_dialog
    items = [
        (s(ctx, "playback_speed"), nothing),
        (s(ctx, "drive_mode"), nothing),
        (s(ctx, "action_go_to_album"), nothing),
        (s(ctx, "action_go_to_artist"), nothing),
        (s(ctx, "action_add_to_playlist"), add_to_playlist),
        (s(ctx, "action_save_playing_queue"), save_queue_as_playlist),
        (s(ctx, "action_share"), nothing),
        (s(ctx, "action_set_as_ringtone"), nothing),
        (s(ctx, "action_clear_playing_queue"), clear),
        (s(ctx, "action_details"), details),
        (s(ctx, "action_go_to_lyrics"), nothing),
        (s(ctx, "equalizer"), nothing),
        (s(ctx, "action_delete_from_device"), nothing),
    ]
    return popup_menu(ctx, items, int(spec.get("top", ctx.area[1])))


# --- the playing queue ----------------------------------------------------------------------------------------------
def queue_screen(ctx: Ctx, back: Callable[[], Any], open_dialog: Opener) -> list[View]:
    q = queue(ctx)
    left = sum(x.duration for x in q.playing[q.position :]) - (progress_ms(ctx) if q.current else 0)
    sub = f"{s(ctx, 'up_next')}  \u2022  {duration_text(max(0, left))}"
    bar = toolbar(ctx, s(ctx, "now_playing_queue"), ("back", s(ctx, "navigate_up"), back), subtitle=sub, centered=False)
    l, t, r, b = ctx.area
    rows: list[Row] = []
    for i, song in enumerate(q.playing):

        def menu(top: int, i: int = i) -> None:
            open_dialog(ctx, "queue_song_menu", {"index": i, "song": q.playing[i].id, "top": top})

        rows.append(song_row(ctx, song, functools.partial(play_at, ctx, i), menu, playing=i == q.position))
    body: list[View] = [bar]
    if rows:
        body.append(vlist(ctx, "queue", (l, bar.bounds[3], r, b), rows, "recyclerView", pad_bottom=ctx.dp(88)))
    else:
        body.append(w.text(ctx, (l, bar.bounds[3], r, b), s(ctx, "empty"), "android:id/empty", size=18, align="c"))
    label = s(ctx, "clear_playing_queue")
    body.append(w.fab(ctx, "delete", label, lambda: clear_queue(ctx), rid="clearQueue", label=label))
    return body


def queue_song_menu(ctx: Ctx, spec: dict[str, Any], open_dialog: Opener) -> View:
    """menu_item_playing_queue_song."""
    index = int(spec.get("index", -1))
    q = queue(ctx)
    song = q.playing[index] if 0 <= index < len(q.playing) else None

    def run(fn: Callable[[], None]) -> Callable[[], None]:
        def go() -> None:
            ctx.dismiss_dialog()
            if song is not None:
                fn()

        return go

    def add() -> None:
        if song is not None:
            open_dialog(ctx, "add_to_playlist", {"songs": [song.id]})

    def details() -> None:
        if song is not None:
            open_dialog(ctx, "details", {"song": song.id})

    nothing = ctx.dismiss_dialog
    items = [
        (s(ctx, "action_play_next"), run(lambda: play_next(ctx, [song] if song else []))),
        (s(ctx, "action_remove_from_playing_queue"), run(lambda: remove_at(ctx, index))),
        (s(ctx, "action_add_to_playlist"), add),
        (s(ctx, "action_go_to_album"), nothing),
        (s(ctx, "action_go_to_artist"), nothing),
        (s(ctx, "action_share"), nothing),
        (s(ctx, "action_tag_editor"), nothing),
        (s(ctx, "action_details"), details),
        (s(ctx, "action_set_as_ringtone"), nothing),
        (s(ctx, "action_delete_from_device"), nothing),
    ]
    return popup_menu(ctx, items, int(spec.get("top", ctx.area[1])))


__all__ = [
    "MINI_DP",
    "clear_queue",
    "enqueue",
    "is_playing",
    "mini_player",
    "open_queue",
    "play_next",
    "player_menu",
    "player_screen",
    "queue",
    "queue_screen",
    "queue_song_menu",
    "toggle_play",
]
