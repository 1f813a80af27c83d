"""Gestures that depend on their duration, RGBA screenshots and the ABI a profile reports, through the real adb
server and uiautomator2."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET
from collections import Counter

import pytest
from PIL import Image

pytestmark = pytest.mark.timeout(90)

CONTACTS = "com.google.android.contacts"
NOTES = "com.droidharness.notes"


def tops(xml: str) -> dict[str, int]:
    """text -> top edge of every text node in a dump."""
    out = {}
    for n in ET.fromstring(xml.encode("utf-8")).iter("node"):
        text = n.get("text")
        if text:
            out[text] = int(n.get("bounds")[1:].split(",")[1].split("]")[0])
    return out


def shift(before: str, after: str) -> int | None:
    """How far the list moved up between two dumps: the move most rows agree on (rows cut by the list's edge
    have clipped bounds); None when no row is on screen in both."""
    a, b = tops(before), tops(after)
    moves = [a[t] - b[t] for t in a.keys() & b.keys() if a[t] != b[t]]
    if not (a.keys() & b.keys()) - {"Search contacts"}:
        return None
    return Counter(moves).most_common(1)[0][0] if moves else 0


def swipe_shift(vdevice, ms: int, distance: int = 600) -> int | None:
    adb = vdevice.adb
    adb.shell(f"am force-stop {CONTACTS}")  # a fresh list at the top
    adb.shell(f"monkey -p {CONTACTS} -c android.intent.category.LAUNCHER 1")
    before = adb.dump_hierarchy()
    adb.shell(f"input swipe 540 1800 540 {1800 - distance} {ms}")
    return shift(before, adb.dump_hierarchy())


def test_input_swipe_distance_depends_on_duration(vdevice):
    assert vdevice.model.foreground.package != CONTACTS
    slow = swipe_shift(vdevice, 2000)
    assert vdevice.model.foreground.package == CONTACTS
    slop = 8 * 420 / 160  # ViewConfiguration touch slop, 8 dp at 420 dpi
    assert slow is not None and 600 - slop - 2 <= slow <= 600  # a slow drag: its length past the slop
    medium = swipe_shift(vdevice, 300)
    fast = swipe_shift(vdevice, 60)
    assert medium is not None and medium > slow * 1.3  # released at 2000 px/s: the list flings on
    assert fast is None or fast > medium  # a fling past everything that was on screen


def test_u2_swipe_steps_set_the_speed(vdevice, u2dev):
    adb = vdevice.adb
    results = []
    for steps in (400, 12):  # 5 ms per step: 2 s and 60 ms
        adb.shell(f"am force-stop {CONTACTS}")
        vdevice.model.start_activity(CONTACTS)
        before = u2dev.dump_hierarchy()
        u2dev.swipe(540, 1800, 540, 1200, steps=steps)
        results.append(shift(before, u2dev.dump_hierarchy()))
    slow, fast = results
    assert slow is not None and 570 <= slow <= 600
    assert fast is None or fast > slow * 1.3


def test_long_zero_length_swipe_is_a_long_press(vdevice):
    adb = vdevice.adb
    m = vdevice.model

    def open_notes():
        adb.shell(f"am force-stop {NOTES}")
        adb.shell(f"monkey -p {NOTES} -c android.intent.category.LAUNCHER 1")
        node = next(
            n for n in ET.fromstring(adb.dump_hierarchy().encode()).iter("node") if n.get("text") == "Meeting notes"
        )
        l, t, r, b = (int(v) for v in node.get("bounds").replace("][", ",").strip("[]").split(","))
        return (l + r) // 2, (t + b) // 2

    x, y = open_notes()
    adb.shell(f"input swipe {x} {y} {x} {y} 1000")  # held 1 s without moving: long press -> delete dialog
    assert "Delete note?" in tops(adb.dump_hierarchy())
    x, y = open_notes()
    adb.shell(f"input swipe {x} {y} {x + 6} {y + 6} 800")  # moved less than the touch slop: still a press
    assert "Delete note?" in tops(adb.dump_hierarchy())
    x, y = open_notes()
    adb.shell(f"input swipe {x} {y} {x} {y} 100")  # released before the long-press timeout: a tap
    assert "Delete note?" not in tops(adb.dump_hierarchy())
    assert m.foreground.activity != f"{NOTES}.MainActivity" or m.foreground.extras


def test_screencap_png_is_rgba(vdevice, adb_cli):
    r = adb_cli("-s", vdevice.serial, "exec-out", "screencap", "-p")
    png = r.stdout
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert png[12:16] == b"IHDR" and png[25] == 6  # colour type 6: RGBA, 8 bits per channel
    img = Image.open(io.BytesIO(png))
    assert img.mode == "RGBA" and img.size == vdevice.model.display_size
    assert img.getextrema()[3] == (255, 255)  # opaque
    # raw screencap: the 16-byte header says RGBA_8888 (format 1)
    raw = adb_cli("-s", vdevice.serial, "exec-out", "screencap").stdout
    w, h = vdevice.model.display_size
    assert int.from_bytes(raw[8:12], "little") == 1 and len(raw) == 16 + w * h * 4


@pytest.mark.parametrize(
    "profile,abi,abilist,machine",
    [
        ("pixel_7_pro", "arm64-v8a", "arm64-v8a", "aarch64"),
        ("pixel_4_xl", "arm64-v8a", "arm64-v8a,armeabi-v7a,armeabi", "aarch64"),
        ("medium_phone", "x86_64", "x86_64,arm64-v8a", "x86_64"),
    ],
)
def test_profile_abi(make_vdevice, profile, abi, abilist, machine):
    vd = make_vdevice(profile=profile)
    adb = vd.adb
    assert adb.shell("getprop ro.product.cpu.abi") == abi
    assert adb.shell("getprop ro.product.cpu.abilist") == abilist
    assert adb.shell("uname -m") == machine
    assert adb.shell("getprop ro.boot.qemu") == ("1" if machine == "x86_64" else "")
