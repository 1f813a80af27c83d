"""The state of one virtual Android device: what every service (shell, sync, uiautomator2) reads and changes.

Thread-safety: every public method takes `self.lock` (re-entrant). Transport threads, shell commands and the
uiautomator2 server all go through these methods; none of them touches app state directly.

UI: apps build a `View` tree per frame (`emulator.virtual.ui`); `view_roots()` returns the windows on screen
(status bar, app, keyboard, navigation bar, dialogs), from which both `hierarchy_xml()` and `screenshot()` come,
built once per device state: `self.lock` (`statelock.StateLock`) counts the changes; a door that changes state
without it calls `changed()`.
"""

from __future__ import annotations

import copy
import functools
import importlib.util
import math
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .adbd import Adbd
from .appstorage import clear_app_dir
from .buildprops import build_props
from .buildprops import emulator_image as image_profile
from .clock import BOOTED_BEFORE, DeviceClock, make_clock
from .display import DENSITY_DEFAULT, forced_density, forced_size
from .events import EventLog
from .faults import Faults
from .fs import FileSystem
from .hardware import Hardware
from .latency import Latency
from .lognoise import SystemChatter
from .notifications import Notifications
from .procs import SYSTEM_SERVER_PID, DeviceProcs, FrameStats, LogBuffer, app_uid
from .profiles import DEFAULT_PROFILE, Profile, get_profile
from .providers.databases import attach_databases
from .records import (  # noqa: F401 - ADB_KEYBOARD_IME, LAUNCHER_ACTIVITY re-exported
    ADB_KEYBOARD_IME,
    INTENT_ACTION,
    LATIN_IME,
    LAUNCHER_ACTIVITY,
    LAUNCHER_PACKAGE,
    ActivityRecord,
    Package,
    TaskRecord,
    short_component,
)
from .statelock import StateLock

if TYPE_CHECKING:  # pragma: no cover
    from PIL.Image import Image

    from .ui.view import View


def _default_settings() -> dict[str, dict[str, str]]:
    return {
        "system": {
            "screen_brightness": "102",
            "screen_brightness_mode": "1",
            "screen_off_timeout": "60000",
            "pointer_location": "0",
            "show_touches": "0",
            "font_scale": "1.0",
        },
        "secure": {
            "default_input_method": LATIN_IME,
            "enabled_input_methods": LATIN_IME,
            "android_id": "a1b2c3d4e5f60718",
            "ui_night_mode": "1",
            "sms_default_application": "com.google.android.apps.messaging",  # the SMS role's holder
        },
        "global": {
            "airplane_mode_on": "0",
            "wifi_on": "1",
            "bluetooth_on": "0",
            "adb_enabled": "1",
            "device_name": "",
            "stay_on_while_plugged_in": "0",
            "window_animation_scale": "1.0",
            "transition_animation_scale": "1.0",
            "animator_duration_scale": "1.0",
            "auto_time": "1",
            "auto_time_zone": "1",
            "heads_up_notifications_enabled": "1",
        },
    }


@functools.cache  # finite: one file a process. Read once: a zygote's devices share its 3.7 MB (docs/caches.md)
def u2_jar() -> bytes | None:
    """uiautomator2's own u2.jar, or None where uiautomator2 is not installed."""
    try:  # found, not imported: importing uiautomator2 (adbutils, requests, ...) costs a device ~0.25 s of CPU
        spec = importlib.util.find_spec("uiautomator2")
        if spec is None or spec.origin is None:
            return None
        return (Path(spec.origin).parent / "assets" / "u2.jar").read_bytes()
    except (ImportError, ValueError, OSError):
        return None


class VirtualDeviceModel:
    """All device state. Created by `VirtualDevice`; services receive it."""

    def __init__(
        self,
        profile: str | Profile = DEFAULT_PROFILE,
        locale: str = "en",
        latency: str = "instant",
        serial: str = "VIRTUAL0001",
        emulator_image: bool = False,
        avd_name: str | None = None,
        clock: str | DeviceClock = "real",
    ) -> None:
        if locale not in ("en", "zh"):
            raise ValueError(f"unknown locale {locale!r}; choose en or zh")
        self.lock = StateLock()  # a re-entrant lock that counts changes: views built once per state
        self.clock: DeviceClock = make_clock(clock) if isinstance(clock, str) else clock
        self.latency = Latency(latency, clock=self.clock)
        self.profile = profile if isinstance(profile, Profile) else get_profile(profile)
        if emulator_image:  # the emulator's userdebug system image on the profile's screen
            self.profile = image_profile(self.profile)
        self.emulator_image = emulator_image
        self.locale = locale  # the system (UI) language
        self.content_locale = locale  # the language the apps' seed content is in: the one the device was set up in
        self.serial = serial
        self.rotation = 0  # 0..3, quarter turns counter-clockwise as Surface.ROTATION_*
        self.screen_on = True
        self.events = EventLog()
        self._clock_offset = 0.0  # the device's wall clock as the host's until the log exists (`clock_offset`)
        self.fs = FileSystem(lambda: self.now())  # files stamped with the device's wall clock (`date`, `cmd alarm`)
        attach_databases(self)  # the providers' SQLite files, one truth with their data
        self.faults = Faults(self.events, self.latency)
        self.clipboard: str | None = None
        self.settings = _default_settings()
        self.enabled_imes: list[str] = [LATIN_IME]
        self.packages: dict[str, Package] = {}
        self.tasks: list[TaskRecord] = []  # last = foreground
        self.app_data: dict[str, dict[str, Any]] = {}  # persistent per-package state (pm clear resets)
        self.app_ui: dict[str, dict[str, Any]] = {}  # per-process UI state (force-stop resets)
        self.ports: dict[int, Callable[[Any], None]] = {}  # device TCP port -> stream handler (tcp:PORT)
        self.reverse_forwards: dict[str, tuple[Any, str]] = {}  # adb reverse: local spec -> (connection, remote)
        self.u2_running = False  # the uiautomator2 server process runs (set by u2server; `ps` lists it)
        self.u2_pid: int | None = None
        self.u2_cmdline = ""  # its command line (set by the app_process command)
        self.boot_time = self.clock.time()
        self.procs: DeviceProcs = DeviceProcs(clock=self.clock)  # pids of apps and daemons (ps, pidof, /proc)
        chatter = SystemChatter(self.boot_time, seed=zlib.crc32(self.serial.encode()))
        self.logbuf = LogBuffer(chatter, self.clock)  # logcat
        self.clock_offset = 0.0  # seconds the device's wall clock is ahead of the host's (`cmd alarm set-time`)
        self.props = self._build_props(avd_name)
        self.adbd = Adbd()  # adbd's uid (`adb root` / `adb unroot`) and its restarts
        self.hw = Hardware()  # battery, location, calls, network: what the emulator console changes
        self.notifications = Notifications()  # what apps and the shell posted (the shade, dumpsys notification)
        self._preload_u2_jar()
        # The UI layer: apps, layout, rendering, input dispatch.
        from .ui.manager import UIManager

        self.ui = UIManager(self)
        self.ui.install_builtin_apps()
        self.go_home()
        self._boot_log()
        self.events.clear()

    def _boot_log(self) -> None:
        """What the log holds after boot about the home screen: system ready, the launcher's start."""
        comp = short_component(LAUNCHER_PACKAGE, LAUNCHER_ACTIVITY)
        pid, _ = self.procs.start_app(LAUNCHER_PACKAGE)
        self.log("I", "ActivityManager", "System now ready")
        self.log(
            "I",
            "ActivityTaskManager",
            "START u0 {act=android.intent.action.MAIN "
            f"cat=[android.intent.category.HOME] flg=0x10000100 cmp={comp}}} from uid 0",
        )
        self.log(
            "I",
            "ActivityManager",
            f"Start proc {pid}:{LAUNCHER_PACKAGE}/{self._proc_user(LAUNCHER_PACKAGE)} for top-activity {{{comp}}}",
        )
        self.log("I", "ActivityTaskManager", f"Displayed {comp} for user 0: +1s204ms")

    # --- identity -------------------------------------------------------------------------------
    def _build_props(self, avd_name: str | None) -> dict[str, str]:
        return build_props(self.profile, self.serial, self.locale_tag, self.emulator_image, avd_name)

    def _preload_u2_jar(self) -> None:
        """Put uiautomator2's own u2.jar where it pushes it, so `u2.connect` finds the hash and skips the push
        (as on a phone that was used with uiautomator2 before)."""
        jar = u2_jar()
        if jar is not None:
            self.fs.write("/data/local/tmp/u2.jar", jar, mode=0o644, parents=True)

    @property
    def locale_tag(self) -> str:
        return "zh-CN" if self.locale == "zh" else "en-US"

    def set_locale(self, locale: str, content: str | None = None) -> None:
        """The system language `locale`. `content`: the language the apps' seed content comes in (a device set up
        in that language; default `locale`, as picking a zh AVD gives a Chinese user's phone). A system language
        switched over content set up in another language is what a user who changes the phone's language has:
        the UI speaks the new one, the contacts and notes they had stay as they were."""
        content = locale if content is None else content
        for lang in (locale, content):
            if lang not in ("en", "zh"):
                raise ValueError(f"unknown locale {lang!r}; choose en or zh")
        with self.lock:
            self.locale = locale
            self.content_locale = content
            self.props["persist.sys.locale"] = self.locale_tag
            self.events.log("locale", locale=locale, content=content)

    # --- clock ----------------------------------------------------------------------------------
    @property
    def clock_offset(self) -> float:
        """Seconds the device's wall clock is ahead of the host's: set by `cmd alarm set-time` and root's `date`,
        0 again with automatic time. The log stamps its lines with the device's clock."""
        return self._clock_offset

    @clock_offset.setter
    def clock_offset(self, value: float) -> None:
        self._clock_offset = value
        self.logbuf.offset = value

    @property
    def clock_set(self) -> bool:
        """The clock was set by hand (the status bar then shows it, not the fixed reproducible time)."""
        return self._clock_offset != 0.0

    def now(self) -> float:
        """The device's wall clock (seconds since the epoch): the host's, moved by `cmd alarm set-time`."""
        self.lock.time_reads += 1  # views that show it are kept for this time only (statelock)
        return self.clock.time() + self.clock_offset

    def uptime(self) -> float:
        """Seconds since the device booted, as /proc/uptime and SystemClock.elapsedRealtime count them (the device
        booted an hour before it was made)."""
        self.lock.time_reads += 1
        return max(0.0, self.clock.time() - self.boot_time) + BOOTED_BEFORE

    @property
    def time_zone(self) -> str:
        """The device's time zone (an Olson id), as Android keeps it in `persist.sys.timezone`."""
        return self.props.get("persist.sys.timezone") or "GMT"

    # --- display --------------------------------------------------------------------------------
    @property
    def physical_size(self) -> tuple[int, int]:
        """The panel's pixels in the natural orientation (`wm size`'s Physical size)."""
        return self.profile.width, self.profile.height

    @property
    def base_size(self) -> tuple[int, int]:
        """The logical size in the natural orientation: `wm size`'s override, else the physical size."""
        physical = self.physical_size
        return forced_size(self.settings, physical) or physical

    @property
    def display_size(self) -> tuple[int, int]:
        """(width, height) of the logical display in the current rotation: what apps lay out in, what
        screenshots and bounds use."""
        w, h = self.base_size
        return (h, w) if self.rotation % 2 else (w, h)

    @property
    def density(self) -> int:
        """The logical density in dpi: `wm density`'s override, else the panel's (`wm density`'s Physical)."""
        return forced_density(self.settings, self.profile.density) or self.profile.density

    @property
    def scale(self) -> float:
        """Pixels per dp at the logical density (DisplayMetrics.density)."""
        return self.density / DENSITY_DEFAULT

    def set_rotation(self, rotation: int) -> None:
        if rotation not in (0, 1, 2, 3):
            raise ValueError(f"rotation must be 0..3, got {rotation}")
        with self.lock:
            self.rotation = rotation
            self.events.log("rotation", rotation=rotation)

    # --- processes and the log ------------------------------------------------------------------
    def alloc_pid(self) -> int:
        return self.procs.alloc()

    def log(
        self,
        level: str,
        tag: str,
        msg: str,
        pid: int = SYSTEM_SERVER_PID,
        tid: int | None = None,
        buffer: str = "system",
    ) -> None:
        """Append a line to the device log (system_server's `system` buffer unless told)."""
        if tid is None and pid == SYSTEM_SERVER_PID:
            tid = pid + 23 + sum(map(ord, tag)) % 150  # a stable binder/handler thread per tag
        self.logbuf.write(level, tag, msg, pid=pid, tid=tid, buffer=buffer)

    def draw_frames(self, kind: str, duration_ms: float = 0.0) -> None:
        """Account the frames the foreground app renders for an interaction (what `dumpsys gfxinfo` reports):
        a launch draws ~30 frames with a slow first one, a tap's ripple ~12, a swipe one per vsync while the
        finger moves plus the fling, a key or typed text a few. Durations are deterministic per process."""
        with self.lock:
            if not self.tasks:
                return
            pkg = self.tasks[-1].package
            if pkg not in self.packages:
                return
            stats = self.procs.frames.setdefault(pkg, FrameStats(self.clock))
            n = {"launch": 30, "tap": 12, "key": 4, "text": 3}.get(kind, 0)
            if kind == "swipe":
                n = max(2, int(duration_ms / 16.67)) + 24
            durations = []
            for k in range(n):
                h = zlib.crc32(f"{pkg}:{stats.total + k}".encode())
                d = 4.0 + (h % 600) / 100.0  # 4..10 ms: the usual frame
                if h % 41 == 0:
                    d = 17.0 + (h % 900) / 100.0  # now and then one misses the vsync
                durations.append(d)
            if kind == "launch" and durations:
                durations[0], durations[1] = 46.0 + (stats.total % 7), 21.0  # first draw inflates the views
            with self.procs.lock:  # dumpsys gfxinfo reads under this lock
                stats.add(durations)

    def _proc_user(self, package: str) -> str:
        """How ActivityManager names a process's uid: `u0a123` for apps, `1000` for system packages."""
        pkg = self.packages.get(package)
        return (
            "1000"
            if pkg is not None and pkg.system and package.startswith("com.android.")
            else f"u0a{app_uid(package) - 10000}"
        )

    def _kill_process(self, package: str, reason: str) -> None:
        pid = self.procs.kill_app(package)
        if pid is not None:
            self.log("I", "ActivityManager", f"Killing {pid}:{package}/{self._proc_user(package)} (adj 0): {reason}")

    # --- packages and activities ----------------------------------------------------------------
    def install_package(self, pkg: Package) -> None:
        with self.lock:
            self.packages[pkg.name] = pkg
            self.app_data.setdefault(pkg.name, {})
            data = f"/data/data/{pkg.name}"  # the app's data directory as installd makes it: the app's, 0700
            if not self.fs.is_dir(data):
                uid = app_uid(pkg.name)
                for d, mode in ((data, 0o700), (f"{data}/cache", 0o2771), (f"{data}/code_cache", 0o2771)):
                    self.fs.mkdir(d, parents=True, owner=(uid, uid))
                    self.fs.chmod(d, mode)
            self.events.log("package", action="install", package=pkg.name)

    def uninstall_package(self, name: str) -> bool:
        with self.lock:
            pkg = self.packages.get(name)
            if pkg is None or pkg.system:
                return False
            del self.packages[name]
            self._kill_process(name, "uninstall pkg")
            self.app_data.pop(name, None)
            self.app_ui.pop(name, None)
            self.notifications.cancel_package(name)
            self.tasks = [t for t in self.tasks if t.package != name]
            if pkg.ime_service:
                self.enabled_imes = [i for i in self.enabled_imes if i != pkg.ime_service]
                if self.settings["secure"]["default_input_method"] == pkg.ime_service:
                    self.settings["secure"]["default_input_method"] = LATIN_IME
            self._ensure_foreground()
            self.events.log("package", action="uninstall", package=name)
            return True

    @property
    def foreground(self) -> ActivityRecord:
        with self.lock:
            return self.tasks[-1].top

    def start_activity(
        self, package: str, activity: str | None = None, extras: dict[str, Any] | None = None, new_task: bool = False
    ) -> ActivityRecord:
        """Bring `package` to the front (pushing `activity` if given). Raises KeyError if unknown."""
        with self.lock:
            pkg = self.packages.get(package)
            if pkg is None:
                raise KeyError(f"unknown package {package}")
            full = pkg.resolve_activity(activity)
            if full is None:
                raise KeyError(f"activity {activity or '(launcher)'} not found in {package}")
            task = next((t for t in self.tasks if t.package == package), None)
            if task is None or new_task:
                task = TaskRecord(package)
            else:
                self.tasks.remove(task)
            self.tasks.append(task)
            pushed = not task.stack or (activity and task.top.activity != full)
            if pushed:
                task.stack.append(ActivityRecord(package, full, dict(extras or {})))
            elif activity and extras and extras.get(INTENT_ACTION):
                task.top.extras = dict(extras)  # onNewIntent: the activity on top gets the new intent
            comp = short_component(package, task.top.activity)
            self.log(
                "I",
                "ActivityTaskManager",
                f"START u0 {{flg=0x10000000 cmp={comp}}} with LAUNCH_MULTIPLE "
                "from uid 2000 (BAL_ALLOWED_PERMISSION) result code=0",
            )
            pid, started = self.procs.start_app(package)
            if started:
                self.log(
                    "I",
                    "ActivityManager",
                    f"Start proc {pid}:{package}/{self._proc_user(package)} for next-top-activity {{{comp}}}",
                )
                self.log("I", "ActivityThread", "Init compatibility callbacks", pid=pid, buffer="main")
            if pushed or started:
                self.log("I", "ActivityTaskManager", f"Displayed {comp} for user 0: +{312 if started else 148}ms")
                self.draw_frames("launch")
            self.app_ui.setdefault(package, {})
            self.ui.on_foreground_changed()
            self.events.log("activity", action="start", package=package, activity=full)
            return task.top

    def push_activity(self, activity: str, extras: dict[str, Any] | None = None) -> ActivityRecord:
        """Open `activity` of the foreground app on top of its back stack (in-app navigation)."""
        with self.lock:
            task = self.tasks[-1]
            pkg = self.packages[task.package]
            full = pkg.resolve_activity(activity) or activity
            rec = ActivityRecord(task.package, full, dict(extras or {}))
            task.stack.append(rec)
            self.ui.on_foreground_changed()
            self.events.log("activity", action="push", package=task.package, activity=full)
            return rec

    def finish_activity(self) -> None:
        """BACK out of the top activity; an empty task leaves the launcher (or the app below) in front."""
        with self.lock:
            task = self.tasks[-1]
            if task.package == LAUNCHER_PACKAGE and len(task.stack) == 1:
                return
            done = task.stack.pop()
            if not task.stack:
                self.tasks.pop()
            self._ensure_foreground()
            self.ui.on_foreground_changed()
            self.events.log("activity", action="finish", package=done.package, activity=done.activity)

    def remove_activity(self, package: str, activity: str) -> None:
        """Finish every `activity` of `package` wherever it is (the in-call screen when the last call ends);
        what was in front of it comes back."""
        with self.lock:
            top = self.tasks[-1].top if self.tasks else None
            for t in self.tasks:
                t.stack = [a for a in t.stack if not (a.package == package and a.activity == activity)]
            self.tasks = [t for t in self.tasks if t.stack]
            self._ensure_foreground()
            if self.tasks[-1].top is not top:
                self.ui.on_foreground_changed()
                self.events.log("activity", action="finish", package=package, activity=activity)

    def go_home(self) -> None:
        with self.lock:
            launcher = next((t for t in self.tasks if t.package == LAUNCHER_PACKAGE), None)
            if launcher is None:
                launcher = TaskRecord(LAUNCHER_PACKAGE, [ActivityRecord(LAUNCHER_PACKAGE, LAUNCHER_ACTIVITY)])
            else:
                self.tasks.remove(launcher)
                del launcher.stack[1:]
            self.tasks.append(launcher)
            self.ui.on_foreground_changed()
            self.events.log("activity", action="home", package=LAUNCHER_PACKAGE, activity=LAUNCHER_ACTIVITY)

    def force_stop(self, package: str, caller_pid: int | None = None) -> None:
        with self.lock:
            if package in self.packages:
                src = f"from pid {caller_pid}" if caller_pid else "from pid " + str(SYSTEM_SERVER_PID)
                self.log("I", "ActivityManager", f"Force stopping {package} appid={app_uid(package)} user=0: {src}")
                self._kill_process(package, f"stop {package} due to {src}")
            self.tasks = [t for t in self.tasks if t.package != package]
            self.app_ui.pop(package, None)
            self._ensure_foreground()
            self.ui.on_foreground_changed()
            self.events.log("activity", action="force-stop", package=package)

    def clear_data(self, package: str) -> bool:
        with self.lock:
            if package not in self.packages:
                return False
            self.force_stop(package)
            self.app_data[package] = {}
            clear_app_dir(self.fs, package)
            self.notifications.cancel_package(package)
            self.ui.on_data_cleared(package)
            self.events.log("package", action="clear", package=package)
            return True

    def recent_packages(self) -> list[str]:
        """Packages with a task, most recent first, launcher excluded (the Overview screen's cards)."""
        with self.lock:
            return [t.package for t in reversed(self.tasks) if t.package != LAUNCHER_PACKAGE]

    def _ensure_foreground(self) -> None:
        if not self.tasks or all(not t.stack for t in self.tasks):
            self.tasks = []
            self.go_home()

    # --- input (dispatched to the UI layer) -----------------------------------------------------
    def tap(self, x: float, y: float, source: str = "input") -> None:
        with self.lock:
            self.events.log("tap", x=x, y=y, source=source)
            self.ui.tap(x, y)
            self.draw_frames("tap")

    def long_press(self, x: float, y: float, duration_ms: int = 600, source: str = "input") -> None:
        with self.lock:
            self.events.log("long_press", x=x, y=y, duration_ms=duration_ms, source=source)
            self.ui.long_press(x, y, duration_ms)
            self.draw_frames("tap")

    def swipe(self, x1: float, y1: float, x2: float, y2: float, duration_ms: int = 300, source: str = "input") -> None:
        with self.lock:
            self.events.log("swipe", x1=x1, y1=y1, x2=x2, y2=y2, duration_ms=duration_ms, source=source)
            from .ui.gestures import LONG_PRESS_TIMEOUT_MS, touch_slop

            if math.hypot(x2 - x1, y2 - y1) <= touch_slop(self.scale):
                # a swipe that stays within the touch slop is a press: short = tap, held = long press
                if duration_ms >= LONG_PRESS_TIMEOUT_MS:
                    self.ui.long_press(x1, y1, duration_ms)
                else:
                    self.ui.tap(x1, y1)
                return
            self.ui.swipe(x1, y1, x2, y2, duration_ms)
            self.draw_frames("swipe", duration_ms)

    def key(self, code: int, source: str = "input") -> None:
        """A key event by Android keycode (see `keycodes.KEYCODES`)."""
        with self.lock:
            self.events.log("key", code=code, source=source)
            self.draw_frames("key")
            if code == 3:  # HOME
                intercept = getattr(self.ui, "intercept_home", None)  # an app may model HOME in-app
                if intercept is not None and intercept():
                    return
                self.ui.dismiss_transient()
                self.go_home()
            elif code == 187:  # APP_SWITCH
                self.ui.show_recents()
            elif code == 26:  # POWER
                self.screen_on = not self.screen_on
            elif code == 224:  # WAKEUP
                self.screen_on = True
            elif code == 223:  # SLEEP
                self.screen_on = False
            elif not self.ui.key(code) and code == 4:  # BACK not consumed by the app
                self.finish_activity()

    def commit_text(self, text: str, source: str = "input") -> bool:
        """Type `text` into the focused field. Returns False when no editable field has focus."""
        with self.lock:
            self.events.log("text", text=text, source=source)
            done = self.ui.commit_text(text)
            self.draw_frames("text")
            return done

    def focused_text(self) -> str | None:
        with self.lock:
            return self.ui.focused_text()

    def set_focused_text(self, text: str) -> bool:
        with self.lock:
            return self.ui.set_focused_text(text)

    def hide_keyboard(self) -> None:
        """Hide the soft keyboard, focus kept (an IME's requestHideSelf; the AdbKeyboard HIDE broadcast)."""
        with self.lock:
            self.events.log("ime", action="hide")
            hide = getattr(self.ui, "hide_keyboard", None)
            if hide is not None:
                hide()

    # --- what is on screen ----------------------------------------------------------------------
    def view_roots(self) -> list[View]:
        """The windows on screen, built once per device state (`statelock`): callers must not change them."""
        with self.lock.reading():
            return self.ui.views()[0]

    def changed(self) -> None:
        """Something changed the device's state without holding its lock (a shell line, a uiautomator2 call): the
        views built before are not reused."""
        self.lock.changed()

    def hierarchy_xml(self, u2: bool = False, max_depth: int = 50, system_bars: bool = True) -> str:
        """uiautomator XML of the windows on screen. The device's own dump paths (`uiautomator dump`, the
        uiautomator2 server) pass `system_bars=False`: like a device's compressed dump they give the app window
        and the IME, not the status and navigation bars. In-process callers get every window by default."""
        from .ui.systembars import SYSTEM_BAR_ROOT_IDS
        from .ui.view import to_xml

        with self.lock.reading():
            roots, rotation = self.view_roots(), self.rotation
        if not system_bars:
            roots = [r for r in roots if r.resource_id not in SYSTEM_BAR_ROOT_IDS]
        return to_xml(roots, rotation, u2=u2, max_depth=max_depth)  # written without the lock, as a frame is drawn

    def screenshot(self) -> Image:
        """RGB PIL image of the current display (rotated size), rendered from the same tree as the XML. The
        image may be shared with later calls showing the same frame: convert or copy it before drawing on it."""
        with self.lock.reading():
            frame = self.ui.frame()
        return self.ui.render(frame)  # drawn without the lock: a hierarchy dump need not wait for the pixels

    def screenshot_jpeg(self, scale: float = 1.0, quality: int = 80) -> bytes:
        """The current display as a JPEG (resized by `scale` when 0 < scale < 1), as uiautomator2 sends it."""
        with self.lock.reading():
            frame = self.ui.frame()
        return self.ui.render_jpeg(frame, scale, quality)  # drawn and encoded without the lock

    # --- input methods --------------------------------------------------------------------------
    @property
    def current_ime(self) -> str:
        return self.settings["secure"]["default_input_method"]

    def available_imes(self) -> list[str]:
        with self.lock:
            out = [LATIN_IME]
            out += [p.ime_service for p in self.packages.values() if p.ime_service and p.ime_service != LATIN_IME]
            return out

    # --- snapshots (emulator console `avd snapshot`) ----------------------------------------------
    def snapshot(self) -> dict[str, Any]:
        with self.lock:
            return {
                "fs": self.fs.snapshot(),
                "state": copy.deepcopy(
                    {
                        "rotation": self.rotation,
                        "locale": self.locale,
                        "content_locale": self.content_locale,
                        "clipboard": self.clipboard,
                        "settings": self.settings,
                        "enabled_imes": self.enabled_imes,
                        "packages": self.packages,
                        "tasks": self.tasks,
                        "app_data": self.app_data,
                        "app_ui": self.app_ui,
                        "screen_on": self.screen_on,
                        "hw": self.hw,  # battery, GPS fix, calls, network: a few small records
                        "notifications": self.notifications,
                    }
                ),
                "adbd_root": self.adbd.root,
                "ui": self.ui.snapshot(),
            }

    def restore(self, snap: dict[str, Any]) -> None:
        with self.lock:
            self.fs.restore(snap["fs"])
            st = copy.deepcopy(snap["state"])
            st.setdefault("notifications", Notifications())  # a snapshot from before notifications: none posted
            st.setdefault("content_locale", st.get("locale", self.locale))  # from before the two were told apart
            for k, v in st.items():
                setattr(self, k, v)
            self.props["persist.sys.locale"] = self.locale_tag
            if "adbd_root" in snap:  # adbd comes back as it was: shells opened after this run as its uid
                self.adbd.root = bool(snap["adbd_root"])
                self.props["service.adb.root"] = "1" if self.adbd.root else "0"
            self.ui.restore(snap["ui"])
            self.ui.on_foreground_changed()
            self.events.log("snapshot", action="restore")
