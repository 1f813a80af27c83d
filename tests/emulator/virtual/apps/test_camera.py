"""Camera (Camera2) driven as clients drive a phone: the real adb server for the shell and pull, uiautomator2
(unmodified) for the screen. AndroidWorld's one-time set-up (permission granted, launched, NEXT) passes the first
start's prompt; what the shutter captures is a real JPEG / MP4 where AndroidWorld lists them (Pictures/, Movies/),
named on the device's clock. Then AndroidWorld's two Camera classes played by the reference agent."""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from emulator.virtual import VirtualDevice
from emulator.virtual.adbserver import PrivateAdbServer
from emulator.virtual.apps.camera import PREFS
from emulator.virtual.model import VirtualDeviceModel
from harness.actions import Complete
from harness.device.state import DeviceState
from harness.plugins import create_agent
from harness.run.judge.state_check import evaluate_state
from tasks.families.registry import family_tasks
from tests.agents_helpers import make_task, run
from tests.device_util import open_device
from tests.emulator.virtual.apps.devshell import emulator_image, focus, sh, uiautomator

u2 = pytest.importorskip("uiautomator2")

# the module's tests run in order on its one device, in one worker (make test: --dist loadgroup)
pytestmark = pytest.mark.xdist_group("camera-device")
PKG = "com.android.camera2"
RID = PKG + ":id/"
LAUNCHER = f"{PKG}/com.android.camera.CameraLauncher"


@pytest.fixture(scope="module")
def cam_dev(adb_server: PrivateAdbServer) -> Iterator[VirtualDevice]:
    with emulator_image(adb_server) as vd:
        yield vd


@pytest.fixture(scope="module")
def cd(cam_dev: VirtualDevice, adb_server: PrivateAdbServer) -> Iterator[Any]:
    with uiautomator(adb_server, cam_dev.serial) as dev:
        yield dev


def test_androidworld_s_set_up_passes_the_first_start_and_it_is_remembered(cd, cam_dev, adb_cli):
    s = cam_dev.serial
    sh(adb_cli, s, f"pm clear {PKG}; pm grant {PKG} android.permission.ACCESS_COARSE_LOCATION")
    sh(adb_cli, s, f"am start -n {LAUNCHER}")
    assert focus(adb_cli, s) == LAUNCHER
    assert cd(text="Remember photo locations?").exists and cd(resourceId=RID + "check_box").info["checked"]
    cd.press("back")  # the prompt cancelled: the app closes, nothing is kept
    assert focus(adb_cli, s) != LAUNCHER
    sh(adb_cli, s, f"am start -n {LAUNCHER}")
    cd(resourceId=RID + "check_box").click()
    cd(text="NEXT").click()  # as AndroidWorld's CameraApp set-up clicks it
    assert cd(resourceId=RID + "shutter_button", description="Shutter").exists
    assert '<string name="pref_camera_recordlocation_key">0</string>' in cam_dev.model.fs.read(PREFS.path).decode()
    sh(adb_cli, s, f"am force-stop {PKG}; am start -n {LAUNCHER}")
    assert not cd(text="NEXT").exists and cd(resourceId=RID + "shutter_button").exists


def test_a_photo_and_a_video_are_files_where_androidworld_lists_them(cd, cam_dev, adb_cli, tmp_path: Path):
    s = cam_dev.serial
    sh(adb_cli, s, "rm -rf /sdcard/Pictures/* /sdcard/Movies/*")
    sh(adb_cli, s, f"am force-stop {PKG}; am start -n {LAUNCHER}")
    if cd(text="NEXT").exists:
        cd(text="NEXT").click()
    cd.swipe(0.2, 0.4, 0.8, 0.4, 0.2)  # the mode list
    cd(description="Switch to Camera Mode").click()
    cd(resourceId=RID + "shutter_button").click()
    photos = sh(adb_cli, s, "ls /sdcard/Pictures", stderr=False).split()
    assert len(photos) == 1 and re.fullmatch(r"IMG_\d{8}_\d{6}\.jpg", photos[0])
    day = sh(adb_cli, s, "date +%Y%m%d", stderr=False).strip()
    assert photos[0][4:12] == day  # the device's clock
    assert adb_cli("-s", s, "pull", f"/sdcard/Pictures/{photos[0]}", str(tmp_path / "p.jpg")).returncode == 0
    img = Image.open(tmp_path / "p.jpg")
    assert img.format == "JPEG" and img.size == (640, 480)
    cd.swipe(0.2, 0.4, 0.8, 0.4, 0.2)
    cd(description="Switch to Video Camera").click()
    cd(resourceId=RID + "shutter_button").click()
    assert cd(resourceId=RID + "recording_time").exists
    cd(resourceId=RID + "shutter_button").click()
    videos = sh(adb_cli, s, "ls /sdcard/Movies", stderr=False).split()
    assert len(videos) == 1 and re.fullmatch(r"VID_\d{8}_\d{6}\.mp4", videos[0])
    data = cam_dev.model.fs.read(f"/sdcard/Movies/{videos[0]}")
    assert data[4:8] == b"ftyp" and b"avc1" in data
    rows = sh(adb_cli, s, "content query --uri content://media/external/video/media --projection _display_name")
    assert f"_display_name={videos[0]}" in rows  # MediaStore indexed it
    sh(adb_cli, s, f"am force-stop {PKG}; am start -n {LAUNCHER}")  # the launcher opens the mode used last
    cd.swipe(0.2, 0.4, 0.8, 0.4, 0.2)
    assert cd(description="Switch to Video Camera").info["selected"]
    sh(adb_cli, s, f"am force-stop {PKG}; rm -rf /sdcard/Pictures/* /sdcard/Movies/*")


# --- AndroidWorld's classes ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("cls", ["CameraTakePhoto", "CameraTakeVideo"])
def test_androidworld_s_classes_leave_one_new_file(cls: str):
    m = VirtualDeviceModel(emulator_image=True)
    task = make_task(f"AndroidWorld {cls}", outside={"suite": "androidworld", "class": cls, "params": {}})
    steps = run(create_agent("reference"), m, task, max_steps=10)  # the first start's prompt on the way
    assert isinstance(steps[-1].action, Complete) and not any(s.invalid for s in steps), [s.action for s in steps]
    photos = [n for n, _ in m.fs.listdir("/sdcard/Pictures")]
    videos = [n for n, _ in m.fs.listdir("/sdcard/Movies")]
    assert (len(photos), len(videos)) == ((1, 0) if cls == "CameraTakePhoto" else (0, 1))
    if photos:
        assert Image.open(io.BytesIO(m.fs.read(f"/sdcard/Pictures/{photos[0]}"))).format == "JPEG"


# --- the family ---------------------------------------------------------------------------------------------------
def test_the_familys_photo_moved_with_files_is_the_row_its_end_state_reads(cam_dev, adb_server, adb_cli):
    task = next(t for t in family_tasks("camera", 0, 8) if "param:kind=photo" in t.tags)
    folder = next(t for t in task.tags if t.startswith("param:destination=")).split("=")[1]
    sh(adb_cli, cam_dev.serial, f"pm clear {PKG}; rm -rf /sdcard/Pictures/*")
    dev = open_device(adb_server, cam_dev, use_u2=False)
    try:
        state = DeviceState(dev.shell)
        checks = [e.check.state for e in task.end_state if e.check is not None and e.check.state is not None]
        assert not all(evaluate_state(c, state, "zh").held for c in checks)
        steps = run(create_agent("reference"), cam_dev.model, task, lang="zh", max_steps=task.max_steps)
        assert isinstance(steps[-1].action, Complete) and not any(s.invalid for s in steps)
        assert all(evaluate_state(c, state, "zh").held for c in checks)
    finally:
        sh(adb_cli, cam_dev.serial, f"am force-stop {PKG}; rm -rf /sdcard/Pictures/* /sdcard/{folder}/IMG_*")
        dev.close()
