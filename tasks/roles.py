"""App roles: a task names an app by what it is (`@clock`, `@messages`) instead of by one vendor's package, and
the package is resolved on the device from what is installed there (`harness.device.apps.role_packages`).

Wherever a task names a package - `apps`, the start state's `reset_apps` / `stop_apps` / `open_app`, a check's
`package` (and an element's `package`), an end state's `app`, an OPEN_APP step's `package` - it may write
`@ROLE` instead. `ROLES` lists each role's packages, the Google variant first, then AOSP (what a stock
`google_apis` emulator image has) and common alternatives; on a device the first installed one is used.

This module is the pure table and the syntax check (the task schema uses it); `tasks.portable` replaces a
task's roles by packages and says why a task is not portable.
"""

from __future__ import annotations

from collections.abc import Iterable

ROLE_PREFIX = "@"

# role -> candidate packages, best first (Google variant, then AOSP / stock emulator image, then others)
ROLES: dict[str, tuple[str, ...]] = {
    "clock": ("com.google.android.deskclock", "com.android.deskclock"),
    "contacts": ("com.google.android.contacts", "com.android.contacts"),
    "messages": ("com.google.android.apps.messaging", "com.android.messaging", "com.android.mms"),
    "settings": ("com.android.settings",),
    "phone": ("com.google.android.dialer", "com.android.dialer"),
    "calendar": ("com.google.android.calendar", "com.android.calendar"),
    "camera": ("com.google.android.GoogleCamera", "com.android.camera2", "com.android.camera"),
    "files": ("com.google.android.apps.nbu.files", "com.google.android.documentsui", "com.android.documentsui"),
    "browser": ("com.android.chrome", "org.chromium.chrome", "org.chromium.webview_shell", "com.android.browser"),
    "calculator": ("com.google.android.calculator", "com.android.calculator2"),
    "gallery": ("com.google.android.apps.photos", "com.android.gallery3d"),
    "email": ("com.google.android.gm", "com.android.email"),
}

# the task fields (at any depth of the task's JSON) whose strings name an app's package
APP_FIELDS = ("apps", "reset_apps", "stop_apps", "open_app", "package", "app")


def is_role(ref: str | None) -> bool:
    """Whether `ref` is written as a role (`@clock`)."""
    return bool(ref) and str(ref).startswith(ROLE_PREFIX)


def role_of(ref: str) -> str:
    """`@clock` -> `clock` (ValueError naming the known roles when it is none)."""
    name = ref[len(ROLE_PREFIX) :]
    if name not in ROLES:
        raise ValueError(f"unknown app role {ref!r}; known roles: {', '.join('@' + r for r in ROLES)}")
    return name


def check_app_ref(ref: str | None) -> str | None:
    """A pydantic field check: a role must be a known one (a package or a label passes as it is)."""
    if ref is not None and is_role(ref):
        role_of(ref)
    return ref


def role_for_package(package: str) -> str | None:
    """The role a package plays (`com.android.deskclock` -> `clock`), or None."""
    return next((r for r, pkgs in ROLES.items() if package in pkgs), None)


def pick_package(role: str, installed: Iterable[str]) -> str | None:
    """The role's first candidate package that is installed (None: the device has no such app)."""
    have = set(installed)
    return next((p for p in ROLES[role] if p in have), None)
