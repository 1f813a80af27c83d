"""Retro Music's quick-select mode (AbsMultiSelectAdapter): a long press on a song checks it and starts the mode, a
tap then checks or unchecks (the songs are kept in the order they were checked), and the contextual action bar
(menu_media_selection over the toolbar: `action_mode_close_button` "Done", the count in `selection_mode_number`,
Play next, Add to playing queue, Add to playlist, Share, Delete from device, Select all - as many as fit as icons,
the others in "More options") acts on the checked songs through SongsMenuHelper, then ends the mode."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..ui import widgets as w
from ..ui.layout import Ctx, V
from ..ui.view import View
from . import retromusic_player as player
from .retromusic_data import Song, all_songs
from .retromusic_widgets import popup_menu, s

Opener = Callable[[Ctx, str, dict[str, Any]], None]


def selection(ctx: Ctx) -> list[int]:
    """The songs checked in quick-select mode (AbsMultiSelectAdapter.checked), in the order they were checked."""
    sel: list[int] = ctx.ui.setdefault("selected", [])
    return sel


def toggle(ctx: Ctx, song_id: int) -> None:
    sel = selection(ctx)
    if song_id in sel:
        sel.remove(song_id)
    else:
        sel.append(song_id)


def _cab_items(ctx: Ctx, songs: list[Song], open_dialog: Opener) -> list[tuple[str, str, Callable[[], None]]]:
    """menu_media_selection's items (string key, icon, click), as SongsMenuHelper runs them on the checked songs."""
    picked = [x for i in selection(ctx) for x in songs if x.id == i]

    def act(fn: Callable[[list[Song]], None]) -> Callable[[], None]:
        def go() -> None:
            selection(ctx).clear()
            ctx.dismiss_dialog()
            fn(picked)

        return go

    def check_all() -> None:
        ctx.dismiss_dialog()
        selection(ctx)[:] = [x.id for x in songs]

    def to_playlist(xs: list[Song]) -> None:
        open_dialog(ctx, "add_to_playlist", {"songs": [x.id for x in xs]})

    return [
        ("action_play_next", "forward", act(lambda xs: player.play_next(ctx, xs))),
        ("action_add_to_playing_queue", "add", act(lambda xs: player.enqueue(ctx, xs))),
        ("action_add_to_playlist", "menu", act(to_playlist)),
        ("action_share", "send", ctx.dismiss_dialog),
        ("action_delete_from_device", "delete", ctx.dismiss_dialog),
        ("select_all", "check", check_all),
    ]


CAB_IDS = {
    "action_add_to_playing_queue": "action_add_to_current_playing",
    "select_all": "action_multi_select_adapter_check_all",
}


def action_mode(ctx: Ctx, songs: list[Song], open_dialog: Opener) -> View:
    """The contextual action bar of quick-select mode (menu_media_selection over the toolbar): Done, the count,
    the actions that fit as icons, the others in "More options"."""
    l, t, r, _ = ctx.area
    h = ctx.dp(64)
    bar = V(
        ctx, "android.view.ViewGroup", (l, t, r, t + h), "android:id/action_mode_bar", style={"bg": ctx.theme.surface2}
    )
    isz = ctx.dp(48)
    y = t + (h - isz) // 2
    items = _cab_items(ctx, songs, open_dialog)
    done = selection(ctx).clear
    bar.children.append(
        w.icon_button(
            ctx,
            (l + ctx.dp(4), y, l + ctx.dp(4) + isz, y + isz),
            "close",
            s(ctx, "done"),
            done,
            "android:id/action_mode_close_button",
        )
    )
    bar.children.append(
        w.text(
            ctx, (l + ctx.dp(60), t, l + ctx.dp(140), t + h), str(len(selection(ctx))), "selection_mode_number", size=20
        )
    )
    room = max(0, (r - l - ctx.dp(150)) // isz)
    shown = items if len(items) <= room else items[: max(0, room - 1)]
    x = r - ctx.dp(4) - isz * (len(shown) + (0 if len(shown) == len(items) else 1))
    for key, icon, cb in shown:
        bar.children.append(w.icon_button(ctx, (x, y, x + isz, y + isz), icon, s(ctx, key), cb, CAB_IDS.get(key, key)))
        x += isz
    if len(shown) < len(items):
        spec = {"keys": [k for k, _, _ in items[len(shown) :]], "list": [x.id for x in songs], "top": t + ctx.dp(56)}
        bar.children.append(
            w.icon_button(
                ctx,
                (x, y, x + isz, y + isz),
                "more",
                s(ctx, "more_options"),
                lambda: open_dialog(ctx, "cab_menu", spec),
            )
        )
    return bar


def cab_menu(ctx: Ctx, spec: dict[str, Any], open_dialog: Opener) -> View:
    """The action bar's overflow."""
    ids = [int(i) for i in spec.get("list") or []]
    songs = [x for i in ids for x in all_songs(ctx.model.fs) if x.id == i]
    actions = {k: cb for k, _, cb in _cab_items(ctx, songs, open_dialog)}
    items = [(s(ctx, k), actions[k]) for k in spec.get("keys") or [] if k in actions]
    return popup_menu(ctx, items, int(spec.get("top", ctx.area[1])))


__all__ = ["action_mode", "cab_menu", "selection", "toggle"]
