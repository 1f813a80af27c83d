"""System dialogs and in-app popups (`emulator/virtual/sysdialogs.py`, `ui/interruptions.py`) through the real adb
binary: the broadcast brings up "<App> isn't responding" as its own window of package `android` (in
`uiautomator dump` and in the pixels, over a scrim), the permission prompt as a window of the permission
controller, the rating prompt and the promo as windows of the app's own package; their buttons and BACK take them
away and leave the app as it was; `dumpsys battery unplug` / `set level 4` brings SystemUI's low-battery warning
and `dumpsys battery reset` takes it back; Chinese wording on a zh device."""

from __future__ import annotations

import io
import re

from PIL import Image

from emulator.virtual.sysdialogs import ACTION

NOTES = "com.droidharness.notes"


def _sh(adb_cli, serial: str, line: str) -> str:
    r = adb_cli("-s", serial, "shell", line)
    return (r.stdout + r.stderr).decode()


def _dump(adb_cli, serial: str) -> str:
    return _sh(adb_cli, serial, "uiautomator dump /sdcard/window_dump.xml >/dev/null && cat /sdcard/window_dump.xml")


def _node(dump: str, attr: str) -> tuple[str, tuple[int, int, int, int]] | None:
    """(package, bounds) of the first node carrying `attr` (e.g. `text="Wait"`)."""
    for m in re.finditer(r"<node [^>]*>", dump):
        node = m.group(0)
        if attr in node:
            pkg = re.search(r'package="([^"]*)"', node)
            b = re.search(r'bounds="\[(\d+),(\d+)\]\[(\d+),(\d+)\]"', node)
            assert pkg is not None and b is not None
            x1, y1, x2, y2 = map(int, b.groups())
            return pkg.group(1), (x1, y1, x2, y2)
    return None


def _tap(adb_cli, serial: str, attr: str) -> None:
    found = _node(_dump(adb_cli, serial), attr)
    assert found is not None, attr
    x1, y1, x2, y2 = found[1]
    _sh(adb_cli, serial, f"input tap {(x1 + x2) // 2} {(y1 + y2) // 2}")


def _shot(adb_cli, serial: str) -> Image.Image:
    png = adb_cli("-s", serial, "exec-out", "screencap -p").stdout
    return Image.open(io.BytesIO(png)).convert("RGB")


def _app_texts(dump: str, package: str) -> list[str]:
    return re.findall(rf'text="([^"]*)"[^>]*package="{re.escape(package)}"', dump)


def _open(adb_cli, serial: str, package: str = NOTES) -> None:
    _sh(adb_cli, serial, f"monkey -p {package} 1")


def _interrupt(adb_cli, serial: str, kind: str) -> str:
    return _sh(adb_cli, serial, f"am broadcast -a {ACTION} --es kind {kind}")


def test_anr_dialog_is_its_own_window_of_android_drawn_over_a_scrim_and_wait_leaves_the_app(adb_cli, vdevice):
    s = vdevice.serial
    _open(adb_cli, s)
    before = _dump(adb_cli, s)
    clean = _shot(adb_cli, s)
    said = _interrupt(adb_cli, s, "anr")
    assert f'result=-1, data="shown anr {NOTES}"' in said
    dump = _dump(adb_cli, s)
    title = _node(dump, "isn&apos;t responding") or _node(dump, "isn't responding")
    assert title is not None and title[0] == "android"
    wait, close = _node(dump, 'text="Wait"'), _node(dump, 'text="Close app"')
    assert wait is not None and wait[0] == "android" and close is not None and close[0] == "android"
    shot = _shot(adb_cli, s)
    w, h = shot.size
    corner = (w // 10, h // 2)  # app area outside the dialog: dimmed by the scrim
    assert sum(shot.getpixel(corner)) < sum(clean.getpixel(corner)) - 60
    x1, y1, x2, y2 = wait[1]
    assert shot.crop((x1, y1, x2, y2)).getcolors(1 << 16) != clean.crop((x1, y1, x2, y2)).getcolors(1 << 16)
    _tap(adb_cli, s, 'text="Wait"')
    after = _dump(adb_cli, s)
    assert 'package="android"' not in after
    assert _app_texts(after, NOTES) == _app_texts(before, NOTES) != []


def test_anr_close_app_stops_the_app(adb_cli, vdevice):
    s = vdevice.serial
    _open(adb_cli, s)
    _interrupt(adb_cli, s, "anr")
    _tap(adb_cli, s, 'text="Close app"')
    dump = _dump(adb_cli, s)
    assert f'package="{NOTES}"' not in dump and 'package="android"' not in dump
    assert _sh(adb_cli, s, "pidof " + NOTES).strip() == ""


def test_anr_in_chinese_and_back_waits(adb_cli, make_vdevice):
    vd = make_vdevice(locale="zh")
    s = vd.serial
    _open(adb_cli, s)
    before = _dump(adb_cli, s)
    _interrupt(adb_cli, s, "anr")
    dump = _dump(adb_cli, s)
    title = _node(dump, "没有响应")
    assert title is not None and title[0] == "android"
    assert _node(dump, 'text="等待"') is not None and _node(dump, 'text="关闭应用"') is not None
    _sh(adb_cli, s, "input keyevent 4")
    after = _dump(adb_cli, s)
    assert "没有响应" not in after and _app_texts(after, NOTES) == _app_texts(before, NOTES)


def test_permission_prompt_is_a_window_of_the_permission_controller(adb_cli, make_vdevice):
    for locale, deny, words in (("en", "Don't allow", ("While using the app", "Only this time")), ("zh", "不允许", ())):
        vd = make_vdevice(locale=locale)
        s = vd.serial
        _open(adb_cli, s)
        before = _dump(adb_cli, s)
        _interrupt(adb_cli, s, "permission")
        dump = _dump(adb_cli, s)
        found = _node(dump, "permission_deny_button")
        assert found is not None and found[0] == "com.google.android.permissioncontroller"
        assert deny.replace("'", "&apos;") in dump or deny in dump
        assert all(w in dump for w in words)
        _tap(adb_cli, s, "permission_deny_button")
        after = _dump(adb_cli, s)
        assert "permissioncontroller" not in after and _app_texts(after, NOTES) == _app_texts(before, NOTES)


def test_rating_popup_is_a_dialog_of_the_app_and_not_now_dismisses_it(adb_cli, make_vdevice):
    for locale, not_now in (("en", "Not now"), ("zh", "以后再说")):
        s = make_vdevice(locale=locale).serial
        _open(adb_cli, s)
        before = _dump(adb_cli, s)
        _interrupt(adb_cli, s, "rate")
        dump = _dump(adb_cli, s)
        btn = _node(dump, f'text="{not_now}"')
        assert btn is not None and btn[0] == NOTES
        assert _node(dump, "Enjoying" if locale == "en" else "喜欢") is not None
        _tap(adb_cli, s, f'text="{not_now}"')
        after = _dump(adb_cli, s)
        assert not_now not in after and _app_texts(after, NOTES) == _app_texts(before, NOTES)


def test_promo_covers_the_app_and_its_close_button_or_back_takes_it_away(adb_cli, vdevice):
    s = vdevice.serial
    _open(adb_cli, s)
    before = _dump(adb_cli, s)
    clean = _shot(adb_cli, s)
    _interrupt(adb_cli, s, "promo")
    dump = _dump(adb_cli, s)
    close = _node(dump, 'content-desc="Close"')
    assert close is not None and close[0] == NOTES
    shot = _shot(adb_cli, s)
    w, h = shot.size
    assert shot.getpixel((w // 2, h // 2)) != clean.getpixel((w // 2, h // 2))
    _tap(adb_cli, s, 'content-desc="Close"')
    assert _app_texts(_dump(adb_cli, s), NOTES) == _app_texts(before, NOTES)
    _interrupt(adb_cli, s, "promo")
    _sh(adb_cli, s, "input keyevent 4")
    after = _dump(adb_cli, s)
    assert "promo_" not in after and _app_texts(after, NOTES) == _app_texts(before, NOTES)


def test_broadcast_refuses_an_unknown_kind_and_a_popup_on_the_launcher(adb_cli, vdevice):
    s = vdevice.serial
    said = _interrupt(adb_cli, s, "nope")
    assert "result=0" in said and "unknown kind" in said
    _sh(adb_cli, s, "input keyevent 3")
    said = _interrupt(adb_cli, s, "rate")
    assert "result=0" in said and "no popup receiver" in said
    assert "Enjoying" not in _dump(adb_cli, s)


def test_low_battery_warning_comes_with_dumpsys_battery_and_goes_with_reset(adb_cli, vdevice):
    s = vdevice.serial
    _open(adb_cli, s)
    assert _sh(adb_cli, s, "dumpsys battery unplug; dumpsys battery set level 4").strip() == ""
    state = _sh(adb_cli, s, "dumpsys battery")
    assert "  level: 4\n" in state and "USB powered: false" in state
    assert "|com.android.systemui|3|low_battery|" in _sh(adb_cli, s, "cmd notification list")
    dump = _dump(adb_cli, s)
    title = _node(dump, 'text="Battery low"')
    assert title is not None and title[0] == "com.android.systemui"
    assert _node(dump, 'text="4% remaining"') is not None
    _sh(adb_cli, s, "dumpsys battery reset")
    state = _sh(adb_cli, s, "dumpsys battery")
    assert "  level: 100\n" in state and "USB powered: true" in state
    assert "low_battery" not in _sh(adb_cli, s, "cmd notification list")


def test_uiautomator2_sees_the_dialog_as_a_window_of_android_and_clicks_it_away(u2dev, vdevice):
    u2dev.shell(f"monkey -p {NOTES} 1")
    before = u2dev.dump_hierarchy()
    u2dev.shell(f"am broadcast -a {ACTION} --es kind anr")
    assert u2dev(text="Wait", packageName="android").exists
    assert u2dev(resourceId="android:id/aerr_close").exists
    u2dev(text="Wait").click()
    assert not u2dev(packageName="android").exists
    assert _app_texts(u2dev.dump_hierarchy(), NOTES) == _app_texts(before, NOTES)
    u2dev.shell(f"am broadcast -a {ACTION} --es kind promo")
    assert u2dev(description="Close", packageName=NOTES).exists
    u2dev.press("back")
    assert not u2dev(resourceId=f"{NOTES}:id/promo_close").exists


def test_low_battery_warning_in_chinese_and_none_while_plugged_in(adb_cli, make_vdevice):
    s = make_vdevice(locale="zh").serial
    _sh(adb_cli, s, "dumpsys battery set level 4")  # still on USB power: no warning
    assert "low_battery" not in _sh(adb_cli, s, "cmd notification list")
    _sh(adb_cli, s, "dumpsys battery set level 50; dumpsys battery unplug; dumpsys battery set level 4")
    dump = _dump(adb_cli, s)
    title = _node(dump, 'text="电池电量低"')
    assert title is not None and title[0] == "com.android.systemui"
    assert _node(dump, 'text="剩余 4%"') is not None
    _sh(adb_cli, s, "dumpsys battery set usb 1")  # plugged in: the warning goes
    assert "low_battery" not in _sh(adb_cli, s, "cmd notification list")
