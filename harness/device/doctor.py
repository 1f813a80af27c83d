"""The checks behind `droidharness doctor`, as data: each check is a `Check` record (name, ok / warn / fail, what
was found, what to do). This module owns what is checked and how each finding is judged; it prints nothing
(the command, `harness/cli/doctor.py`, renders the rows). What each check means: docs/doctor.md.

- the machine: the adb binary the harness runs (the adbutils wheel's) and its version; the Android SDK, the
  emulator binary and hardware acceleration (/dev/kvm, `emulator -accel-check`), all optional;
- an adb server: reachable, its protocol version, the devices it lists and their states (each non-`device`
  state with its fix);
- a device in the `device` state: uiautomator2 reachable (launched with uiautomator2's own launcher when it does
  not answer, as a run does) and answering JSON-RPC, non-ASCII text input (the clipboard path the harness types
  CJK through), screen size and density, Android version and API level, locale;
- the embedded virtual device behind a private adb server (never the user's server on 5037).

A run would work when no check failed (`failed`). Warnings are things a run does without (the SDK, KVM).
"""

from __future__ import annotations

import logging
import os
import re
import subprocess
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any, Literal

import adbutils

from harness.device.controller import getprop_values, wm_value
from harness.device.fastadb import U2Rpc, U2RpcError, U2Unreachable
from harness.device.link import Link, LinkConfig
from harness.device.provision import adb_server_running, open_link, start_embedded
from harness.errors import ConfigError, HarnessError

log = logging.getLogger(__name__)
Status = Literal["ok", "warn", "fail"]
KVM_DEVICE = Path("/dev/kvm")
IME_PROBE = "你好 doctor ✓"  # what the text-input check round-trips through the device clipboard
_SEP = "==droidharness-doctor=="


@dataclass(frozen=True)
class Check:
    """One row of the doctor's table: what was checked, its status, what was found and what to do about it."""

    name: str
    status: Status
    detail: str
    fix: str = ""


def failed(checks: Iterable[Check]) -> bool:
    """True when a run would not work: some check failed (warnings do not count)."""
    return any(c.status == "fail" for c in checks)


# --- the adb binary ----------------------------------------------------------------------------------------------
def adb_binary_check() -> Check:
    """The adb binary the harness starts its private servers with (the adbutils wheel's) and its version."""
    from emulator.virtual.adbserver import AdbServerError, adb_binary

    try:
        path = adb_binary()
    except AdbServerError as e:
        return Check("adb", "fail", str(e), "reinstall adbutils (`pip install --force-reinstall adbutils`)")
    try:
        done = subprocess.run([path, "version"], capture_output=True, text=True, timeout=15)
    except (OSError, subprocess.TimeoutExpired) as e:
        return Check("adb", "fail", f"{path} does not run: {e}", "reinstall adbutils, or check the file's permissions")
    m = re.search(r"Android Debug Bridge version (\S+)", done.stdout)
    if done.returncode != 0 or m is None:
        out = (done.stdout + done.stderr).strip().splitlines()
        return Check(
            "adb",
            "fail",
            f"`{path} version` exited {done.returncode}: {out[-1] if out else 'no output'}",
            "reinstall adbutils (`pip install --force-reinstall adbutils`)",
        )
    build = re.search(r"^Version (\S+)", done.stdout, flags=re.M)
    version = m.group(1) + (f" ({build.group(1)})" if build else "")
    return Check("adb", "ok", f"{path}, version {version}")


# --- the SDK, the emulator, acceleration -------------------------------------------------------------------------
def sdk_checks(env: Mapping[str, str] | None = None, kvm: Path | None = KVM_DEVICE) -> list[Check]:
    """The Android SDK (optional: needed for AVDs only), its emulator binary, and hardware acceleration: /dev/kvm
    on Linux and, when there is an emulator binary, its own `-accel-check` answer."""
    from emulator.avd.sdk import find_sdk

    sdk = find_sdk(env)
    rows: list[Check] = []
    if not sdk.found:
        why = "; ".join(f"{k}: {v}" for k, v in sorted(sdk.problems.items()) if k.startswith("ANDROID_")) or (
            "ANDROID_HOME and ANDROID_SDK_ROOT unset, no SDK tool on PATH"
        )
        rows.append(
            Check(
                "Android SDK",
                "warn",
                f"not found ({why}); only AVDs need it",
                "for AVDs: install the SDK command-line tools and set ANDROID_HOME",
            )
        )
    else:
        missing = [t for t in ("sdkmanager", "avdmanager", "emulator") if sdk.tool(t) is None]
        rows.append(
            Check(
                "Android SDK",
                "warn" if missing else "ok",
                sdk.describe(),
                f"install the missing tools with `sdkmanager` ({', '.join(missing)})" if missing else "",
            )
        )
    if sdk.emulator is None:
        if sdk.found:
            rows.append(
                Check("emulator", "warn", sdk.problems.get("emulator", "not found"), "for AVDs: `sdkmanager emulator`")
            )
    else:
        rows.append(_accel_check(sdk.emulator, sdk.env))
    if kvm is not None and sys.platform.startswith("linux"):  # KVM is Linux's; elsewhere -accel-check says it
        rows.append(kvm_check(kvm))
    return rows


def kvm_check(path: Path = KVM_DEVICE) -> Check:
    """KVM for x86 AVDs: the device node exists and this user may read and write it."""
    if not path.exists():
        return Check(
            "KVM",
            "warn",
            f"{path} does not exist: AVDs would run without acceleration (very slowly)",
            "enable virtualization (VT-x / AMD-V) in the BIOS and load kvm_intel or kvm_amd; inside a VM, "
            "enable nested virtualization",
        )
    if not os.access(path, os.R_OK | os.W_OK):
        return Check(
            "KVM",
            "warn",
            f"{path} exists but this user cannot read and write it",
            "`sudo usermod -aG kvm $USER`, then log in again",
        )
    return Check("KVM", "ok", f"{path} is readable and writable")


def _accel_check(emulator: Path, env: Mapping[str, str]) -> Check:
    """`emulator -accel-check`: prints `accel:`, a status code (0 = usable), a message, `accel`."""
    try:
        done = subprocess.run(
            [str(emulator), "-accel-check"], capture_output=True, text=True, timeout=60, env=dict(env)
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        return Check(
            "emulator",
            "warn",
            f"{emulator} -accel-check did not run: {e}",
            "reinstall the emulator with `sdkmanager emulator`",
        )
    lines = [x.strip() for x in done.stdout.splitlines() if x.strip()]
    body = lines[lines.index("accel:") + 1 :] if "accel:" in lines else lines
    if body and body[-1] == "accel":
        body = body[:-1]
    code = int(body[0]) if body and body[0].lstrip("-").isdigit() else None
    message = " ".join(body[1:] if code is not None else body) or (done.stderr.strip() or "no output")
    if code == 0 and done.returncode == 0:
        return Check("emulator", "ok", f"{emulator}; -accel-check: {message}")
    return Check(
        "emulator",
        "warn",
        f"{emulator}; -accel-check (status {code}): {message}",
        "AVDs need hardware acceleration: KVM on Linux (see the KVM row), HVF on macOS, WHPX or AEHD on Windows",
    )


# --- an adb server and its devices -------------------------------------------------------------------------------
STATE_FIXES: dict[str, tuple[Status, str]] = {
    "unauthorized": (
        "fail",
        "accept the RSA key prompt ('Allow USB debugging?') on the device and tick 'Always "
        "allow'; no prompt: Developer options > Revoke USB debugging authorizations, then "
        "replug",
    ),
    "offline": (
        "fail",
        "replug the cable (or `adb reconnect offline`); an emulator may still be booting; if it "
        "stays offline: `adb kill-server`, then `adb start-server`",
    ),
    "no permissions": (
        "fail",
        "install udev rules for the device's vendor (e.g. the android-udev-rules package), "
        "add yourself to the plugdev group, replug; then `adb kill-server`",
    ),
    "authorizing": ("fail", "wait a few seconds and run doctor again (adb is still checking the key)"),
    "connecting": (
        "fail",
        "wait a few seconds and run doctor again; if it persists, `adb disconnect` and `adb connect` it",
    ),
    "recovery": ("fail", "the device is in recovery: reboot it into Android (`adb reboot`)"),
    "sideload": ("fail", "the device is in sideload mode: reboot it into Android (`adb reboot`)"),
    "bootloader": ("fail", "the device is in the bootloader: reboot it into Android (`fastboot reboot`)"),
}


def state_check(serial: str, state: str) -> Check:
    """A device's adb state: `device` is ok; every other state fails with its fix."""
    if state == "device":
        return Check(f"{serial}: adb state", "ok", "device")
    key = next((k for k in STATE_FIXES if state.startswith(k)), None)
    status, fix = STATE_FIXES[key] if key else ("fail", "see `adb devices -l`; reconnect the device")
    return Check(f"{serial}: adb state", status, state, fix)


def server_checks(host: str, port: int, serial: str | None = None, timeout: float = 10.0) -> list[Check]:
    """The adb server at host:port (never started here) and the devices it lists: the chosen `serial`, or each
    one. Raises ConfigError when `serial` is not listed (bad input)."""
    from emulator.virtual.adbserver import PrivateAdbClient

    if not adb_server_running(host, port):
        return [
            Check(
                "adb server",
                "fail",
                f"nothing listens at {host}:{port}",
                "start it with `adb start-server` (doctor never starts one); or run doctor without "
                "--device/--system-adb to check the embedded device",
            )
        ]
    client = PrivateAdbClient(host=host, port=port, socket_timeout=timeout)
    try:
        version = client.server_version()
        infos = [(d.serial, d.state) for d in client.list()]
    except (adbutils.AdbError, OSError) as e:
        return [
            Check(
                "adb server",
                "fail",
                f"{host}:{port} does not answer as an adb server: {e}",
                "`adb kill-server`, then `adb start-server`",
            )
        ]
    rows = [Check("adb server", "ok", f"{host}:{port}, protocol version {version}, {len(infos)} device(s)")]
    if serial is not None:
        listed = dict(infos)
        if serial not in listed:
            names = ", ".join(s for s, _ in infos) or "none"
            raise ConfigError(
                f"--device {serial}: the adb server at {host}:{port} does not list it (devices: "
                f"{names}); for a network device `adb connect {serial}` first"
            )
        infos = [(serial, listed[serial])]
    elif not infos:
        rows.append(
            Check(
                "devices",
                "fail",
                f"the adb server at {host}:{port} lists no device",
                "connect a phone with USB debugging on, or start an emulator; without --system-adb "
                "doctor checks the embedded device instead",
            )
        )
    for s, state in infos:
        rows.append(state_check(s, state))
        if state == "device":
            rows += device_checks(client, s)
    return rows


def embedded_checks(profile: str = "medium_phone", locale: str = "en") -> list[Check]:
    """Start the embedded virtual device behind a private adb server (as the device pool does), check it as any
    device, stop both. Proves `droidharness run` with no --device works here."""
    from emulator.virtual.adbserver import PrivateAdbServer

    try:
        server = PrivateAdbServer().start()
    except Exception as e:  # noqa: BLE001 - any failure to start it is the finding
        return [
            Check(
                "private adb server",
                "fail",
                f"the private adb server did not start: {e}",
                "check that the adb row is ok and that 127.0.0.1 accepts local TCP connections",
            )
        ]
    try:
        rows = [
            Check(
                "private adb server",
                "ok",
                f"127.0.0.1:{server.port} for the embedded device (protocol version {server.client.server_version()})",
            )
        ]
        try:
            vd = start_embedded(server, profile=profile, locale=locale)
        except Exception as e:  # noqa: BLE001 - the finding
            return rows + [
                Check(
                    "embedded device: adb state",
                    "fail",
                    str(e),
                    "report it: the embedded device should always connect",
                )
            ]
        try:
            rows.append(state_check(vd.serial, server.state(vd.serial) or "absent"))
            rows += device_checks(server.client, vd.serial)
            server.disconnect(vd.address)
        finally:
            vd.stop()
        return rows
    finally:
        server.stop()


# --- one device ----------------------------------------------------------------------------------------------------
def device_checks(
    client: adbutils.AdbClient,
    serial: str,
    call_timeout: float = 10.0,
    u2_port: int = 9008,
) -> list[Check]:
    """uiautomator2, text input, screen, Android version, locale of a device in the `device` state."""
    link: Link | None = None
    try:
        link = open_link(client, serial, LinkConfig(use_u2=False, call_timeout=call_timeout, reconnect_timeout=2.0))
        res = link.shell(
            "doctor: read properties",
            f"getprop; echo {_SEP}; wm size; echo {_SEP}; wm density; echo {_SEP}; "
            f"settings get secure default_input_method",
        )
    except HarnessError as e:
        if link is not None:
            link.close()
        return [Check(f"{serial}: shell", "fail", str(e), "check the device's state with `droidharness devices`")]
    try:
        parts = res.text.split(_SEP) + ["", "", ""]
        props = getprop_values(parts[0])
        rpc = U2Rpc(link.adb, u2_port)
        try:
            u2_row, launched = _u2_check(serial, rpc, link.adb, u2_port)
            rows = [u2_row, _text_input_check(serial, rpc if u2_row.status == "ok" else None, parts[3].strip())]
        finally:
            rpc.close()
        if launched is not None:
            _stop_u2(launched)
        rows += [_screen_check(serial, parts[1], parts[2]), _android_check(serial, props), _locale_check(serial, props)]
        return rows
    finally:
        link.close()


def _u2_check(serial: str, rpc: U2Rpc, adb: adbutils.AdbDevice, port: int) -> tuple[Check, Any]:
    """Ping the uiautomator2 server; launch it as a run would (uiautomator2's own launcher) when it does not
    answer; then a JSON-RPC call. Returns the row and the uiautomator2 device that launched it (to stop it)."""
    name = f"{serial}: uiautomator2"
    client = _package_version("uiautomator2")
    launched: Any = None
    if not rpc.ping():
        try:
            import uiautomator2 as u2

            launched = u2.connect(adb, port=port)
        except Exception as e:  # noqa: BLE001 - why the launch failed is the finding
            return Check(
                name,
                "fail",
                f"the server on device port {port} does not answer and uiautomator2 "
                f"{client} could not launch it: {type(e).__name__}: {e}",
                _U2_FIX,
            ), None
        if not rpc.ping():
            return Check(name, "fail", f"launched, but device port {port} does not answer /ping", _U2_FIX), launched
    try:
        info = rpc.call("deviceInfo", timeout=10.0)
    except (U2RpcError, U2Unreachable, TimeoutError) as e:
        return Check(name, "fail", f"/ping answers but JSON-RPC deviceInfo failed: {e}", _U2_FIX), launched
    server = _u2_server_version(rpc)
    how = "launched by doctor" if launched is not None else "already running"
    size = f"{info.get('displayWidth')}x{info.get('displayHeight')}" if isinstance(info, dict) else "?"
    return Check(
        name,
        "ok",
        f"server {server} on device port {port} ({how}) answers /ping and JSON-RPC "
        f"(deviceInfo: {size}); client uiautomator2 {client}",
    ), launched


_U2_FIX = (
    "a run falls back to slower shell paths and cannot type non-ASCII text: unlock the device; on MIUI/"
    "HyperOS allow 'USB debugging (Security settings)'; another automation server holding the "
    "accessibility service must stop (`adb shell am force-stop` it); then `python -m uiautomator2 init`"
)


def _u2_server_version(rpc: U2Rpc) -> str:
    try:
        status, body = rpc._http("GET", "/version", b"", 5.0)
    except (U2Unreachable, TimeoutError):
        return "(version unknown)"
    text = body.decode("utf-8", "replace").strip()
    return text if status == 200 and text and len(text) < 40 else "(version unknown)"


def _stop_u2(launched: Any) -> None:
    try:
        launched.stop_uiautomator(wait=False)
    except Exception as e:  # noqa: BLE001 - the device may be gone; nothing to do about it
        log.debug("stopping uiautomator2: %s", e)


def _package_version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "(not installed)"


def _text_input_check(serial: str, rpc: U2Rpc | None, default_ime: str) -> Check:
    """The harness types non-ASCII text through uiautomator2 (setText on the focused field, or the clipboard and
    paste), never through `input text` (ASCII only) or a special IME: round-trip CJK through the clipboard and
    put the user's clipboard back."""
    name = f"{serial}: text input (IME)"
    ime = f"default IME {default_ime}" if default_ime and default_ime != "null" else "no default IME set"
    if rpc is None:
        return Check(
            name,
            "fail",
            f"non-ASCII text cannot be typed: `input text` types printable ASCII only and "
            f"uiautomator2 does not answer ({ime})",
            "make uiautomator2 reachable (see its row); no extra IME is needed",
        )
    try:
        old = rpc.call("getClipboard", timeout=5.0)
        rpc.call("setClipboard", [None, IME_PROBE], timeout=5.0)
        back = rpc.call("getClipboard", timeout=5.0)
        rpc.call("setClipboard", [None, old if isinstance(old, str) else ""], timeout=5.0)
    except (U2RpcError, U2Unreachable, TimeoutError) as e:
        return Check(
            name,
            "fail",
            f"the uiautomator2 clipboard does not work: {e} ({ime})",
            "update uiautomator2 (`pip install -U uiautomator2`), then `python -m uiautomator2 init`",
        )
    if back == IME_PROBE:
        return Check(
            name, "ok", f"non-ASCII through uiautomator2 setText / clipboard: {IME_PROBE!r} round-trips ({ime})"
        )
    if back is None:
        return Check(
            name,
            "warn",
            f"the clipboard cannot be read back here (Android 10+ restricts reading it); "
            f"setText still types non-ASCII ({ime})",
            "nothing to do unless TYPE read-backs fail; then check the device's clipboard settings",
        )
    return Check(
        name,
        "fail",
        f"the clipboard gave back {str(back)[:40]!r} for {IME_PROBE!r} ({ime})",
        "the device mangles non-ASCII clipboard text: update the system or the uiautomator2 server",
    )


def _screen_check(serial: str, size_text: str, density_text: str) -> Check:
    size, dens = wm_value(size_text, r"(\d+)x(\d+)"), wm_value(density_text, r"(\d+)")
    if not size or not dens:
        return Check(
            f"{serial}: screen",
            "fail",
            f"`wm size` / `wm density` gave {size_text.strip()!r} / {density_text.strip()!r}",
            "unlock the device and run doctor again; `adb shell wm size` must print the size",
        )
    override = " (override)" if "Override" in size_text or "Override" in density_text else ""
    return Check(f"{serial}: screen", "ok", f"{size[0]}x{size[1]}, {dens[0]} dpi{override}")


def _android_check(serial: str, props: Mapping[str, str]) -> Check:
    release, sdk = props.get("ro.build.version.release", ""), props.get("ro.build.version.sdk", "")
    model = " ".join(x for x in (props.get("ro.product.manufacturer", ""), props.get("ro.product.model", "")) if x)
    if not sdk.isdigit():
        return Check(
            f"{serial}: Android",
            "warn",
            f"`getprop ro.build.version.sdk` gave {sdk!r}",
            "check that the device runs Android and `adb shell getprop` answers",
        )
    return Check(f"{serial}: Android", "ok", f"Android {release or '?'} (API {sdk}){', ' + model if model else ''}")


def _locale_check(serial: str, props: Mapping[str, str]) -> Check:
    locale = props.get("persist.sys.locale") or props.get("ro.product.locale") or ""
    lang = locale.split("-")[0].split("_")[0].lower()
    if lang in ("en", "zh"):
        return Check(f"{serial}: locale", "ok", f"{locale}: runs episodes with --lang {lang}")
    return Check(
        f"{serial}: locale",
        "warn",
        f"{locale or 'unknown'}: the bundled suites are in en and zh",
        "switch the device's language to English or Chinese to run the bundled suites (--lang must match it)",
    )


__all__ = [
    "Check",
    "Status",
    "failed",
    "adb_binary_check",
    "sdk_checks",
    "kvm_check",
    "state_check",
    "server_checks",
    "embedded_checks",
    "device_checks",
    "STATE_FIXES",
]
