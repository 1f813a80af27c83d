"""Reference solutions of AndroidWorld's task classes on the embedded device's apps, from an instance's parameters.

`--suite androidworld` gives each of AndroidWorld's instances as a harness task whose `outside` is
`{"suite": "androidworld", "class": <class name>, "params": {...}}` (no reference solution of its own). The
`reference` agent asks `plan(outside)` for one: a list of steps it plays as it plays a bundled task's solution
(locators resolved on the live screen, interruptions dismissed, elements sought) - `ReferenceStep`s, plain unified
actions, and `Decide`s: a step chosen on the screen it meets (a switch clicked only when it is not yet as wanted, a
slider dragged to its end from where it is). `plan` returns None for a class without a solver (the agent then
says IMPOSSIBLE at once).

The solvers know AndroidWorld's classes only by what their goals ask and their judges look at: the setting a
Settings class reads back, the screen a Clock class's judge reads (so the episode ends there), the contact a
Contacts class looks up (or the unsaved new-contact form it reads). Nothing here imports AndroidWorld.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from harness.actions import Complete, OpenApp
from tasks.schema import ReferenceStep

from .aw import calendar, expense, markor, recipe, sms
from .aw import camera as camera_app
from .aw import draw as simple_draw
from .aw import files as files_app
from .aw import gallery as gallery_app
from .aw import joplin as joplin_notes
from .aw import opentracks as open_tracks
from .aw import osmand as osmand_maps
from .aw import recorder as audio_recorder
from .aw import retro as retro_music
from .aw import tasks as orgtasks
from .aw import vlc as vlc_player
from .aw.sms import SMS
from .aw.steps import Decide, DragToEnd, IfShown, SetSwitch, Step, click, loc, open_app, type_into

SUITE = "androidworld"

SETTINGS = ("Settings", "com.android.settings")
CLOCK = ("Clock", "com.google.android.deskclock")
CONTACTS = ("Contacts", "com.google.android.contacts")
NOTES = ("Notes", "com.droidharness.notes")
# the apps AndroidWorld's OpenAppTaskEval draws (by its names), as a launcher labels them and their packages
APPS: dict[str, tuple[str, str]] = {
    "settings": SETTINGS,
    "clock": CLOCK,
    "contacts": CONTACTS,
    "dialer": ("Phone", "com.google.android.dialer"),
    "camera": ("Camera", "com.android.camera2"),
}
# --- Settings --------------------------------------------------------------------------------------------------
NETWORK = click(resource_id="android:id/title", text="Network & internet")
CONNECTED = click(resource_id="android:id/title", text="Connected devices")
DISPLAY = click(resource_id="android:id/title", text="Display")
UP = click(resource_id="android:id/home")
# Settings opened again resumes the page it was left on: up to its top level first when a page is up
SETTINGS_TOP = (open_app(SETTINGS), IfShown(loc(resource_id="android:id/home"), UP))


def wifi_switch(on: bool) -> SetSwitch:
    return SetSwitch(loc(resource_id="wifi_row"), on)


def bluetooth_switch(on: bool) -> SetSwitch:
    return SetSwitch(loc(resource_id="bluetooth_row"), on)


def _on(params: Mapping[str, Any], default: str) -> bool:
    return str(params.get("on_or_off", default)) == "on"


def wifi(default: str) -> Callable[[Mapping[str, Any]], list[Step]]:
    """Settings > Network & internet, the Wi-Fi row as the parameters want it (the Verify classes: as it is)."""
    return lambda p: [*SETTINGS_TOP, NETWORK, wifi_switch(_on(p, default)), Complete()]


def bluetooth(default: str) -> Callable[[Mapping[str, Any]], list[Step]]:
    """Settings > Connected devices, the Bluetooth row as the parameters want it."""
    return lambda p: [*SETTINGS_TOP, CONNECTED, bluetooth_switch(_on(p, default)), Complete()]


def brightness(default: str) -> Callable[[Mapping[str, Any]], list[Step]]:
    """Settings > Display, the brightness slider dragged to its minimum or maximum end."""

    def solve(p: Mapping[str, Any]) -> list[Step]:
        end = "min" if str(p.get("max_or_min", default)) == "min" else "max"
        return [*SETTINGS_TOP, DISPLAY, DragToEnd(loc(resource_id="brightness_seekbar"), end), Complete()]

    return solve


def wifi_off_bluetooth_on(p: Mapping[str, Any]) -> list[Step]:
    return [
        *SETTINGS_TOP,
        NETWORK,
        wifi_switch(False),
        UP,
        CONNECTED,
        bluetooth_switch(True),
        Complete(),
    ]


def wifi_on_then_app(p: Mapping[str, Any]) -> list[Step]:
    return [*SETTINGS_TOP, NETWORK, wifi_switch(True), *open_named_app(p)[:-1], Complete()]


def open_named_app(p: Mapping[str, Any]) -> list[Step]:
    """OpenAppTaskEval: the app it names in the foreground."""
    name = str(p.get("app_name", "")).strip().lower()
    app = APPS.get(name)
    return [open_app(app) if app else OpenApp(name=name), Complete()]


# --- Clock -----------------------------------------------------------------------------------------------------
STOPWATCH_TAB = click(resource_id="tab_menu_stopwatch")
TIMER_TAB = click(resource_id="tab_menu_timer")


def stopwatch_running(p: Mapping[str, Any]) -> list[Step]:
    """Started, and left on the stopwatch's screen (its judge looks for Pause and Lap there)."""
    return [open_app(CLOCK), STOPWATCH_TAB, click(resource_id="fab", desc="Start"), Complete()]


def stopwatch_paused(p: Mapping[str, Any]) -> list[Step]:
    """A fresh stopwatch is paused at zero: its screen shown (its judge looks for Start there)."""
    return [open_app(CLOCK), STOPWATCH_TAB, Complete()]


def timer_entry(p: Mapping[str, Any]) -> list[Step]:
    """The timer's keypad: hh mm ss typed as digits (leading zeros left out), not started, its screen left up."""
    h, m, s = (int(p.get(k, 0)) for k in ("hours", "minutes", "seconds"))
    digits = f"{h:02d}{m:02d}{s:02d}".lstrip("0")
    keys = [click(resource_id=f"timer_setup_digit_{d}") for d in digits]
    return [open_app(CLOCK), TIMER_TAB, *keys, Complete()]


# --- Contacts --------------------------------------------------------------------------------------------------
# the editor's phone type labels (its label menu's CheckedTextViews); any other label is typed as a custom one
PHONE_LABELS = (
    "Mobile",
    "Home",
    "Work",
    "Work Fax",
    "Home Fax",
    "Pager",
    "Other",
    "Callback",
    "Car",
    "Company Main",
    "ISDN",
    "Main",
    "Other Fax",
    "Radio",
    "Telex",
    "TTY TDD",
    "Work Mobile",
    "Work Pager",
    "Assistant",
    "MMS",
)
NEW_CONTACT = (open_app(CONTACTS), click(resource_id="floating_action_button"))


def _menu_item(text: str) -> ReferenceStep:
    return click(resource_id="android:id/text1", class_name="android.widget.CheckedTextView", text=text)


def name_fields(first: str, last: str) -> list[Step]:
    """The editor's First name and Last name typed (an empty one left alone)."""
    fields = (("editor_first_name", first), ("editor_last_name", last))
    return [type_into(text, resource_id=rid) for rid, text in fields if text]


def phone_label(label: str) -> list[Step]:
    """The phone's type label picked from the label Spinner's menu (Mobile, the default, left as it is); a label
    the menu lacks typed as a custom one."""
    if label == "Mobile":
        return []
    if label in PHONE_LABELS:
        return [click(resource_id="spinner"), _menu_item(label)]
    return [
        click(resource_id="spinner"),
        _menu_item("Custom"),
        type_into(label, resource_id="custom_dialog_content"),
        click(resource_id="android:id/button1"),
    ]


def add_contact(p: Mapping[str, Any]) -> list[Step]:
    """A new contact of the name (its last word the last name, as the editor joins them back) and number, saved."""
    first, _, last = str(p["name"]).strip().rpartition(" ")
    return [
        *NEW_CONTACT,
        *(name_fields(first, last) if first else name_fields(last, "")),
        type_into(str(p["number"]), resource_id="editor_phone"),
        click(resource_id="editor_menu_save_button"),
        Complete(),
    ]


def new_contact_draft(p: Mapping[str, Any]) -> list[Step]:
    """The new-contact form filled in - first and last name, phone, the phone's label - and NOT saved: the episode
    ends on the form (its judge reads the screen)."""
    return [
        *NEW_CONTACT,
        *name_fields(str(p["first"]), str(p["last"])),
        type_into(str(p["phone"]), resource_id="editor_phone"),
        *phone_label(str(p["phone_label"])),
        Complete(),
    ]


# --- the clipboard --------------------------------------------------------------------------------------------
def copy_to_clipboard(p: Mapping[str, Any]) -> list[Step]:
    """The text typed into a new note's body and copied with the editor's Copy text."""
    return [
        open_app(NOTES),
        click(resource_id="fab_add"),
        type_into(str(p["clipboard_content"]), resource_id="note_body_edit"),
        click(resource_id="action_copy"),
        Complete(),
    ]


SOLVERS: dict[str, Callable[[Mapping[str, Any]], list[Step]]] = {
    **sms.SOLVERS,
    **files_app.SOLVERS,
    **camera_app.SOLVERS,
    **gallery_app.SOLVERS,
    **orgtasks.SOLVERS,
    **joplin_notes.SOLVERS,
    **open_tracks.SOLVERS,
    **calendar.SOLVERS,
    **expense.SOLVERS,
    **markor.SOLVERS,
    **recipe.SOLVERS,
    **vlc_player.SOLVERS,
    **audio_recorder.SOLVERS,
    **simple_draw.SOLVERS,
    **osmand_maps.SOLVERS,
    **retro_music.SOLVERS,
    "SystemWifiTurnOn": wifi("on"),
    "SystemWifiTurnOff": wifi("off"),
    "SystemWifiTurnOnVerify": wifi("on"),
    "SystemWifiTurnOffVerify": wifi("off"),
    "SystemBluetoothTurnOn": bluetooth("on"),
    "SystemBluetoothTurnOff": bluetooth("off"),
    "SystemBluetoothTurnOnVerify": bluetooth("on"),
    "SystemBluetoothTurnOffVerify": bluetooth("off"),
    "SystemBrightnessMin": brightness("min"),
    "SystemBrightnessMax": brightness("max"),
    "SystemBrightnessMinVerify": brightness("min"),
    "SystemBrightnessMaxVerify": brightness("max"),
    "TurnOffWifiAndTurnOnBluetooth": wifi_off_bluetooth_on,
    "TurnOnWifiAndOpenApp": wifi_on_then_app,
    "OpenAppTaskEval": open_named_app,
    "ClockStopWatchRunning": stopwatch_running,
    "ClockStopWatchPausedVerify": stopwatch_paused,
    "ClockTimerEntry": timer_entry,
    "ContactsAddContact": add_contact,
    "ContactsNewContactDraft": new_contact_draft,
    "SystemCopyToClipboard": copy_to_clipboard,
}


def plan(outside: Mapping[str, Any]) -> list[Step] | None:
    """The steps solving an outside suite's instance (`Task.outside`), or None: no solver for its class."""
    if outside.get("suite") != SUITE:
        return None
    solver = SOLVERS.get(str(outside.get("class", "")))
    if solver is None:
        return None
    return solver(outside.get("params") or {})


__all__ = ["SMS", "SOLVERS", "SUITE", "Decide", "DragToEnd", "IfShown", "SetSwitch", "Step", "plan"]
