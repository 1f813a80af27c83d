"""The issue's acceptance run: `droidharness virtual start --port P` in a subprocess, then the real adb CLI."""

from __future__ import annotations

import hashlib
import io
import os
import re
import signal
import subprocess
import sys

import pytest
from PIL import Image

from emulator.virtual.adbserver import free_port


@pytest.fixture
def cli_device(adb_server):
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "harness", "virtual", "start", "--port", str(port), "--profile", "pixel_7_pro"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        serial = proc.stdout.readline().strip()  # the CLI prints the serial first, once it listens
        assert serial == f"127.0.0.1:{port}", proc.stderr.read() if proc.poll() is not None else serial
        out = adb_server.run("connect", serial)
        assert b"connected to" in out.stdout, out
        adb_server.connect(serial)
        yield serial
    finally:
        adb_server.disconnect(f"127.0.0.1:{port}")
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
    assert proc.returncode == 128 + signal.SIGTERM, "SIGTERM stops the device cleanly: exit 143, as every command"


def test_adb_cli_treats_the_cli_device_like_a_phone(adb_server, cli_device, tmp_path):
    adb = adb_server.run
    s = cli_device
    listing = adb("devices", "-l").stdout.decode()
    assert re.search(rf"^{re.escape(s)}\s+device .*model:Pixel_7_Pro.*device:cheetah", listing, re.M), listing
    assert adb("-s", s, "shell", "getprop", "ro.product.model").stdout.decode().strip() == "Pixel 7 Pro"

    shot = adb("-s", s, "exec-out", "screencap", "-p").stdout
    img = Image.open(io.BytesIO(shot))
    assert img.format == "PNG" and img.size == (1440, 3120)

    blob = os.urandom(5 * 1024 * 1024)
    src, back = tmp_path / "big.bin", tmp_path / "back.bin"
    src.write_bytes(blob)
    pushed = adb("-s", s, "push", str(src), "/sdcard/Download/big.bin")
    assert pushed.returncode == 0, pushed.stderr
    pulled = adb("-s", s, "pull", "/sdcard/Download/big.bin", str(back))
    assert pulled.returncode == 0, pulled.stderr
    assert hashlib.sha256(back.read_bytes()).digest() == hashlib.sha256(blob).digest()

    ls = adb("-s", s, "ls", "/sdcard").stdout.decode()
    assert re.search(r"\sDownload$", ls, re.M), ls
    assert adb("-s", s, "shell", "false").returncode == 1
    assert adb("-s", s, "shell", "true").returncode == 0
