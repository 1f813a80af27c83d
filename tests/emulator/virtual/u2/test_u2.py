"""uiautomator2 3.7.1, unmodified, against the virtual device through the real adb server: the client launches
the server with `app_process` over an adb shell stream and talks HTTP over adb `tcp:9008` streams.

The screen is `FakeUI` (tests/u2_fake_ui.py) so these tests do not depend on the built-in apps."""

from __future__ import annotations

import threading
import time
import xml.etree.ElementTree as ET

import pytest
from PIL import ImageChops, ImageStat

from emulator.virtual.ui.view import View
from tests.u2_fake_ui import FakeUI, rid

u2 = pytest.importorskip("uiautomator2")
from uiautomator2.exceptions import UiObjectNotFoundError  # noqa: E402


@pytest.fixture
def ui(vdevice):
    return FakeUI.install(vdevice.model)


@pytest.fixture
def d(ui, vdevice):
    """uiautomator2 on the stock adbutils device (the other tests' `u2dev` is the harness's FastAdbDevice)."""
    dev = u2.connect(vdevice.adb)
    yield dev
    try:
        dev.stop_uiautomator(wait=False)
    except Exception:  # noqa: BLE001 - the device may already be gone
        pass


def u2_events(model, mark, kind=None):
    return [e for e in model.events.since(mark, kind) if e.data.get("source") == "u2"]


def test_connect_launches_server_with_app_process(vdevice, d):
    model = vdevice.model
    assert any(argv and argv[0] == "app_process" for argv in model.events.commands()), model.events.commands()
    assert model.u2_running and model.u2_pid
    assert 9008 in model.ports
    starts = [e for e in model.events.all("u2_server") if e["action"] == "start"]
    assert len(starts) == 1 and starts[0]["port"] == 9008


def test_info(vdevice, d):
    info = d.info
    assert info["displayWidth"] == 1080 and info["displayHeight"] == 2400
    assert info["displayRotation"] == 0 and info["naturalOrientation"] is True
    assert info["sdkInt"] == vdevice.model.profile.api_level
    assert info["productName"] == vdevice.model.props["ro.product.name"]
    assert info["screenOn"] is True
    assert info["currentPackageName"] == vdevice.model.foreground.package


def test_window_size(d):
    assert d.window_size() == (1080, 2400)


def test_screenshot_matches_the_model(vdevice, d):
    img = d.screenshot()
    assert img.size == (1080, 2400)
    diff = ImageChops.difference(img.convert("RGB"), vdevice.model.screenshot().convert("RGB"))
    assert max(ImageStat.Stat(diff).mean) < 8  # the same pixels, give or take JPEG


def test_dump_hierarchy(d):
    xml = d.dump_hierarchy()
    root = ET.fromstring(xml.encode("utf-8"))
    assert root.tag == "hierarchy"
    ok = root.find(".//node[@text='OK']")
    assert ok is not None and ok.get("bounds") == "[0,200][540,300]"
    assert ok.get("resource-id") == rid("ok") and ok.get("clickable") == "true"


def test_click_long_click_swipe(vdevice, ui, d):
    model = vdevice.model
    mark = model.events.mark()
    d.click(270, 250)
    assert ui.ok_clicks == 1
    d.long_click(810, 250)
    assert ui.long_presses == 1 and ui.ok_clicks == 1
    d.swipe(540, 1800, 540, 1200, steps=20)
    assert ui.offset == 600
    evs = u2_events(model, mark)
    assert [e.kind for e in evs] == ["tap", "long_press", "swipe"]
    assert evs[1]["duration_ms"] == 500 and evs[2]["duration_ms"] == 100
    d.click(0.25, 0.104)  # relative coordinates: the client converts them with window_size()
    assert ui.ok_clicks == 2


def test_touch_down_up_is_a_tap(ui, d):
    d.touch.down(270, 250).up(270, 250)
    assert ui.ok_clicks == 1


def test_press_keys(vdevice, d):
    mark = vdevice.model.events.mark()
    d.press("home")
    d.press("back")
    d.press("recent")
    d.press(66)
    assert [e["code"] for e in u2_events(vdevice.model, mark, "key")] == [3, 4, 187, 66]


def test_clipboard_round_trip(vdevice, d):
    d.clipboard = "copy 你好"
    assert d.clipboard == "copy 你好"
    assert vdevice.model.clipboard == "copy 你好"


def test_selectors(ui, d):
    assert d(text="OK").exists
    assert not d(text="Nope").exists
    d(text="OK").click()
    assert ui.ok_clicks == 1
    info = d(resourceId=rid("ok")).info
    assert info["bounds"] == {"left": 0, "top": 200, "right": 540, "bottom": 300}
    assert info["text"] == "OK" and info["className"] == "android.widget.Button"
    assert d(resourceId=rid("row_go")).count == 3
    assert d(resourceId=rid("row_go"))[2].get_text() == "Go 2"
    assert d(resourceId=rid("rows")).child(text="Row 1").exists
    assert d(text="Row 1").sibling(className="android.widget.Button").get_text() == "Go 1"
    assert d(textMatches=r"Row \d", instance=2).get_text() == "Row 2"
    row = d(resourceId=rid("rows")).child_by_text("Row 2", className="android.widget.LinearLayout")
    assert isinstance(row.selector, str)  # a UiObject name kept by the server
    assert row.info["bounds"]["top"] == 800 and row.exists
    d(resourceId=rid("rows")).child_by_text("Go 2", className="android.widget.Button").click()
    assert ui.go_clicks == [2]


def test_set_text_and_get_text(ui, d):
    field = d(resourceId=rid("input"))
    field.set_text("hello")
    assert ui.fields["input"] == "hello"
    assert field.get_text() == "hello"
    field.clear_text()
    assert ui.fields["input"] == ""


def test_wait(vdevice, ui, d):
    assert d(resourceId=rid("input")).wait(timeout=1)
    assert not d(text="Later").wait(timeout=0.2)

    def appear():
        time.sleep(0.3)
        with vdevice.model.lock:
            ui.extra.append(View(cls="android.widget.TextView", text="Later", package="x", bounds=(0, 2100, 9, 2109)))

    threading.Thread(target=appear, daemon=True).start()
    assert d(text="Later").wait(timeout=10)


def test_xpath_click(ui, d):
    d.xpath('//*[@text="OK"]').click()
    assert ui.ok_clicks == 1
    assert d.xpath(f'//*[@resource-id="{rid("status")}"]').get_text() == "Clicks: 1"


def test_scroll(ui, d):
    assert d(scrollable=True).scroll.to(text="Item 20")
    assert d(text="Item 20").exists
    d(scrollable=True).scroll.toBeginning()
    assert ui.offset == 0 and d(text="Item 0").exists


def test_orientation(vdevice, d):
    d.orientation = "left"
    assert vdevice.model.rotation == 1 and d.info["displayRotation"] == 1
    assert d.orientation == "left"
    d.orientation = "natural"
    assert vdevice.model.rotation == 0


def test_send_keys_unicode_into_focused_field(ui, d):
    d.click(540, 350)  # focus the input field
    assert ui.focus == "input"
    d.send_keys("你好 world")
    assert ui.fields["input"] == "你好 world"


def test_not_found_errors(d):
    with pytest.raises(UiObjectNotFoundError):
        d(text="Nope").click(timeout=0)
    with pytest.raises(UiObjectNotFoundError):
        d(text="Nope").get_text(timeout=0)
    with pytest.raises(UiObjectNotFoundError) as e:  # raised by the server's error reply, not the client's wait
        _ = d(text="Nope").info
    assert "UiObjectNotFoundException" in str(e.value)


def test_killed_server_is_relaunched_on_next_call(vdevice, d):
    model = vdevice.model
    assert d.info["displayWidth"] == 1080
    model.faults.kill_u2()
    assert 9008 not in model.ports and not model.u2_running
    assert d.info["displayWidth"] == 1080  # the client reconnects: relaunches app_process, retries once
    assert model.u2_running and 9008 in model.ports
    actions = [e["action"] for e in model.events.all("u2_server")]
    assert actions == ["start", "killed", "start"], actions


def test_ps_lists_the_server_while_it_runs(vdevice, d):
    model = vdevice.model
    assert d.info
    line = next((l for l in vdevice.adb.shell("ps -A").splitlines() if l.split()[-1:] == ["app_process"]), None)
    assert line is not None and int(line.split()[1]) == model.u2_pid
    d.stop_uiautomator()
    assert not model.u2_running and 9008 not in model.ports
    assert "app_process" not in vdevice.adb.shell("ps -A").split()
