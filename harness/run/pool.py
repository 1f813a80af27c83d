"""The device pool: N embedded virtual devices behind one private adb server, the devices given by serial, or
(`in_process=True`, for tests of the run loop) N in-process virtual devices with no adb at all.

`slot(i)` is the device a suite worker uses; `replace(i)` gives that worker a fresh device after an
infrastructure failure (a new virtual device, or a reconnection to the same phone); `reset(i)` restores an
embedded device's clean boot state between episodes.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from emulator.virtual import VirtualDeviceModel
from harness.device.controller import AdbDevice, DeviceConfig
from harness.errors import ConfigError, DeviceError

log = logging.getLogger(__name__)


class DevicePool:
    def __init__(
        self,
        count: int = 1,
        serials: list[str] | None = None,
        profile: str = "medium_phone",
        locale: str = "en",
        latency: str = "instant",
        config: DeviceConfig | None = None,
        in_process: bool = False,
    ) -> None:
        if serials and count not in (1, len(serials)):
            raise ConfigError(f"--devices {count} conflicts with {len(serials)} --device serial(s); give one")
        if count < 1:
            raise ConfigError(f"--devices must be >= 1, got {count}")
        if in_process and serials:
            raise ConfigError("in-process devices are embedded virtual devices: give no serials")
        self.in_process = in_process
        self.serials = list(serials or [])
        self.size = len(self.serials) or count
        self.profile, self.locale, self.latency = profile, locale, latency
        self.config = config or DeviceConfig()
        self._server: Any = None
        self._virtual: dict[int, Any] = {}  # slot -> VirtualDevice behind the adb server
        self._models: dict[int, VirtualDeviceModel] = {}  # slot -> the embedded device's model (either kind)
        self._devices: dict[int, AdbDevice] = {}
        self._baselines: dict[int, Any] = {}  # clean state of each embedded device, restored between episodes
        self._lock = threading.Lock()

    @property
    def embedded(self) -> bool:
        return not self.serials

    def start(self) -> DevicePool:
        """Open every slot's device; if one cannot be opened, close what was opened and raise."""
        try:
            if self.embedded and not self.in_process:
                from emulator.virtual.adbserver import PrivateAdbServer

                self._server = PrivateAdbServer().start()
            for i in range(self.size):
                self._devices[i] = self._open(i)
        except BaseException:
            self.close()
            raise
        return self

    def _open(self, i: int) -> AdbDevice:
        if not self.embedded:
            return AdbDevice.connect(self.serials[i], config=self.config)
        if self.in_process:
            from harness.device.inprocess import InProcessDevice

            dev = InProcessDevice(
                self.profile, self.locale, self.latency, serial=f"INPROC{i + 1:04d}", config=self.config
            )
            self._models[i] = dev.model
            self._baselines[i] = dev.model.snapshot()
            return dev
        from emulator.virtual import VirtualDevice
        from harness.device.link import Link

        vd = VirtualDevice(
            profile=self.profile, locale=self.locale, latency=self.latency, serial=f"VIRTUAL{i + 1:04d}"
        ).start()
        try:
            self._server.connect(vd.address)
            link = Link(self._server.client, vd.address, self.config.link).start()
        except BaseException:
            vd.stop()
            raise
        self._virtual[i] = vd
        self._models[i] = vd.model
        self._baselines[i] = vd.model.snapshot()
        return AdbDevice(
            link, self.config, cleanup=[link.close, lambda: self._server.disconnect(vd.address)], virtual=vd
        )

    def slot(self, i: int) -> AdbDevice:
        return self._devices[i]

    def model(self, i: int) -> VirtualDeviceModel | None:
        """Slot i's embedded virtual device model (fault knobs, event log); None for a real device."""
        return self._models.get(i)

    def profile_of(self, i: int) -> str:
        m = self._models.get(i)
        return m.profile.name if m is not None else self._devices[i].info.model

    def reset(self, i: int) -> None:
        """Restore slot i's embedded device to the clean state it booted with (settings, app data, files,
        rotation), as an AVD snapshot load would; a no-op for real devices (tasks reset what they use)."""
        m = self._models.get(i)
        if m is not None:
            m.restore(self._baselines[i])

    def ensure_locale(self, i: int, lang: str) -> None:
        """Make slot i's system language `lang` (en | zh) before an episode in that language. An embedded device
        switches (as picking a zh AVD would); a real device must already be set up in that language."""
        m = self._models.get(i)
        if m is not None:
            if m.locale != lang:
                m.set_locale(lang)
            return
        locale = self._devices[i].info.locale or ""
        if not locale.lower().startswith(lang):
            raise ConfigError(
                f"device {self._devices[i].serial} runs in {locale or 'an unknown locale'}, but this "
                f"episode is in {lang!r}: switch the phone's language or choose --lang"
            )

    def replace(self, i: int) -> AdbDevice:
        """Close slot i's device and open a fresh one (a new virtual device, or a reconnection)."""
        with self._lock:
            old = self._devices.get(i)
            if old is not None:
                try:
                    old.close()
                except Exception as e:  # noqa: BLE001 - the old device is being thrown away
                    log.debug("closing %s: %s", old.serial, e)
            self._models.pop(i, None)
            vd = self._virtual.pop(i, None)
            if vd is not None:
                vd.stop()
            self._ensure_server()
            try:
                self._devices[i] = self._open(i)
            except DeviceError:
                raise
            except Exception as e:  # noqa: BLE001 - name the slot in the error
                raise DeviceError(f"could not open a fresh device for slot {i}: {e}") from e
            return self._devices[i]

    def _ensure_server(self) -> None:
        """The harness owns its private adb server: if it died (connection refused on its port), start it again
        on the same port; the devices reconnect as their slots are replaced."""
        if self._server is None or self._server.alive():
            return
        log.warning("the private adb server on port %d is gone; restarting it on the same port", self._server.port)
        try:
            self._server.restart()
        except Exception as e:  # noqa: BLE001 - name the server in the error the slot reports
            raise DeviceError(
                f"the private adb server at 127.0.0.1:{self._server.port} died and could not be restarted: {e}"
            ) from e

    def close(self) -> None:
        for dev in self._devices.values():
            try:
                dev.close()
            except Exception as e:  # noqa: BLE001 - closing a device that is being thrown away; log and go on
                log.debug("closing %s: %s", dev.serial, e)
        for vd in self._virtual.values():
            vd.stop()
        if self._server is not None:
            self._server.stop()

    def __enter__(self) -> DevicePool:
        return self if self._devices else self.start()  # a started pool is not started twice

    def __exit__(self, *exc: object) -> None:
        self.close()
