"""Model-output parsers: every format to unified actions, coordinate conventions, hostile text, no evaluation."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness import coords
from harness.actions import (
    Answer,
    Back,
    Click,
    Complete,
    Enter,
    Home,
    Impossible,
    LongPress,
    OpenApp,
    Recent,
    Scroll,
    Swipe,
    TypeText,
    Wait,
)
from harness.coords import ScreenMapping
from harness.modelio.parsers import (
    OutputParseError,
    ParseContext,
    parse_output,
    unescape_literal,
)
from harness.modelio.parsers.uitars import parse_call

DEVICE = (1080, 2400)
IMAGE = (616, 1372)  # a smart-resized 1080x2400 screenshot (multiples of 28)
CTX = ParseContext(ScreenMapping(DEVICE, IMAGE))
CTX_1000 = ParseContext(ScreenMapping(DEVICE, IMAGE), coordinate_space="relative_1000")


def device_px(action) -> tuple[int, int]:
    return coords.to_pixels(action.point.as_tuple(), DEVICE)


# --- the audit hook: proves parsers never compile or exec anything --------------------------------------------
_events: list[str] | None = None


def _hook(event: str, args: object) -> None:
    if _events is not None and event in ("exec", "compile"):
        _events.append(event)


sys.addaudithook(_hook)


@contextlib.contextmanager
def no_code_execution() -> Iterator[None]:
    global _events
    _events = []
    try:
        yield
    finally:
        seen, _events = _events, None
        assert not seen, f"the parser compiled or executed code: {seen}"


def test_the_guard_catches_evaluation() -> None:
    import ast

    with pytest.raises(AssertionError, match="compiled or executed"), no_code_execution():
        ast.literal_eval("(1, 2)")


# --- json (ours) ------------------------------------------------------------------------------------------
def test_json_format_element_and_point() -> None:
    p = parse_output("json", '{"thought": "tap it", "action": {"type": "CLICK", "element": 12}}', CTX)
    assert p.action == Click(element=12) and p.thought == "tap it"
    p = parse_output("json", 'Sure!\n```json\n{"thought":"x","action":{"type":"CLICK","point":[0.25,0.75]}}\n```', CTX)
    assert p.action == Click(point=[0.25, 0.75])
    p = parse_output("json", '{"type": "TYPE", "text": "hi", "submit": true}', CTX)  # bare action
    assert p.action == TypeText(text="hi", submit=True)


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("no json here", "no JSON object"),
        ('{"thought": "x"}', "missing field 'action'"),
        ('{"action": {"type": "CLICK", "point": [1.5, 0.2]}}', "outside [0, 1]"),
        ('{"action": {"type": "FLY"}}', "unknown action type 'FLY'"),
        ('{"action": {"type": "CLICK"', "not closed"),
    ],
)
def test_json_format_errors_name_the_problem(text: str, fragment: str) -> None:
    with pytest.raises(
        OutputParseError,
        match=r"(?s)json output.*"
        + fragment.replace("[", r"\[").replace("]", r"\]").replace("(", r"\(").replace(")", r"\)"),
    ):
        parse_output("json", text, CTX)


# --- AgentCPM-GUI -------------------------------------------------------------------------------------------
def test_agentcpm_point_is_0_1000_x_first() -> None:
    p = parse_output("agentcpm", '{"thought":"点设置","POINT":[250,800]}', CTX)
    assert isinstance(p.action, Click) and p.thought == "点设置"
    assert p.action.point.as_tuple() == (0.25, 0.8)
    assert device_px(p.action) == (270, 1920)


def test_agentcpm_swipe_direction_is_the_finger() -> None:
    p = parse_output("agentcpm", '{"POINT":[500,700],"to":"up"}', CTX)
    assert isinstance(p.action, Swipe) and p.action.direction == "up"  # finger moves up (content down)
    assert p.action.start.y > p.action.end.y
    p = parse_output("agentcpm", '{"POINT":[500,500],"to":[900,500]}', CTX)
    assert p.action.direction == "right" and p.action.end.as_tuple() == (0.9, 0.5)


def test_agentcpm_other_actions() -> None:
    cases = {
        '{"POINT":[100,200],"duration":1000}': LongPress(point=[0.1, 0.2], duration=1.0),
        '{"POINT":[100,200],"duration":200}': Click(point=[0.1, 0.2]),
        '{"PRESS":"HOME"}': Home(),
        '{"PRESS":"BACK"}': Back(),
        '{"PRESS":"ENTER"}': Enter(),
        '{"PRESS":"APPSELECT"}': Recent(),
        '{"TYPE":"你好 \\"world\\""}': TypeText(text='你好 "world"'),
        '{"duration":1500}': Wait(duration=1.5),
        '{"STATUS":"finish"}': Complete(),
        '{"STATUS":"satisfied"}': Complete(),
        '{"STATUS":"impossible"}': Impossible(reason="impossible"),
        '{"STATUS":"need_feedback"}': Impossible(reason="need_feedback"),
    }
    for text, expected in cases.items():
        assert parse_output("agentcpm", text, CTX).action == expected, text


@pytest.mark.parametrize(
    "text, fragment",
    [
        ('{"POINT":[1200,10]}', "outside"),
        ('{"POINT":[10]}', "must be"),
        ('{"CLICK":[1,2]}', "unknown key"),
        ('{"PRESS":"VOLUME_UP"}', "PRESS"),
        ('{"thought":"hmm"}', "no action"),
        ('{"STATUS":"maybe"}', "STATUS"),
        ('{"POINT":[true,5]}', "number"),
        ('{"POINT":[5,5],"to":"sideways"}', "up, down"),
    ],
)
def test_agentcpm_errors(text: str, fragment: str) -> None:
    with pytest.raises(OutputParseError, match=fragment):
        parse_output("agentcpm", text, CTX)


# --- UI-TARS -----------------------------------------------------------------------------------------------
def test_uitars_box_forms_map_image_pixels_to_device() -> None:
    # image pixel (308, 686) of the 616x1372 image is the centre of the 1080x2400 screen
    for box in ("(308,686)", "<|box_start|>(308,686)<|box_end|>", "[300,680,316,692]", "<point>308 686</point>"):
        p = parse_output("uitars", f"Thought: centre\nAction: click(start_box='{box}')", CTX)
        assert isinstance(p.action, Click), box
        x, y = device_px(p.action)
        assert abs(x - 540) <= 2 and abs(y - 1200) <= 2, (box, x, y)
        assert p.thought == "centre"


def test_uitars_relative_1000_option() -> None:
    p = parse_output("uitars", "Action: click(start_box='(500,250)')", CTX_1000)
    assert p.action.point.as_tuple() == (0.5, 0.25)


def test_uitars_actions() -> None:
    def act(s: str):
        return parse_output("uitars", "Thought: t\nAction: " + s, CTX).action

    assert isinstance(act("long_press(start_box='(10,10)')"), LongPress)
    assert act("type(content='hello\\n')") == TypeText(text="hello", submit=True)
    assert act("press_home()") == Home() and act("press_back()") == Back()
    assert act("open_app(app_name='Settings')") == OpenApp(name="Settings")
    assert act("wait()") == Wait(duration=5.0)
    assert act("finished(content='42')") == Complete(answer="42")
    assert act("finished()") == Complete()
    assert isinstance(act("call_user()"), Impossible)
    s = act("scroll(start_box='(308,686)', direction='down')")
    assert isinstance(s, Scroll) and s.direction == "down" and s.finger_direction == "up"
    d = act("drag(start_box='(100,100)', end_box='(100,600)')")
    assert isinstance(d, Swipe) and d.direction == "down"


def test_uitars_first_of_several_actions_and_missing_action_line() -> None:
    p = parse_output("uitars", "Action: press_back()\n\npress_home()", CTX)
    assert p.action == Back()  # several actions after one "Action:": the first is taken
    p = parse_output("uitars", "Action: press_back()\n\nAction: press_home()", CTX)
    assert p.action == Home()  # the last "Action:" line holds the action; earlier text is the thought
    p = parse_output("uitars", "I should go home: press_home()", CTX)
    assert p.action == Home()
    with pytest.raises(OutputParseError, match="no 'Action:'"):
        parse_output("uitars", "I am not sure what to do.", CTX)
    with pytest.raises(OutputParseError, match="unknown action 'explode'"):
        parse_output("uitars", "Action: explode(start_box='(1,1)')", CTX)
    with pytest.raises(OutputParseError, match="not a pixel"):
        parse_output("uitars", "Action: click(start_box='(5000,10)')", CTX)


HOSTILE = [
    "'); import os; os.system('reboot')",
    "__import__('os').system('id')",
    '"; rm -rf / #',
    "line1\nline2\n",
    "你好，世界 “引号” ‘单’",
    "$(reboot) `id` ${HOME}",
    "\\x41\\u0042 \\\\ end",
]


@pytest.mark.parametrize("payload", HOSTILE)
def test_uitars_type_hostile_text_is_data(payload: str) -> None:
    escaped = payload.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n")
    with no_code_execution():
        p = parse_output("uitars", f"Thought: t\nAction: type(content='{escaped}')", CTX)
    text = p.action.text + ("\n" if p.action.submit else "")
    assert text == payload


def test_uitars_unescaped_apostrophe_and_injection_attempt() -> None:
    with no_code_execution():
        assert parse_output("uitars", "Action: type(content='I'm here')", CTX).action.text == "I'm here"
        p = parse_output("uitars", "Action: type(content='a'); __import__('os').system('x'); b='')", CTX)
    assert isinstance(p.action, TypeText)  # whatever it reads, it is only text
    with no_code_execution(), pytest.raises(OutputParseError):
        parse_output("uitars", "Action: type(content=''); import os')", CTX)  # empty text refused


def test_parse_call_tokenizer() -> None:
    assert parse_call("click(start_box='(1,2)')") == ("click", {"start_box": "(1,2)"})
    assert parse_call('type(content="say \\"hi\\"")') == ("type", {"content": 'say "hi"'})
    assert parse_call("scroll(start_box=(3, 4), direction='up')") == (
        "scroll",
        {"start_box": "(3, 4)", "direction": "up"},
    )
    assert parse_call("pyautogui.press('enter')") == ("press", {"_0": "enter"})
    with pytest.raises(OutputParseError, match="unterminated"):
        parse_call("type(content='abc")
    with pytest.raises(OutputParseError, match="not closed"):
        parse_call("click(start_box='(1,2)',")


def test_unescape_literal_is_a_table() -> None:
    assert unescape_literal(r"a\'b\"c\\d\ne\tf") == "a'b\"c\\d\ne\tf"
    assert unescape_literal(r"\u4f60\u597d") == "你好"
    assert unescape_literal(r"\d\x41") == r"\d\x41"  # unknown escapes are kept, not interpreted
    assert unescape_literal("trailing\\") == "trailing\\"


# --- Qwen2.5-VL mobile_use ------------------------------------------------------------------------------------
def _qwen(args: str, thinking: str = "") -> str:
    return f'{thinking}<tool_call>\n{{"name": "mobile_use", "arguments": {args}}}\n</tool_call>'


def test_qwen_actions_absolute_image_pixels() -> None:
    p = parse_output("qwen", _qwen('{"action": "click", "coordinate": [308, 686]}', "<thinking>tap</thinking>"), CTX)
    x, y = device_px(p.action)
    assert abs(x - 540) <= 2 and abs(y - 1200) <= 2 and p.thought == "tap"
    cases = {
        '{"action": "long_press", "coordinate": [10, 10], "time": 2}': LongPress,
        '{"action": "swipe", "coordinate": [300, 1000], "coordinate2": [300, 300]}': Swipe,
        '{"action": "type", "text": "\\u4f60\\u597d\'; DROP TABLE"}': TypeText,
        '{"action": "system_button", "button": "Back"}': Back,
        '{"action": "system_button", "button": "Home"}': Home,
        '{"action": "system_button", "button": "Enter"}': Enter,
        '{"action": "open", "text": "Clock"}': OpenApp,
        '{"action": "wait", "time": 2}': Wait,
        '{"action": "terminate", "status": "success"}': Complete,
        '{"action": "terminate", "status": "failure"}': Impossible,
        '{"action": "answer", "text": "7 apples"}': Answer,
        '{"action": "key", "text": "back"}': Back,
    }
    for args, cls in cases.items():
        assert isinstance(parse_output("qwen", _qwen(args), CTX).action, cls), args
    swipe = parse_output(
        "qwen", _qwen('{"action": "swipe", "coordinate": [300, 1000], "coordinate2": [300, 300]}'), CTX
    ).action
    assert swipe.direction == "up"  # coordinate -> coordinate2 is the finger
    assert (
        parse_output("qwen", _qwen('{"action": "type", "text": "你好\'; DROP TABLE"}'), CTX).action.text
        == "你好'; DROP TABLE"
    )


def test_qwen_native_tool_calls_and_errors() -> None:
    calls = [
        {
            "id": "c",
            "type": "function",
            "function": {"name": "mobile_use", "arguments": '{"action": "click", "coordinate": [0, 0]}'},
        }
    ]
    p = parse_output("qwen", "", CTX, tool_calls=calls)
    assert device_px(p.action) == (0, 0)
    with pytest.raises(OutputParseError, match="Menu"):
        parse_output("qwen", _qwen('{"action": "system_button", "button": "Menu"}'), CTX)
    with pytest.raises(OutputParseError, match="unknown tool"):
        parse_output("qwen", '<tool_call>{"name": "shell", "arguments": {"action": "click"}}</tool_call>', CTX)
    with pytest.raises(OutputParseError, match="not a pixel"):
        parse_output("qwen", _qwen('{"action": "click", "coordinate": [700, 10]}'), CTX)


# --- fuzz: arbitrary text never escapes as anything but OutputParseError, never runs code ------------------
@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200), st.sampled_from(["json", "agentcpm", "uitars", "qwen"]))
def test_fuzz_any_text_is_parsed_or_refused(text: str, fmt: str) -> None:
    with no_code_execution():
        try:
            parse_output(fmt, text, CTX)
        except OutputParseError:
            pass


@settings(max_examples=200, deadline=None)
@given(
    st.text(
        alphabet=st.characters(blacklist_categories=("Cs", "Cc"), whitelist_characters="\n\t"), min_size=1, max_size=80
    )
)
def test_fuzz_uitars_type_round_trip(payload: str) -> None:
    escaped = payload.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n")
    try:
        p = parse_output("uitars", f"Action: type(content='{escaped}')", CTX)
    except OutputParseError:
        assert payload in ("\n",) or payload.strip("\n") == ""  # only an all-newline payload is "empty"
        return
    assert p.action.text + ("\n" if p.action.submit else "") == payload


_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-2000, 3000) | st.floats(allow_nan=True) | st.text(max_size=8),
    lambda c: st.lists(c, max_size=4),
    max_leaves=6,
)


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(["thought", "POINT", "to", "duration", "PRESS", "TYPE", "STATUS"]),
        _VALUES | st.sampled_from(["up", "HOME", "finish", "APPSELECT"]),
        max_size=4,
    )
)
def test_fuzz_agentcpm_structures(d: dict) -> None:
    import json

    try:
        parse_output("agentcpm", json.dumps(d), CTX)
    except OutputParseError:
        pass


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(["coordinate", "coordinate2", "text", "time", "button", "status", "direction"]),
        _VALUES,
        max_size=4,
    ),
    st.sampled_from(
        ["click", "long_press", "swipe", "type", "key", "system_button", "open", "wait", "terminate", "answer", "fly"]
    ),
)
def test_fuzz_qwen_structures(d: dict, action: str) -> None:
    import json

    try:
        parse_output(
            "qwen",
            "<tool_call>" + json.dumps({"name": "mobile_use", "arguments": {**d, "action": action}}) + "</tool_call>",
            CTX,
        )
    except OutputParseError:
        pass
