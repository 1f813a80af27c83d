"""What the UI and the apps rely on from above them: `Device`, the device model as the window manager, the system
bars, the keyboard, recents and a screen builder's `Ctx` use it (`model.VirtualDeviceModel` is one), and `Screen`,
the window manager as a screen builder and the apps use it (`manager.UIManager` is one), with `AppView`, an app
as another app or the layout sees it (`apps.base.App` is one).

These are interfaces, so that the model (which owns the window manager) and the window manager (which owns the
apps) can sit above what they drive, and nothing below imports them back.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:  # pragma: no cover
    from ..clock import DeviceClock
    from ..events import EventLog
    from ..fs import FileSystem
    from ..hardware import Hardware
    from ..notifications import Notifications
    from ..procs import DeviceProcs
    from ..profiles import Profile
    from ..records import ActivityRecord, Package, TaskRecord
    from ..statelock import StateLock
    from .windowstate import WindowState


class Device(Protocol):
    """The device model as the UI sees it: its settings and locale, packages, tasks and per-app state, its window
    manager, and the activity manager's moves."""

    lock: StateLock  # counts the state's changes: views are built once per state (statelock)
    profile: Profile
    locale: str
    content_locale: str  # the language the apps' seed content is in
    serial: str
    screen_on: bool
    events: EventLog
    clipboard: str | None
    settings: dict[str, dict[str, str]]
    props: dict[str, str]
    packages: dict[str, Package]
    tasks: list[TaskRecord]  # last = foreground
    app_data: dict[str, dict[str, Any]]  # persistent per-package state
    app_ui: dict[str, dict[str, Any]]  # per-process UI state
    fs: FileSystem  # the device's files (apps keep their databases and files there: apps/storage.py)
    hw: Hardware  # battery, location, calls (the status bar shows the battery level)
    notifications: Notifications  # posted notifications (the heads-up and the shade show them)
    procs: DeviceProcs  # pids, and what the package manager keeps per package (runtime permission grants)

    @property
    def ui(self) -> Screen: ...

    @property
    def display_size(self) -> tuple[int, int]: ...  # the logical display in the current rotation

    @property
    def scale(self) -> float: ...  # px per dp at the logical density (`wm density`)

    @property
    def clock_set(self) -> bool: ...

    @property
    def clock_offset(self) -> float: ...  # seconds the wall clock was set ahead (views show the time)

    @property
    def clock(self) -> DeviceClock: ...

    @property
    def time_zone(self) -> str: ...

    def now(self) -> float: ...

    def uptime(self) -> float: ...

    @property
    def foreground(self) -> ActivityRecord: ...

    def install_package(self, pkg: Package) -> None: ...

    def start_activity(
        self, package: str, activity: str | None = None, extras: dict[str, Any] | None = None, new_task: bool = False
    ) -> ActivityRecord: ...

    def push_activity(self, activity: str, extras: dict[str, Any] | None = None) -> ActivityRecord: ...

    def finish_activity(self) -> None: ...

    def go_home(self) -> None: ...

    def force_stop(self, package: str, caller_pid: int | None = None) -> None: ...

    def recent_packages(self) -> list[str]: ...
    def remove_activity(self, package: str, activity: str) -> None: ...
    def log(
        self, level: str, tag: str, msg: str, pid: int = ..., tid: int | None = None, buffer: str = "system"
    ) -> None: ...

    def key(self, code: int, source: str = "input") -> None: ...

    def snapshot(self) -> dict[str, Any]: ...


class AppView(Protocol):
    """An app as the layout and the other apps see it: its persistent data and its launcher icon."""

    def data(self, model: Device) -> dict[str, Any]: ...

    def icon_style(self, theme: Any = None) -> dict[str, Any]: ...


class Screen(Protocol):
    """The window manager as a screen builder and the apps use it: the installed apps, focus and the keyboard,
    toasts, and where a dialog goes."""

    @property
    def apps(self) -> Mapping[str, AppView]: ...

    @property
    def state(self) -> WindowState: ...  # focus, keyboard, Overview, the shade, dialogs over the app

    def app_for(self, package: str) -> AppView: ...

    def set_focus(self, package: str | None, key: str | None, keyboard: bool = True) -> None: ...

    def hide_keyboard(self) -> None: ...

    def toast(self, text: str) -> None: ...

    def dialog_area(self) -> tuple[int, int, int, int]: ...
