"""The embedded virtual Android device: a pure-Python adbd that the real adb server, adbutils and uiautomator2
drive like a phone. See `VirtualDevice`.

The names below are loaded on first use: a command that only starts a device process (`procdevice`, the zygote's
handle) imports none of the device itself, so the zygote it starts ahead of its pool warms up ~80 ms sooner."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .device import VirtualDevice
    from .model import VirtualDeviceModel
    from .profiles import PROFILES, Profile, get_profile

_WHERE = {
    "VirtualDevice": ".device",
    "VirtualDeviceModel": ".model",
    "PROFILES": ".profiles",
    "Profile": ".profiles",
    "get_profile": ".profiles",
}

__all__ = ["VirtualDevice", "VirtualDeviceModel", "PROFILES", "Profile", "get_profile"]


def __getattr__(name: str) -> Any:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(where, __name__), name)
    globals()[name] = value
    return value
