"""The phone's calls and the Phone app's in-call screen that follows them, in process: the screen in both
languages, BACK while ringing, a second call, the activity opened with no call, and snapshots keeping the calls
(the console and adb paths are in test_console_commands.py)."""

from __future__ import annotations

from emulator.virtual.model import VirtualDeviceModel
from emulator.virtual.telephony import INCALL, answer, hang_up, hold, ring


def _views(m: VirtualDeviceModel) -> dict[str, str]:
    """resource id (short) or text -> text or content-desc, of the views on screen."""
    out = {}
    for r in m.view_roots():
        for v in r.walk():
            if v.resource_id:
                out[v.resource_id.rsplit("/", 1)[-1]] = v.text or v.desc
    return out


def _texts(m: VirtualDeviceModel) -> set[str]:
    return {v.text for r in m.view_roots() for v in r.walk() if v.text}


def test_the_incoming_call_screen_speaks_chinese():
    m = VirtualDeviceModel(locale="zh")
    ring(m, "5551234")
    views = _views(m)
    assert views["contactgrid_status_text"] == "来电"
    assert views["incoming_call_answer"] == "接听" and views["incoming_call_decline"] == "拒接"
    assert answer(m, "5551234") and _views(m)["contactgrid_status_text"] == "通话中"
    assert _views(m)["incall_end_call_button"] == "结束通话"


def test_back_does_not_dismiss_a_ringing_call_and_a_held_one_says_so():
    m = VirtualDeviceModel()
    ring(m, "5551234")
    m.key(4)
    assert m.foreground.activity == INCALL and "Incoming call" in _texts(m)
    assert hold(m, "5551234") and "On hold" in _texts(m)
    m.key(4)  # the screen goes, the call stays
    assert m.foreground.activity != INCALL and m.hw.call_state == 2
    assert not hold(m, "999") and not answer(m, "999") and not hang_up(m, "999")


def test_a_second_call_rings_over_the_first_and_the_screen_stays_until_the_last_ends():
    m = VirtualDeviceModel()
    ring(m, "111")
    answer(m, "111")
    ring(m, "222")
    assert _views(m)["contactgrid_contact_name"] == "222" and "Incoming call" in _texts(m)
    assert sum(t.top.activity == INCALL for t in m.tasks) == 1
    hang_up(m, "222")
    assert _views(m)["contactgrid_contact_name"] == "111" and "On call" in _texts(m)
    hang_up(m, "111")
    assert m.foreground.activity != INCALL and m.hw.call_state == 0


def test_the_in_call_activity_opened_with_no_call_shows_nothing():
    m = VirtualDeviceModel()
    m.start_activity("com.google.android.dialer", INCALL)
    assert "incoming_call_answer" not in _views(m) and "incall_screen" in _views(m)


def test_a_snapshot_keeps_the_calls_the_screen_and_adbds_root():
    m = VirtualDeviceModel()
    ring(m, "5551234")
    m.hw.battery.level = 42
    m.adbd.root = True
    snap = m.snapshot()
    hang_up(m, "5551234")
    m.hw.battery.level = 10
    m.adbd.root = False
    m.restore(snap)
    assert [c.number for c in m.hw.calls] == ["5551234"] and m.foreground.activity == INCALL
    assert m.hw.battery.level == 42 and m.adbd.root and m.props["service.adb.root"] == "1"
    assert "Incoming call" in _texts(m)
    hang_up(m, "5551234")  # the restored calls are the model's own: the screen follows them
    assert m.foreground.activity != INCALL and snap["state"]["hw"].calls


def test_the_screenshot_shows_the_buttons_in_their_colours():
    m = VirtualDeviceModel()
    ring(m, "5551234")
    shot = m.screenshot()
    roots = m.view_roots()
    answer_btn = next(v for r in roots for v in r.walk() if v.resource_id.endswith("incoming_call_answer"))
    decline_btn = next(v for r in roots for v in r.walk() if v.resource_id.endswith("incoming_call_decline"))
    # the round button's edge, left of its glyph: green to answer, red to decline
    ax, ay = answer_btn.children[0].bounds[0] + 8, answer_btn.children[0].center[1]
    dx, dy = decline_btn.children[0].bounds[0] + 8, decline_btn.children[0].center[1]
    r, g, b = shot.getpixel((ax, ay))
    assert g > r + 60 and g > b + 60
    r, g, b = shot.getpixel((dx, dy))
    assert r > g + 100 and r > b + 100
