"""Markor driven as clients drive a phone: the real adb server for the shell, push and pull, uiautomator2
(unmodified) for the screen. Its notes are the files under /storage/emulated/0/Documents/Markor: what the shell
writes there is what the app lists and opens, and what the app saves is what `cat` reads."""

from __future__ import annotations

import re

import pytest

from tests.emulator.virtual.apps.devshell import focus, root, sh

pytest.importorskip("uiautomator2")

PKG = "net.gsantner.markor"
RID = PKG + ":id/"
NOTEBOOK = "/storage/emulated/0/Documents/Markor"
PREFS = f"/data/data/{PKG}/shared_prefs/{PKG}_preferences.xml"


def _first_start(d, adb_cli, serial: str) -> None:
    """The intro's five pages, the storage dialog, Settings' All files access switch, back to the file browser."""
    sh(adb_cli, serial, f"am start -n {PKG}/.activity.MainActivity")
    for _ in range(4):
        d(resourceId=RID + "next", text="NEXT").click()
    d(resourceId=RID + "done", text="DONE").click()
    assert d(resourceId="android:id/message", text="Storage permission required to read and write files").wait(3)
    d(resourceId="android:id/button1", text="OK").click()
    assert (
        focus(adb_cli, serial) == "com.android.settings/com.android.settings.Settings$AppManageExternalStorageActivity"
    )
    switch = d(resourceId="com.android.settings:id/app_ops_settings_switch")
    assert not switch.info["checked"]
    switch.click()
    assert d(resourceId="com.android.settings:id/app_ops_settings_switch").info["checked"]
    d.press("back")
    assert d(resourceId=RID + "fab_add_new_item").wait(3)


def _titles(d) -> list[str]:
    return [e.info["text"] for e in d(resourceId=RID + "opoc_filesystem_item__title")]


def test_first_start_is_recorded_where_the_app_keeps_it(d, emu, adb_cli):
    _, s = emu
    pkgs = sh(adb_cli, s, "pm list packages -3").split()
    assert f"package:{PKG}" in pkgs
    assert "versionName=2.11.1" in sh(adb_cli, s, f"dumpsys package {PKG}")
    _first_start(d, adb_cli, s)
    root(adb_cli, s)
    prefs = sh(adb_cli, s, f"cat {PREFS}")
    assert '<boolean name="net.gsantner.markor.activity.IntroActivitywas_shown" value="true" />' in prefs
    sh(adb_cli, s, f"am force-stop {PKG}; am start -n {PKG}/.activity.MainActivity")
    assert d(resourceId=RID + "fab_add_new_item").wait(3) and not d(resourceId=RID + "next").exists
    sh(adb_cli, s, f"pm clear {PKG}")  # the preferences go with the app's data: the intro again
    assert sh(adb_cli, s, f"ls /data/data/{PKG}").split() == ["cache", "code_cache"]
    sh(adb_cli, s, f"am start -n {PKG}/.activity.MainActivity")
    assert d(resourceId=RID + "next", text="NEXT").wait(3)


def test_the_shell_s_files_are_the_notes_and_the_app_saves_only_what_changed(d, emu, adb_cli, tmp_path):
    _, s = emu
    _first_start(d, adb_cli, s)
    sh(adb_cli, s, f"mkdir -p {NOTEBOOK}/Work; echo 'Milk and eggs' > {NOTEBOOK}/groceries.md")
    local = tmp_path / "plan.txt"
    local.write_text("Day 1: museum\n")
    assert adb_cli("-s", s, "push", str(local), f"{NOTEBOOK}/plan.txt").returncode == 0
    d.press("back")
    sh(adb_cli, s, f"am start -n {PKG}/.activity.MainActivity")
    assert _titles(d) == ["..", "Work", "groceries.md", "plan.txt"]  # folders first, then by name
    item = d(resourceId=RID + "opoc_filesystem_item__root", descriptionStartsWith="File plan.txt ")
    assert re.fullmatch(r"File plan\.txt \d+/\d+/\d{4}, \d+:\d\d [AP]M", item.info["contentDescription"])
    before = sh(adb_cli, s, f"ls -ll {NOTEBOOK}/groceries.md")
    d(resourceId=RID + "opoc_filesystem_item__title", text="groceries.md").click()
    editor = d(resourceId=RID + "document__fragment__edit__highlighting_editor")
    assert editor.info["text"] == "Milk and eggs\n"
    assert d(resourceId=RID + "note__activity__text_note_title").info["text"] == "groceries.md"
    d(resourceId="android:id/home").click()  # left unchanged: not written again
    assert sh(adb_cli, s, f"ls -ll {NOTEBOOK}/groceries.md") == before
    root(adb_cli, s)
    sh(adb_cli, s, "date 010112002030.00")  # a later clock: a save shows as a later time
    d(resourceId=RID + "opoc_filesystem_item__title", text="plan.txt").click()
    d(resourceId=RID + "document__fragment__edit__highlighting_editor").set_text("Day 1: museum\nDay 2: beach")
    d.press("back")
    d.press("back")
    assert sh(adb_cli, s, f"cat {NOTEBOOK}/plan.txt") == "Day 1: museum\nDay 2: beach"
    assert " 2030-01-01 12:00:" in sh(adb_cli, s, f"ls -ll {NOTEBOOK}/plan.txt")
    pulled = tmp_path / "back.txt"
    assert adb_cli("-s", s, "pull", f"{NOTEBOOK}/plan.txt", str(pulled)).returncode == 0
    assert pulled.read_text() == "Day 1: museum\nDay 2: beach"


def test_new_file_dialog_makes_notes_and_folders(d, emu, adb_cli):
    _, s = emu
    _first_start(d, adb_cli, s)
    d(resourceId=RID + "fab_add_new_item").click()
    assert d(resourceId=RID + "new_file_dialog__ext").info["text"] == ".md"
    d(resourceId=RID + "new_file_dialog__name").click()
    d(resourceId="android:id/button1", text="OK").click()  # no name: nothing happens
    assert d(resourceId=RID + "new_file_dialog__name").exists
    d(resourceId=RID + "new_file_dialog__name").set_text("to/do")  # a slash cannot be in a file name
    d(resourceId="android:id/button1", text="OK").click()
    assert d(resourceId=RID + "note__activity__text_note_title").info["text"] == "to_do.md"
    d(resourceId=RID + "document__fragment__edit__highlighting_editor").set_text("call mum")
    d(resourceId="android:id/home").click()
    assert sh(adb_cli, s, f"cat {NOTEBOOK}/to_do.md") == "call mum"
    d(resourceId=RID + "fab_add_new_item").click()
    d(resourceId=RID + "new_file_dialog__name").set_text("Trips")
    d(resourceId="android:id/button3", text="Folder").click()
    d(resourceId=RID + "fab_add_new_item").click()
    d(resourceId=RID + "new_file_dialog__name").set_text("raw")
    d(resourceId=RID + "new_file_dialog__type").click()
    d(resourceId="android:id/text1", text="None").click()  # the None type: no extension (the field shows its hint)
    d(resourceId="android:id/button1", text="OK").click()
    d(resourceId="android:id/home").click()  # left empty: the file the dialog made stays empty
    assert sorted(sh(adb_cli, s, f"ls -1 {NOTEBOOK}").split()) == ["Trips", "raw", "to_do.md"]
    assert sh(adb_cli, s, f"[ -d {NOTEBOOK}/Trips ] && [ -f {NOTEBOOK}/raw ] && echo ok").strip() == "ok"


def test_selection_renames_moves_and_deletes(d, emu, adb_cli):
    _, s = emu
    _first_start(d, adb_cli, s)
    sh(adb_cli, s, f"mkdir -p {NOTEBOOK}/A {NOTEBOOK}/B; echo one > {NOTEBOOK}/A/n1.md; echo two > {NOTEBOOK}/n2.md")
    sh(adb_cli, s, f"echo three > {NOTEBOOK}/n3.md")
    d.press("back")
    sh(adb_cli, s, f"am start -n {PKG}/.activity.MainActivity")
    d(resourceId=RID + "opoc_filesystem_item__title", text="n2.md").long_click()
    assert d(resourceId=RID + "opoc_filesystem_item__root", descriptionStartsWith="Selected n2.md").exists
    d(resourceId=RID + "action_rename_selected_item").click()
    d(resourceId=RID + "new_name").set_text("n3.md")  # taken: the dialog says so and stays
    d(resourceId="android:id/button1").click()
    assert d(resourceId=RID + "dialog_message").info["text"].startswith("File/folder already exists!")
    d(resourceId=RID + "new_name").set_text("second.md")
    d(resourceId="android:id/button1").click()
    assert sh(adb_cli, s, f"cat {NOTEBOOK}/second.md") == "two\n"
    assert "n2.md" not in sh(adb_cli, s, f"ls {NOTEBOOK}")
    # into A, n1.md moved to B through the folder dialog
    d(resourceId=RID + "opoc_filesystem_item__title", text="A").click()
    d(resourceId=RID + "opoc_filesystem_item__title", text="n1.md").long_click()
    d(resourceId=RID + "action_move_selected_items").click()
    assert d(resourceId="android:id/alertTitle").info["text"] == "Move → A"
    panel = d(resourceId="android:id/parentPanel")
    panel.child(resourceId=RID + "opoc_filesystem_item__title", text="..").click()
    d(resourceId="android:id/parentPanel").child(resourceId=RID + "opoc_filesystem_item__title", text="B").click()
    assert d(resourceId="android:id/alertTitle").info["text"] == "Move → B"
    d(resourceId="android:id/button1", text="Select this folder").click()
    assert sh(adb_cli, s, f"cat {NOTEBOOK}/B/n1.md") == "one\n" and sh(adb_cli, s, f"ls {NOTEBOOK}/A") == ""
    d.press("back")  # up from A to the notebook
    d(resourceId=RID + "opoc_filesystem_item__title", text="n3.md").long_click()
    d(resourceId=RID + "opoc_filesystem_item__title", text="second.md").click()  # a tap adds to the selection
    d(resourceId=RID + "action_delete_selected_items").click()
    assert d(resourceId="android:id/alertTitle", text="Confirm Delete").exists
    assert "/storage/emulated/0/Documents/Markor/n3.md" in d(resourceId="android:id/message").info["text"]
    d(resourceId="android:id/button1").click()
    assert sorted(sh(adb_cli, s, f"ls {NOTEBOOK}").split()) == ["A", "B"]
