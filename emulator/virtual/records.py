"""What the activity manager and the package manager keep: installed packages, activities and tasks (the back
stacks), and the well-known components (launcher, input methods). Plain records: the model holds them, the UI,
the apps and the shell read them."""

from __future__ import annotations

import copy
import time
from dataclasses import dataclass, field, fields
from typing import Any

LATIN_IME = "com.google.android.inputmethod.latin/com.android.inputmethod.latin.LatinIME"
ADB_KEYBOARD_IME = "com.github.uiautomator/.AdbKeyboard"
LAUNCHER_PACKAGE = "com.google.android.apps.nexuslauncher"
LAUNCHER_ACTIVITY = "com.google.android.apps.nexuslauncher.NexusLauncherActivity"


INTENT_ACTION = "android.intent.action"  # the extras keys an activity started by an intent gets its action,
INTENT_DATA = "android.intent.data"  # data URI and MIME type under
INTENT_TYPE = "android.intent.type"
INTENT_HANDLED = "android.intent.handled"  # set once the app has acted on the intent (App.on_intent)


def short_component(package: str, cls: str) -> str:
    return f"{package}/{cls[len(package) :]}" if cls.startswith(package + ".") else f"{package}/{cls}"


@dataclass
class Package:
    """An installed package as the package manager reports it."""

    name: str
    labels: dict[str, str]  # locale -> label, e.g. {"en": "Notes", "zh": "笔记"}
    activities: list[str] = field(default_factory=list)  # fully qualified class names
    launcher_activity: str | None = None  # shown in the launcher when set
    version_name: str = "1.0"
    version_code: int = 1
    system: bool = False
    ime_service: str | None = None  # "pkg/.Service" when the package provides an input method
    apk_path: str = ""
    first_install_time: float = field(default_factory=time.time)
    # (action, "scheme:S" / "mime:TYPE" / "" for any data, full activity class): what implicit intents reach
    intent_filters: list[tuple[str, str, str]] = field(default_factory=list)
    permissions: list[str] = field(default_factory=list)  # the manifest's <uses-permission>s (what `pm grant` takes)
    # app-op modes set for the package, by op name (Settings' special app access: MANAGE_EXTERNAL_STORAGE "allow")
    appops: dict[str, str] = field(default_factory=dict)

    def label(self, locale: str) -> str:
        return self.labels.get(locale) or self.labels.get("en") or self.name

    def __deepcopy__(self, memo: dict[int, Any]) -> Package:
        """What `copy.deepcopy` gives (a snapshot's packages, copied again at each restore), ~4x faster: its lists
        and dicts are new, their items shared (strings and tuples of strings: immutable)."""
        out = copy.copy(self)
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, list | dict):
                setattr(out, f.name, value.copy())
        memo[id(self)] = out
        return out

    def resolve_activity(self, activity: str | None) -> str | None:
        """Full class name of `activity` ('.Main', 'Main', or full), or the launcher activity when None."""
        if not activity:
            return self.launcher_activity or (self.activities[0] if self.activities else None)
        full = self.name + activity if activity.startswith(".") else activity
        for a in self.activities:
            if a == full or a.rsplit(".", 1)[-1] == activity:
                return a
        return None


@dataclass
class ActivityRecord:
    package: str
    activity: str  # full class name
    extras: dict[str, Any] = field(default_factory=dict)


@dataclass
class TaskRecord:
    """An Android task: the back stack of one app."""

    package: str
    stack: list[ActivityRecord] = field(default_factory=list)

    @property
    def top(self) -> ActivityRecord:
        return self.stack[-1]
