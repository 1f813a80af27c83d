"""AndroidWorld's `time.sleep`s on a virtual-clock device: inside the block the calling thread's sleeps pass on the
device (its `sleep` moves the device's clock, none passes here); other threads, and the block's thread after it,
sleep on the host as before."""

from __future__ import annotations

import threading
import time

from harness.androidworld.sleeps import device_sleeps


def test_sleeps_in_the_block_are_the_devices_others_the_hosts():
    waited: list[float] = []
    other: list[float] = []

    def elsewhere() -> None:
        t0 = time.monotonic()
        time.sleep(0.05)
        other.append(time.monotonic() - t0)

    with device_sleeps(waited.append, __name__) as slept:
        t0 = time.monotonic()
        time.sleep(5)  # AndroidWorld's wait after sending an SMS
        time.sleep(0)
        th = threading.Thread(target=elsewhere)
        th.start()
        th.join()
        inside = time.monotonic() - t0
    assert waited == [5.0] and slept.seconds == 5.0
    assert inside < 5.0  # not the 5 s: they passed on the device
    assert other and other[0] >= 0.05  # another thread slept on the host
    with device_sleeps(waited.append) as slept:  # waits of AndroidWorld's package only: this module's are the host's
        t0 = time.monotonic()
        time.sleep(0.05)
    assert time.monotonic() - t0 >= 0.05 and slept.seconds == 0.0 and waited == [5.0]
    t0 = time.monotonic()
    time.sleep(0.05)
    assert time.monotonic() - t0 >= 0.05 and waited == [5.0]  # after the block: the host's again


def test_without_a_device_wait_nothing_changes():
    with device_sleeps(None) as slept:
        t0 = time.monotonic()
        time.sleep(0.05)
    assert time.monotonic() - t0 >= 0.05 and slept.seconds == 0.0
