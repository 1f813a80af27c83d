"""The mini shell's commands: output formats as adbutils / uiautomator2 parse them (in process, with adbutils'
own parsing code run over our output), device effects through the model, and integration through the real adb
server (`vdevice`)."""

from __future__ import annotations

import base64
import hashlib
import io
import re
import struct
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import adbutils
import pytest
from adbutils._utils import list2cmdline
from adbutils.shell import ShellExtension
from PIL import Image

from emulator.virtual.model import ADB_KEYBOARD_IME, LATIN_IME, LAUNCHER_PACKAGE, VirtualDeviceModel
from emulator.virtual.shell import run
from emulator.virtual.shell.apk import read_apk

U2_ASSETS = Path(adbutils.__file__).resolve().parent.parent / "uiautomator2" / "assets"
U2_APK = U2_ASSETS / "app-uiautomator.apk"


@dataclass
class FakeIO:
    stdin: bytes = b""
    out: bytearray = field(default_factory=bytearray)
    err: bytearray = field(default_factory=bytearray)
    merged: bytearray = field(default_factory=bytearray)

    def read_stdin(self, n: int = -1, timeout: float | None = None) -> bytes:
        data = self.stdin if n is None or n < 0 else self.stdin[:n]
        self.stdin = self.stdin[len(data) :]
        return data

    def write_stdout(self, data: bytes) -> None:
        self.out.extend(data)
        self.merged.extend(data)

    def write_stderr(self, data: bytes) -> None:
        self.err.extend(data)
        self.merged.extend(data)

    @property
    def closed(self) -> bool:
        return False

    def wait_closed(self, timeout: float | None = None) -> bool:
        return False


@dataclass
class Result:
    status: int
    out: str
    err: str
    raw: bytes


def sh(model: VirtualDeviceModel, line: str, stdin: bytes = b"") -> Result:
    io_ = FakeIO(stdin=stdin)
    status = run(model, line, io_)
    return Result(status, io_.out.decode("utf-8", "replace"), io_.err.decode("utf-8", "replace"), bytes(io_.out))


class InProcessAdb(ShellExtension):
    """adbutils' ShellExtension (window_size, rotation, app_current, app_info, battery ...) over the mini shell,
    with `shell:` v1 semantics (stderr merged, output rstripped): adbutils' own regexes parse our output."""

    def __init__(self, model: VirtualDeviceModel) -> None:
        self.model = model
        self.lines: list[str] = []

    def shell(self, cmdargs, encoding="utf-8", rstrip=True, **_):  # type: ignore[override]
        line = list2cmdline(cmdargs) if isinstance(cmdargs, (list, tuple)) else cmdargs
        self.lines.append(line)
        io_ = FakeIO()
        run(self.model, line, io_)
        if encoding is None:
            return bytes(io_.merged)
        text = io_.merged.decode(encoding, "replace")
        return text.rstrip() if rstrip else text

    @property
    def sync(self):  # pragma: no cover - not used by these tests
        raise NotImplementedError


@pytest.fixture
def model() -> VirtualDeviceModel:
    return VirtualDeviceModel()


@pytest.fixture
def d(model) -> InProcessAdb:
    return InProcessAdb(model)


def third_party(model: VirtualDeviceModel) -> str:
    """A launchable non-launcher package of the built-in apps."""
    names = [n for n, p in model.packages.items() if p.launcher_activity and n != LAUNCHER_PACKAGE]
    assert names, "the virtual device should ship launchable apps"
    return sorted(names)[0]


def install_u2_apk(model: VirtualDeviceModel) -> Result:
    model.fs.write("/data/local/tmp/app.apk", U2_APK.read_bytes())
    return sh(model, "pm install -r -t /data/local/tmp/app.apk")


# --- adbutils' parsers over our output -----------------------------------------------------------------
def test_window_size_rotation_and_override(model, d):
    assert tuple(d.window_size()) == (1080, 2400)
    assert d.rotation() == 0
    model.set_rotation(1)
    assert d.rotation() == 1
    assert tuple(d.window_size()) == (2400, 1080)
    model.set_rotation(0)
    assert sh(model, "wm size 720x1600").status == 0
    assert sh(model, "wm size").out == "Physical size: 1080x2400\nOverride size: 720x1600\n"
    assert tuple(d.window_size()) == (720, 1600)
    sh(model, "wm size reset")
    assert sh(model, "wm size").out == "Physical size: 1080x2400\n"
    assert sh(model, "wm density").out == "Physical density: 420\n"


def test_app_current_follows_the_foreground(model, d):
    cur = d.app_current()
    assert (cur.package, cur.activity) == (LAUNCHER_PACKAGE, model.foreground.activity)
    pkg = third_party(model)
    d.app_start(pkg)
    assert d.app_current().package == pkg
    assert d.app_current().activity == model.foreground.activity
    d.app_stop(pkg)
    assert d.app_current().package == LAUNCHER_PACKAGE


def test_dumpsys_activity_fallback_formats(model):
    pkg = third_party(model)
    model.start_activity(pkg)
    out = sh(model, "dumpsys activity activities").out
    m = re.search(r"mResumedActivity: ActivityRecord\{.*?\s+(?P<package>[^\s]+)/(?P<activity>[^\s]+)\s.*?\}", out)
    assert m and m.group("package") == pkg
    top = sh(model, "dumpsys activity top").out
    m = re.search(r"ACTIVITY (?P<package>[^\s]+)/(?P<activity>[^/\s]+) \w+ pid=(?P<pid>\d+)", top)
    assert m and m.group("package") == pkg
    ps = sh(model, "ps -A").out
    assert any(line.split()[1] == m.group("pid") and line.split()[-1] == pkg for line in ps.splitlines()[1:])


def test_getprop_list_packages_app_info(model, d):
    assert d.getprop("ro.product.model") == "Medium Phone"
    assert d.getprop("no.such.prop") == ""
    allprops = sh(model, "getprop").out
    assert "[ro.build.version.sdk]: [34]\n" in allprops
    pkgs = d.list_packages()
    assert LAUNCHER_PACKAGE in pkgs and pkgs == sorted(set(model.packages))
    assert LAUNCHER_PACKAGE not in d.list_packages(["-3"])
    assert set(d.list_packages(["-s"])) == {n for n, p in model.packages.items() if p.system}
    info = d.app_info(LAUNCHER_PACKAGE)
    assert info is not None and info.version_name == model.packages[LAUNCHER_PACKAGE].version_name
    assert info.version_code == model.packages[LAUNCHER_PACKAGE].version_code
    assert info.first_install_time is not None and "SYSTEM" in info.flags
    assert d.app_info("com.no.such") is None


def test_screen_battery_ip(model, d):
    assert d.is_screen_on() is True
    sh(model, "input keyevent POWER")
    assert d.is_screen_on() is False
    assert "mWakefulness=Asleep" in sh(model, "dumpsys power").out
    sh(model, "input keyevent KEYCODE_WAKEUP")
    assert d.is_screen_on() is True
    assert "Display Power: state=ON" in sh(model, "dumpsys power").out
    b = d.battery()
    assert (b.level, b.scale, b.present, b.usb_powered, b.technology) == (100, 100, True, True, "Li-ion")
    assert d.wlan_ip() == "10.0.2.16"
    assert re.search(r"inet (\d+.*?)/\d+", sh(model, "ip addr show dev wlan0").out).group(1) == "10.0.2.16"


def test_app_clear_and_install_remote(model, d):
    pkg = third_party(model)
    assert sh(model, f"pm clear {pkg}").out == "Success\n"
    r = sh(model, "pm clear com.no.such")
    assert r.status != 0 and "Success" not in r.out
    model.fs.write("/data/local/tmp/app.apk", U2_APK.read_bytes())
    d.install_remote("/data/local/tmp/app.apk", clean=True)
    assert "com.github.uiautomator" in model.packages
    assert not model.fs.exists("/data/local/tmp/app.apk")
    with pytest.raises(adbutils.AdbInstallError):
        model.fs.write("/data/local/tmp/bad.apk", b"not a zip")
        d.install_remote("/data/local/tmp/bad.apk")


# --- input -----------------------------------------------------------------------------------------------
def test_input_tap_swipe_keys_reach_the_model(model):
    mark = model.events.mark()
    assert sh(model, "input tap 100 200.5").status == 0
    assert sh(model, "input swipe 10 20 300 400 150").status == 0
    assert sh(model, "input touchscreen swipe 10 20 300 400").status == 0
    assert sh(model, "input keyevent KEYCODE_BACK 4 HOME").status == 0
    assert sh(model, "input keyevent --longpress 3").status == 0
    assert sh(model, "input draganddrop 1 2 300 400 100").status == 0
    evs = [(e.kind, e.data) for e in model.events.since(mark) if e.kind in ("tap", "swipe", "key")]
    assert evs[0] == ("tap", {"x": 100.0, "y": 200.5, "source": "input"})
    assert evs[1][1] == {"x1": 10.0, "y1": 20.0, "x2": 300.0, "y2": 400.0, "duration_ms": 150, "source": "input"}
    assert evs[2][1]["duration_ms"] == 300
    assert [e[1]["code"] for e in evs if e[0] == "key"] == [4, 4, 3, 3]
    assert evs[-1][0] == "swipe" and evs[-1][1]["duration_ms"] > 100


def test_input_text_ascii_and_percent_s(model):
    mark = model.events.mark()
    assert sh(model, "input text 'hello%sworld'").status == 0
    assert sh(model, "input text first second").status == 0  # only the first argument is typed
    texts = [e.data["text"] for e in model.events.since(mark, "text")]
    assert texts == ["hello world", "first"]


@pytest.mark.parametrize("text", ["你好", "café", "😀", "abc中"])
def test_input_text_non_ascii_fails_like_a_phone(model, text):
    mark = model.events.mark()
    r = sh(model, "input text " + list2cmdline([text]))
    assert r.status == 255
    assert r.out == ""
    assert r.err.startswith(
        "\nException occurred while executing 'text':\n"
        "java.lang.NullPointerException: Attempt to get length of null array\n\tat "
    )
    assert model.events.since(mark, "text") == []


def test_input_bad_numbers_and_unknown(model):
    r = sh(model, "input tap x 1")
    assert r.status == 255 and "Error: Invalid arguments for command: tap" in r.err
    r = sh(model, "input frob")
    assert r.status == 255 and "Unknown command: frob" in r.err
    assert "Usage: input" in sh(model, "input").out


# --- am / monkey / pm ------------------------------------------------------------------------------------
def test_am_start_and_errors(model):
    pkg = third_party(model)
    act = model.packages[pkg].launcher_activity
    r = sh(model, f"am start -n {pkg}/{act}")
    assert r.status == 0 and r.out.startswith("Starting: Intent { cmp=")
    assert model.foreground.package == pkg
    r = sh(model, f"am start -W -a android.intent.action.MAIN -c android.intent.category.LAUNCHER -n {pkg}/{act}")
    assert "Status: ok" in r.out and "Complete" in r.out
    assert "act=android.intent.action.MAIN cat=[android.intent.category.LAUNCHER]" in r.out
    r = sh(model, f"am start -n {pkg}/.NoSuchActivity")
    assert r.err == f"Error type 3\nError: Activity class {{{pkg}/{pkg}.NoSuchActivity}} does not exist.\n"
    r = sh(model, "am start -a android.intent.action.VIEW -d 'https://example.com/x?a=1'")
    assert "dat=https://example.com/..." in r.out
    sh(model, "am force-stop " + pkg)
    assert pkg not in [t.package for t in model.tasks]


def test_monkey_launches(model):
    pkg = third_party(model)
    r = sh(model, f"monkey -p {pkg} -c android.intent.category.LAUNCHER 1")
    assert r.status == 0 and "Events injected: 1" in r.out
    assert model.foreground.package == pkg
    r = sh(model, "monkey -p com.no.such -c android.intent.category.LAUNCHER 1")
    assert r.status != 0 and "No activities found to run" in r.err


def test_pm_list_packages_enabled_and_disabled_filters(model):
    pkg = "com.google.android.contacts"

    def listed(flags: str) -> set[str]:
        return {ln[len("package:") :] for ln in sh(model, f"pm list packages {flags}").out.splitlines()}

    everything = listed("")
    assert pkg in everything and listed("-e") == everything and listed("-d") == set()
    assert sh(model, f"pm disable-user {pkg}").out == f"Package {pkg} new state: disabled-user\n"
    assert listed("-e") == everything - {pkg} and listed("-d") == {pkg} and listed("") == everything
    sh(model, f"pm enable {pkg}")
    assert listed("-e") == everything and listed("-d") == set()


def test_a_disabled_package_does_not_start(model):
    """PackageManager does not resolve a disabled package's components: `am start -n` says the class does not
    exist, `resolve-activity` finds none, monkey aborts; `pm enable` brings them back."""
    pkg = "com.google.android.contacts"
    comp = sh(model, f"cmd package resolve-activity --brief {pkg}").out.splitlines()[-1]
    assert comp.startswith(pkg + "/")
    sh(model, f"pm disable-user {pkg}")
    r = sh(model, f"am start -n {comp}")
    assert "Error type 3" in r.err and "does not exist" in r.err and model.foreground.package != pkg
    assert "No activity found" in sh(model, f"cmd package resolve-activity --brief {pkg}").out
    r = sh(model, f"monkey -p {pkg} -c android.intent.category.LAUNCHER 1")
    assert r.status != 0 and "No activities found to run" in r.err
    sh(model, f"pm enable {pkg}")
    r = sh(model, f"am start -n {comp}")
    assert "Error" not in r.err and model.foreground.package == pkg
    launchable = [p for p, info in model.packages.items() if info.launcher_activity]
    # monkey without -p starts the first launchable app: not a disabled one
    sh(model, f"pm disable-user {launchable[0]}")
    sh(model, "input keyevent KEYCODE_HOME")
    assert model.foreground.package != launchable[1]
    assert sh(model, "monkey -c android.intent.category.LAUNCHER 1").status == 0
    assert model.foreground.package == launchable[1]


def test_pm_path_uninstall_and_bad_apk(model):
    assert sh(model, "pm path com.no.such").status == 1
    res = install_u2_apk(model)
    assert res.out == "Success\n"
    path = sh(model, "pm path com.github.uiautomator").out
    assert path.startswith("package:/data/app/") and path.endswith("/base.apk\n")
    assert model.fs.read(path[len("package:") :].strip()) == U2_APK.read_bytes()
    dump = sh(model, "dumpsys package com.github.uiautomator").out
    assert "versionName=2.4.0" in dump and "versionCode=2004001" in dump
    assert re.search(r"firstInstallTime=[-\d]+\s+[:\d]+", dump)
    assert sh(model, "pm uninstall com.github.uiautomator").out == "Success\n"
    assert "com.github.uiautomator" not in model.packages
    r = sh(model, "pm uninstall com.github.uiautomator")
    assert r.status == 1 and r.out == "Failure [DELETE_FAILED_INTERNAL_ERROR]\n"
    model.fs.write("/data/local/tmp/bad.apk", b"PK\x03\x04garbage")
    r = sh(model, "pm install /data/local/tmp/bad.apk")
    assert r.status == 1 and r.out.startswith("Failure [INSTALL_PARSE_FAILED_NOT_APK: ")


def test_cmd_package_install_from_stdin(model):
    data = U2_APK.read_bytes()
    r = sh(model, f"cmd package 'install' -S {len(data)}", stdin=data)
    assert r.out == "Success\n"
    assert model.packages["com.github.uiautomator"].ime_service == ADB_KEYBOARD_IME


def test_apk_parser_reads_the_u2_apk():
    info = read_apk(U2_APK.read_bytes())
    assert info.package == "com.github.uiautomator"
    assert info.launcher_activity == "com.github.uiautomator.MainActivity"
    assert "com.github.uiautomator.AdbKeyboard" in info.ime_services


def test_apk_parser_rejects_non_apks():
    from emulator.virtual.shell.apk import ApkError

    for data in [b"", b"hello", _zip({"classes.dex": b"x"}), _zip({"AndroidManifest.xml": b"<manifest/>"})]:
        with pytest.raises(ApkError):
            read_apk(data)


def _zip(files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for k, v in files.items():
            z.writestr(k, v)
    return buf.getvalue()


# --- IME and the AdbKeyboard broadcasts --------------------------------------------------------------------
def test_ime_flow_as_uiautomator2_runs_it(model):
    assert sh(model, "ime list -s -a").out == LATIN_IME + "\n"
    r = sh(model, f"ime enable {ADB_KEYBOARD_IME}")
    assert r.status == 255 and "Unknown input method" in r.err
    install_u2_apk(model)
    assert ADB_KEYBOARD_IME in sh(model, "ime list -s -a").out.splitlines()
    assert ADB_KEYBOARD_IME not in sh(model, "ime list -s").out.splitlines()
    b64 = base64.b64encode("你好".encode()).decode()
    r = sh(model, f"am broadcast -a ADB_KEYBOARD_INPUT_TEXT --es text {b64}")
    assert "Broadcast completed: result=0" in r.out  # not the current IME: no receiver
    assert sh(model, f"ime set {ADB_KEYBOARD_IME}").status == 255  # not enabled yet
    assert (
        sh(model, f"ime enable {ADB_KEYBOARD_IME}").out == f"Input method {ADB_KEYBOARD_IME}: now enabled for user #0\n"
    )
    assert sh(model, f"ime set {ADB_KEYBOARD_IME}").out == f"Input method {ADB_KEYBOARD_IME} selected for user #0\n"
    assert sh(model, "settings get secure default_input_method").out == ADB_KEYBOARD_IME + "\n"
    assert f"mCurMethodId={ADB_KEYBOARD_IME}" in sh(model, "dumpsys input_method").out
    mark = model.events.mark()
    r = sh(model, f"am broadcast -a ADB_KEYBOARD_INPUT_TEXT --es text {b64}")
    assert r.out == (
        "Broadcasting: Intent { act=ADB_KEYBOARD_INPUT_TEXT flg=0x400000 (has extras) }\n"
        'Broadcast completed: result=-1, data="success"\n'
    )
    assert [e.data["text"] for e in model.events.since(mark, "text")] == ["你好"]
    for action in ("ADB_KEYBOARD_CLEAR_TEXT", "ADB_KEYBOARD_HIDE", "ADB_KEYBOARD_SMART_ENTER"):
        r = sh(model, f"am broadcast -a {action}")
        assert re.search(r"result=(-?\d+)", r.out).group(1) == "-1", action
    assert sh(model, f"ime disable {ADB_KEYBOARD_IME}").status == 0
    assert model.current_ime == LATIN_IME


# --- settings, files, capture, processes ----------------------------------------------------------------
def test_settings(model):
    assert sh(model, "settings get system screen_brightness").out == "102\n"
    assert sh(model, "settings put system screen_brightness 200").status == 0
    assert sh(model, "settings get system screen_brightness").out == "200\n"
    assert sh(model, "settings get global no_such_key").out == "null\n"
    assert "airplane_mode_on=0\n" in sh(model, "settings list global").out
    sh(model, "settings put system accelerometer_rotation 0; settings put system user_rotation 1")
    assert model.rotation == 1


def test_file_commands(model):
    r = sh(model, "mkdir -p /sdcard/a/b && touch /sdcard/a/b/f.txt && echo -n hi > /sdcard/a/x && ls /sdcard/a")
    assert r.out == "b\nx\n"
    assert sh(model, "cat /sdcard/a/x").out == "hi"
    long = sh(model, "ls -l /sdcard/a").out.splitlines()
    assert long[0].startswith("total ") and re.match(r"-rw\S+ 1 \S+ \S+ 2 \d{4}-\d\d-\d\d \d\d:\d\d x$", long[-1])
    assert sh(model, "md5sum /sdcard/a/x").out == f"{hashlib.md5(b'hi').hexdigest()}  /sdcard/a/x\n"
    r = sh(model, "rm /sdcard/a")
    assert r.status == 1 and r.err == "rm: /sdcard/a: Is a directory\n"
    assert sh(model, "rm -rf /sdcard/a; ls /sdcard/a").err == "ls: /sdcard/a: No such file or directory\n"
    assert sh(model, "rm -f /sdcard/none").status == 0
    assert sh(model, "mkdir /sdcard/Download").err == "mkdir: /sdcard/Download: File exists\n"
    assert sh(model, "cd /sdcard && pwd").out == "/sdcard\n"
    assert sh(model, "rm /system/bin/sh").status == 1


def test_screencap_png_raw_and_file(model):
    png = sh(model, "screencap -p").raw
    img = Image.open(io.BytesIO(png))
    assert img.format == "PNG" and img.size == model.display_size
    raw = sh(model, "screencap").raw
    w, h, fmt, _cs = struct.unpack_from("<IIII", raw)
    assert (w, h, fmt) == (*model.display_size, 1) and len(raw) == 16 + w * h * 4
    assert sh(model, "screencap -p /sdcard/s.png").status == 0
    assert model.fs.read("/sdcard/s.png")[:8] == b"\x89PNG\r\n\x1a\n"


def test_uiautomator_dump(model):
    r = sh(model, "rm -f /data/local/tmp/uidump.xml; uiautomator dump /data/local/tmp/uidump.xml && echo success")
    assert r.out == "UI hierchary dumped to: /data/local/tmp/uidump.xml\nsuccess\n"
    assert model.fs.read("/data/local/tmp/uidump.xml").startswith(b"<?xml")
    assert sh(model, "uiautomator dump").out == "UI hierchary dumped to: /sdcard/window_dump.xml\n"
    assert model.fs.exists("/sdcard/window_dump.xml")


def test_ps_identity_and_misc(model):
    ps = sh(model, "ps -A").out.splitlines()
    assert ps[0].split()[:3] == ["USER", "PID", "PPID"] and len(ps) > 5
    assert all(len(line.split()) >= 9 for line in ps[1:])
    assert sh(model, "pidof system_server").out.strip().isdigit()
    assert sh(model, "pidof nothing").status == 1
    assert sh(model, "id").out.startswith("uid=2000(shell) gid=2000(shell)")
    assert sh(model, "whoami").out == "shell\n"
    assert sh(model, "getenforce").out == "Enforcing\n"
    assert sh(model, "echo -n a; echo b").out == "ab\n"
    assert sh(model, "sleep 0").status == 0


def test_app_process_needs_the_jar_and_main_class(model):
    model.fs.remove("/data/local/tmp/u2.jar") if model.fs.exists("/data/local/tmp/u2.jar") else None
    r = sh(model, "CLASSPATH=/data/local/tmp/u2.jar app_process / com.wetest.uia2.Main -p 9008")
    assert r.status == 1 and "ClassNotFoundException" in r.err


# --- integration through the real adb server ------------------------------------------------------------
@pytest.mark.timeout(120)
def test_adbutils_through_the_real_adb_server(vdevice):
    dev = vdevice.adb
    model = vdevice.model
    assert tuple(dev.window_size()) == model.display_size
    assert dev.rotation() == 0
    assert dev.getprop("ro.build.version.sdk") == "34"
    assert dev.app_current().package == LAUNCHER_PACKAGE
    assert dev.is_screen_on()
    assert dev.battery().level == 100
    assert LAUNCHER_PACKAGE in dev.list_packages()
    pkg = third_party(model)
    dev.app_start(pkg)
    assert dev.app_current().package == pkg
    dev.app_stop(pkg)
    dev.app_clear(pkg)
    assert dev.app_current().package == LAUNCHER_PACKAGE
    assert dev.app_info(LAUNCHER_PACKAGE) is not None
    assert dev.shell2("false").returncode == 1
    assert dev.shell2("sh -c 'exit 7'").returncode == 7
    r = dev.shell2(["echo", "a b;reboot", "$(reboot)"])
    assert r.returncode == 0 and r.output.strip() == "a b;reboot $(reboot)"
    assert "reboot" not in [argv[0] for argv in model.events.commands()]
    img = dev.screenshot(error_ok=False)
    assert img.size == model.display_size
    xml = dev.dump_hierarchy()
    assert xml.startswith("<?xml") and "<hierarchy" in xml


@pytest.mark.timeout(120)
def test_install_u2_apk_through_adb(vdevice, adb_cli):
    dev = vdevice.adb
    dev.install(str(U2_APK), nolaunch=True, silent=True)
    assert "com.github.uiautomator" in vdevice.model.packages
    assert ADB_KEYBOARD_IME in dev.shell(["ime", "list", "-s", "-a"]).splitlines()
    dev.uninstall("com.github.uiautomator")
    assert "com.github.uiautomator" not in vdevice.model.packages
    r = adb_cli("-s", vdevice.serial, "install", str(U2_APK))  # streamed: exec:cmd package install -S
    assert r.returncode == 0, (r.stdout, r.stderr)
    assert b"Success" in r.stdout
    assert "com.github.uiautomator" in vdevice.model.packages


@pytest.mark.timeout(120)
def test_input_text_cjk_fails_through_adb(vdevice, adb_cli):
    r = adb_cli("-s", vdevice.serial, "shell", "input", "text", "你好")
    assert r.returncode == 255
    assert b"NullPointerException" in r.stderr
    assert vdevice.model.events.all("text") == []
