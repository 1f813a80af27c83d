"""A task's start state, put on a device by the operations every device has (home, airplane mode, settings, app data
cleared, apps stopped, clipboard, an app opened).
"""

from __future__ import annotations

from harness.device.controller import Device
from harness.device.prepare import set_airplane
from tasks.schema import StartState


def prepare_start(device: Device, start: StartState) -> None:
    """Put the device in the task's start state: home, airplane mode, settings, apps reset/stopped, clipboard, app
    opened."""
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
