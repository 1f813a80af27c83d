"""The typing contract at the device: text no device can type never reaches one (an invalid action naming the
character and its position), and the virtual device, handed such text by a client that does not check, answers
as a phone does and stays usable. Through the real adb server and uiautomator2."""

from __future__ import annotations

import re

import pytest

from harness import actions as A
from harness.errors import ActionValidationError
from tests.device_util import open_device

NOTES = "com.droidharness.notes"
FOCUSED = {"mask": 131072, "childOrSibling": [], "childOrSiblingSelector": [], "focused": True}


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("a\ud800b", "a lone surrogate U+D800 at position 1"),
        ("\x00", "a control character U+0000 at position 0"),
        ("go\x1b[2J", "a control character U+001B at position 2"),
        ("\x9b", "a control character U+009B at position 0"),
    ],
)
def test_untypeable_text_is_refused_before_the_device_and_the_device_stays_usable(adb_server, vdevice, text, named):
    with open_device(adb_server, vdevice) as dev:
        obs = dev.observe()
        _, obs = dev.step(A.OpenApp(package=NOTES), obs)
        fab = obs.tree.find(resource_id=f"{NOTES}:id/fab_add")[0]
        _, obs = dev.step(A.Click(element=fab.index), obs)
        mark = vdevice.model.events.mark()
        unchecked = A.TypeText.model_construct(
            text=text, clear=False, submit=False, point=None, element=None, type="TYPE"
        )  # as a plug-in that skips validation would build it
        with pytest.raises(ActionValidationError, match=re.escape(named)):
            dev.step(unchecked, obs, step=4)
        typed = [
            e
            for e in vdevice.model.events.since(mark)
            if e.kind in ("text", "clipboard", "u2_rpc")
            and e.data.get("method") not in ("dumpWindowHierarchy", "takeScreenshot", "waitForIdle")
        ]
        assert typed == [], "nothing reached the device"
        res, obs = dev.step(A.TypeText(text="still works"), obs)
        assert res.readback_matches, res


def test_the_virtual_device_given_a_lone_surrogate_by_an_unchecking_client_shows_a_question_mark(u2dev, vdevice):
    u2dev.app_start(NOTES)
    u2dev(resourceId=f"{NOTES}:id/fab_add").click()
    u2dev.jsonrpc.setText(FOCUSED, "a\ud800b")  # uiautomator2 sends it as a JSON escape, as Java would accept
    xml = u2dev.dump_hierarchy()  # a phone's UTF-8 encoder writes "?" for an unpaired surrogate
    assert 'text="a?b"' in xml
    out = vdevice.adb.shell("uiautomator dump /sdcard/w.xml >/dev/null && cat /sdcard/w.xml")
    assert 'text="a?b"' in out
    assert u2dev.screenshot().size == tuple(vdevice.model.display_size), "rendering still works"
