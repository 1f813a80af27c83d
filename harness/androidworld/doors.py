"""The doors of one leased device that `adb` commands reach (`harness.androidworld.adb.Doors`), over the harness's
own `Link` (adb transport, guarded: reconnects, deadlines) and, where the device has one, its emulator console (the
pool's `DevicePool.console`)."""

from __future__ import annotations

import io
import time

from harness.device.controller import AdbDevice
from harness.device.fastadb import ShellResult
from harness.device.link import CapabilityError, Link
from harness.device.slotdoors import NO_DOORS, SlotDoors
from harness.errors import DeviceError

ROOT_WAIT = 15.0  # seconds for adbd to come back after `adb root` (it restarts; the link reconnects)
DROP_WAIT = 3.0  # seconds for the adb server to see the restarting adbd's transport drop


class LinkDoors:
    """`Doors` of `device` (an `AdbDevice` over a `Link`) and of its pool slot (`slot`: its console, `rebase`)."""

    def __init__(self, device: AdbDevice, slot: SlotDoors = NO_DOORS) -> None:
        self.device = device
        self.serial = device.serial
        self.slot = slot

    def _link(self, op: str) -> Link:
        link = self.device.link
        if not isinstance(link, Link):
            raise CapabilityError(f"device {self.serial}: {op} needs an adb transport")
        return link

    def shell(self, command_line: str, timeout: float) -> ShellResult:
        return self.device.link.shell(f"androidworld: shell {command_line[:60]}", command_line, timeout)

    def push(self, data: bytes, path: str, timeout: float) -> None:
        link = self._link("push")
        link.guard(f"androidworld: push {path}", lambda: link.adb.sync.push(io.BytesIO(data), path), timeout)

    def pull(self, path: str, timeout: float) -> bytes:
        link = self._link("pull")
        info = link.guard(f"androidworld: stat {path}", lambda: link.adb.sync.stat(path), timeout)
        if info.mode == 0:
            raise FileNotFoundError(path)
        data: bytes = link.guard(f"androidworld: pull {path}", lambda: link.adb.sync.read_bytes(path), timeout)
        return data

    def root(self, on: bool, timeout: float) -> str:
        """`adb root` / `adb unroot`: adbd's answer; then wait until the restarted adbd runs as asked."""
        link = self._link("root")
        service = "root:" if on else "unroot:"

        def ask() -> str:
            with link.adb.open_transport() as c:
                c.send_command(service)
                c.check_okay()
                return str(c.read_until_close())

        text = link.guard(f"androidworld: adb {service[:-1]}", ask, timeout).strip()
        if "cannot" in text or "already" in text:
            return text
        want = "root" if on else "shell"
        deadline = time.monotonic() + min(timeout, ROOT_WAIT)
        drop = time.monotonic() + DROP_WAIT  # adbd answers, then restarts: its transport drops (as `adb root` does)
        while time.monotonic() < drop and link.state() == "device":
            time.sleep(0.02)
        while time.monotonic() < deadline:
            try:
                if link.shell("androidworld: whoami", "whoami", 5.0).text.strip() == want:
                    link.after_restart()
                    return text
            except DeviceError:
                pass  # adbd is restarting: the link reconnects on the next call
            time.sleep(0.1)
        raise DeviceError(f"device {self.serial}: adbd did not come back as {want} after `adb {service[:-1]}`")

    def console(self, line: str) -> list[str] | None:
        return self.slot.console(line)

    def rebase(self) -> bool:
        return self.slot.rebase()


__all__ = ["LinkDoors"]
