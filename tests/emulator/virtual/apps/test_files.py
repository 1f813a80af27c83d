"""Files (DocumentsUI) driven as clients drive a phone: the real adb server for the shell and push, uiautomator2
(unmodified) for the screen. Its one truth is shared storage: what the shell and `adb push` put there is what it
lists, and what it moves, renames and deletes is what `ls` sees. Then AndroidWorld's two Files classes played by the
reference agent, and the files family through the shell's `content insert` and `cat`."""

from __future__ import annotations

import posixpath
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from emulator.virtual import VirtualDevice
from emulator.virtual.adbserver import PrivateAdbServer
from emulator.virtual.apps.files_data import PREFS
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
pytestmark = pytest.mark.xdist_group("files-device")
PKG = "com.google.android.documentsui"
RID = PKG + ":id/"
FILES = f"{PKG}/com.android.documentsui.files.FilesActivity"
TITLE = "android:id/title"


@pytest.fixture(scope="module")
def files_dev(adb_server: PrivateAdbServer) -> Iterator[VirtualDevice]:
    """One device of the emulator's image for the module (the tests leave its storage as they found it)."""
    with emulator_image(adb_server) as vd:
        yield vd


@pytest.fixture(scope="module")
def fd(files_dev: VirtualDevice, adb_server: PrivateAdbServer) -> Iterator[Any]:
    with uiautomator(adb_server, files_dev.serial) as dev:
        yield dev


def _start(adb_cli: Any, serial: str) -> None:
    sh(adb_cli, serial, f"am force-stop {PKG}; am start -n {FILES}")


def _storage_folder(fd: Any, name: str) -> None:
    fd(description="Show roots").click()
    fd(resourceId="android:id/summary", textMatches=".* free").click()
    fd(resourceId=TITLE, text=name).click()


def test_listed_launched_and_its_storage_named_after_the_device(fd, files_dev, adb_cli, tmp_path: Path):
    s = files_dev.serial
    assert f"package:{PKG}" in sh(adb_cli, s, "pm list packages").split()
    local = tmp_path / "report.pdf"
    local.write_bytes(b"%PDF-1.4\n" + b"x" * 1991)
    assert adb_cli("-s", s, "push", str(local), "/sdcard/Download/report.pdf").returncode == 0
    _start(adb_cli, s)
    assert focus(adb_cli, s) == FILES
    assert fd(resourceId=RID + "header_title").get_text() == "Files in Downloads"  # the home root
    assert fd(resourceId=TITLE, text="report.pdf").exists
    fd(resourceId=RID + "sub_menu_list", description="List view").click()
    assert fd(resourceId=RID + "metadata").get_text().endswith(", 2.00 kB, PDF document")
    fd(description="Show roots").click()
    titles = [e.get_text() for e in fd(resourceId=RID + "roots_list").child(resourceId=TITLE)]
    model = sh(adb_cli, s, "getprop ro.product.model", stderr=False).strip()
    assert titles == ["Recent", "Images", "Videos", "Audio", "Documents", "Downloads", model] == [*titles[:6], model]
    assert model == "sdk_gphone64_x86_64" and fd(resourceId="android:id/summary").get_text() == "108 GB free"
    fd.press("back")
    sh(adb_cli, s, "settings put global device_name 'Travel phone'")
    try:
        fd(description="Show roots").click()
        assert fd(resourceId=TITLE, text="Travel phone").exists
        fd(resourceId=TITLE, text="Travel phone").click()
        assert fd(resourceId=RID + "header_title").get_text() == "Files on Travel phone"
    finally:
        sh(adb_cli, s, f"settings delete global device_name; rm /sdcard/Download/report.pdf; pm clear {PKG}")


def test_what_it_moves_renames_makes_and_deletes_is_what_ls_sees(fd, files_dev, adb_cli):
    s = files_dev.serial
    sh(adb_cli, s, "mkdir -p /sdcard/Documents/Trips; echo milk > /sdcard/Documents/list.txt")
    sh(adb_cli, s, "echo a > /sdcard/Documents/a.txt")
    mtime = sh(adb_cli, s, "stat -c %Y /sdcard/Documents/list.txt")
    try:
        _start(adb_cli, s)
        _storage_folder(fd, "Documents")
        assert [e.get_text() for e in fd(resourceId=TITLE)] == ["Trips", "a.txt", "list.txt"]  # folders first
        fd(resourceId=TITLE, text="list.txt").long_click()
        assert fd(resourceId=RID + "action_bar_title").get_text() == "1 selected"
        fd(description="More options").click()
        fd(resourceId=RID + "title", text="Move to\u2026").click()
        assert focus(adb_cli, s) == f"{PKG}/com.android.documentsui.picker.PickActivity"
        _storage_folder(fd, "Documents")
        assert fd(resourceId=RID + "item_root", enabled=False).child(text="a.txt").exists
        assert fd(resourceId=RID + "item_root", enabled=True).child(text="Trips").exists  # folders open, files do not
        _storage_folder(fd, "Download")
        fd(resourceId="android:id/button1", text="Move").click()
        assert focus(adb_cli, s) == FILES
        assert sh(adb_cli, s, "cat /sdcard/Download/list.txt") == "milk\n"
        assert sh(adb_cli, s, "stat -c %Y /sdcard/Download/list.txt") == mtime  # moved as it was
        assert sh(adb_cli, s, "ls /sdcard/Documents").split() == ["Trips", "a.txt"]
        fd(resourceId=TITLE, text="a.txt").long_click()
        fd(description="More options").click()
        fd(resourceId=RID + "title", text="Rename").click()
        fd(resourceId="android:id/text1").set_text("b.txt")
        fd(resourceId="android:id/button1", text="OK").click()
        fd(description="More options").click()
        fd(resourceId=RID + "title", text="New folder").click()
        fd(resourceId="android:id/text1").set_text("Receipts")
        fd(resourceId="android:id/button1", text="OK").click()
        assert sh(adb_cli, s, "ls /sdcard/Documents").split() == ["Receipts", "Trips", "b.txt"]
        fd(resourceId=TITLE, text="Trips").long_click()
        fd(resourceId=TITLE, text="b.txt").click()  # a tap adds to the selection
        fd(resourceId=RID + "action_menu_delete", description="Delete").click()
        assert fd(text="Delete 2 items?").exists
        fd(resourceId="android:id/button1", text="OK").click()
        assert sh(adb_cli, s, "ls /sdcard/Documents").split() == ["Receipts"]
    finally:
        sh(adb_cli, s, f"rm -rf /sdcard/Documents/* /sdcard/Download/list.txt; pm clear {PKG}")


def test_the_view_mode_is_kept_per_root_in_its_preferences():
    m = VirtualDeviceModel()
    m.start_activity(PKG)
    m.tap(*next(v for r in m.view_roots() for v in r.walk() if v.desc == "List view").center)
    prefs = (m.fs.peek(PREFS.path) or b"").decode()
    assert '<int name="rootViewMode-com.android.providers.downloads.documentsdownloads" value="1" />' in prefs
    m.force_stop(PKG)
    m.start_activity(PKG)
    assert any(v.desc == "Grid view" for r in m.view_roots() for v in r.walk())  # still a list
    m.clear_data(PKG)
    m.start_activity(PKG)
    assert any(v.desc == "List view" for r in m.view_roots() for v in r.walk())  # the default grid again


def test_search_the_media_roots_and_recent_read_storage_and_its_index():
    m = VirtualDeviceModel(emulator_image=True)
    for path in ("/sdcard/DCIM/Camera/IMG_1.jpg", "/sdcard/Pictures/cat.png", "/sdcard/Documents/cats/notes_cat.txt"):
        m.fs.write(path, b"x", parents=True)
    m.start_activity(PKG)

    def titles() -> list[str]:
        return [v.text for r in m.view_roots() for v in r.walk() if v.resource_id == TITLE]

    def tap(**kw: str) -> None:
        v = next(v for r in m.view_roots() for v in r.walk() if all(getattr(v, k) == x for k, x in kw.items()))
        m.tap(*v.center)

    tap(desc="Show roots")
    tap(text="sdk_gphone64_x86_64")
    tap(desc="Search")
    m.commit_text("cat")  # names under the root holding it, the newest first (folders first)
    assert set(titles()) == {"cats", "Notifications", "cat.png", "notes_cat.txt"} and titles()[:2] != ["cat.png"]
    m.key(4)
    m.key(4)
    tap(desc="Show roots")
    tap(text="Images")  # MediaDocumentsProvider: the folders images are in, then their images
    assert titles() == ["Camera", "Pictures"]
    tap(text="Camera")
    assert titles() == ["IMG_1.jpg"]
    tap(desc="Show roots")
    tap(text="Recent")
    assert sorted(titles()) == ["IMG_1.jpg", "cat.png", "notes_cat.txt"]


# --- AndroidWorld's classes ---------------------------------------------------------------------------------------
def _aw_device(emulator: bool) -> VirtualDeviceModel:
    """Storage as AndroidWorld's set-up leaves it: noise files beside the one a task is about, the Files app run."""
    m = VirtualDeviceModel(emulator_image=emulator)
    for i in range(18):
        m.fs.write(f"/sdcard/Alarms/{i:02d}_wake_up_copy.mp3", b"x" * i, parents=True)
    m.fs.write("/sdcard/Alarms/fancy_banana.mp3", b"abc")
    m.fs.mkdir("/sdcard/Podcasts", parents=True)
    return m


@pytest.mark.parametrize("emulator", [True, False])
def test_androidworld_s_classes_move_and_delete_the_file(emulator: bool):
    """Posing as the emulator the storage root is titled as the goals name it; on a phone it is found by its free
    space."""
    m = _aw_device(emulator)
    params = {"file_name": "fancy_banana.mp3", "source_folder": "Alarms", "destination_folder": "Podcasts"}
    task = make_task(
        "AndroidWorld FilesMoveFile", outside={"suite": "androidworld", "class": "FilesMoveFile", "params": params}
    )
    steps = run(create_agent("reference"), m, task, max_steps=20)
    assert isinstance(steps[-1].action, Complete) and not any(s.invalid for s in steps), [s.action for s in steps]
    assert m.fs.read("/sdcard/Podcasts/fancy_banana.mp3") == b"abc" and not m.fs.exists(
        "/sdcard/Alarms/fancy_banana.mp3"
    )
    params = {"file_name": "07_wake_up_copy.mp3", "subfolder": "Alarms"}
    task = make_task(
        "AndroidWorld FilesDeleteFile", outside={"suite": "androidworld", "class": "FilesDeleteFile", "params": params}
    )
    steps = run(create_agent("reference"), m, task, max_steps=20)
    assert isinstance(steps[-1].action, Complete) and not any(s.invalid for s in steps), [s.action for s in steps]
    names = sorted(posixpath.basename(n) for n, _ in m.fs.listdir("/sdcard/Alarms"))
    assert "07_wake_up_copy.mp3" not in names and len(names) == 17


# --- the family ---------------------------------------------------------------------------------------------------
def test_the_familys_reference_leaves_the_files_its_end_state_reads(files_dev, adb_server):
    tasks = family_tasks("files", 0, 4)
    dev = open_device(adb_server, files_dev, use_u2=False)
    try:
        state = DeviceState(dev.shell)
        for task in (
            next(t for t in tasks if "param:action=move" in t.tags),
            next(t for t in tasks if "param:action=delete" in t.tags),
        ):
            for row in task.start.content:
                state.insert(row.uri, dict(row.values))
            checks = [e.check.state for e in task.end_state if e.check is not None and e.check.state is not None]
            assert not all(evaluate_state(c, state, "en").held for c in checks)
            steps = run(create_agent("reference"), files_dev.model, task, lang="en", max_steps=task.max_steps)
            assert isinstance(steps[-1].action, Complete) and not any(s.invalid for s in steps)
            assert all(evaluate_state(c, state, "en").held for c in checks)
    finally:
        dev.shell(["sh", "-c", f"rm -rf /sdcard/*/*; pm clear {PKG}"])
        dev.close()
