"""What a device's pool slot offers an outside suite beyond the device's own doors (AndroidWorld's set-up:
harness.androidworld): its emulator console, where it has one (`adb emu`, snapshots), and `rebase` - the device's
state now becomes what the slot's resets restore (the suite's one-time app set-up is kept, as on an emulator
AndroidWorld set up once)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class SlotDoors:
    console: Callable[[str], list[str] | None]  # one console command: its reply lines; None: no console
    rebase: Callable[[], bool]  # False: the slot's resets cannot keep a state (a phone)


NO_DOORS = SlotDoors(lambda line: None, lambda: False)  # a device on its own (no pool slot): neither

__all__ = ["NO_DOORS", "SlotDoors"]
