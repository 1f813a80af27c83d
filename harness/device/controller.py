"""The `Device` protocol and `AdbDevice`, its implementation over adbutils + uiautomator2.

    with AdbDevice.connect() as dev:                          # starts the embedded virtual device (owned)
        obs = dev.observe()                                   # screenshot + hierarchy, concurrently
        res = dev.execute(Click(element=12), observation=obs, step=3)

    AdbDevice.connect("R58M123ABC")                           # a phone on the adb server (ANDROID_ADB_SERVER_PORT
    AdbDevice.connect("127.0.0.1:6520", adb_port=5037)        #   or 5037); TCP serials are `adb connect`ed
    AdbDevice.connect(start_virtual=False)                    # the only device on the adb server

Who owns what: `connect()` with no serial and `start_virtual=True` starts a private adb server and a virtual
device and `close()` stops both; otherwise nothing is started and `close()` only stops the uiautomator2 server
it launched. Device calls, timeouts and reconnects go through `harness.device.link.Link.guard`; capture paths are in
`harness.device.capture`, action semantics in `harness.device.actuate`, settling in `harness.device.settle`.

A device's waits (a WAIT action, settling's pauses) and the `device` seconds of each step pass on the device's own
time (`DeviceConfig.clock`, `harness.device.devicetime`): the host's for a real-clock device, the device's
simulated clock for an embedded device started with `clock="virtual"`.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol, get_args, runtime_checkable

from harness import actions as A
from harness.device import devicetime
from harness.device.actuate import SETTLING, Actuator
from harness.device.apps import may_change_packages, open_app_action
from harness.device.capture import (
    Chain,
    Part,
    TreeMemo,
    capture_screen,
    foreground_app,
    hierarchy_part,
    package_from_tree,
    screenshot_chain,
)
from harness.device.fastadb import ShellResult, U2RpcError
from harness.device.link import CapabilityError, DeviceLink, DeviceLostError, LinkConfig
from harness.device.provision import Connection, connect_serial, start_owned_virtual
from harness.device.settle import SettleConfig, SettleResult, wait_until_settled
from harness.errors import ConfigError, DeviceError
from harness.hierarchy import UITree
from harness.observation import ActionResult, DeviceInfo, Observation
from harness.shellquote import command

log = logging.getLogger(__name__)
ACTION_CLASSES: tuple[type, ...] = get_args(get_args(A.Action)[0])  # the classes of the Action union
__all__ = ["Device", "AdbDevice", "DeviceConfig", "DeviceError", "DeviceLostError", "CapabilityError"]


@runtime_checkable
class Device(Protocol):
    """What the runner needs from a device. Knows nothing of agents or tasks.

    `step(action)` executes one action, waits for the screen to settle and returns the settled screen as the
    next observation, captured once (the hierarchy of the settling poll is reused, never dumped again). The
    start-state operations put a device in a task's start state. `AdbDevice` implements it over adb (a phone,
    an emulator, the embedded virtual device); `harness.device.inprocess.InProcessDevice` on the virtual device's model
    in-process (tests of the run loop, milestones and report)."""

    @property
    def serial(self) -> str: ...

    @property
    def info(self) -> DeviceInfo: ...

    def observe(self) -> Observation: ...

    def step(
        self, action: A.Action, observation: Observation | None = None, step: int | None = None
    ) -> tuple[ActionResult, Observation]: ...

    def execute(
        self, action: A.Action, observation: Observation | None = None, step: int | None = None
    ) -> ActionResult: ...

    def launch(self, app: str) -> ActionResult: ...

    def press_home(self) -> ActionResult: ...

    def clear_app(self, package: str) -> None: ...

    def stop_app(self, package: str) -> None: ...

    def put_setting(self, namespace: str, key: str, value: str) -> None: ...

    def set_clipboard(self, text: str) -> None: ...

    def shell(self, argv: Sequence[str]) -> ShellResult: ...

    def close(self) -> None: ...


@dataclass(frozen=True)
class DeviceConfig:
    link: LinkConfig = field(default_factory=LinkConfig)
    settle: SettleConfig = field(default_factory=SettleConfig)
    type_chunk: int = 200  # characters of text per `input text` call
    capture_app: bool = True  # read the focused activity (dumpsys) concurrently with each observation
    # the consumer wants the screen's pixels, not the device's encoding (a Gymnasium env that records nothing):
    # screenshots come raw through a door that gives them (an emulator's gRPC door into shared memory) when the
    # device has one, and nothing is encoded; else as usual (the device's JPEG, kept for what is recorded)
    pixels: bool = False
    clock: str = "real"  # the device's clock: real (the host's time) or virtual (an embedded device's simulated time)


class AdbDevice:
    """A live Android device (phone, emulator or the embedded virtual device) behind an adb server."""

    def __init__(
        self,
        link: DeviceLink,
        config: DeviceConfig | None = None,
        cleanup: list[Callable[[], None]] | None = None,
        virtual: Any = None,
        device_time: devicetime.DeviceTime | None = None,
    ) -> None:
        self.link = link
        self._last_poll: Part | None = None  # the latest hierarchy poll (xml, tree): settling's last look
        self._trees = TreeMemo()  # the last dump parsed: an unchanged screen's is not parsed again
        self.config = config or DeviceConfig()
        self.virtual = virtual  # the VirtualDevice this object started, if any
        self._cleanup = cleanup or []
        self._closed = False
        self.screenshots: Chain = screenshot_chain((), self.config.pixels)  # the screenshot paths in this order
        # the device's time (its clock's, `config.clock`): what its waits take and its steps are measured on
        self.device_time = device_time or devicetime.device_time(self.config.clock, link, self.config.link.call_timeout)
        self._actuator = Actuator(
            link, self._poll_tree, self.settle, self.display_size, self.config.type_chunk, self.device_time.wait
        )
        self._connected = self._read_info()  # its capabilities come with `info`: the link may still open sessions
        self._info: DeviceInfo | None = None

    # --- connecting ---------------------------------------------------------------------------------------------
    @classmethod
    def connect(
        cls,
        serial: str | None = None,
        *,
        adb_host: str | None = None,
        adb_port: int | None = None,
        start_virtual: bool = True,
        config: DeviceConfig | None = None,
        use_u2: bool | None = None,
        virtual_profile: str = "medium_phone",
        virtual_locale: str = "en",
        virtual_latency: str = "instant",
        virtual_clock: str | None = None,
    ) -> AdbDevice:
        """Connect to `serial`; with no serial, start the embedded virtual device behind a private adb server
        (`start_virtual=True`, owned: `close()` stops both) or pick the only device on the adb server.
        `virtual_clock` (default `config.clock`): the started device's clock, `real` or `virtual` (simulated
        time: waits advance it); a device not started here keeps its own time (`virtual_clock="virtual"` for it is
        a `ConfigError`) and `config.clock` says which one it runs on (`virtual`: an embedded device started
        elsewhere with `--clock virtual`)."""
        config = config or DeviceConfig()
        if use_u2 is not None:
            config = replace(config, link=replace(config.link, use_u2=use_u2))
        if serial is None and start_virtual:
            config = replace(config, clock=virtual_clock or config.clock)
            conn = start_owned_virtual(config.link, virtual_profile, virtual_locale, virtual_latency, config.clock)
        elif virtual_clock not in (None, devicetime.HOST_CLOCK):
            raise ConfigError(
                f"device {serial or '(the only one on the adb server)'} keeps its own time: clock {virtual_clock!r} "
                "is for the embedded virtual device started here (connect without a serial)"
            )
        else:
            conn = connect_serial(serial, config.link, adb_host, adb_port)
        return cls.over(conn, config)

    @classmethod
    def over(cls, conn: Connection, config: DeviceConfig | None = None) -> AdbDevice:
        """The device on a started connection (`harness.device.provision`): closing it closes the connection;
        a device that cannot be read closes it at once."""
        try:
            return cls(conn.link, config, cleanup=conn.cleanup, virtual=conn.virtual)
        except BaseException:
            conn.close()
            raise

    def wait_open(self) -> AdbDevice:
        """Wait until the sessions its link opens in the background (`LinkConfig.open_in_background`: the kept
        shell, uiautomator2) are open, or found unusable: `info` then holds the device's capabilities. Raises what
        opening them raised."""
        _ = self.info
        return self

    # --- identity -----------------------------------------------------------------------------------------------
    @property
    def serial(self) -> str:
        return self.link.serial

    @property
    def info(self) -> DeviceInfo:
        """What the device said at connect, with the capabilities its link declared (the first time, once the
        sessions the link opens in the background are open)."""
        info = self._info
        if info is None:
            info = self._info = replace(self._connected, capabilities=self.capabilities)
        return info

    @property
    def capabilities(self) -> frozenset[str]:
        return self.link.capabilities

    def _read_info(self) -> DeviceInfo:
        sep = "==droidharness=="
        res = self.link.shell(
            "read device info",
            f"getprop; echo {sep}; wm size; echo {sep}; wm density; echo {sep}; dumpsys display | grep orientation=",
        )
        parts = res.text.split(sep) + ["", "", "", ""]
        props = getprop_values(parts[0])
        size = wm_value(parts[1], r"(\d+)x(\d+)")
        dens = wm_value(parts[2], r"(\d+)")
        m = re.search(r"orientation=(\d)", parts[3])
        rotation = int(m.group(1)) if m else 0
        w, h = (int(size[0]), int(size[1])) if size else (0, 0)
        if rotation % 2:
            w, h = h, w
        try:
            api = int(props.get("ro.build.version.sdk", "0"))
        except ValueError:
            api = 0
        return DeviceInfo(
            serial=self.serial,
            model=props.get("ro.product.model", ""),
            manufacturer=props.get("ro.product.manufacturer", ""),
            size=(w, h),
            density=int(dens[0]) if dens else 0,
            rotation=rotation,
            api_level=api,
            release=props.get("ro.build.version.release", ""),
            locale=props.get("persist.sys.locale") or props.get("ro.product.locale", ""),
            state=self.link.state() or "absent",
        )

    def display_size(self) -> tuple[int, int]:
        """(width, height) in the current rotation, asked from the device now."""
        if self.link.has("u2"):
            try:
                di = self.link.rpc("read display size", "deviceInfo")
                return int(di["displayWidth"]), int(di["displayHeight"])
            except DeviceLostError:
                raise
            except (DeviceError, KeyError, TypeError, ValueError):
                pass
        res = self.link.shell("read display size", "wm size; dumpsys display | grep orientation=")
        size = wm_value(res.text, r"(\d+)x(\d+)")
        if not size:
            raise DeviceError(f"device {self.serial}: cannot read the display size from `wm size`")
        m = re.search(r"orientation=(\d)", res.text)
        w, h = int(size[0]), int(size[1])
        return (h, w) if m and int(m.group(1)) % 2 else (w, h)

    # --- observe ------------------------------------------------------------------------------------------------
    def use_screenshot_paths(self, order: Sequence[str]) -> None:
        """Take screenshots by the paths named in `order` first (e.g. what `harness.device.capture_choice`
        measured fastest here), then the others in their usual order."""
        self.screenshots = screenshot_chain(order, self.config.pixels)

    def observe(self) -> Observation:
        self._check_open("observe")
        return capture_screen(
            self.link, with_app=self.config.capture_app, screenshots=self.screenshots, memo=self._trees
        )

    def _poll_tree(self) -> UITree:
        part = hierarchy_part(self.link, memo=self._trees)
        self._last_poll = part
        tree: UITree = part.value[1]
        return tree

    def settle(self) -> SettleResult:
        """Wait until the screen is stable (see `harness.device.settle`): uiautomator2's `waitForIdle` (the
        accessibility event stream went quiet: no hierarchy dump at all) when the device has it and the config
        says "idle", else poll the cheapest hierarchy path until two polls agree."""
        if self.config.settle.strategy == "idle" and self.link.has("u2"):
            t0 = time.perf_counter()
            try:
                self.link.rpc(
                    "settle: wait for idle",
                    "waitForIdle",
                    [int(self.config.settle.timeout * 1000)],
                    timeout=self.config.settle.timeout + self.config.link.call_timeout,
                )
                return SettleResult(True, time.perf_counter() - t0, 0, None)
            except U2RpcError as e:
                log.info("device %s: waitForIdle failed (%s); polling the hierarchy", self.serial, e)
        self._last_poll = None
        return wait_until_settled(self._poll_tree, self.config.settle, sleep=self.device_time.wait)

    # --- act ----------------------------------------------------------------------------------------------------
    def execute(
        self, action: A.Action | dict[str, Any] | str, observation: Observation | None = None, step: int | None = None
    ) -> ActionResult:
        """Run one action and wait for the screen to settle. `action` may be an Action or its dict / JSON form
        (validated by `parse_action`). Element indices refer to `observation.tree`; points are normalized to
        the current display."""
        return self._act(action, observation, step)[0]

    def step(
        self, action: A.Action, observation: Observation | None = None, step: int | None = None
    ) -> tuple[ActionResult, Observation]:
        """`execute`, then the settled screen as the next observation, captured once: when settling polled the
        hierarchy, its last (stable) tree is the observation's tree and only the screenshot is taken. The result's
        timings say how long the step took, from the action's start to the observation captured: `device`
        seconds on the device's time (its clock's, 0.01 s) and `wall` seconds on the host's."""
        d0, w0 = self.device_time.now(), time.perf_counter()
        result, settle, fallbacks = self._act(action, observation, step)
        poll = self._last_poll  # settling's last poll, when it is the settled tree itself
        stable = settle is not None and settle.settled and poll is not None and poll.value[1] is settle.tree
        reuse = poll if stable else None
        obs = capture_screen(
            self.link,
            self.config.capture_app,
            reuse,
            screenshots=self.screenshots,
            fallbacks=fallbacks,
            memo=self._trees,
        )
        # the end's read of a virtual clock is a call whose own delay passes on the device: not the step's
        wall, device = time.perf_counter() - w0, max(0.0, self.device_time.now() - d0 - self.device_time.read_cost())
        timings = {**result.timings, "device": round(device, 2), "wall": round(wall, 4)}
        return replace(result, timings=timings), obs

    def _act(
        self, action: A.Action | dict[str, Any] | str | bytes, observation: Observation | None, step: int | None
    ) -> tuple[ActionResult, SettleResult | None, list[str]]:
        self._check_open("execute")
        if isinstance(action, (dict, str, bytes)):  # the JSON form: validated here
            action = A.parse_action(action)
        t0 = time.perf_counter()
        try:
            out = self._actuator.run(action, observation, step)
        except DeviceError as e:
            where = f"step {step}: " if step is not None else ""
            raise type(e)(f"{where}{action.type}: {e}") from e
        t_act = time.perf_counter() - t0
        settle: SettleResult | None = None
        if isinstance(action, SETTLING):
            settle = self.settle()
        if isinstance(action, A.OpenApp) and out.ok and not out.package:  # opened by label: which app came up?
            tree = settle.tree if settle is not None else None
            out.package = _foreground(tree) if tree is not None else foreground_app(self.link)[0] or None
        timings = {"actuation": t_act, "settle": settle.seconds if settle else 0.0}
        return (
            ActionResult(
                action=action,
                ok=out.ok,
                pixels=tuple(out.pixels),
                path=out.path,
                typed_text=out.typed_text,
                readback=out.readback,
                readback_matches=out.readback_matches,
                package=out.package,
                timings=timings,
                settled=settle.settled if settle else True,
                settle_polls=settle.polls if settle else 0,
                error=out.error,
            ),
            settle,
            out.fallbacks,
        )

    def launch(self, app: str) -> ActionResult:
        """Open an app by package name or launcher label."""
        return self.execute(open_app_action(app))

    # --- start state (used by the runner to reset a device between episodes) ------------------------------------
    def press_home(self) -> ActionResult:
        return self.execute(A.Home())

    def clear_app(self, package: str) -> None:
        """`pm clear PACKAGE`: fresh app data (the app is stopped too)."""
        r = self.link.quick_shell(f"clear app {package}", command("pm", "clear", package))
        out = (r.stdout + r.stderr).decode(errors="replace").strip()
        if "Success" not in out:
            raise DeviceError(f"device {self.serial}: pm clear {package} failed: {out or 'no output'}")

    def put_setting(self, namespace: str, key: str, value: str) -> None:
        """`settings put NAMESPACE KEY VALUE` (system, secure or global)."""
        r = self.link.quick_shell(f"settings put {namespace} {key}", command("settings", "put", namespace, key, value))
        if r.exit_code != 0:
            raise DeviceError(
                f"device {self.serial}: settings put {namespace} {key} failed: "
                f"{(r.stdout + r.stderr).decode(errors='replace').strip()}"
            )

    def stop_app(self, package: str) -> None:
        self.link.quick_shell(f"stop app {package}", command("am", "force-stop", package))

    def set_clipboard(self, text: str) -> None:
        """Set the device clipboard (through uiautomator2; phones have no shell command for it)."""
        try:
            self.link.rpc("set clipboard", "setClipboard", [None, text])
        except CapabilityError as e:
            raise DeviceError(f"device {self.serial}: cannot set the clipboard without uiautomator2: {e}") from e

    def shell(self, argv: Sequence[str]) -> ShellResult:
        """Run one command on the device's shell, every argument quoted (`harness.shellquote.command`): its exit
        status (0 without shell v2), stdout and stderr. What reads device state uses it (`harness.device.state`)."""
        return self._run_argv(argv, self.link.shell)

    def quick_shell(self, argv: Sequence[str]) -> ShellResult:
        """`shell` for a short command whose output is read merged, if at all (`Link.quick_shell`: on the kept shell,
        no new stream): stdout and stderr together in `stdout`."""
        return self._run_argv(argv, self.link.quick_shell)

    def _run_argv(self, argv: Sequence[str], run: Callable[[str, str], ShellResult]) -> ShellResult:
        self._check_open(f"shell {argv[0] if argv else ''}")
        if may_change_packages(argv):
            self._actuator.forget_packages()
        return run(f"shell {' '.join(argv[:2])}", command(*argv))

    # --- lifecycle ----------------------------------------------------------------------------------------------
    def _check_open(self, op: str) -> None:
        if self._closed:
            raise DeviceError(f"device {self.serial}: {op}: the device was closed")

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self.link.close()
        for fn in reversed(self._cleanup):
            try:
                fn()
            except Exception as e:  # noqa: BLE001 - best effort teardown
                log.debug("device %s: cleanup: %s", self.serial, e)

    def __enter__(self) -> AdbDevice:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"AdbDevice({self.serial}, {sorted(self.capabilities)})"


def getprop_values(text: str) -> dict[str, str]:
    """`getprop`'s listing (`[key]: [value]` lines) as a dict."""
    return dict(re.findall(r"^\[([^\]]+)\]: \[(.*)\]$", text, flags=re.M))


def wm_value(text: str, pattern: str) -> tuple[str, ...] | None:
    """`wm size` / `wm density`: an `Override` line wins over the `Physical` one."""
    found: dict[str, tuple[str, ...]] = {}
    for line in text.splitlines():
        m = re.search(pattern, line)
        if m:
            found["override" if "Override" in line else "physical"] = m.groups()
    return found.get("override") or found.get("physical")


def _foreground(tree: UITree) -> str:
    return package_from_tree(tree)
