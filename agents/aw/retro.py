"""Retro Music: AndroidWorld's playlist and playing-queue classes, from the instance's parameters alone.

The songs are checked on the Songs tab in quick-select mode, in the task's order (the app keeps the order they
were checked in): each title (the file's name without `.mp3`, as AndroidWorld tags it) is sought along the list
(dragged until its row shows whole), the first one long-pressed, the next ones tapped; the action bar then acts on
them all - a few steps whatever the number of songs (AndroidWorld gives 10 x complexity steps: 24 for a playlist
of up to five songs, 30 for RetroPlaylistDuration's nine to eleven).
- RetroCreatePlaylist / RetroPlaylistDuration: "Add to playlist", "New playlist", the name typed into
  `actionNewPlaylist`, Create. RetroPlaylistDuration's `files` are the songs whose lengths AndroidWorld cut at random
  from 47.5 minutes: those the app lists make the playlist, checked as the list shows them (the order does not
  count there); one cut under 20 s is not listed (the app's song-length filter), which takes a few seconds off.
- RetroSavePlaylist: the playlist made so, then the Playlists tab, the playlist opened, "More options" > "Save as
  file", and the system's picker's Save (it opens on Downloads, the playlist's name filled in).
- RetroPlayingQueue: a queue left from before is cleared first (the mini player opens the player, its "More
  options" > "Clear playing queue"), then the songs checked and "Add to playing queue" (a new queue of them, in
  the order checked).
What's New, when the app shows it (a first start), is put away with BACK.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from harness.actions import Action, Back, Click, Complete, LongPress, Point, Swipe
from tasks.schema import ReferenceStep

from .steps import IfShown, Step, click, loc, open_app, type_into

RETRO = ("Retro Music", "code.name.monkey.retromusic")
RID = RETRO[1] + ":id/"
LISTS = (RID + "recycler_view", RID + "recyclerView")
SEEKS = 8  # list drags at most, looking for one song


def titles(p: Mapping[str, Any]) -> list[str]:
    """The songs' titles: the files' names without their extension, as AndroidWorld tags them."""
    return [str(f).split(".")[0] for f in p.get("files") or []]


@dataclass
class _Seeking:
    direction: str = "down"
    signature: str | None = None
    turned: bool = False


def _title(screen: Any, title: str) -> Any:
    for e in screen.tree.visible():
        if e.resource_id == RID + "title" and e.text == title:
            return e
    return None


def _drag(box: tuple[int, int, int, int], size: tuple[int, int], direction: str) -> Swipe:
    l, t, r, b = box
    w, h = size
    x = (l + r) / 2 / w
    low, high = b - (b - t) * 0.15, t + (b - t) * 0.25
    start, end = (low, high) if direction == "down" else (high, low)
    return Swipe(start=Point(x=x, y=start / h), end=Point(x=x, y=end / h), duration=1.0)


@dataclass
class SeekSong:
    """Drag the list until the song's row shows whole (nothing to do once it does)."""

    title: str
    state: _Seeking
    type: str = field(default="DECIDE", init=False)

    def choose(self, screen: Any, lang: str) -> ReferenceStep | Action | None:
        lists = [e for e in screen.tree.visible() if e.resource_id in LISTS]
        if not lists:
            return None
        box = lists[0].bounds
        found = _title(screen, self.title)
        if found is not None:
            top, bottom = found.bounds[1], found.bounds[3]
            if top >= box[1] + 4 and bottom <= box[3] - 4:
                return None
            return _drag(box, tuple(screen.size), "up" if top < box[1] + 4 else "down")
        st = self.state
        signature = screen.tree.signature()
        if signature == st.signature:  # the last drag moved nothing: an end of the list
            if st.turned:
                return None
            st.turned = True
            st.direction = "up" if st.direction == "down" else "down"
        st.signature = signature
        return _drag(box, tuple(screen.size), st.direction)


@dataclass(frozen=True)
class CheckSong:
    """Check the song's row in quick-select mode: a long press starts the mode, a tap adds to it once it is on."""

    title: str
    type: str = "DECIDE"

    def choose(self, screen: Any, lang: str) -> ReferenceStep | Action | None:
        found = _title(screen, self.title)
        selecting = _selecting(screen)
        if found is None:  # sought by the agent, or reported as not found
            kind = "CLICK" if selecting else "LONG_PRESS"
            return ReferenceStep(type=kind, locate=loc(resource_id="title", text=self.title))
        return Click(element=found.index) if selecting else LongPress(element=found.index)


def _selecting(screen: Any) -> bool:
    return any(e.resource_id == "android:id/action_mode_bar" for e in screen.tree.visible())


@dataclass(frozen=True)
class ToTabs:
    """BACK while the bottom navigation does not show (a playlist, an album, the player left open)."""

    type: str = "DECIDE"

    def choose(self, screen: Any, lang: str) -> ReferenceStep | Action | None:
        shown = any(e.resource_id == RID + "navigationView" for e in screen.tree.visible())
        return None if shown or screen.package != RETRO[1] else Back()


@dataclass
class _Picking:
    done: set[str] = field(default_factory=set)
    signature: str | None = None
    at_end: bool = False


@dataclass
class CheckAny:
    """Check the wanted songs the list shows whole, top first, in any order; drag the list on when none is left on
    the screen, until its end (a song the app does not list - under its 20 s filter - is left out)."""

    titles: frozenset[str]
    state: _Picking
    type: str = field(default="DECIDE", init=False)

    def choose(self, screen: Any, lang: str) -> ReferenceStep | Action | None:
        st = self.state
        lists = [e for e in screen.tree.visible() if e.resource_id in LISTS]
        if not lists or st.at_end and not self._shown(screen, lists[0].bounds):
            return None
        box = lists[0].bounds
        shown = self._shown(screen, box)
        if shown:
            e = shown[0]
            st.done.add(e.text)
            return Click(element=e.index) if _selecting(screen) else LongPress(element=e.index)
        signature = screen.tree.signature()
        if signature == st.signature:
            st.at_end = True
            return None
        st.signature = signature
        return _drag(box, tuple(screen.size), "down")

    def _shown(self, screen: Any, box: tuple[int, int, int, int]) -> list[Any]:
        return sorted(
            (
                e
                for e in screen.tree.visible()
                if e.resource_id == RID + "title"
                and e.text in self.titles
                and e.text not in self.state.done
                and e.bounds[1] >= box[1] + 4
                and e.bounds[3] <= box[3] - 4
            ),
            key=lambda e: e.bounds[1],
        )


def start() -> list[Step]:
    """The app opened, What's New put away when it shows, back to the tabs when it resumed on another screen."""
    return [open_app(RETRO), IfShown(loc(resource_id="tgFab"), Back()), ToTabs(), ToTabs(), ToTabs()]


def check_songs(songs: list[str]) -> list[Step]:
    """The Songs tab, each song sought along the list and checked, in order."""
    steps: list[Step] = [click(resource_id="action_song")]
    for title in songs:
        state = _Seeking()
        steps += [SeekSong(title, state) for _ in range(SEEKS)]
        steps.append(CheckSong(title))
    return steps


def new_playlist(name: str) -> list[Step]:
    """The action bar's Add to playlist, New playlist, its name, Create."""
    return [
        click(desc="Add to playlist"),
        click(resource_id="android:id/text1", text="New playlist"),
        type_into(name, resource_id="actionNewPlaylist"),
        click(resource_id="android:id/button1", text="Create"),
    ]


def make_playlist(name: str, songs: list[str]) -> list[Step]:
    """The songs checked in order, then a new playlist of them."""
    return [*check_songs(songs), *new_playlist(name)]


def create_playlist(p: Mapping[str, Any]) -> list[Step]:
    return [*start(), *make_playlist(str(p["playlist_name"]), titles(p)), Complete()]


def duration_playlist(p: Mapping[str, Any]) -> list[Step]:
    """The songs whose lengths make 47.5 minutes, checked as the list shows them (order does not matter here)."""
    wanted = titles(p)
    state = _Picking()
    return [
        *start(),
        click(resource_id="action_song"),
        *[CheckAny(frozenset(wanted), state) for _ in range(len(wanted) + 4)],
        *new_playlist(str(p["playlist_name"])),
        Complete(),
    ]


def save_playlist(p: Mapping[str, Any]) -> list[Step]:
    name = str(p["playlist_name"])
    return [
        *start(),
        *make_playlist(name, titles(p)),
        click(resource_id="action_playlist"),
        click(resource_id="title", text=name),
        click(desc="More options"),
        click(resource_id="title", text="Save as file"),
        click(resource_id="android:id/button1", text="Save"),
        Complete(),
    ]


def playing_queue(p: Mapping[str, Any]) -> list[Step]:
    """A queue left from before cleared from the player's menu, then the songs checked and added to the queue."""
    return [
        *start(),
        IfShown(loc(resource_id="miniPlayerFragment"), click(resource_id="miniPlayerFragment")),
        IfShown(loc(resource_id="playerToolbar"), click(desc="More options")),
        IfShown(loc(text="Clear playing queue"), click(text="Clear playing queue")),
        *check_songs(titles(p)),
        click(desc="Add to playing queue"),
        Complete(),
    ]


SOLVERS: dict[str, Callable[[Mapping[str, Any]], list[Step]]] = {
    "RetroCreatePlaylist": create_playlist,
    "RetroPlaylistDuration": duration_playlist,
    "RetroSavePlaylist": save_playlist,
    "RetroPlayingQueue": playing_queue,
}

__all__ = ["RETRO", "SOLVERS", "CheckSong", "SeekSong", "titles"]
