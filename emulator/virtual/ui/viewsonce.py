"""A screen's views built once per device state: the part of the window manager (`manager.UIManager`) that keeps
the views of the last state read and gives them again while nothing changed (`emulator/virtual/statelock.py`)."""

from __future__ import annotations

from collections.abc import Hashable
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from .frames import Frame
    from .host import Device
    from .view import View
    from .windowstate import WindowState

# the views of the last state read, with its key (`_views_key`) and its frame once one was asked for
KeptViews = tuple[Hashable, list["View"], "Frame | None"] | None


class ViewsOnce:
    model: Device
    state: WindowState
    _kept: KeptViews

    def view_roots(self) -> list[View]:
        raise NotImplementedError

    def _foreground_package(self) -> str:
        raise NotImplementedError

    def _views_key(self, generation: int | None, timed: bool = True) -> Hashable:
        """What a screen's views depend on beside the state counted by `generation` (statelock): the files, the
        wall clock's offset and, for views that read the clock while they were built (`timed`: a stopwatch, the
        status bar's time once the clock was set), the time to the second's fraction; None: nothing is reused."""
        if generation is None:
            return None
        m = self.model
        return (generation, m.fs.generation, m.clock_offset, m.clock.time() if timed else None)

    def _kept_views(self, generation: int | None) -> tuple[list[View], Hashable] | None:
        kept = self._kept
        if generation is None or kept is None:
            return None
        key = self._views_key(generation, timed=kept[0][3] is not None)  # type: ignore[index]
        return (kept[1], key) if kept[0] == key else None

    def views(self) -> tuple[list[View], Hashable]:
        """The windows on screen now (`view_roots`), built once per device state: in a read (`model.lock.reading`)
        the views of an unchanged state are the ones built before; with the key they are kept under (None: not
        kept, built for this caller only)."""
        lock = self.model.lock
        generation = lock.reusable()
        found = self._kept_views(generation)
        if found is not None:
            return found
        before, reads = self._views_key(generation, timed=False), lock.time_reads
        roots = self.view_roots()
        timed = lock.time_reads != reads
        if before is None or self._views_key(lock.reusable(), timed=False) != before:
            return roots, None  # changed while they were built (files written meanwhile): not kept
        key = self._views_key(generation, timed)
        self._kept = (key, roots, None)
        return roots, key

    def keyboard_shown(self, ime_packages: set[str]) -> bool:
        """A window of one of `ime_packages` is on screen (`dumpsys window`'s check), without building the views
        when the state says none can be: no keyboard asked for, no Overview, an app that is not an IME in front."""
        st = self.state
        if not st.keyboard and not st.recents and self._foreground_package() not in ime_packages:
            return False
        return any(v.package in ime_packages for v in self.views()[0])

    def _action_views(self) -> list[View]:
        """The views an action dispatches on, first thing in its changing section: those of the state it lands
        on when they were read before (`StateLock.before_change`), else built now."""
        found = self._kept_views(self.model.lock.before_change())
        return found[0] if found is not None else self.view_roots()

    def kept_frame(self, key: Hashable) -> Frame | None:
        """The frame made of the views kept under `key`, once one was made."""
        kept = self._kept
        return kept[2] if key is not None and kept is not None and kept[0] == key else None

    def keep_frame(self, key: Hashable, frame: Frame) -> Frame:
        """`frame`, kept with the views it is made of when they are kept under `key`."""
        kept = self._kept
        if key is not None and kept is not None and kept[0] == key:
            self._kept = (key, kept[1], frame)
        return frame
