"""System dialogs and in-app popups on the virtual device, and what brings them up (docs/robustness.md).

The window manager shows two extra kinds of window over the foreground app, both kept in its UI state (so they
go into snapshots and come back with them):

- a system dialog (`ui.state.sysdialog`): "<App> isn't responding" (a window of package `android`: "Close app"
  / "Wait") or a runtime permission prompt (`com.google.android.permissioncontroller`: "Allow <App> to take
  pictures and record video?" with "While using the app" / "Only this time" / "Don't allow");
- an in-app popup (`ui.state.popup`): a dialog window of the foreground app's own package - a rating prompt
  ("Enjoying <App>?": "Not now" / "Rate") or a full-screen promo with a close button.

AOSP has no shell command that makes an app stop responding or ask for a permission (`am hang` hangs the system
server; `kill -STOP` of an app's process is refused to the shell with "Operation not permitted"), so these come
through a broadcast only the virtual device receives (`ACTION`, extras `kind` and, optionally, `package`); its
result carries what was shown (`result=-1, data="shown anr com.example.app"`), and a phone, with no receiver,
answers `result=0` and shows nothing. The low-battery warning has Android's own trigger, `dumpsys battery unplug`
+ `dumpsys battery set level N` (undone by `dumpsys battery reset`): on API 34 SystemUI answers a drop below the
warning level (15%) while unplugged with its low-battery notification (PowerNotificationWarnings: a heads-up of
package `com.android.systemui`, not a dialog), and takes it back when the battery is plugged in or reset.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from .notifications import IMPORTANCE_HIGH, Notification
from .records import LAUNCHER_PACKAGE

if TYPE_CHECKING:  # pragma: no cover
    from .ui.host import Device

ACTION = "com.droidharness.virtual.action.INTERRUPT"
SYSTEM_KINDS = ("anr", "permission")
POPUP_KINDS = ("rate", "promo")
ANDROID = "android"
PERMISSION_CONTROLLER = "com.google.android.permissioncontroller"
SYSTEMUI = "com.android.systemui"
LOW_BATTERY_LEVEL = 15  # config_lowBatteryWarningLevel
LOW_BATTERY_TAG = "low_battery"
LOW_BATTERY_ID = 3  # SystemMessage.NOTE_POWER_LOW
SYSTEMUI_UID = 10_020


def app_label(model: Device, package: str) -> str:
    pkg = model.packages.get(package)
    if pkg is None:
        return package
    return pkg.labels.get(model.locale) or pkg.labels.get("en") or package


def foreground_package(model: Device) -> str:
    return model.tasks[-1].package if model.tasks else ""


def show(model: Device, kind: str, package: str | None = None) -> str:
    """Bring up the interruption `kind` for `package` (the foreground app when None); what was shown
    (`shown KIND PACKAGE`), or why not. Call with the model lock held."""
    package = package or foreground_package(model)
    if not package:
        return "no app in the foreground"
    if kind in SYSTEM_KINDS:
        model.ui.state.sysdialog = {"kind": kind, "package": package}
    elif kind in POPUP_KINDS:
        if package not in model.ui.apps or package == LAUNCHER_PACKAGE:
            return f"{package} has no popup receiver"
        model.ui.state.popup = {"kind": kind, "package": package}
    else:
        return f"unknown kind {kind!r}; known: {', '.join(SYSTEM_KINDS + POPUP_KINDS)}"
    model.events.log("interruption", action="show", what=kind, package=package)
    return f"shown {kind} {package}"


def receive(model: Device, action: str | None, extras: dict[str, Any]) -> tuple[int, str] | None:
    """The broadcast receiver: (result code, data) for `ACTION`, None for any other action."""
    if action != ACTION:
        return None
    with model.lock:
        said = show(model, str(extras.get("kind", "")), str(extras.get("package") or "") or None)
    return (-1 if said.startswith("shown") else 0), said


# --- the battery: BatteryService's shell overrides, SystemUI's warning --------------------------------------------
def _save(model: Device) -> None:
    if model.hw.battery_before is None:
        model.hw.battery_before = dataclasses.replace(model.hw.battery)


def battery_command(model: Device, args: list[str]) -> str | None:
    """`dumpsys battery unplug | set KEY VALUE | reset`: None when `args` is none of them (then the state is
    dumped); else what the command prints ("" for nothing)."""
    if not args or args[0] not in ("unplug", "set", "reset"):
        return None
    b = model.hw.battery
    before = b.level
    with model.lock:
        if args[0] == "unplug":
            _save(model)
            b.ac = b.usb = False
            b.status = 3  # discharging
        elif args[0] == "set":
            if len(args) < 3:
                return "No property specified"
            key, value = args[1], args[2]
            if not value.lstrip("-").isdigit():
                return f"Bad value: {value}"
            _save(model)
            if key == "level":
                b.level = max(0, min(100, int(value)))
            elif key in ("ac", "usb"):
                setattr(b, key, int(value) != 0)
            elif key == "status":
                b.status = int(value)
            elif key not in ("wireless", "temp", "present", "invalid", "counter"):
                return f"Unknown set option: {key}"
        else:
            if model.hw.battery_before is not None:
                model.hw.battery = b = model.hw.battery_before
                model.hw.battery_before = None
        _low_battery(model, before)
    return ""


def _low_battery(model: Device, before: int) -> None:
    """SystemUI's warning: posted when an unplugged battery drops to the warning level, taken back when it is
    plugged in or back above it."""
    b = model.hw.battery
    key = f"0|{SYSTEMUI}|{LOW_BATTERY_ID}|{LOW_BATTERY_TAG}|{SYSTEMUI_UID}"
    plugged = b.ac or b.usb
    if not plugged and b.level <= LOW_BATTERY_LEVEL < before:
        zh = model.locale == "zh"
        title = "电池电量低" if zh else "Battery low"
        text = f"剩余 {b.level}%" if zh else f"{b.level}% remaining"
        n = Notification(
            SYSTEMUI, LOW_BATTERY_ID, LOW_BATTERY_TAG, SYSTEMUI_UID, title, text, "BAT", int(model.now() * 1000)
        )
        n.importance = IMPORTANCE_HIGH
        model.notifications.post(n)
        model.events.log("notification", action="post", package=SYSTEMUI, tag=LOW_BATTERY_TAG, title=title)
    elif (plugged or b.level > LOW_BATTERY_LEVEL) and model.notifications.get(key) is not None:
        model.notifications.cancel(key)
