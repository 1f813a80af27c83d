"""Perturbations put on a device by Android's own means (docs/robustness.md): the screen conditions through the
device's shell, every argument quoted by `harness.shellquote`, each read back and put back afterwards; the
notification interruption posted from the shell. Which perturbations an episode gets, and when, is
`harness.run.loop.perturb`'s; the plan and its records are `harness.perturbation`'s.

Each condition is one or more preparation steps (`harness.device.prepare.Step`: the value read before, the command
run, the value read after - nothing counts as set on an exit status alone), applied together in three shell round
trips; what a device refused is recorded with its own words, as device preparation records its refusals:

    dark        `cmd uimode night yes`                                  (read back: `cmd uimode night`)
    font=S      `settings put system font_scale S`
    size=WxH    `wm size WxH`                                           (read back: `wm size`'s Override line)
    density=D   `wm density D`                                          (read back: `wm density`'s Override line)
    landscape   `settings put system accelerometer_rotation 0`, `settings put system user_rotation 1`
    animations  `settings put global window_animation_scale 1` (and transition_animation_scale,
                animator_duration_scale)
    notification  heads-up notifications on (`settings put global heads_up_notifications_enabled 1`) for the
                episode; at its step `cmd notification post -S bigtext -t TITLE TAG TEXT`, read back from
                `cmd notification list`

The locale is not set here: the device pool switches a device's system language (`DevicePool.ensure_locale`),
before the task's start state (harness.run.orchestration.leasing).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from harness.device.preparation import SET, DevicePreparation, SettingRecord
from harness.device.prepare import (
    Preparable,
    Reads,
    Step,
    apply_steps,
    night_mode_step,
    put_step,
    restore,
    run_batch,
    setting_query,
    setting_value,
)
from harness.perturbation import Perturbation, PerturbationRecord
from harness.shellquote import command

ANIMATION_SCALES = ("window_animation_scale", "transition_animation_scale", "animator_duration_scale")
HEADS_UP: Final = ("global", "heads_up_notifications_enabled")
LANDSCAPE_ROTATION = "1"  # Surface.ROTATION_90: a quarter turn


def _display(kind: str, want: str) -> Step:
    """`wm size WxH` / `wm density D`, read back from the `Override ...` line `wm size` / `wm density` print; put
    back to the override the device had, or `reset` when it had none."""
    query = ("wm", kind)

    def value(r: Reads) -> str | None:
        m = re.search(rf"Override {kind}: (\S+)", r.get(query, ""))
        return m.group(1) if m else None

    def undo(lines: tuple[str, ...], before: Reads) -> tuple[str, ...]:
        prev = value(before)
        return (command("wm", kind, prev or "reset"),)

    def why(answers: list[tuple[str, str]], now: str | None) -> str:
        return answers[0][1] or f"`wm {kind}` reads back {'no override' if now is None else now}"

    return Step(f"wm:{kind}", want, (query,), value, attempts=((command("wm", kind, want),),), undo=undo, why=why)


def _user_rotation(want: str) -> Step:
    """`settings put system user_rotation N`; put back to the previous value, or to 0 (Android's default) and then
    deleted when the device had none (deleting alone would leave the display turned)."""
    key = setting_query("system", "user_rotation")

    def undo(lines: tuple[str, ...], before: Reads) -> tuple[str, ...]:
        prev = setting_value(before.get(key))
        if prev is not None:
            return (command("settings", "put", "system", "user_rotation", prev),)
        return (
            command("settings", "put", "system", "user_rotation", "0"),
            command("settings", "delete", "system", "user_rotation"),
        )

    return Step(
        "system:user_rotation",
        want,
        (key,),
        lambda r: setting_value(r.get(key)),
        attempts=((command("settings", "put", "system", "user_rotation", want),),),
        undo=undo,
    )


def condition_steps(p: Perturbation) -> list[Step]:
    """The preparation steps that put condition `p` on a device (none for the locale: the pool switches it)."""
    if p.name == "dark":
        return [night_mode_step("yes")]
    if p.name == "font" and p.value is not None:
        return [put_step("system", "font_scale", p.value)]
    if p.name in ("size", "density") and p.value is not None:
        return [_display(p.name, p.value)]
    if p.name == "landscape":
        return [put_step("system", "accelerometer_rotation", "0"), _user_rotation(LANDSCAPE_ROTATION)]
    if p.name == "animations":
        return [put_step("global", k, "1") for k in ANIMATION_SCALES]
    if p.name in ("notification", "dialog"):  # the low-battery warning is a heads-up too
        return [put_step(*HEADS_UP, "1")]
    return []


def _verdict(p: Perturbation, records: Sequence[SettingRecord]) -> PerturbationRecord:
    refused = [r for r in records if r.status != SET]
    if not refused:
        return PerturbationRecord(p.name, p.value, None, True)
    why = "; ".join(f"{r.name}: {r.reason}" for r in refused)
    if p.name in ("notification", "dialog"):  # posted all the same: it waits in the shade instead of peeking
        why = f"heads-up notifications could not be turned on ({why})"
    return PerturbationRecord(p.name, p.value, None, False, f"the device refused it: {why}")


def apply_conditions(
    device: Preparable, perturbations: Sequence[Perturbation]
) -> tuple[list[PerturbationRecord], DevicePreparation]:
    """Put `perturbations` on `device`, all in three shell round trips (every value before, every command, every
    value after): a record per perturbation (applied, or why not: the device's own words) and the preparation
    record `restore_conditions` puts the previous values back from. A device that stops answering raises
    `DeviceError`."""
    plans = [(p, condition_steps(p)) for p in perturbations]
    settings = apply_steps(device, [s for _, steps in plans for s in steps])
    out, i = [], 0
    for p, steps in plans:
        out.append(_verdict(p, settings[i : i + len(steps)]))
        i += len(steps)
    return out, DevicePreparation(device.serial, tuple(settings))


def restore_conditions(device: Preparable, applied: DevicePreparation) -> list[str]:
    """Put back what `apply_conditions` changed, last change first; what could not be put back (`name: answer`)."""
    return restore(device, applied)


def post_notification(device: Preparable, tag: str, title: str, text: str) -> str | None:
    """Post a notification from the shell as `cmd notification post` does (NotificationShellCmd: the shell's own
    package, a big-text style) and read it back from `cmd notification list`; None when it is listed, else what
    the device said."""
    post = command("cmd", "notification", "post", "-S", "bigtext", "-t", title, tag, text)
    said, listed = run_batch(device, [post, command("cmd", "notification", "list")])
    if any(f"|{tag}|" in line for line in listed.splitlines()):
        return None
    return f"`{post}`: {said or 'no output'}; `cmd notification list` does not list it"


# the broadcast only the embedded virtual device receives (emulator.virtual.sysdialogs.ACTION): AOSP has no shell
# command that makes an app stop responding, ask for a permission or show its own popup
INTERRUPT_ACTION = "com.droidharness.virtual.action.INTERRUPT"
LOW_BATTERY_LEVEL = "4"  # below every release's warning level (15% in AOSP's config_lowBatteryWarningLevel)
BATTERY = ("dumpsys", "battery")


def _battery_level(dump: str) -> tuple[str | None, bool]:
    """(level, plugged) as `dumpsys battery` reports them."""
    m = re.search(r"^\s*level: (\d+)", dump, re.M)
    plugged = bool(re.search(r"^\s*(AC|USB|Wireless) powered: true", dump, re.M))
    return (m.group(1) if m else None), plugged


def show_interruption(device: Preparable, name: str, kind: str) -> tuple[str | None, tuple[str, ...]]:
    """Bring up interruption `kind` of `name` ("dialog": anr | battery | permission; "popup": rate | promo) over the
    foreground app: (None when it is up, else what the device said; the commands that take it back).

    The low-battery warning has Android's own means - `dumpsys battery unplug` and `dumpsys battery set level 4`,
    read back from `dumpsys battery`, undone by `dumpsys battery reset`: SystemUI warns of a battery that drops to
    its warning level unplugged. The others come by a broadcast only the embedded virtual device answers (its
    result names what it showed); a phone answers `result=0` and shows nothing, recorded as refused."""
    if kind == "battery":
        unplug = command(*BATTERY, "unplug")
        lower = command(*BATTERY, "set", "level", LOW_BATTERY_LEVEL)
        said_unplug, said_set, after = run_batch(device, [unplug, lower, command(*BATTERY)])
        level, plugged = _battery_level(after)
        undo = (command(*BATTERY, "reset"),)
        if level == LOW_BATTERY_LEVEL and not plugged:
            return None, undo
        said = "; ".join(x for x in (said_unplug, said_set) if x) or "no output"
        return f"`{unplug}; {lower}`: {said}; `dumpsys battery` reads back level {level}, plugged {plugged}", undo
    line = command("am", "broadcast", "-a", INTERRUPT_ACTION, "--es", "kind", kind)
    (said,) = run_batch(device, [line])
    if 'result=-1, data="shown ' in said:
        return None, ()
    m = re.search(r"Broadcast completed: (.*)", said)
    answer = m.group(1) if m else said or "no output"
    return f"no receiver showed it (`{line}`: {answer}); only the embedded virtual device has one", ()


def take_back(device: Preparable, lines: Sequence[str]) -> list[str]:
    """Run what `show_interruption` said takes it back; what the device answered, where it answered."""
    return [f"{line}: {out}" for line, out in zip(lines, run_batch(device, list(lines)), strict=True) if out]


__all__ = [
    "INTERRUPT_ACTION",
    "apply_conditions",
    "condition_steps",
    "post_notification",
    "restore_conditions",
    "show_interruption",
    "take_back",
]
