"""harness.actions: the unified action schema, its error messages, and hostile model output."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from harness import coords
from harness.actions import (
    ACTION_TYPES,
    Answer,
    Back,
    Click,
    Complete,
    Enter,
    Home,
    Impossible,
    LongPress,
    OpenApp,
    Point,
    Recent,
    Scroll,
    Swipe,
    TypeText,
    Wait,
    action_to_dict,
    describe,
    is_terminal,
    parse_action,
)
from harness.errors import ActionValidationError, HarnessError

EXAMPLES = [
    Click(point=Point(x=0.5, y=0.25)),
    Click(element=12),
    LongPress(element=3, duration=2.5),
    Swipe(start=Point(x=0.5, y=0.8), end=Point(x=0.5, y=0.2)),
    Scroll(direction="down"),
    Scroll(direction="left", element=7, distance=1.0),
    TypeText(text="hello"),
    TypeText(text="", clear=True, element=4),
    TypeText(text="x", submit=True, point=Point(x=0.1, y=0.9)),
    Back(),
    Home(),
    Enter(),
    Recent(),
    Wait(duration=60),
    OpenApp(name="Notes"),
    OpenApp(package="com.droidharness.notes"),
    Complete(),
    Complete(answer="42"),
    Impossible(reason="no such contact"),
    Answer(text="Sunny"),
    Answer(elements=[3, 5]),
    Answer(text="", elements=[]),
]


def test_action_types_cover_every_class():
    assert set(ACTION_TYPES) == {a.type for a in EXAMPLES}
    assert len(ACTION_TYPES) == len(set(ACTION_TYPES)) == 14


@pytest.mark.parametrize("action", EXAMPLES, ids=lambda a: a.type)
def test_round_trip_through_json(action):
    dumped = action.model_dump(mode="json")
    assert parse_action(dumped) == action
    assert parse_action(json.dumps(dumped)) == action
    assert parse_action(action.model_dump_json()) == action
    assert parse_action(action_to_dict(action)) == action


def test_point_accepts_a_list_and_frozen_models():
    a = parse_action({"type": "CLICK", "point": [0.25, 0.75]})
    assert isinstance(a, Click) and a.point == Point(x=0.25, y=0.75) and a.point.as_tuple() == (0.25, 0.75)
    assert a.target == a.point
    with pytest.raises(ValidationError):
        a.element = 3  # type: ignore[misc]
    assert hash(a) == hash(parse_action({"type": "CLICK", "point": {"x": 0.25, "y": 0.75}}))


# --- error messages name the field ------------------------------------------------------------------------
@pytest.mark.parametrize(
    "data, expected",
    [
        ({"type": "CLICK", "point": {"x": 1.7, "y": 0.2}}, "CLICK.point.x: 1.7 is outside [0, 1]"),
        ({"type": "CLICK", "point": [0.2, -0.5]}, "CLICK.point.y: -0.5 is outside [0, 1]"),
        ({"type": "CLICK", "point": [0.2, 0.3, 0.4]}, "CLICK.point: a point list must be [x, y]"),
        ({"type": "TAP", "point": [0.1, 0.2]}, "unknown action type 'TAP'; expected one of CLICK, LONG_PRESS"),
        ({"point": [0.1, 0.2]}, "missing field 'type'"),
        ({"type": "TYPE"}, "missing field 'text' for TYPE"),
        ({"type": "SWIPE", "start": [0.1, 0.2]}, "missing field 'end' for SWIPE"),
        ({"type": "TYPE", "text": ""}, "TYPE: 'text' is empty; an empty TYPE needs clear=true"),
        ({"type": "TYPE", "text": 5}, "TYPE.text: 5"),
        ({"type": "CLICK"}, "CLICK: a target is required: give exactly one of 'point' or 'element'"),
        (
            {"type": "LONG_PRESS", "point": [0.1, 0.1], "element": 2},
            "LONG_PRESS: give exactly one of 'point' or 'element'",
        ),
        (
            {"type": "TYPE", "text": "a", "point": [0.1, 0.1], "element": 2},
            "TYPE: give exactly one of 'point' or 'element'",
        ),
        ({"type": "CLICK", "element": -1}, "CLICK.element: -1"),
        ({"type": "CLICK", "element": True}, "CLICK.element: True is a boolean"),
        ({"type": "CLICK", "element": 2.5}, "CLICK.element: 2.5"),
        ({"type": "CLICK", "point": {"x": "left", "y": 0.5}}, "CLICK.point.x: 'left'"),
        ({"type": "LONG_PRESS", "element": 1, "duration": 0}, "LONG_PRESS.duration: 0"),
        ({"type": "WAIT", "duration": 61}, "WAIT.duration: 61"),
        ({"type": "WAIT", "duration": 0}, "WAIT.duration: 0"),
        ({"type": "WAIT", "duration": float("nan")}, "WAIT.duration: nan"),
        ({"type": "SCROLL", "direction": "sideways"}, "SCROLL.direction: 'sideways'"),
        ({"type": "SCROLL", "direction": "up", "distance": 1.5}, "SCROLL.distance: 1.5"),
        ({"type": "OPEN_APP"}, "OPEN_APP: give 'name' or 'package'"),
        ({"type": "OPEN_APP", "name": ""}, "OPEN_APP: give 'name' or 'package'"),
        ({"type": "ANSWER"}, "ANSWER: give 'text' or 'elements'"),
        ({"type": "ANSWER", "elements": [1, -2]}, "ANSWER.elements[1]: -2"),
        ({"type": "BACK", "extra": 1}, "BACK.extra: unexpected field"),
        ({"type": "CLICK", "point": [0.5, 0.5], "x": 0.5}, "CLICK.x: unexpected field"),
    ],
)
def test_errors_name_field_and_value(data, expected):
    with pytest.raises(ActionValidationError) as info:
        parse_action(data)
    message = str(info.value)
    assert expected in message
    assert "pydantic" not in message and "errors.pydantic.dev" not in message
    assert isinstance(info.value.__cause__, ValidationError)
    assert isinstance(info.value, HarnessError)


@pytest.mark.parametrize(
    "data, expected",
    [
        ("{not json", "action is not valid JSON at line 1 column 2"),
        ("[1, 2]", "an action must be a JSON object, got list"),
        ("null", "an action must be a JSON object, got NoneType"),
        ("", "action is not valid JSON"),
    ],
)
def test_bad_json(data, expected):
    with pytest.raises(ActionValidationError, match=expected.replace("(", r"\(")):
        parse_action(data)


def test_unknown_type_lists_every_type():
    with pytest.raises(ActionValidationError) as info:
        parse_action('{"type": "SCROLL_DOWN"}')
    for t in ACTION_TYPES:
        assert t in str(info.value)


# --- hostile text is data -----------------------------------------------------------------------------
HOSTILE = [
    "$(reboot)",
    "`rm -rf /`; echo pwned",
    "a'b\"c\\d",
    "line1\nline2\nline3",
    "emoji 😀👍🏽",
    "中文输入法测试",
    "__import__('os').system('reboot')",
    "{{7*7}} %s %n",
    "&amp; <b>x</b>",
    "\t",
    " leading and trailing ",
    "x" * 2000,
]


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("\ud800", "a lone surrogate U+D800 at position 0"),
        ("ok\udfff", "a lone surrogate U+DFFF at position 2"),
        ("a\x00b", "a control character U+0000 at position 1"),
        ("\x1b[31mred", "a control character U+001B at position 0"),
        ("bell\x07", "a control character U+0007 at position 4"),
        ("x\x7f", "a control character U+007F at position 1"),
        ("c1\x85", "a control character U+0085 at position 2"),
        ("crlf\r\n", "a control character U+000D at position 4"),
    ],
)
def test_text_no_device_can_type_is_refused_naming_the_character_and_position(text, named):
    with pytest.raises(ActionValidationError) as info:
        parse_action({"type": "TYPE", "text": text})
    assert named in str(info.value)


@pytest.mark.parametrize("text", ["line\nbreak", "tab\there", "\u00a0nbsp", "\U0001f600", "\u200bzero-width"])
def test_newline_tab_and_other_printable_text_are_typeable(text):
    assert parse_action({"type": "TYPE", "text": text}).text == text


@pytest.mark.parametrize("text", HOSTILE)
def test_type_text_is_verbatim(text):
    a = parse_action(json.dumps({"type": "TYPE", "text": text, "submit": True}))
    assert isinstance(a, TypeText) and a.text == text and a.submit
    assert parse_action(a.model_dump(mode="json")).text == text
    line = describe(a)
    assert "\n" not in line and len(line) < 120


def test_model_output_is_never_evaluated(tmp_path):
    marker = tmp_path / "evaluated"
    payload = f"__import__('pathlib').Path({str(marker)!r}).write_text('x')"
    for data in (
        {"type": "TYPE", "text": payload},
        {"type": "OPEN_APP", "name": payload},
        {"type": "COMPLETE", "answer": payload},
        {"type": "CLICK", "element": payload},
    ):
        try:
            a = parse_action(data)
            describe(a)
        except ActionValidationError:
            pass
    assert not marker.exists()


@given(st.text(min_size=1, max_size=300))
def test_any_text_round_trips_or_is_refused_for_a_named_character(text):
    from harness.actions import untypeable

    bad = untypeable(text)
    if bad is not None:  # a character no device can type: refused, naming where
        with pytest.raises(ActionValidationError, match=f"at position {bad[0]}"):
            parse_action({"type": "TYPE", "text": text})
        return
    a = TypeText(text=text)
    assert parse_action(json.dumps(a.model_dump(mode="json"))).text == text


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda kids: st.lists(kids, max_size=3) | st.dictionaries(st.text(max_size=8), kids, max_size=3),
    max_leaves=8,
)
FIELDS = st.sampled_from(
    [
        "point",
        "element",
        "text",
        "start",
        "end",
        "duration",
        "direction",
        "distance",
        "name",
        "package",
        "answer",
        "reason",
        "elements",
        "clear",
        "submit",
        "x",
    ]
)


@given(st.sampled_from([*ACTION_TYPES, "TAP", "", 3, None]), st.dictionaries(FIELDS, JSON, max_size=4))
def test_arbitrary_input_gives_an_action_or_a_clean_error(type_, fields):
    try:
        action = parse_action({"type": type_, **fields})
    except ActionValidationError as exc:
        assert str(exc).startswith(("invalid action: ", "an action must be"))
        assert "Traceback" not in str(exc)
    else:
        assert action.type == type_
        assert parse_action(action.model_dump(mode="json")) == action


# --- scroll / swipe direction conventions ---------------------------------------------------------------
def test_swipe_direction_is_the_finger():
    assert Swipe(start=Point(x=0.5, y=0.8), end=Point(x=0.5, y=0.2)).direction == "up"
    assert Swipe(start=Point(x=0.5, y=0.2), end=Point(x=0.5, y=0.8)).direction == "down"
    assert Swipe(start=Point(x=0.9, y=0.5), end=Point(x=0.1, y=0.45)).direction == "left"
    assert Swipe(start=Point(x=0.1, y=0.5), end=Point(x=0.9, y=0.55)).direction == "right"
    # GUI Odyssey tie rule: |dx| > |dy| for horizontal, so a 45-degree swipe is vertical
    assert Swipe(start=Point(x=0.25, y=0.75), end=Point(x=0.5, y=0.5)).direction == "up"


@pytest.mark.parametrize("direction, finger", [("down", "up"), ("up", "down"), ("left", "right"), ("right", "left")])
def test_scroll_moves_the_viewport_so_the_finger_goes_the_other_way(direction, finger):
    s = Scroll(direction=direction)
    assert s.finger_direction == finger
    assert s.to_swipe(None, (1440, 3120)).direction == finger


@given(
    st.sampled_from(["up", "down", "left", "right"]),
    st.floats(0.01, 1.0),
    st.tuples(st.integers(0, 400), st.integers(0, 2000), st.integers(20, 1040), st.integers(20, 1120)),
)
def test_scroll_swipe_stays_inside_the_area(direction, distance, area):
    w, h = 1440, 3120
    l, t, bw, bh = area
    bounds = (l, t, l + bw, t + bh)
    sw = Scroll(direction=direction, distance=distance).to_swipe(bounds, (w, h))
    for p in (sw.start, sw.end):
        x, y = coords.to_pixels(p.as_tuple(), (w, h))
        assert l <= x < l + bw and t <= y < t + bh
        # the 10% margin, give or take the rounding to a pixel
        assert l + 0.1 * bw - 0.5 <= x <= l + bw - 0.1 * bw + 0.5
        assert t + 0.1 * bh - 0.5 <= y <= t + bh - 0.1 * bh + 0.5


def test_scroll_distance_sets_the_travel():
    full = Scroll(direction="down", distance=1.0).to_swipe((0, 1000, 1000, 2000), (1000, 3000))
    half = Scroll(direction="down", distance=0.5).to_swipe((0, 1000, 1000, 2000), (1000, 3000))
    full_px = (
        coords.to_pixels(full.start.as_tuple(), (1000, 3000)),
        coords.to_pixels(full.end.as_tuple(), (1000, 3000)),
    )
    assert full_px == ((500, 1900), (500, 1100))  # 10% margins, finger up
    half_travel = (half.start.y - half.end.y) * 3000
    assert half_travel == pytest.approx(400, abs=1.5)


def test_scroll_area_is_clipped_to_the_screen():
    sw = Scroll(direction="right", distance=1.0).to_swipe((500, 0, 2000, 100), (1000, 100))
    xs = [coords.to_pixels(p.as_tuple(), (1000, 100))[0] for p in (sw.start, sw.end)]
    assert xs == [950, 550]  # area 500..1000, 10% (50 px) margins, finger moves left


def test_scroll_over_an_empty_area_is_an_error():
    with pytest.raises(ActionValidationError, match="empty"):
        Scroll(direction="down").to_swipe((100, 100, 100, 500), (1000, 1000))


# --- helpers -----------------------------------------------------------------------------------------------
def test_is_terminal():
    terminal = {a.type for a in EXAMPLES if is_terminal(a)}
    assert terminal == {"COMPLETE", "IMPOSSIBLE", "ANSWER"}


@pytest.mark.parametrize(
    "action, text",
    [
        (Click(element=12), "click element [12]"),
        (Click(point=Point(x=0.5, y=0.25)), "click (0.500, 0.250)"),
        (LongPress(element=3, duration=2.5), "long press element [3] for 2.5s"),
        (Scroll(direction="down"), "scroll down screen (finger up)"),
        (
            TypeText(text="hi", clear=True, submit=True, element=4),
            'type "hi" into element [4] after clearing then ENTER',
        ),
        (Back(), "press back"),
        (Recent(), "open recents"),
        (Wait(duration=2), "wait 2s"),
        (OpenApp(name="Notes", package="com.n"), 'open app "Notes" (com.n)'),
        (Answer(text="Sunny", elements=[1, 2]), 'answer "Sunny" elements [1],[2]'),
        (Impossible(reason="no wifi"), 'impossible: "no wifi"'),
    ],
)
def test_describe(action, text):
    assert describe(action) == text
