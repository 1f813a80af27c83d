"""Device preparation for reproducible runs, by the means every Android device has: adb shell commands and
settings, every argument quoted by `harness.shellquote`.

Scores move with animations, the time zone, the date, the keyboard, the theme and the network. Before a run each
device gets a `PreparationPlan` applied by `prepare(device, plan)`: animations off, stay awake while plugged in,
the screen on (wake + dismiss a non-secure keyguard), the IME the harness types with (its own by default: `input
text` and uiautomator2 setText / clipboard need no special IME), the soft keyboard shown with a hardware keyboard,
a fixed time zone and 12/24 h format, the date where the device lets the shell set it, airplane mode, night mode,
font scale and heads-up notifications. The locale is switched per episode by the pool (`DevicePool.ensure_locale`)
and only recorded here.

Each step reads the value before (what `restore` puts back), runs its command(s) and reads the value after:
nothing counts as set on an exit status alone (`adb shell` without shell v2 has none). The result is a
`DevicePreparation`: per setting what was asked, what the device holds now, how it was set, or - when it could
not be set - the device's own words why (`not_set`). `reapply(device, record)` runs the commands of what was set
again in one shell round trip (a reset that loads a snapshot undoes them; and the clock restarts from the planned
date each episode). `restore(device, record)` puts the previous values back (a phone's own settings, after the
run).

Where the means differ by Android version (checked in AOSP / framework code):
- time zone: `cmd alarm set-timezone TZ` (AlarmManagerService's shell command, Android 9+; the shell holds
  SET_TIME_ZONE), else `setprop persist.sys.timezone TZ` (root only). `service call alarm N s16 TZ` is not used:
  its transaction number changes between releases.
- date: `cmd alarm set-time MILLIS` (Android 9+; the shell holds SET_TIME), else toybox `date -u MMDDhhmmCCYY.ss`
  (root only: an emulator after `adb root`, a rooted phone) or `su 0 date ...` (userdebug images). The clock's
  own value is not restored: `restore` turns automatic time back on (when it was on), which resyncs it.
- airplane mode: `cmd connectivity airplane-mode enable|disable` (ConnectivityService, Android 9+), which writes
  `settings global airplane_mode_on` and switches the radios; older releases are recorded as not set.
- night mode: `cmd uimode night yes|no` (persisted as `secure ui_night_mode`).
"""

from __future__ import annotations

import dataclasses
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Final, Literal, Protocol

from harness.errors import ConfigError, DeviceError
from harness.shellquote import command

Status = Literal["set", "kept", "not_set"]
SET: Final = "set"
KEPT: Final = "kept"
NOT_SET: Final = "not_set"
STATUSES: tuple[str, ...] = (SET, KEPT, NOT_SET)
_TIME_ZONE = re.compile(r"[A-Za-z][A-Za-z0-9_+\-]*(/[A-Za-z0-9_+\-]+)*")
_NIGHT = ("yes", "no", "auto", "custom_schedule", "custom_bedtime")
DATE_TOLERANCE = 5.0  # seconds between the planned clock and what `date +%s` reads back (plus the time it took)


class ShellOutput(Protocol):
    """What a device's shell call gives back (`harness.device.fastadb.ShellResult`)."""

    @property
    def exit_code(self) -> int: ...

    @property
    def stdout(self) -> bytes: ...

    @property
    def stderr(self) -> bytes: ...


class Preparable(Protocol):
    """What preparation needs of a device: its serial and one quoted shell command (`AdbDevice.shell`)."""

    @property
    def serial(self) -> str: ...

    def shell(self, argv: Sequence[str]) -> ShellOutput: ...


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
        if self.night_mode is not None and self.night_mode not in _NIGHT:
            raise ConfigError(f"preparation night_mode {self.night_mode!r} is not one of {', '.join(_NIGHT)}")
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


# --- talking to the device ------------------------------------------------------------------------------------
@dataclass
class _Session:
    device: Preparable
    records: list[SettingRecord] = field(default_factory=list)

    def run(self, line_argv: Sequence[str]) -> str:
        """Run one command; its output (stdout + stderr), stripped."""
        r = self.device.shell(list(line_argv))
        return (r.stdout + r.stderr).decode("utf-8", errors="replace").strip()

    def run_line(self, line: str) -> str:
        """Run an already-quoted command line (one `sh -c`)."""
        return self.run(["sh", "-c", line])

    def get(self, namespace: str, key: str) -> str | None:
        out = self.run(["settings", "get", namespace, key])
        return None if out in ("null", "") else out.splitlines()[-1].strip()

    def prop(self, name: str) -> str | None:
        return self.run(["getprop", name]) or None

    def add(self, record: SettingRecord) -> SettingRecord:
        self.records.append(record)
        return record


def _undo_setting(namespace: str, key: str, previous: str | None) -> str:
    if previous is None:
        return command("settings", "delete", namespace, key)
    return command("settings", "put", namespace, key, previous)


def _put(s: _Session, namespace: str, key: str, want: str) -> SettingRecord:
    """`settings put`, read back."""
    name = f"{namespace}:{key}"
    prev = s.get(namespace, key)
    line = command("settings", "put", namespace, key, want)
    out = s.run_line(line)
    now = s.get(namespace, key)
    if now == want:
        return s.add(
            SettingRecord(name, SET, want, now, prev, line, apply=(line,), undo=(_undo_setting(namespace, key, prev),))
        )
    why = out or f"settings get {namespace} {key} reads {now or 'null'} after the put"
    return s.add(SettingRecord(name, NOT_SET, want, now, prev, line, reason=why))


def _first_that_works(
    s: _Session, name: str, want: str, attempts: Sequence[str], read: Any, previous: str | None, undo: Any
) -> SettingRecord:
    """Try each command line until `read()` gives `want`; the record names the one that worked (or all tried,
    with what each answered). `undo(line)` gives the restore lines for the method that worked."""
    answers = []
    for line in attempts:
        out = s.run_line(line)
        now = read()
        if now == want:
            return s.add(SettingRecord(name, SET, want, now, previous, line, apply=(line,), undo=tuple(undo(line))))
        answers.append(f"`{line}`: {out or 'no output'}")
    now = read()
    reason = "; ".join(answers) + f"; reads back {now or 'nothing'}"
    return s.add(SettingRecord(name, NOT_SET, want, now, previous, " || ".join(attempts), reason=reason))


# --- the steps ------------------------------------------------------------------------------------------------
def _wakefulness(s: _Session) -> str | None:
    m = re.search(r"mWakefulness=(\w+)", s.run(["dumpsys", "power"]))
    return m.group(1) if m else None


def _keyguard_showing(s: _Session) -> bool:
    out = s.run(["dumpsys", "window"])
    return bool(re.search(r"(mShowingLockscreen|isKeyguardShowing|mKeyguardShowing|KeyguardShowing)=true", out))


def _screen(s: _Session) -> None:
    prev = _wakefulness(s)
    wake = command("input", "keyevent", "KEYCODE_WAKEUP")
    dismiss = command("wm", "dismiss-keyguard")
    out = "\n".join(x for x in (s.run_line(wake), s.run_line(dismiss)) if x)
    now = _wakefulness(s)
    method = f"{wake}; {dismiss}"
    if now not in (None, "Awake"):
        s.add(SettingRecord("screen", NOT_SET, "Awake", now, prev, method, reason=out or f"mWakefulness={now}"))
    elif _keyguard_showing(s):
        s.add(
            SettingRecord(
                "screen",
                NOT_SET,
                "Awake",
                "Awake, keyguard showing",
                prev,
                method,
                reason="a secure lock screen (PIN, pattern, password) cannot be dismissed over adb: unlock the "
                "device or remove its screen lock",
            )
        )
    else:
        s.add(SettingRecord("screen", SET, "Awake", now or "Awake", prev, method, apply=(wake, dismiss)))


def _stay_awake(s: _Session) -> None:
    prev = s.get("global", "stay_on_while_plugged_in")
    _first_that_works(
        s,
        "global:stay_on_while_plugged_in",
        "7",
        [
            command("svc", "power", "stayon", "true"),
            command("settings", "put", "global", "stay_on_while_plugged_in", "7"),
        ],
        lambda: s.get("global", "stay_on_while_plugged_in"),
        prev,
        lambda line: [_undo_setting("global", "stay_on_while_plugged_in", prev)],
    )


def _ime(s: _Session, want: str | None) -> None:
    prev = s.get("secure", "default_input_method")
    if want is None:
        s.add(
            SettingRecord(
                "ime",
                KEPT,
                None,
                prev,
                prev,
                reason="the harness types with `input text` and uiautomator2 setText / clipboard, which need no "
                "special IME: the device's own stays",
            )
        )
        return
    enabled = s.get("secure", "enabled_input_methods") or ""
    enable, select = command("ime", "enable", want), command("ime", "set", want)
    out = "\n".join(x for x in (s.run_line(enable), s.run_line(select)) if x)
    now = s.get("secure", "default_input_method")
    if now != want:
        s.add(SettingRecord("ime", NOT_SET, want, now, prev, f"{enable}; {select}", reason=out or f"the IME is {now}"))
        return
    undo = [command("ime", "set", prev)] if prev else []
    if want not in enabled.split(":"):
        undo.append(command("ime", "disable", want))
    s.add(SettingRecord("ime", SET, want, now, prev, f"{enable}; {select}", apply=(enable, select), undo=tuple(undo)))


def _locale(s: _Session) -> None:
    now = s.prop("persist.sys.locale") or s.prop("ro.product.locale")
    s.add(
        SettingRecord(
            "locale", KEPT, None, now, now, reason="set per episode to the episode's language by the device pool"
        )
    )


def _time_zone(s: _Session, tz: str) -> None:
    _put(s, "global", "auto_time_zone", "0")
    prev = s.prop("persist.sys.timezone")

    def undo(line: str) -> list[str]:
        if not prev:
            return []
        return [
            command("setprop", "persist.sys.timezone", prev)
            if line.startswith("setprop")
            else command("cmd", "alarm", "set-timezone", prev)
        ]

    _first_that_works(
        s,
        "time_zone",
        tz,
        [command("cmd", "alarm", "set-timezone", tz), command("setprop", "persist.sys.timezone", tz)],
        lambda: s.prop("persist.sys.timezone"),
        prev,
        undo,
    )


def _epoch(s: _Session) -> float | None:
    out = s.run(["date", "+%s"])
    return float(out) if re.fullmatch(r"\d+", out) else None


def _date(s: _Session, when: datetime) -> None:
    _put(s, "global", "auto_time", "0")
    target = when.timestamp()
    prev = _epoch(s)
    stamp = when.astimezone(timezone.utc).strftime("%m%d%H%M%Y.%S")
    attempts = [
        command("cmd", "alarm", "set-time", str(int(target * 1000))),
        command("date", "-u", stamp),
        command("su", "0", "date", "-u", stamp),
    ]
    want = when.astimezone(timezone.utc).isoformat(timespec="seconds")
    previous = datetime.fromtimestamp(prev, timezone.utc).isoformat(timespec="seconds") if prev else None
    answers = []
    for line in attempts:
        t0 = time.monotonic()
        out = s.run_line(line)
        now = _epoch(s)
        if now is not None and abs(now - target) <= DATE_TOLERANCE + (time.monotonic() - t0):
            value = datetime.fromtimestamp(now, timezone.utc).isoformat(timespec="seconds")
            s.add(SettingRecord("date", SET, want, value, previous, line, apply=(line,)))
            return
        answers.append(f"`{line}`: {out or 'no output'}")
    after = _epoch(s)
    held = datetime.fromtimestamp(after, timezone.utc).isoformat(timespec="seconds") if after else None
    why = "the shell cannot set this device's clock (no `cmd alarm set-time`, not root, no su): " + "; ".join(answers)
    s.add(SettingRecord("date", NOT_SET, want, held, previous, " || ".join(attempts), reason=why))


def _airplane(s: _Session, on: bool) -> SettingRecord:
    prev = s.get("global", "airplane_mode_on")
    want = "1" if on else "0"

    def undo(line: str) -> list[str]:
        return [command("cmd", "connectivity", "airplane-mode", "enable" if prev == "1" else "disable")] if prev else []

    return _first_that_works(
        s,
        "airplane",
        want,
        [command("cmd", "connectivity", "airplane-mode", "enable" if on else "disable")],
        lambda: s.get("global", "airplane_mode_on"),
        prev,
        undo,
    )


def _night_mode(s: _Session, want: str) -> None:
    def read() -> str | None:
        m = re.search(r"Night mode: (\w+)", s.run(["cmd", "uimode", "night"]))
        return m.group(1) if m else None

    prev = read()
    _first_that_works(
        s,
        "night_mode",
        want,
        [command("cmd", "uimode", "night", want)],
        read,
        prev,
        lambda line: [command("cmd", "uimode", "night", prev)] if prev in _NIGHT else [],
    )


# --- the API ----------------------------------------------------------------------------------------------------
def prepare(device: Preparable, plan: PreparationPlan) -> DevicePreparation:
    """Apply `plan` to `device`, step by step, and record what each step did. A setting the device refuses is
    recorded as `not_set` with its answer, never raised; a device that stops answering raises `DeviceError`."""
    t0 = time.perf_counter()
    at = datetime.now(timezone.utc).isoformat(timespec="seconds")
    s = _Session(device)
    if plan.screen_on:
        _screen(s)
    if plan.animations_off:
        for key in ("window_animation_scale", "transition_animation_scale", "animator_duration_scale"):
            _put(s, "global", key, "0")
    if plan.stay_awake:
        _stay_awake(s)
    _ime(s, plan.ime)
    if plan.show_ime_with_hard_keyboard:
        _put(s, "secure", "show_ime_with_hard_keyboard", "1")
    _locale(s)
    if plan.time_zone is not None:
        _time_zone(s, plan.time_zone)
    if plan.hour_24 is not None:
        _put(s, "system", "time_12_24", "24" if plan.hour_24 else "12")
    if plan.date is not None:
        _date(s, plan.date)
    if plan.airplane is not None:
        _airplane(s, plan.airplane)
    if plan.night_mode is not None:
        _night_mode(s, plan.night_mode)
    if plan.font_scale is not None:
        _put(s, "system", "font_scale", plan.font_scale)
    if plan.heads_up_off:
        _put(s, "global", "heads_up_notifications_enabled", "0")
    return DevicePreparation(device.serial, tuple(s.records), at, round(time.perf_counter() - t0, 3))


def reapply(device: Preparable, record: DevicePreparation) -> None:
    """Run the commands of every setting that was set again, in one shell round trip: after a reset that loaded a
    snapshot (which undoes them) and before each episode (the clock restarts from the planned date)."""
    lines = [line for r in record.settings if r.status == SET for line in r.apply]
    if lines:
        device.shell(["sh", "-c", " ; ".join(lines)])


def restore(device: Preparable, record: DevicePreparation) -> list[str]:
    """Put back what the preparation changed (a phone's own settings), last change first. Returns what could not
    be put back (`name: answer`); a device that stopped answering raises `DeviceError`."""
    s = _Session(device)
    problems = []
    for r in reversed(record.settings):
        if r.status != SET:
            continue
        for line in r.undo:
            out = s.run_line(line)
            if out and re.search(r"(Error|Exception|denied|not found|Failed)", out):
                problems.append(f"{r.name}: `{line}`: {out}")
    return problems


def set_airplane(device: Preparable, on: bool) -> SettingRecord:
    """Airplane mode for a task's start state (`cmd connectivity airplane-mode`); a device that cannot switch it
    raises `DeviceError` naming the device and its answer (the task cannot start as written)."""
    rec = _airplane(_Session(device), on)
    if rec.status != SET:
        raise DeviceError(f"device {device.serial}: cannot turn airplane mode {'on' if on else 'off'}: {rec.reason}")
    return rec
