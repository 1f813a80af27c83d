"""The uiautomator2 server starts at once (issue 20, devices start together): a connection to its port right
after the launch command's stream opens is served, not refused - so uiautomator2's own launcher finds it alive on
its first check instead of sleeping half a second - while a port nothing is launched on is still refused at
once. Through the real adb server with adbutils and uiautomator2's own launch command."""

from __future__ import annotations

import time

import adbutils
import pytest
from uiautomator2.core import launch_uiautomator

from emulator.virtual.u2server import LAUNCH_WAIT


def _ping(dev: adbutils.AdbDevice, port: int) -> bytes:
    conn = dev.create_connection(adbutils.Network.TCP, port)
    try:
        conn.send(b"GET /ping HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        data = b""
        while chunk := conn.recv(4096):
            data += chunk
        return data
    finally:
        conn.close()


def test_the_server_answers_the_first_ping_right_after_its_launch(vdevice):
    dev = vdevice.adb
    proc = launch_uiautomator(dev, 9008)  # uiautomator2's own launch: a shell stream running app_process
    try:
        assert _ping(dev, 9008).endswith(b"pong"), "served at once, not refused"
    finally:
        proc.kill()


def test_a_port_nothing_is_launched_on_is_refused(vdevice):
    dev = vdevice.adb
    with pytest.raises(adbutils.AdbError):
        _ping(dev, 9011)
    time.sleep(LAUNCH_WAIT)  # a launch long past does not make a later connection wait either
    proc = launch_uiautomator(dev, 9008)
    try:
        assert _ping(dev, 9008).endswith(b"pong")
    finally:
        proc.kill()
    time.sleep(LAUNCH_WAIT)
    with pytest.raises(adbutils.AdbError):
        _ping(dev, 9012)
