"""The adapter's android_env requests, executed by android_env's own `AdbCallParser` over the harness's link to an
embedded device (the real adb server, the emulator's userdebug image), read back through adb: every request type
AndroidWorld's code sends, the shell command lines joined as the adb client joins them (pipes, `*`, `if`), a failed
command as android_env's `AdbControllerError`, files pushed and pulled, `adb root`, and `adb emu` without a console."""

from __future__ import annotations

import pytest

pytest.importorskip("android_env.proto.adb_pb2")
from android_env.components import errors  # noqa: E402
from android_env.proto import adb_pb2  # noqa: E402

from harness.androidworld.adb import AdbCalls, LinkAdb  # noqa: E402
from harness.androidworld.doors import LinkDoors  # noqa: E402
from harness.device.slotdoors import SlotDoors  # noqa: E402
from tests.device_util import open_device  # noqa: E402

OK = adb_pb2.AdbResponse.Status.OK
Req = adb_pb2.AdbRequest


@pytest.fixture
def calls(make_vdevice, adb_server):
    vd = make_vdevice(image="emulator")
    dev = open_device(adb_server, vd)
    consoled: list[str] = []
    yield vd, AdbCalls(LinkDoors(dev)), dev, consoled
    dev.close()


def generic(c: AdbCalls, *args: str) -> adb_pb2.AdbResponse:
    return c.execute_adb_call(Req(generic=Req.GenericRequest(args=list(args))))


def test_generic_shell_lines_reach_the_device_shell_as_the_adb_client_joins_them(calls):
    vd, c, _, _ = calls
    r = generic(c, "shell", "echo", "a", "|", "tr", "a", "b")  # a pipe: the shell reads it, not echo
    assert r.status == OK and r.generic.output.decode().strip() == "b"
    script = "if [ -d /sdcard ]; then echo Exists; else echo Missing; fi"
    r = generic(c, "shell", script)
    assert r.generic.output.decode().strip() == "Exists"
    r = generic(c, "shell", "settings", "put", "global", "wifi_on", "0")
    assert r.status == OK and vd.model.settings["global"]["wifi_on"] == "0"


def test_a_failed_command_is_android_envs_adb_controller_error(calls):
    _, c, _, _ = calls
    with pytest.raises(errors.AdbControllerError, match=r"adb shell false"):
        generic(c, "shell", "false")
    with pytest.raises(errors.AdbControllerError, match="no emulator detected"):
        generic(c, "emu", "sms", "send", "555", "hi")  # this device has no console here
    with pytest.raises(errors.AdbControllerError, match="not something"):
        generic(c, "reboot-bootloader")


def test_settings_tap_keys_activity_and_packages(calls):
    vd, c, dev, _ = calls
    ns = Req.SettingsRequest.Namespace
    put = Req.SettingsRequest(name_space=ns.SYSTEM, put=Req.SettingsRequest.Put(key="screen_brightness", value="7"))
    assert c.execute_adb_call(Req(settings=put)).status == OK
    get = Req.SettingsRequest(name_space=ns.SYSTEM, get=Req.SettingsRequest.Get(key="screen_brightness"))
    assert c.execute_adb_call(Req(settings=get)).settings.output.decode().strip() == "7"
    listed = c.execute_adb_call(
        Req(package_manager=Req.PackageManagerRequest(list=Req.PackageManagerRequest.List(packages={})))
    )
    assert "com.android.settings" in listed.package_manager.list.items
    start = c.execute_adb_call(Req(start_activity=Req.StartActivity(full_activity="com.android.settings/.Settings")))
    assert start.status == OK
    current = c.execute_adb_call(Req(get_current_activity=Req.GetCurrentActivity()))
    assert current.get_current_activity.full_activity.startswith("com.android.settings/")
    assert dev.observe().package == "com.android.settings"
    mark = len(vd.model.events.since(0))
    home = Req(press_button=Req.PressButton(button=Req.PressButton.Button.HOME))
    assert c.execute_adb_call(home).status == OK
    assert c.execute_adb_call(Req(tap=Req.Tap(x=10, y=10))).status == OK
    kinds = [e.kind for e in vd.model.events.since(mark)]
    assert "key" in kinds and "tap" in kinds
    assert dev.observe().package != "com.android.settings"


def test_push_and_pull_whole_files_over_sync(calls, tmp_path):
    _, c, _, _ = calls
    data = bytes(range(256)) * 40
    assert c.execute_adb_call(Req(push=Req.Push(content=data, path="/sdcard/Download/blob.bin"))).status == OK
    pulled = c.execute_adb_call(Req(pull=Req.Pull(path="/sdcard/Download/blob.bin")))
    assert pulled.status == OK and pulled.pull.content == data
    with pytest.raises(errors.AdbControllerError, match="failed to stat remote object"):
        c.execute_adb_call(Req(pull=Req.Pull(path="/sdcard/Download/none.bin")))


def test_adb_root_on_the_emulator_image_and_back(calls):
    vd, c, dev, _ = calls
    assert dev.link.has("u2")
    r = generic(c, "root")
    assert r.status == OK and vd.model.adbd.root and vd.model.adbd.restarts == 1
    assert generic(c, "shell", "whoami").generic.output.decode().strip() == "root"
    assert generic(c, "shell", "ls", "/data/data").status == OK
    assert dev.link.has("u2")  # the link came back with uiautomator2, not on shell paths
    assert dev.observe().paths["hierarchy"].startswith("u2")
    assert generic(c, "unroot").status == OK and not vd.model.adbd.root
    assert generic(c, "shell", "whoami").generic.output.decode().strip() == "shell"


def test_root_is_refused_on_a_phones_user_build(make_vdevice, adb_server):
    vd = make_vdevice()  # a phone: a user build
    dev = open_device(adb_server, vd)
    try:
        with pytest.raises(errors.AdbControllerError, match="cannot"):
            generic(AdbCalls(LinkDoors(dev)), "root")
        assert not vd.model.adbd.root
    finally:
        dev.close()


def test_the_console_door_answers_adb_emu(calls):
    _, _, dev, _ = calls
    sent: list[str] = []
    adb = LinkAdb(LinkDoors(dev, SlotDoors(lambda line: sent.append(line) or ["ok line"], lambda: False)))
    assert adb.execute_command(["emu", "sms", "send", "5551234", "hello"]) == b"ok line\nOK\n"
    assert sent == ["sms send 5551234 hello"]
    assert adb.commands == ["adb emu sms send 5551234 hello"]
