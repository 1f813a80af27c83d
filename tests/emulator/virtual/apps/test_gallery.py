"""Simple Gallery Pro driven as clients drive a phone: the real adb server for the shell, push and pull, uiautomator2
(unmodified) for the screen. What `adb push` puts on shared storage is what it lists (MediaStore's index) and shows
(the picture's pixels in the screenshot); what it copies, renames and deletes is what `ls` sees; its favourites are
gallery.db's rows, pulled and pushed back as AndroidWorld moves databases. Then AndroidWorld's gallery classes played
by the reference agent, and the gallery family's reference against its end state."""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import Any

import pytest
from PIL import Image, ImageDraw

from emulator.virtual import VirtualDevice
from emulator.virtual.adbserver import PrivateAdbServer
from emulator.virtual.model import VirtualDeviceModel
from harness.actions import Complete
from harness.device.state import DeviceState
from harness.plugins import create_agent
from harness.run.judge.state_check import evaluate_state
from tasks.families.registry import family_tasks
from tests.agents_helpers import make_task, run
from tests.device_util import open_device
from tests.emulator.virtual.apps.devshell import emulator_image, focus, pull_db, push_db, root, sh, uiautomator

u2 = pytest.importorskip("uiautomator2")

# the module's tests run in order on its one device, in one worker (make test: --dist loadgroup)
pytestmark = pytest.mark.xdist_group("gallery-device")
PKG = "com.simplemobiletools.gallery.pro"
RID = PKG + ":id/"
MAIN = f"{PKG}/{PKG}.activities.MainActivity"
DB = f"/data/data/{PKG}/databases/gallery.db"
SETTINGS_PAGE = "com.android.settings/com.android.settings.Settings$AppManageExternalStorageActivity"


def _picture(size: tuple[int, int], fmt: str = "PNG") -> bytes:
    """White, its left half black: where the viewer draws it shows."""
    img = Image.new("RGB", size, (255, 255, 255))
    ImageDraw.Draw(img).rectangle((0, 0, size[0] // 2 - 1, size[1] - 1), fill=(0, 0, 0))
    buf = io.BytesIO()
    img.save(buf, format=fmt)
    return buf.getvalue()


@pytest.fixture(scope="module")
def gallery_dev(adb_server: PrivateAdbServer) -> Iterator[VirtualDevice]:
    """One device of the emulator's image for the module (its tests run in order on it)."""
    with emulator_image(adb_server) as vd:
        yield vd


@pytest.fixture(scope="module")
def gd(gallery_dev: VirtualDevice, adb_server: PrivateAdbServer) -> Iterator[Any]:
    with uiautomator(adb_server, gallery_dev.serial) as dev:
        yield dev


def _open_folder(gd: Any, adb_cli: Any, serial: str, folder: str) -> None:
    sh(adb_cli, serial, f"am force-stop {PKG}; am start -n {MAIN}")
    gd(resourceId=RID + "dir_name", text=folder).click()


def _open_picture(gd: Any, adb_cli: Any, serial: str, folder: str, name: str) -> None:
    _open_folder(gd, adb_cli, serial, folder)
    if not gd(resourceId=RID + "medium_name").exists:
        gd(resourceId=RID + "toggle_filename").click()
    gd(resourceId=RID + "medium_name", text=name).click()


def test_the_first_start_asks_for_all_files_then_lists_and_shows_what_is_pushed(gd, gallery_dev, adb_cli, tmp_path):
    s = gallery_dev.serial
    assert f"package:{PKG}" in sh(adb_cli, s, "pm list packages -3").split()
    assert "versionName=6.28.1" in sh(adb_cli, s, f"dumpsys package {PKG}")
    for folder, name, size in (("DCIM", "receipt_a1.png", (500, 700)), ("Pictures", "wide.jpg", (900, 300))):
        local = tmp_path / name
        local.write_bytes(_picture(size, "JPEG" if name.endswith(".jpg") else "PNG"))
        assert adb_cli("-s", s, "push", str(local), f"/sdcard/{folder}/{name}").returncode == 0
    sh(adb_cli, s, f"am start -n {MAIN}")
    assert gd(resourceId="android:id/button1", text="All files").wait(3)
    assert gd(resourceId="android:id/button3", text="Media only").exists
    gd(resourceId="android:id/button1", text="All files").click()
    assert focus(adb_cli, s) == SETTINGS_PAGE
    gd(resourceId="com.android.settings:id/app_ops_settings_switch").click()
    gd.press("back")
    assert gd(resourceId=RID + "directories_grid").wait(3)
    assert {e.info["text"] for e in gd(resourceId=RID + "dir_name")} == {"DCIM", "Pictures"}
    assert [e.info["text"] for e in gd(resourceId=RID + "photo_cnt")] == ["1", "1"]
    sh(adb_cli, s, f"am force-stop {PKG}; am start -n {MAIN}")  # granted: no prompt again
    assert gd(resourceId=RID + "dir_name", text="DCIM").wait(3) and not gd(text="All files").exists
    gd(resourceId=RID + "dir_name", text="DCIM").click()
    assert not gd(resourceId=RID + "medium_name").exists  # names hidden by default
    gd(resourceId=RID + "toggle_filename").click()
    gd(resourceId=RID + "medium_name", text="receipt_a1.png").click()
    assert gd(resourceId=RID + "medium_viewer_toolbar").child(text="receipt_a1.png").exists
    shot = gd.screenshot()
    photo = gd(resourceId=RID + "gestures_view").info["bounds"]
    cy = (photo["top"] + photo["bottom"]) // 2
    w = photo["right"] - photo["left"]  # fitted: 500x700 scaled to the width, its left half black, the right white
    assert (
        shot.getpixel((photo["left"] + w // 4, cy))[0] < 40 and shot.getpixel((photo["left"] + 3 * w // 4, cy))[0] > 215
    )
    # another app's ACTION_VIEW of a picture: PhotoActivity shows it
    sh(adb_cli, s, f"am force-stop {PKG}")
    sh(
        adb_cli,
        s,
        "am start -a android.intent.action.VIEW -d file:///storage/emulated/0/Pictures/wide.jpg -t image/jpeg",
    )
    assert focus(adb_cli, s) == f"{PKG}/{PKG}.activities.PhotoActivity"
    assert gd(resourceId=RID + "medium_viewer_toolbar").child(text="wide.jpg").exists


def test_copy_rename_favourite_and_delete_land_on_storage_and_in_its_database(gd, gallery_dev, adb_cli, tmp_path):
    s = gallery_dev.serial
    sh(adb_cli, s, "rm -rf /sdcard/*/*")  # on its own: the pictures put there, all files granted
    gallery_dev.model.fs.write("/sdcard/DCIM/receipt_a1.png", _picture((500, 700)))
    gallery_dev.model.fs.write("/sdcard/Pictures/wide.jpg", _picture((900, 300), "JPEG"))
    gallery_dev.model.packages[PKG].appops["MANAGE_EXTERNAL_STORAGE"] = "allow"
    _open_picture(gd, adb_cli, s, "DCIM", "receipt_a1.png")
    gd(description="More options").click()
    gd(resourceId="android:id/title", text="Copy to").click()
    assert gd(resourceId=RID + "dir_name", text="Pictures").exists  # the folders with media, then another one
    gd(resourceId="android:id/button3", text="Other folder").click()
    assert [e.info["text"] for e in gd(resourceId=RID + "breadcrumb_text")] == ["Internal", "> DCIM"]
    gd(resourceId=RID + "breadcrumb_text", text="Internal").click()
    gd(resourceId=RID + "list_item_name", text="Download").click()
    gd(resourceId="android:id/button1", text="OK").click()
    assert sh(adb_cli, s, "ls /sdcard/Download").split() == ["receipt_a1.png"]
    gd(description="More options").click()
    gd(resourceId="android:id/title", text="Rename").click()
    assert gd(resourceId=RID + "rename_item_extension").info["text"] == "png"
    gd(resourceId=RID + "rename_item_name").set_text("march")
    gd(resourceId="android:id/button1", text="OK").click()
    assert sh(adb_cli, s, "ls /sdcard/DCIM").split() == ["march.png"]
    assert gd(resourceId=RID + "medium_viewer_toolbar").child(text="march.png").exists
    gd(resourceId=RID + "bottom_favorite").click()
    root(adb_cli, s)
    conn = pull_db(adb_cli, s, DB, tmp_path / "gallery.db")
    rows = [dict(r) for r in conn.execute("SELECT full_path, filename, parent_path FROM favorites")]
    assert rows == [
        {
            "full_path": "/storage/emulated/0/DCIM/march.png",
            "filename": "march.png",
            "parent_path": "/storage/emulated/0/DCIM",
        }
    ]
    conn.execute("DELETE FROM favorites")  # AndroidWorld's way: the file pulled, changed, pushed back, app stopped
    conn.execute(
        "INSERT INTO favorites (full_path, filename, parent_path) VALUES (?, ?, ?)",
        ("/storage/emulated/0/Pictures/wide.jpg", "wide.jpg", "/storage/emulated/0/Pictures"),
    )
    conn.commit()
    conn.close()
    push_db(adb_cli, s, tmp_path / "gallery.db", DB, PKG)
    _open_folder(gd, adb_cli, s, "Pictures")
    assert gd(resourceId=RID + "favorite").exists
    gd(resourceId=RID + "medium_thumbnail").click()
    gd(resourceId=RID + "bottom_delete").click()
    assert (
        gd(resourceId=RID + "delete_remember_title")
        .info["text"]
        .startswith('Are you sure you want to delete "wide.jpg"')
    )
    gd(resourceId="android:id/button1", text="Yes").click()
    assert sh(adb_cli, s, "ls /sdcard/Pictures").split() == []
    assert gd(resourceId=RID + "dir_name").wait(3)  # the folder emptied: back to the folders
    assert {e.info["text"] for e in gd(resourceId=RID + "dir_name")} == {"DCIM", "Download"}


def _aw_device() -> VirtualDeviceModel:
    """Storage as AndroidWorld's set-up leaves it: the picture in DCIM, the gallery granted all files."""
    m = VirtualDeviceModel()
    m.fs.write("/sdcard/DCIM/receipt.png", _picture((500, 600)))
    m.fs.write("/sdcard/DCIM/receipt_xk3.jpg", _picture((500, 600), "JPEG"))
    m.packages[PKG].appops["MANAGE_EXTERNAL_STORAGE"] = "allow"
    return m


def test_androidworld_s_save_copy_of_receipt_copies_the_picture_into_download():
    m = _aw_device()
    params = {"file_name": "receipt_xk3.jpg"}
    outside = {"suite": "androidworld", "class": "SaveCopyOfReceiptTaskEval", "params": params}
    steps = run(create_agent("reference"), m, make_task("AndroidWorld SaveCopy", outside=outside), max_steps=20)
    assert isinstance(steps[-1].action, Complete) and not any(s.invalid for s in steps), [s.action for s in steps]
    assert m.fs.read("/sdcard/Download/receipt_xk3.jpg") == m.fs.read("/sdcard/DCIM/receipt_xk3.jpg")


@pytest.mark.slow
def test_androidworld_s_transcribe_receipt_opens_the_picture_then_writes_the_note():
    m = _aw_device()
    text = "Date, Item, Amount\n2023-03-02, Webcam, $21.34"
    outside = {
        "suite": "androidworld",
        "class": "MarkorTranscribeReceipt",
        "params": {"file_name": "receipt.md", "text": text},
    }
    steps = run(create_agent("reference"), m, make_task("AndroidWorld Transcribe", outside=outside), max_steps=40)
    assert isinstance(steps[-1].action, Complete) and not any(s.invalid for s in steps), [s.action for s in steps]
    assert str(steps[0].action).find(PKG) > 0  # the gallery first, left showing the picture; Markor after
    assert any(t.package == PKG and t.top.activity.endswith(".ViewPagerActivity") for t in m.tasks)
    assert m.fs.read("/storage/emulated/0/Documents/Markor/receipt.md").decode().strip() == text


def test_the_familys_reference_leaves_the_files_its_end_state_reads(gallery_dev, adb_server):
    tasks = family_tasks("gallery", 7, 4)
    dev = open_device(adb_server, gallery_dev, use_u2=False)
    try:
        state = DeviceState(dev.shell)
        for task in (
            next(t for t in tasks if "param:action=copy" in t.tags),
            next(t for t in tasks if "param:action=rename" in t.tags),
        ):
            dev.shell(["sh", "-c", f"rm -rf /sdcard/*/*; pm clear {PKG}"])
            gallery_dev.model.packages[PKG].appops.pop("MANAGE_EXTERNAL_STORAGE", None)  # a fresh device's
            for row in task.start.content:
                state.insert(row.uri, dict(row.values))
            checks = [e.check.state for e in task.end_state if e.check is not None and e.check.state is not None]
            assert not all(evaluate_state(c, state, "en").held for c in checks)
            steps = run(create_agent("reference"), gallery_dev.model, task, lang="en", max_steps=task.max_steps)
            assert isinstance(steps[-1].action, Complete) and not any(s.invalid for s in steps)
            assert all(evaluate_state(c, state, "en").held for c in checks)
    finally:
        dev.shell(["sh", "-c", f"rm -rf /sdcard/*/*; pm clear {PKG}"])
        dev.close()
