"""What preparing a device for a reproducible run is asked and what it did: the `PreparationPlan` (what to set on
every device before a run), and its record, a `DevicePreparation` of `SettingRecord`s (per setting what was asked,
what the device holds now, how it was set, or why it was not: `SET`, `KEPT`, `NOT_SET`), stored in manifest.json
(`devices[i].preparation`) and read back (`DevicePreparation.from_json`). Applying a plan, reapplying and
restoring a record on a device is `harness.device.prepare`'s.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final, Literal

from harness.errors import ConfigError

Status = Literal["set", "kept", "not_set"]
SET: Final = "set"
KEPT: Final = "kept"
NOT_SET: Final = "not_set"
STATUSES: tuple[str, ...] = (SET, KEPT, NOT_SET)
_TIME_ZONE = re.compile(r"[A-Za-z][A-Za-z0-9_+\-]*(/[A-Za-z0-9_+\-]+)*")
NIGHT_MODES = ("yes", "no", "auto", "custom_schedule", "custom_bedtime")


@dataclass(frozen=True)
class PreparationPlan:
    """What to set on every device before a run. `None` (or False) leaves that setting alone."""

    animations_off: bool = True  # global window / transition / animator scales 0
    stay_awake: bool = True  # `svc power stayon true`: the screen stays on while plugged in (AC, USB, wireless)
    screen_on: bool = True  # KEYCODE_WAKEUP + `wm dismiss-keyguard`
    ime: str | None = None  # an input method id to select; None keeps (and records) the device's own
    show_ime_with_hard_keyboard: bool = True  # the soft keyboard shows on AVDs with a hardware keyboard too
    time_zone: str | None = "UTC"  # an Olson id; automatic time zone is turned off
    hour_24: bool | None = True  # `system time_12_24` 24 (False: 12)
    date: datetime | None = None  # a time-zone-aware instant the clock is set to (each episode starts there)
    airplane: bool | None = False  # airplane mode off (network on) unless a task's start state says otherwise
    night_mode: str | None = "no"  # `cmd uimode night`: yes | no | auto
    font_scale: str | None = "1.0"
    heads_up_off: bool = True  # no heads-up notification drawn over the app under test

    def __post_init__(self) -> None:
        if self.time_zone is not None and not _TIME_ZONE.fullmatch(self.time_zone):
            raise ConfigError(f"preparation time_zone {self.time_zone!r} is not an Olson id (e.g. UTC, Asia/Shanghai)")
        if self.date is not None and self.date.utcoffset() is None:
            raise ConfigError(f"preparation date {self.date.isoformat()} has no time zone; give one (e.g. +00:00)")
        if self.night_mode is not None and self.night_mode not in NIGHT_MODES:
            raise ConfigError(f"preparation night_mode {self.night_mode!r} is not one of {', '.join(NIGHT_MODES)}")
        if self.font_scale is not None and not re.fullmatch(r"\d+(\.\d+)?", self.font_scale):
            raise ConfigError(f"preparation font_scale {self.font_scale!r} is not a number")
        if self.ime is not None and not re.fullmatch(r"[\w.]+/[\w.$]+", self.ime):
            raise ConfigError(f"preparation ime {self.ime!r} is not an input method id (package/.Service)")

    @classmethod
    def nothing(cls) -> PreparationPlan:
        """A plan that changes nothing (the device's own IME is still recorded)."""
        return cls(
            animations_off=False,
            stay_awake=False,
            screen_on=False,
            show_ime_with_hard_keyboard=False,
            time_zone=None,
            hour_24=None,
            airplane=None,
            night_mode=None,
            font_scale=None,
            heads_up_off=False,
        )

    def to_json(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["date"] = self.date.isoformat() if self.date else None
        return data


@dataclass(frozen=True)
class SettingRecord:
    """One setting of a device's preparation."""

    name: str  # "global:window_animation_scale", "time_zone", "date", "airplane", "ime", "screen", ...
    status: Status  # set | kept (recorded, left as the device has it) | not_set (the device refused; see reason)
    wanted: str | None = None  # what the plan asked for
    value: str | None = None  # what the device holds afterwards (read back)
    previous: str | None = None  # what it held before (what `restore` puts back)
    method: str = ""  # the command line(s) that set it (or were tried)
    reason: str = ""  # why it was not set (the device's own words), or why it was kept
    apply: tuple[str, ...] = ()  # the quoted command lines `reapply` runs again
    undo: tuple[str, ...] = ()  # the quoted command lines `restore` runs

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass(frozen=True)
class DevicePreparation:
    """What `prepare` did on one device (manifest.json `devices[i].preparation`)."""

    serial: str
    settings: tuple[SettingRecord, ...] = ()
    at: str = ""  # ISO time (UTC) the preparation ran
    seconds: float = 0.0

    def setting(self, name: str) -> SettingRecord | None:
        return next((s for s in self.settings if s.name == name), None)

    @property
    def not_set(self) -> tuple[SettingRecord, ...]:
        return tuple(s for s in self.settings if s.status == NOT_SET)

    def to_json(self) -> dict[str, Any]:
        return {
            "serial": self.serial,
            "at": self.at,
            "seconds": self.seconds,
            "settings": [s.to_json() for s in self.settings],
        }

    @classmethod
    def from_json(cls, data: Any) -> DevicePreparation:
        """Read a stored preparation back; unknown keys (a newer writer) are ignored. ValueError when malformed."""
        if not isinstance(data, dict) or not isinstance(data.get("settings", []), list):
            raise ValueError(f"a device preparation must be an object with a settings list, got {data!r:.80}")
        known = {f.name for f in dataclasses.fields(SettingRecord)}
        rows = []
        for row in data.get("settings", []):
            if not isinstance(row, dict) or row.get("status") not in STATUSES or not isinstance(row.get("name"), str):
                raise ValueError(f"a prepared setting needs a name and a status in {STATUSES}, got {row!r:.80}")
            kept = {k: v for k, v in row.items() if k in known}
            kept["apply"] = tuple(kept.get("apply") or ())
            kept["undo"] = tuple(kept.get("undo") or ())
            rows.append(SettingRecord(**kept))
        return cls(
            serial=str(data.get("serial", "")),
            settings=tuple(rows),
            at=str(data.get("at", "")),
            seconds=float(data.get("seconds") or 0.0),
        )
