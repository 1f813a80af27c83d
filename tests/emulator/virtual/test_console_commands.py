"""The console commands test harnesses use, through `adb emu` and the console's TCP socket, each checked by what
Android then shows over adb: sms, gsm, geo, power, rotate, network, help. And where a posing device's console
sits when no port is given."""

from __future__ import annotations

import io
import re
import socket
import time

import pytest
from PIL import Image

from emulator.virtual import VirtualDevice
from emulator.virtual.apps.common import MESSAGES_PKG
from emulator.virtual.ports import DEFAULT_CONSOLE_PORTS, PORTS_ENV, console_ports

pytestmark = pytest.mark.integration


@pytest.fixture
def emu(make_posing_emulator, adb_server) -> tuple[VirtualDevice, str]:
    """A posing device whose console token is the adb server's HOME's, so `adb emu` authenticates."""
    return make_posing_emulator(console_home=adb_server.home)


def _emu(adb_cli, serial: str, *words: str) -> str:
    r = adb_cli("-s", serial, "emu", *words)
    return (r.stdout + r.stderr).decode()


def _sh(adb_cli, serial: str, line: str) -> str:
    return adb_cli("-s", serial, "shell", line).stdout.decode()


class Console:
    """The console over its socket, as telnet talks to it."""

    def __init__(self, port: int, token: str) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        self.f = self.sock.makefile("rwb", buffering=0)
        self.read_reply()
        assert self.send(f"auth {token}").endswith("OK\r\n")

    def read_reply(self) -> str:
        lines = []
        while True:
            line = self.f.readline().decode()
            lines.append(line)
            if line.startswith(("OK", "KO")) or not line:
                return "".join(lines)

    def send(self, line: str) -> str:
        self.f.write(line.encode() + b"\r\n")
        return self.read_reply()

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def console(emu, adb_server):
    vd, _ = emu
    token = (adb_server.home and open(f"{adb_server.home}/.emulator_console_auth_token").read().strip()) or ""
    c = Console(vd.console_port, token)
    yield c
    c.close()


def test_sms_send_lands_in_the_inbox_and_the_messages_app(emu, adb_cli):
    vd, serial = emu
    assert "OK" in _emu(adb_cli, serial, "sms", "send", "5551234", "Your code is 1234")
    rows = _sh(adb_cli, serial, "content query --uri content://sms/inbox --where \"address='5551234'\"")
    assert "body=Your code is 1234" in rows and "type=1" in rows and "read=0" in rows
    # the Messages app lists the new conversation first
    _sh(adb_cli, serial, f"monkey -p {MESSAGES_PKG} 1")
    screen = _sh(adb_cli, serial, "uiautomator dump /sdcard/ui.xml >/dev/null && cat /sdcard/ui.xml")
    assert 'text="5551234"' in screen and "Your code is 1234" in screen
    bad = _emu(adb_cli, serial, "sms", "send", "not-a-number", "hi")
    assert "KO: bad phone number format, must be [+](0-9)*" in bad


def test_sms_send_text_escapes_over_the_socket(emu, console, adb_cli):
    _, serial = emu
    assert console.send("sms send +15550000 line one\\nline two \\u4f60\\x21") == "OK\r\n"
    out = _sh(
        adb_cli, serial, "content query --uri content://sms/inbox --projection body --where \"address='+15550000'\""
    )
    assert "line one\nline two 你!" in out
    assert console.send("sms send 123").startswith("KO: missing argument, try 'sms send <phonenumber> <text message>'")
    assert "KO: badly formatted text" in console.send("sms send 123 bad\\q")


def test_gsm_call_accept_cancel_shows_in_the_call_state(emu, console, adb_cli):
    _, serial = emu

    def call_state() -> str:
        return [
            ln.strip() for ln in _sh(adb_cli, serial, "dumpsys telephony.registry").splitlines() if "mCallState" in ln
        ][0]

    assert call_state() == "mCallState=0"
    assert console.send("gsm call 5551234") == "OK\r\n"
    assert call_state() == "mCallState=1"  # ringing
    assert console.send("gsm list") == "inbound from 5551234    : incoming\r\nOK\r\n"
    assert console.send("gsm accept 5551234") == "OK\r\n"
    assert call_state() == "mCallState=2"  # off hook
    assert console.send("gsm list") == "inbound from 5551234    : active\r\nOK\r\n"
    assert console.send("gsm cancel 5551234") == "OK\r\n"
    assert call_state() == "mCallState=0"
    assert console.send("gsm cancel 5551234") == "KO: could not cancel this number\r\n"
    assert console.send("gsm accept 999") == "KO: no current call to/from number '999'\r\n"
    assert console.send("gsm call abc") == "KO: bad phone number format, use digits, # and + only\r\n"


def test_geo_fix_is_the_last_known_location(emu, console, adb_cli):
    _, serial = emu
    assert "Location[gps" not in _sh(adb_cli, serial, "dumpsys location")
    assert console.send("geo fix -122.084 37.422 12.5") == "OK\r\n"
    dump = _sh(adb_cli, serial, "dumpsys location")
    assert "gps: Location[gps 37.422000,-122.084000 " in dump and "alt=12.5" in dump
    assert console.send("geo fix 181 0") == "KO: invalid longitude value. Should be in [-180,+180] range\r\n"
    assert console.send("geo fix 1") == "KO: not enough arguments: see 'help geo fix' for details\r\n"
    assert console.send("geo fix x 1") == "KO: argument 'x' is not a number\r\n"


def test_power_changes_what_dumpsys_battery_reports(emu, adb_cli):
    vd, serial = emu
    assert "OK" in _emu(adb_cli, serial, "power", "capacity", "42")
    assert "OK" in _emu(adb_cli, serial, "power", "ac", "off")
    assert "OK" in _emu(adb_cli, serial, "power", "status", "discharging")
    dump = _sh(adb_cli, serial, "dumpsys battery")
    assert "  level: 42\n" in dump and "  AC powered: false\n" in dump and "  status: 3\n" in dump
    assert "USB powered: false" in dump
    assert 'text="42%"' in vd.model.hierarchy_xml()  # the status bar's battery level
    shown = _emu(adb_cli, serial, "power", "display")
    assert "AC: offline" in shown and "capacity: 42" in shown and "status: Discharging" in shown
    assert 'KO: Usage: "capacity <percentage>"' in _emu(adb_cli, serial, "power", "capacity", "101")
    assert "OK" in _emu(adb_cli, serial, "power", "ac", "on")
    assert "  AC powered: true\n" in _sh(adb_cli, serial, "dumpsys battery")


def test_rotate_turns_the_display(emu, adb_cli):
    vd, serial = emu
    w, h = vd.model.physical_size
    assert "OK" in _emu(adb_cli, serial, "rotate")
    shot = Image.open(io.BytesIO(adb_cli("-s", serial, "exec-out", "screencap", "-p").stdout))
    assert shot.size == (h, w)
    assert _sh(adb_cli, serial, "settings get system user_rotation").strip() == "1"
    for _ in range(3):
        _emu(adb_cli, serial, "rotate")
    shot = Image.open(io.BytesIO(adb_cli("-s", serial, "exec-out", "screencap", "-p").stdout))
    assert shot.size == (w, h)


def test_network_speed_and_delay_are_accepted_and_recorded(emu, console):
    vd, _ = emu
    assert console.send("network speed edge") == "OK\r\n"
    assert console.send("network delay umts") == "OK\r\n"
    assert (vd.model.hw.network_speed, vd.model.hw.network_delay) == ("edge", "umts")
    assert "speed: edge" in console.send("network status")
    assert console.send("network speed warp") == (
        "KO: invalid <speed> argument, see 'help network speed' for valid values\r\n"
    )
    assert console.send("network delay") == "KO: missing <delay> argument, see 'help network delay'\r\n"


def test_help_lists_the_commands(console):
    listing = console.send("help")
    for name in ("sms", "gsm", "geo", "power", "rotate", "network", "avd", "kill"):
        assert f"\r\n    {name}" in listing
    assert listing.endswith("OK\r\n")
    assert "accept" in console.send("help gsm")
    assert console.send("frobnicate") == "KO: unknown command, try 'help'\r\n"
    assert console.send("gsm frob 1") == "KO: bad sub-command\r\n"


def test_default_console_port_is_the_first_free_pair_where_adb_servers_scan(monkeypatch, adb_server):
    monkeypatch.delenv(PORTS_ENV)
    assert console_ports() == DEFAULT_CONSOLE_PORTS == range(5554, 5585, 2)
    monkeypatch.setenv(PORTS_ENV, "5600-5680")  # what the suite uses (tests/conftest.py)
    try:
        vd = VirtualDevice(emulator_console=True, adb_server_port=adb_server.port, console_home=adb_server.home)
    except OSError:
        pytest.skip("every console port pair in 5600..5680 is taken")
    try:
        vd.start()
        assert vd.console_port in range(5600, 5681, 2) and vd.port == vd.console_port + 1
        assert vd.serial == f"emulator-{vd.console_port}"
        deadline = time.monotonic() + 30
        while adb_server.state(vd.serial) != "device":
            assert time.monotonic() < deadline
            time.sleep(0.05)
    finally:
        vd.stop()
    monkeypatch.setenv(PORTS_ENV, "nonsense")
    with pytest.raises(ValueError, match="FIRST-LAST"):
        VirtualDevice(emulator_console=True)


def _dump(adb_cli, serial: str) -> str:
    return _sh(adb_cli, serial, "uiautomator dump /sdcard/window_dump.xml >/dev/null && cat /sdcard/window_dump.xml")


def _call_state(adb_cli, serial: str) -> str:
    dump = _sh(adb_cli, serial, "dumpsys telephony.registry")
    return next(ln.strip() for ln in dump.splitlines() if "mCallState" in ln)


def _focus(adb_cli, serial: str) -> str:
    return _sh(adb_cli, serial, "dumpsys window | grep mCurrentFocus").split()[-1].rstrip("}")


def _tap(adb_cli, serial: str, rid: str) -> None:
    found = re.search(rf'id/{rid}"[^>]*bounds="\[(\d+),(\d+)\]\[(\d+),(\d+)\]"', _dump(adb_cli, serial))
    assert found is not None, rid
    x1, y1, x2, y2 = map(int, found.groups())
    _sh(adb_cli, serial, f"input tap {(x1 + x2) // 2} {(y1 + y2) // 2}")


NOTES = "com.droidharness.notes/com.droidharness.notes.MainActivity"
INCALL = "com.google.android.dialer/com.google.android.dialer.incallui.InCallActivity"


def test_a_call_rings_with_the_incoming_call_screen_answered_and_ended_on_it(emu, console, adb_cli):
    _, serial = emu
    _sh(adb_cli, serial, f"am start -n {NOTES}")
    assert _focus(adb_cli, serial) == NOTES
    assert console.send("gsm call 5551234") == "OK\r\n"
    dump = _dump(adb_cli, serial)
    assert 'text="Incoming call"' in dump and 'text="5551234"' in dump
    assert re.search(r'id/incoming_call_answer"[^>]*content-desc="Answer"[^>]*clickable="true"', dump)
    assert re.search(r'id/incoming_call_decline"[^>]*content-desc="Decline"', dump)
    assert _call_state(adb_cli, serial) == "mCallState=1" and _focus(adb_cli, serial) == INCALL
    _tap(adb_cli, serial, "incoming_call_answer")
    assert console.send("gsm list") == "inbound from 5551234    : active\r\nOK\r\n"
    assert _call_state(adb_cli, serial) == "mCallState=2"
    dump = _dump(adb_cli, serial)
    assert 'text="On call"' in dump and "incoming_call_answer" not in dump
    assert re.search(r'id/incall_end_call_button"[^>]*content-desc="End call"', dump)
    _tap(adb_cli, serial, "incall_end_call_button")
    assert console.send("gsm list") == "OK\r\n" and _call_state(adb_cli, serial) == "mCallState=0"
    assert _focus(adb_cli, serial) == NOTES


def test_the_console_answers_and_hangs_up_what_the_screen_shows(emu, console, adb_cli):
    _, serial = emu
    assert console.send("gsm call 5551234") == "OK\r\n"
    assert console.send("gsm cancel 5551234") == "OK\r\n"  # while ringing
    assert "incoming_call" not in _dump(adb_cli, serial) and _focus(adb_cli, serial) != INCALL
    assert console.send("gsm call 5551234") == "OK\r\n"
    assert console.send("gsm accept 5551234") == "OK\r\n"
    assert 'text="On call"' in _dump(adb_cli, serial)
    _tap(adb_cli, serial, "incall_end_call_button")
    assert _call_state(adb_cli, serial) == "mCallState=0" and _focus(adb_cli, serial) != INCALL


def test_a_call_from_a_contact_shows_the_name_and_declined_is_gone(emu, console, adb_cli):
    _, serial = emu
    assert console.send("gsm call 16505550101") == "OK\r\n"  # Alice Johnson's number (+1 650-555-0101)
    dump = _dump(adb_cli, serial)
    assert 'text="Alice Johnson"' in dump and 'text="16505550101"' in dump
    _tap(adb_cli, serial, "incoming_call_decline")
    assert console.send("gsm list") == "OK\r\n" and _call_state(adb_cli, serial) == "mCallState=0"
    assert "Alice Johnson" not in _dump(adb_cli, serial)


def test_a_snapshot_keeps_the_battery_and_the_gps_fix(emu, console, adb_cli):
    _, serial = emu
    assert console.send("power capacity 42") == "OK\r\n"
    assert console.send("geo fix -122.084 37.422") == "OK\r\n"
    assert console.send("avd snapshot save hw") == "OK\r\n"
    assert console.send("power capacity 10") == "OK\r\n"
    assert console.send("geo fix 2.35 48.85") == "OK\r\n"
    assert console.send("avd snapshot load hw") == "OK\r\n"
    assert "capacity: 42\r\n" in console.send("power display")
    assert "level: 42" in _sh(adb_cli, serial, "dumpsys battery")
    assert "gps: Location[gps 37.422000,-122.084000 " in _sh(adb_cli, serial, "dumpsys location")


def test_sms_send_posts_a_messages_notification_that_opens_the_conversation(emu, console, adb_cli):
    _, serial = emu
    assert console.send("sms send 5551234 hello") == "OK\r\n"
    dump = _sh(adb_cli, serial, "dumpsys notification --noredact")
    assert f"pkg={MESSAGES_PKG} user=UserHandle{{0}} id=" in dump and f"key=0|{MESSAGES_PKG}|" in dump
    assert "android.title=String (5551234)" in dump and "android.text=String (hello)" in dump
    # a snapshot keeps it: gone after Clear all, back after the load
    assert console.send("avd snapshot save notif") == "OK\r\n"
    _sh(adb_cli, serial, "cmd statusbar expand-notifications")
    _tap(adb_cli, serial, "dismiss_text")
    assert "NotificationRecord" not in _sh(adb_cli, serial, "dumpsys notification")
    assert console.send("avd snapshot load notif") == "OK\r\n"
    assert f"pkg={MESSAGES_PKG} " in _sh(adb_cli, serial, "dumpsys notification")
    # in the shade with the app's name; a tap opens the conversation and the notification goes
    _sh(adb_cli, serial, "cmd statusbar expand-notifications")
    ui = _dump(adb_cli, serial)
    assert 'text="Messages" resource-id="android:id/app_name_text"' in ui
    assert 'text="5551234" resource-id="android:id/title"' in ui and 'text="hello" resource-id="android:id/text"' in ui
    _tap(adb_cli, serial, "expandableNotificationRow")
    assert _focus(adb_cli, serial).startswith(f"{MESSAGES_PKG}/") and "conversation" in _focus(adb_cli, serial).lower()
    assert "NotificationRecord" not in _sh(adb_cli, serial, "dumpsys notification")
    ui = _dump(adb_cli, serial)
    assert "expandableNotificationRow" not in ui and 'text="hello"' in ui
