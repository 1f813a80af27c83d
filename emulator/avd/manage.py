"""Installing system images and creating / listing AVDs with the SDK's own tools.

Device profiles: the virtual device's profiles (emulator/virtual/profiles.py: the six GUI Odyssey devices and
Pixel 4 XL) map to avdmanager's hardware ids of the same names, so an AVD and an embedded virtual device of one
profile have the same screen. `default_image(profile)` is the Google APIs image of the profile's API level for
this machine's CPU.
"""

from __future__ import annotations

import platform
import re

from ..virtual.profiles import PROFILES
from .errors import AvdConfigError, AvdNotFoundError
from .sdk import Sdk, run_tool

# virtual-device profile -> `avdmanager create avd -d` device id (`avdmanager list device -c` lists them)
AVD_DEVICES: dict[str, str] = {
    "pixel_7_pro": "pixel_7_pro",
    "pixel_8_pro": "pixel_8_pro",
    "pixel_fold": "pixel_fold",
    "pixel_tablet": "pixel_tablet",
    "medium_phone": "medium_phone",
    "small_phone": "small_phone",
    "pixel_4_xl": "pixel_4_xl",
}

AVD_NAME = re.compile(r"[A-Za-z0-9._-]+")
PACKAGE = re.compile(r"[A-Za-z0-9._-]+(;[A-Za-z0-9._-]+)*")


def avd_device(profile: str) -> str:
    """The avdmanager device id of a virtual-device profile (or of an avdmanager id given as is)."""
    key = profile.strip().lower().replace(" ", "_").replace("-", "_")
    if key in AVD_DEVICES:
        return AVD_DEVICES[key]
    if key in AVD_DEVICES.values():
        return key
    raise AvdConfigError(f"unknown device profile {profile!r}; choose one of: {', '.join(AVD_DEVICES)}")


def host_abi() -> str:
    return "arm64-v8a" if platform.machine().lower() in ("arm64", "aarch64") else "x86_64"


def default_image(profile: str = "medium_phone", abi: str | None = None) -> str:
    """`system-images;android-<API>;google_apis;<abi>` for the profile's API level."""
    p = PROFILES[next(k for k, v in AVD_DEVICES.items() if v == avd_device(profile))]
    return f"system-images;android-{p.api_level};google_apis;{abi or host_abi()}"


def check_name(name: str) -> str:
    if not AVD_NAME.fullmatch(name):
        raise AvdConfigError(f"AVD name {name!r}: use letters, digits, '.', '_' and '-' only")
    return name


def _check_package(package: str) -> str:
    if not PACKAGE.fullmatch(package):
        raise AvdConfigError(f"SDK package {package!r}: expected e.g. {default_image()!r}")
    return package


def install_image(sdk: Sdk, package: str, timeout: float = 3600) -> None:
    """`sdkmanager PACKAGE`, accepting its licenses (each prompt answered "y")."""
    _check_package(package)
    args = ([f"--sdk_root={sdk.root}"] if sdk.root else []) + [package]
    run_tool(sdk, "sdkmanager", args, input="y\n" * 32, timeout=timeout)


def create_avd(sdk: Sdk, name: str, package: str, device_profile: str = "medium_phone", timeout: float = 300) -> None:
    """`avdmanager create avd -n NAME -k PACKAGE -d DEVICE --force` (the custom-hardware question answered no)."""
    check_name(name)
    _check_package(package)
    run_tool(
        sdk,
        "avdmanager",
        ["create", "avd", "-n", name, "-k", package, "-d", avd_device(device_profile), "--force"],
        input="no\n",
        timeout=timeout,
    )


def list_avds(sdk: Sdk, timeout: float = 120) -> list[str]:
    """The AVDs' names: `emulator -list-avds` (fast), else `avdmanager list avd -c`."""
    if sdk.emulator is not None:
        out = run_tool(sdk, "emulator", ["-list-avds"], timeout=timeout).stdout
    else:
        out = run_tool(sdk, "avdmanager", ["list", "avd", "-c"], timeout=timeout).stdout
    # recent emulators print "INFO | ..." lines too; a name is one word
    return [line.strip() for line in out.splitlines() if AVD_NAME.fullmatch(line.strip())]


def require_avd(sdk: Sdk, name: str) -> str:
    """`name` if such an AVD exists, else `AvdNotFoundError` listing those that do."""
    check_name(name)
    names = list_avds(sdk)
    if name not in names:
        have = ", ".join(names) if names else "none"
        raise AvdNotFoundError(f"no AVD named {name!r} (AVDs: {have}); create it with `droidharness emulator create`")
    return name
