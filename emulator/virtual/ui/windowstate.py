"""The window manager's own state: what has focus, whether the keyboard (and which of its layers), Overview and the
shade are up, and the system dialog or in-app popup shown over the foreground app. Apps and the system UI read and
change it through `Screen.state`; snapshots keep it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Slot = Literal["sysdialog", "popup"]
Layer = Literal["shift", "symbols"]


@dataclass
class WindowState:
    focus_pkg: str | None = None  # the package whose field has focus
    focus: str | None = None  # that field's key
    keyboard: bool = False  # the IME is shown
    shift: bool = False  # its shift key is on
    symbols: bool = False  # its symbols layer is shown
    recents: bool = False  # Overview is up
    recents_scroll: int = 0  # Overview's cards scrolled by (px)
    shade: bool = False  # the notification shade is pulled down
    sysdialog: dict[str, str] | None = None  # a system dialog up (sysdialogs: ANR, permission prompt)
    popup: dict[str, str] | None = None  # an in-app popup up (sysdialogs: rating prompt, promo)

    def slot(self, name: Slot) -> dict[str, str] | None:
        return self.sysdialog if name == "sysdialog" else self.popup

    def set_slot(self, name: Slot, value: dict[str, str] | None) -> None:
        if name == "sysdialog":
            self.sysdialog = value
        else:
            self.popup = value

    def toggle(self, layer: Layer) -> None:
        if layer == "shift":
            self.shift = not self.shift
        else:
            self.symbols = not self.symbols
