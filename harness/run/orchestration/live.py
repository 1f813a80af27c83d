"""The rich live view of a run: a progress bar, a status line per device slot and a running headline. The driver
(`harness.run.orchestration.driver`) reports every slot's state and every result to it, whatever executor does the
work."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any, Generic, TypeVar

from rich.console import Console, Group
from rich.live import Live
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

R = TypeVar("R")  # a result: an EpisodeResult, a QA outcome


class LiveView(Generic[R]):
    """The rich live view: a progress bar, a status line per device slot and a running headline computed by
    `headline(results so far, earlier ones included)`. With no console it only collects the results.

    On a console that is not a terminal (a log file, a pipe) rich writes the view once, its last frame, as the view
    stops. `final_line`: the caller prints the headline itself once the run is done (the CLI's final line), so
    that frame leaves it out (it would be in the log twice) - unless the run stopped on an error."""

    def __init__(
        self,
        console: Console | None,
        total: int,
        slots: int,
        headline: Callable[[list[R]], str],
        earlier: Sequence[R] = (),
        unit: str = "episodes",
        final_line: bool = False,
    ) -> None:
        self.console = console
        self.final_line = final_line
        self._headline = headline
        self.progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
            transient=False,
        )
        self.bar = self.progress.add_task(unit, total=total)
        self.status = {i: "starting" for i in range(slots)}
        self.results: list[R] = []  # what this invocation did
        self.outcomes: list[R] = list(earlier)  # ... plus what a resumed run had on disk
        self._lock = threading.Lock()
        self._live = Live(self._render(), console=console, refresh_per_second=4) if console else None

    def headline(self) -> str:
        return self._headline(self.outcomes)

    def _render(self, headline: bool = True) -> Group:
        t = Table.grid(padding=(0, 2))
        for i, s in sorted(self.status.items()):
            t.add_row(f"device {i}", s)
        return Group(self.progress, t, self.headline()) if headline else Group(self.progress, t)

    def set(self, slot: int, text: str) -> None:
        with self._lock:
            self.status[slot] = text
            if self._live:
                self._live.update(self._render())

    def done(self, r: R) -> None:
        with self._lock:
            self.results.append(r)
            self.outcomes.append(r)
            self.progress.advance(self.bar)
            if self._live:
                self._live.update(self._render())

    def __enter__(self) -> LiveView[R]:
        if self._live:
            self._live.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._live:
            console = self._live.console
            if self.final_line and exc[0] is None and not (console.is_terminal and not console.is_dumb_terminal):
                self._live.update(self._render(headline=False))  # the last frame, written once: see the class
            self._live.__exit__(*exc)
            if exc[0] is not None:  # what stopped the run is said on a line of its own (a finished run's: finish)
                try:
                    console.line()
                except OSError:  # a terminal a hang-up closed
                    pass


__all__ = ["LiveView"]
