"""Simple Draw Pro (com.simplemobiletools.draw.pro) driven as clients drive a phone: the real adb server for `pm`,
`am`, `input swipe` on the canvas and `cat` / `adb pull` of the image it saves, uiautomator2 for the screen;
AndroidWorld's SimpleDrawProCreateDrawing solved by the reference agent on an in-process device."""

from __future__ import annotations

from io import BytesIO
from pathlib import Path

import pytest
from PIL import Image

from emulator.virtual.apps.simpledraw_data import MAIN, PKG, SPLASH
from emulator.virtual.model import VirtualDeviceModel
from harness.actions import Complete
from harness.plugins import create_agent
from tasks.families.registry import family_tasks
from tests.agents_helpers import make_task, run
from tests.emulator.virtual.apps.devshell import focus, sh

u2 = pytest.importorskip("uiautomator2")

PICTURES = "/storage/emulated/0/Pictures"


def test_installed_and_launched_as_draw(vdevice, adb_cli):
    s = vdevice.serial
    dump = sh(adb_cli, s, f"dumpsys package {PKG}")
    assert "versionName=6.9.3" in dump and "versionCode=79" in dump
    resolved = sh(adb_cli, s, f"cmd package resolve-activity --brief -c android.intent.category.LAUNCHER {PKG}")
    assert resolved.strip().splitlines()[-1] == f"{PKG}/{SPLASH.removeprefix(PKG)}"
    sh(adb_cli, s, f"am start -n {PKG}/{MAIN}")  # AndroidWorld's activity map names MainActivity
    assert focus(adb_cli, s) == f"{PKG}/{MAIN}"
    sh(adb_cli, s, "input keyevent KEYCODE_HOME")
    assert 'text="Draw"' in sh(adb_cli, s, "uiautomator dump /dev/tty")


def test_strokes_undone_redone_and_saved_where_the_dialog_says(u2dev, vdevice, adb_cli, tmp_path: Path):
    d, s = u2dev, vdevice.serial
    sh(adb_cli, s, f"monkey -p {PKG} -c android.intent.category.LAUNCHER 1")
    assert focus(adb_cli, s) == f"{PKG}/{MAIN}"  # SplashActivity went on to MainActivity
    assert not d(description="Undo").exists and not d(description="Redo").exists
    x0, y0, x1, y1 = d(resourceId=f"{PKG}:id/my_canvas").info["bounds"].values()
    cy = (y0 + y1) // 2
    sh(adb_cli, s, f"input swipe {x0 + 100} {cy} {x1 - 100} {cy} 300")  # a stroke across the canvas
    sh(adb_cli, s, f"input swipe {x0 + 100} {cy + 200} {x0 + 300} {cy + 400} 300")
    d(description="Undo").click()
    assert d(description="Redo").exists and d(description="Undo").exists  # one stroke left, one to redo
    d(description="Save").click()
    assert d(text="Save as").exists and d(text="Internal/Simple Draw").exists
    d(resourceId=f"{PKG}:id/folder_value").click()
    assert d(text="Select a folder").exists
    d(resourceId=f"{PKG}:id/list_item_name", text="Pictures").click()
    assert d(resourceId=f"{PKG}:id/breadcrumb_text", text="> Pictures").exists
    d(resourceId="android:id/button1", text="OK").click()
    assert d(text="Internal/Pictures").exists
    d(resourceId=f"{PKG}:id/save_image_filename").set_text("sunset")
    d(resourceId=f"{PKG}:id/save_image_radio_svg").click()
    d(resourceId="android:id/button1", text="OK").click()
    svg = sh(adb_cli, s, f"cat {PICTURES}/sunset.svg", stderr=False)
    assert svg.startswith("<svg width=") and svg.count("<path ") == 1 and 'stroke="#f57c00"' in svg
    # again as PNG: the folder and the name are remembered; the same name again asks before overwriting
    for _ in range(2):
        d(description="Save").click()
        assert (
            d(text="Internal/Pictures").exists and d(resourceId=f"{PKG}:id/save_image_filename", text="sunset").exists
        )
        d(resourceId=f"{PKG}:id/save_image_radio_png").click()
        d(resourceId="android:id/button1", text="OK").click()
    assert d(text='File "sunset.png" already exists. Overwrite?').exists
    d(resourceId="android:id/button1", text="Yes").click()
    local = tmp_path / "sunset.png"
    assert adb_cli("-s", s, "pull", f"{PICTURES}/sunset.png", str(local)).returncode == 0
    with Image.open(local) as img:
        assert img.format == "PNG" and img.size == (x1 - x0, y1 - y0)
        assert img.getpixel(((x1 - x0) // 2, cy - y0))[:3] == (245, 124, 0)  # the stroke, in the brush's orange
        assert img.getpixel((5, 5))[:3] == (255, 255, 255)


@pytest.mark.parametrize("name", ["lorem_brave_tiger_copy.jpg", "amet_2023_03_04_calm_river.svg"])
def test_androidworld_class_saves_the_drawing_in_pictures(name: str):
    m = VirtualDeviceModel()
    task = make_task(
        "AndroidWorld",
        outside={"suite": "androidworld", "class": "SimpleDrawProCreateDrawing", "params": {"file_name": name}},
    )
    steps = run(create_agent("reference"), m, task, max_steps=15)
    assert isinstance(steps[-1].action, Complete) and not any(s.invalid for s in steps)
    data = m.fs.peek(f"{PICTURES}/{name}")
    assert data is not None
    if name.endswith(".jpg"):
        assert Image.open(BytesIO(data)).format == "JPEG"
    else:
        assert data.startswith(b"<svg ") and b"<path d=" in data


def test_the_drawing_familys_reference_saves_the_file_its_end_state_reads():
    task = family_tasks("drawing", 0, 1)[0]
    [check] = [e.check.state for e in task.end_state if e.check is not None and e.check.state is not None]
    assert check.file is not None and check.file.path.startswith("/storage/emulated/0/")
    m = VirtualDeviceModel()
    assert m.fs.peek(check.file.path) is None
    steps = run(create_agent("reference"), m, task, max_steps=task.max_steps)
    assert isinstance(steps[-1].action, Complete) and not any(s.invalid for s in steps)
    assert m.fs.peek(check.file.path)
