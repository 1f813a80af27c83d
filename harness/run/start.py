"""A task's start state, put on a device by the operations every device has (home, airplane mode, settings, app data
cleared, apps stopped, clipboard, an app opened). Apps named by role (`@clock`) are resolved on the device first.
"""

from __future__ import annotations

from harness.device.apps import role_packages
from harness.device.controller import Device
from harness.device.prepare import set_airplane
from tasks.roles import is_role, role_of
from tasks.schema import StartState


def resolve_start(device: Device, start: StartState) -> StartState:
    """The start state with its app roles (`@clock`) replaced by the packages this device has."""
    refs = [*start.reset_apps, *start.stop_apps, start.open_app or ""]
    roles = list(dict.fromkeys(role_of(r) for r in refs if is_role(r)))
    if not roles:
        return start
    pkgs = role_packages(device, roles)

    def pkg(ref: str) -> str:
        return pkgs[role_of(ref)] if is_role(ref) else ref

    return start.model_copy(
        update={
            "reset_apps": tuple(map(pkg, start.reset_apps)),
            "stop_apps": tuple(map(pkg, start.stop_apps)),
            "open_app": pkg(start.open_app) if start.open_app else None,
        }
    )


def prepare_start(device: Device, start: StartState) -> None:
    """Put the device in the task's start state: home, airplane mode, settings, apps reset/stopped, clipboard, app
    opened."""
    start = resolve_start(device, start)
    device.press_home()
    if start.airplane is not None:
        set_airplane(device, start.airplane)
    for name, value in start.settings.items():
        namespace, _, key = name.partition(":")
        device.put_setting(namespace, key, value)
    for pkg in start.reset_apps:
        device.clear_app(pkg)
    for pkg in start.stop_apps:
        device.stop_app(pkg)
    if start.clipboard is not None:
        device.set_clipboard(start.clipboard)
    if start.open_app:
        device.launch(start.open_app)
