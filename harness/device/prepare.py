"""Device preparation for reproducible runs, by the means every Android device has: adb shell commands and
settings, every argument quoted by `harness.shellquote`. The plan and its record (`PreparationPlan`,
`DevicePreparation`, `SettingRecord`) are `harness.device.preparation`'s; this module applies them.

Scores move with animations, the time zone, the date, the keyboard, the theme and the network. Before a run each
device gets a `PreparationPlan` applied by `prepare(device, plan)`: animations off, stay awake while plugged in,
the screen on (wake + dismiss a non-secure keyguard), the IME the harness types with (its own by default: `input
text` and uiautomator2 setText / clipboard need no special IME), the soft keyboard shown with a hardware keyboard,
a fixed time zone and 12/24 h format, the date where the device lets the shell set it, airplane mode, night mode,
font scale and heads-up notifications. The locale is switched per episode by the pool (`DevicePool.ensure_locale`)
and only recorded here.

Each step reads the value before (what `restore` puts back), runs its command(s) and reads the value after:
nothing counts as set on an exit status alone (`adb shell` without shell v2 has none). The steps go together, in
three shell round trips (every value before, every step's first way in order, every value after; a setting whose
first way did not take then tries its next ones alone): on a phone each round trip costs a process start, and a
pool prepares every device before its first episode. The result is a
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

import re
import secrets
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Final, Protocol

from harness.device.preparation import (
    KEPT,
    NIGHT_MODES,
    NOT_SET,
    SET,
    DevicePreparation,
    PreparationPlan,
    SettingRecord,
)
from harness.errors import DeviceError
from harness.shellquote import command

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


# --- talking to the device ------------------------------------------------------------------------------------
Query = tuple[str, ...]  # a command whose output a step reads (argv, quoted when it is run)
Reads = Mapping[Query, str]  # each query's output (stdout + stderr), stripped
MAX_SCRIPT = 3000  # characters of one batched `sh -c` script (old adbd takes 4 KiB service strings)


def _run(device: Preparable, argv: Sequence[str]) -> str:
    """Run one command; its output (stdout + stderr), stripped."""
    r = device.shell(list(argv))
    return (r.stdout + r.stderr).decode("utf-8", errors="replace").strip()


def run_batch(device: Preparable, lines: Sequence[str]) -> list[str]:
    """Run quoted simple commands in as few shell round trips as fit (in order, each whatever the one before
    did); each one's output (stdout + stderr), stripped. The outputs are told apart by marker lines no command
    prints (a random token), so a command's own words are never taken for another's."""
    token = secrets.token_hex(6)
    outs: list[str] = []
    chunk: list[str] = []
    for i, line in enumerate(lines):
        part = f"echo @@{token}:{i}@@ ; {line} 2>&1"
        if chunk and sum(len(p) + 3 for p in chunk) + len(part) > MAX_SCRIPT:
            outs += _split(_run(device, ["sh", "-c", " ; ".join(chunk)]), token, len(chunk))
            chunk = []
        chunk.append(part)
    if chunk:
        outs += _split(_run(device, ["sh", "-c", " ; ".join(chunk)]), token, len(chunk))
    return outs


def _split(text: str, token: str, n: int) -> list[str]:
    parts: list[list[str]] = []
    for line in text.splitlines():
        if line.startswith(f"@@{token}:") and line.endswith("@@"):
            parts.append([])
        elif parts:
            parts[-1].append(line)
    outs = ["\n".join(p).strip() for p in parts]
    return outs + [""] * (n - len(outs))


_LISTED = re.compile(r"([^=\s]+)=(.*)")  # a `settings list` line
_PROP = re.compile(r"\[([^\]]+)\]: \[(.*)\]")  # a `getprop` line


def _table(out: str, line: re.Pattern[str]) -> dict[str, str] | None:
    """A `settings list` / `getprop` listing as a dict; None when a line is not one (an error, a value with a
    newline): its keys are then asked one by one."""
    table = {}
    for text in out.splitlines():
        m = line.fullmatch(text)
        if m is None:
            return None
        table[m[1]] = m[2]
    return table


def _listing(q: Query) -> tuple[Query, re.Pattern[str], str] | None:
    """The listing that answers query `q` (its command, its line format, what a missing key reads as)."""
    if len(q) == 4 and q[:2] == ("settings", "get"):
        return ("settings", "list", q[2]), _LISTED, "null"
    if len(q) == 2 and q[0] == "getprop":
        return ("getprop",), _PROP, ""
    return None


def read_all(device: Preparable, queries: Sequence[Query]) -> dict[Query, str]:
    """Each distinct query's output, all in one round trip. Several `settings get` of one namespace are read with
    one `settings list`, several `getprop NAME` with one `getprop` (on a phone a command costs a process start,
    ~5-50 ms); a listing that does not parse is asked again key by key, in one more round trip."""
    unique = list(dict.fromkeys(queries))
    hows = {q: how for q in unique if (how := _listing(q)) is not None}
    counts = Counter(how[0] for how in hows.values())
    shared = {q: how for q, how in hows.items() if counts[how[0]] > 1}  # the queries a listing answers
    listings = {how[0]: how[1] for how in shared.values()}  # each listing's line format
    asked = [q for q in unique if q not in shared] + sorted(listings)
    outs = dict(zip(asked, run_batch(device, [command(*q) for q in asked]), strict=True))
    tables = {lst: _table(outs[lst], line) for lst, line in listings.items()}
    again: list[Query] = []
    for q, (lst, _, missing) in shared.items():
        table = tables[lst]
        if table is None:
            again.append(q)
        else:
            outs[q] = table.get(q[-1], missing)
    outs.update(zip(again, run_batch(device, [command(*q) for q in again]), strict=True))
    return {q: outs[q] for q in unique}


def setting_value(out: str | None) -> str | None:
    """What `settings get` printed: None for null (or nothing)."""
    if out is None or out in ("null", ""):
        return None
    return out.splitlines()[-1].strip()


def setting_query(namespace: str, key: str) -> Query:
    return ("settings", "get", namespace, key)


def undo_setting(namespace: str, key: str, previous: str | None) -> str:
    if previous is None:
        return command("settings", "delete", namespace, key)
    return command("settings", "put", namespace, key, previous)


@dataclass(frozen=True)
class Step:
    """One setting of a preparation: what it reads (before and after), the ways to set it (the quoted lines of
    each, first first), how its value comes from the reads, and what is recorded."""

    name: str
    want: str | None
    reads: tuple[Query, ...]
    value: Callable[[Reads], str | None]
    attempts: tuple[tuple[str, ...], ...] = ()  # none: only recorded (kept)
    ok: Callable[[str | None, float], bool] | None = None  # (value, seconds the attempt took); None: value == want
    show: Callable[[str | None], str | None] = lambda v: v  # the value as the record shows it
    undo: Callable[[tuple[str, ...], Reads], tuple[str, ...]] = lambda lines, before: ()  # from the reads before
    why: Callable[[list[tuple[str, str]], str | None], str] | None = None  # (attempt, answer) pairs, value
    kept: str = ""  # the reason a step without attempts records

    def fine(self, value: str | None, seconds: float) -> bool:
        return self.ok(value, seconds) if self.ok is not None else value == self.want

    def failure(self, answers: list[tuple[str, str]], value: str | None) -> str:
        if self.why is not None:
            return self.why(answers, value)
        return f"{_tried(answers)}; reads back {self.show(value) or 'nothing'}"


def _tried(answers: list[tuple[str, str]]) -> str:
    """Every way tried and what the device answered, for a setting that was not set."""
    return "; ".join(f"`{method}`: {out or 'no output'}" for method, out in answers)


def _method(lines: tuple[str, ...]) -> str:
    return "; ".join(lines)


def apply_steps(device: Preparable, steps: Sequence[Step]) -> list[SettingRecord]:
    """Apply `steps` in three shell round trips - every value before, every first attempt (in order), every value
    after - and records in their order; a step whose first way did not take tries its next ones one by one."""
    before = read_all(device, [q for s in steps for q in s.reads])
    firsts = [line for s in steps if s.attempts for line in s.attempts[0]]
    t0 = time.monotonic()
    outs = iter(run_batch(device, firsts))
    answers: dict[str, list[tuple[str, str]]] = {}  # step -> (the way tried, what the device answered)
    for s in steps:
        if s.attempts:
            said = [next(outs) for _ in s.attempts[0]]
            answers[s.name] = [(_method(s.attempts[0]), "\n".join(x for x in said if x))]
    after = read_all(device, [q for s in steps if s.attempts for q in s.reads])
    took = time.monotonic() - t0
    records = []
    for s in steps:
        prev = s.value(before)
        if not s.attempts:
            records.append(SettingRecord(s.name, KEPT, s.want, s.show(prev), s.show(prev), reason=s.kept))
            continue
        tried, now, i = answers[s.name], s.value(after), 0
        while not s.fine(now, took) and i + 1 < len(s.attempts):
            i += 1
            t0 = time.monotonic()
            out = "\n".join(x for x in run_batch(device, s.attempts[i]) if x)
            now = s.value(read_all(device, s.reads))
            took = time.monotonic() - t0
            tried.append((_method(s.attempts[i]), out))
        lines = s.attempts[i]
        if s.fine(now, took):
            records.append(
                SettingRecord(
                    s.name,
                    SET,
                    s.want,
                    s.show(now),
                    s.show(prev),
                    _method(lines),
                    apply=lines,
                    undo=s.undo(lines, before),
                )
            )
        else:
            method = " || ".join(_method(a) for a in s.attempts)
            records.append(
                SettingRecord(s.name, NOT_SET, s.want, s.show(now), s.show(prev), method, reason=s.failure(tried, now))
            )
    return records


# --- the steps ------------------------------------------------------------------------------------------------
def put_step(namespace: str, key: str, want: str) -> Step:
    """`settings put`, read back."""
    line, query = command("settings", "put", namespace, key, want), setting_query(namespace, key)

    def why(answers: list[tuple[str, str]], now: str | None) -> str:
        return answers[0][1] or f"settings get {namespace} {key} reads {now or 'null'} after the put"

    return Step(
        f"{namespace}:{key}",
        want,
        (query,),
        lambda r: setting_value(r.get(query)),
        attempts=((line,),),
        undo=lambda lines, before: (undo_setting(namespace, key, setting_value(before.get(query))),),
        why=why,
    )


_POWER: Final = ("dumpsys", "power")
_WINDOW: Final = ("dumpsys", "window")
_KEYGUARD = re.compile(r"(mShowingLockscreen|isKeyguardShowing|mKeyguardShowing|KeyguardShowing)=true")
_AWAKE_LOCKED: Final = "Awake, keyguard showing"


def _screen() -> Step:
    wake, dismiss = command("input", "keyevent", "KEYCODE_WAKEUP"), command("wm", "dismiss-keyguard")

    def value(r: Reads) -> str | None:
        m = re.search(r"mWakefulness=(\w+)", r.get(_POWER, ""))
        now = m.group(1) if m else None
        if now in (None, "Awake") and _KEYGUARD.search(r.get(_WINDOW, "")):
            return _AWAKE_LOCKED
        return now

    def why(answers: list[tuple[str, str]], now: str | None) -> str:
        if now == _AWAKE_LOCKED:
            return (
                "a secure lock screen (PIN, pattern, password) cannot be dismissed over adb: unlock the device or "
                "remove its screen lock"
            )
        return answers[-1][1] or f"mWakefulness={now}"

    return Step(
        "screen",
        "Awake",
        (_POWER, _WINDOW),
        value,
        attempts=((wake, dismiss),),
        ok=lambda now, _: now in (None, "Awake"),
        show=lambda v: v or "Awake",
        why=why,
    )


def _stay_awake() -> Step:
    key = setting_query("global", "stay_on_while_plugged_in")
    return Step(
        "global:stay_on_while_plugged_in",
        "7",
        (key,),
        lambda r: setting_value(r.get(key)),
        attempts=(
            (command("svc", "power", "stayon", "true"),),
            (command("settings", "put", "global", "stay_on_while_plugged_in", "7"),),
        ),
        undo=lambda lines, before: (
            undo_setting("global", "stay_on_while_plugged_in", setting_value(before.get(key))),
        ),
    )


_IME: Final = setting_query("secure", "default_input_method")
_IMES_ENABLED: Final = setting_query("secure", "enabled_input_methods")


def _ime(want: str | None) -> Step:
    if want is None:
        return Step(
            "ime",
            None,
            (_IME,),
            lambda r: setting_value(r.get(_IME)),
            kept="the harness types with `input text` and uiautomator2 setText / clipboard, which need no special "
            "IME: the device's own stays",
        )
    enable, select = command("ime", "enable", want), command("ime", "set", want)

    def undo(lines: tuple[str, ...], before: Reads) -> tuple[str, ...]:
        prev = setting_value(before.get(_IME))
        back = [command("ime", "set", prev)] if prev else []
        if want not in (setting_value(before.get(_IMES_ENABLED)) or "").split(":"):  # disable only what it enabled
            back.append(command("ime", "disable", want))
        return tuple(back)

    return Step(
        "ime",
        want,
        (_IME, _IMES_ENABLED),
        lambda r: setting_value(r.get(_IME)),
        attempts=((enable, select),),
        undo=undo,
        why=lambda answers, now: answers[0][1] or f"the IME is {now}",
    )


_LOCALE: Final = ("getprop", "persist.sys.locale")
_PRODUCT_LOCALE: Final = ("getprop", "ro.product.locale")


def _locale() -> Step:
    return Step(
        "locale",
        None,
        (_LOCALE, _PRODUCT_LOCALE),
        lambda r: r.get(_LOCALE) or r.get(_PRODUCT_LOCALE) or None,
        kept="set per episode to the episode's language by the device pool",
    )


_TZ: Final = ("getprop", "persist.sys.timezone")


def _time_zone(tz: str) -> Step:
    def undo(lines: tuple[str, ...], before: Reads) -> tuple[str, ...]:
        prev = before.get(_TZ)
        if not prev:
            return ()
        setprop = lines[0].startswith("setprop")
        return (
            command("setprop", "persist.sys.timezone", prev)
            if setprop
            else command("cmd", "alarm", "set-timezone", prev),
        )

    return Step(
        "time_zone",
        tz,
        (_TZ,),
        lambda r: r.get(_TZ) or None,
        attempts=((command("cmd", "alarm", "set-timezone", tz),), (command("setprop", "persist.sys.timezone", tz),)),
        undo=undo,
    )


_EPOCH: Final = ("date", "+%s")


def _date(when: datetime) -> Step:
    target = when.timestamp()
    stamp = when.astimezone(timezone.utc).strftime("%m%d%H%M%Y.%S")

    def epoch(r: Reads) -> str | None:
        out = r.get(_EPOCH, "")
        return out if re.fullmatch(r"\d+", out) else None

    def iso(v: str | None) -> str | None:
        return datetime.fromtimestamp(float(v), timezone.utc).isoformat(timespec="seconds") if v else None

    def why(answers: list[tuple[str, str]], now: str | None) -> str:
        return f"the shell cannot set this device's clock (no `cmd alarm set-time`, not root, no su): {_tried(answers)}"

    return Step(
        "date",
        when.astimezone(timezone.utc).isoformat(timespec="seconds"),
        (_EPOCH,),
        epoch,
        attempts=(
            (command("cmd", "alarm", "set-time", str(int(target * 1000))),),
            (command("date", "-u", stamp),),
            (command("su", "0", "date", "-u", stamp),),
        ),
        ok=lambda now, took: now is not None and abs(float(now) - target) <= DATE_TOLERANCE + took,
        show=iso,
        why=why,
    )


def _airplane(on: bool) -> Step:
    key = setting_query("global", "airplane_mode_on")

    def undo(lines: tuple[str, ...], before: Reads) -> tuple[str, ...]:
        prev = setting_value(before.get(key))
        return (
            (command("cmd", "connectivity", "airplane-mode", "enable" if prev == "1" else "disable"),) if prev else ()
        )

    return Step(
        "airplane",
        "1" if on else "0",
        (key,),
        lambda r: setting_value(r.get(key)),
        attempts=((command("cmd", "connectivity", "airplane-mode", "enable" if on else "disable"),),),
        undo=undo,
    )


_NIGHT_QUERY: Final = ("cmd", "uimode", "night")


def night_mode_step(want: str) -> Step:
    def value(r: Reads) -> str | None:
        m = re.search(r"Night mode: (\w+)", r.get(_NIGHT_QUERY, ""))
        return m.group(1) if m else None

    def undo(lines: tuple[str, ...], before: Reads) -> tuple[str, ...]:
        prev = value(before)
        return (command("cmd", "uimode", "night", prev),) if prev in NIGHT_MODES else ()

    return Step(
        "night_mode", want, (_NIGHT_QUERY,), value, attempts=((command("cmd", "uimode", "night", want),),), undo=undo
    )


def _steps(plan: PreparationPlan) -> list[Step]:
    """The plan's steps in the order they are applied and recorded (automatic time zone / time off before the
    zone / the clock is set)."""
    steps = []
    if plan.screen_on:
        steps.append(_screen())
    if plan.animations_off:
        steps += [
            put_step("global", k, "0")
            for k in ("window_animation_scale", "transition_animation_scale", "animator_duration_scale")
        ]
    if plan.stay_awake:
        steps.append(_stay_awake())
    steps.append(_ime(plan.ime))
    if plan.show_ime_with_hard_keyboard:
        steps.append(put_step("secure", "show_ime_with_hard_keyboard", "1"))
    steps.append(_locale())
    if plan.time_zone is not None:
        steps += [put_step("global", "auto_time_zone", "0"), _time_zone(plan.time_zone)]
    if plan.hour_24 is not None:
        steps.append(put_step("system", "time_12_24", "24" if plan.hour_24 else "12"))
    if plan.date is not None:
        steps += [put_step("global", "auto_time", "0"), _date(plan.date)]
    if plan.airplane is not None:
        steps.append(_airplane(plan.airplane))
    if plan.night_mode is not None:
        steps.append(night_mode_step(plan.night_mode))
    if plan.font_scale is not None:
        steps.append(put_step("system", "font_scale", plan.font_scale))
    if plan.heads_up_off:
        steps.append(put_step("global", "heads_up_notifications_enabled", "0"))
    return steps


# --- the API ----------------------------------------------------------------------------------------------------
def prepare(device: Preparable, plan: PreparationPlan) -> DevicePreparation:
    """Apply `plan` to `device` and record what each step did, in three shell round trips (plus one for each
    further way a setting is tried). A setting the device refuses is recorded as `not_set` with its answer,
    never raised; a device that stops answering raises `DeviceError`."""
    t0 = time.perf_counter()
    at = datetime.now(timezone.utc).isoformat(timespec="seconds")
    records = apply_steps(device, _steps(plan))
    return DevicePreparation(device.serial, tuple(records), at, round(time.perf_counter() - t0, 3))


def reapply(
    device: Preparable, record: DevicePreparation, run: Callable[[Sequence[str]], object] | None = None
) -> None:
    """Run the commands of every setting that was set again, in one shell round trip: after a reset that loaded a
    snapshot (which undoes them) and before each episode (the clock restarts from the planned date). `run`: what
    runs the line instead of `device.shell` (`AdbDevice.quick_shell`: its output is not read)."""
    lines = [line for r in record.settings if r.status == SET for line in r.apply]
    if lines:
        (run or device.shell)(["sh", "-c", " ; ".join(lines)])


def restore(device: Preparable, record: DevicePreparation) -> list[str]:
    """Put back what the preparation changed (a phone's own settings), last change first. Returns what could not
    be put back (`name: answer`); a device that stopped answering raises `DeviceError`."""
    undo = [(r.name, line) for r in reversed(record.settings) if r.status == SET for line in r.undo]
    outs = run_batch(device, [line for _, line in undo])
    return [
        f"{name}: `{line}`: {out}"
        for (name, line), out in zip(undo, outs, strict=True)
        if out and re.search(r"(Error|Exception|denied|not found|Failed)", out)
    ]


def set_airplane(device: Preparable, on: bool) -> SettingRecord:
    """Airplane mode for a task's start state (`cmd connectivity airplane-mode`); a device that cannot switch it
    raises `DeviceError` naming the device and its answer (the task cannot start as written)."""
    (rec,) = apply_steps(device, [_airplane(on)])
    if rec.status != SET:
        raise DeviceError(f"device {device.serial}: cannot turn airplane mode {'on' if on else 'off'}: {rec.reason}")
    return rec
