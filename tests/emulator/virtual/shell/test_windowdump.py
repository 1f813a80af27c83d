"""The window manager's and input's answers emulator harnesses parse, through the real adb server: `am stack list`
(android_env greps `visible=true`), `dumpsys input` (AndroidWorld's `logicalFrame=[0, 0, W, H]`, android_env's
`SurfaceOrientation: N`), `dumpsys window` (`mCurrentRotation=ROTATION_N`, the displays section), `wm size` /
`wm density` overrides, and the touch-feedback settings."""

from __future__ import annotations

import re


def _sh(adb_cli, vdevice, line: str) -> str:
    r = adb_cli("-s", vdevice.serial, "shell", line)
    assert r.returncode == 0, r.stderr
    return r.stdout.decode()


def test_am_stack_list_marks_the_foreground_task_visible(vdevice, adb_cli):
    _sh(adb_cli, vdevice, "am start -n com.android.settings/.Settings")
    visible = _sh(adb_cli, vdevice, "am stack list | grep -E visible=true")
    # android_env's regex for the current activity
    m = re.search(
        r"^\ *taskId=(?P<id>[0-9]*): (?P<base>[^\s]*) .*visible=true.*topActivity=ComponentInfo{(?P<top>[^\s]*)}$",
        visible.rstrip("\n"),
    )
    assert m is not None and visible.count("\n") == 1
    assert m["top"] == "com.android.settings/com.android.settings.Settings"
    everything = _sh(adb_cli, vdevice, "am stack list")
    assert everything.startswith("RootTask id=") and "visible=false" in everything  # the launcher, behind
    assert f"RootTask id={m['id']} bounds=[0,0][1080,2400] displayId=0 userId=0" in everything


def test_dumpsys_input_and_window_follow_the_rotation(vdevice, adb_cli):
    frames = _sh(adb_cli, vdevice, "dumpsys input | grep logicalFrame")
    assert re.findall(r"logicalFrame=\[0, 0, (\d+), (\d+)\]", frames)[0] == ("1080", "2400")
    assert _sh(adb_cli, vdevice, "dumpsys input | grep SurfaceOrientation").strip() == "SurfaceOrientation: 0"
    assert _sh(adb_cli, vdevice, "dumpsys window | grep mCurrentRotation").strip() == "mCurrentRotation=ROTATION_0"
    _sh(adb_cli, vdevice, "settings put system accelerometer_rotation 0; settings put system user_rotation 1")
    frames = _sh(adb_cli, vdevice, "dumpsys input | grep logicalFrame")
    assert re.findall(r"logicalFrame=\[0, 0, (\d+), (\d+)\]", frames)[0] == ("2400", "1080")
    assert _sh(adb_cli, vdevice, "dumpsys input | grep SurfaceOrientation").strip() == "SurfaceOrientation: 1"
    assert _sh(adb_cli, vdevice, "dumpsys window | grep mCurrentRotation").strip() == "mCurrentRotation=ROTATION_90"


def test_dumpsys_window_displays_and_wm_overrides(vdevice, adb_cli):
    displays = _sh(adb_cli, vdevice, "dumpsys window displays")
    assert displays.startswith("WINDOW MANAGER DISPLAY CONTENTS (dumpsys window displays)\n  Display: mDisplayId=0")
    assert "    init=1080x2400 420dpi base=1080x2400 420dpi cur=1080x2400" in displays
    out = _sh(adb_cli, vdevice, "wm size 720x1600; wm density 320; wm size; wm density")
    assert out == "Physical size: 1080x2400\nOverride size: 720x1600\nPhysical density: 420\nOverride density: 320\n"
    assert "init=1080x2400 420dpi base=720x1600 320dpi" in _sh(adb_cli, vdevice, "dumpsys window displays")
    assert _sh(adb_cli, vdevice, "wm size reset; wm density reset; wm size; wm density") == (
        "Physical size: 1080x2400\nPhysical density: 420\n"
    )
    # the windows section is still there, once
    assert _sh(adb_cli, vdevice, "dumpsys window | grep -c mCurrentFocus") == "1\n"


def test_touch_feedback_settings_are_kept(vdevice, adb_cli):
    out = _sh(
        adb_cli,
        vdevice,
        "settings put system show_touches 1; settings put system pointer_location 1; "
        "settings get system show_touches; settings get system pointer_location; "
        "settings put system pointer_location 0; settings get system pointer_location",
    )
    assert out == "1\n1\n0\n"


def test_the_configuration_follows_the_font_scale_night_mode_and_density(vdevice, adb_cli):
    """Configuration.toString(): the font scale first, `night` after the orientation, the logical density."""
    line = _sh(adb_cli, vdevice, "dumpsys window | grep mGlobalConfiguration")
    assert "mGlobalConfiguration={1.0 ?mcc?mnc [en_US] ldltr sw411dp w411dp h914dp 420dpi nrml long port finger" in line
    _sh(adb_cli, vdevice, "settings put system font_scale 1.3; cmd uimode night yes; wm density 280")
    line = _sh(adb_cli, vdevice, "dumpsys window | grep mGlobalConfiguration")
    assert "={1.3 ?mcc?mnc [en_US] ldltr sw617dp w617dp h1371dp 280dpi nrml long port night finger" in line
