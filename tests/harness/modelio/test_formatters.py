"""The output-format writers (harness.modelio.parsers.formatters) are the parsers' inverse: every action a format can
say reads back as the action it was written from, in every coordinate space; what it cannot say is refused, named."""

from __future__ import annotations

import pytest

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
from harness.modelio.imaging import target_size
from harness.modelio.parsers import PIXEL_FORMATS, ParseContext, parse_output
from harness.modelio.parsers.formatters import UnexpressibleAction, coordinate_tolerance, format_action, same_action

ACTIONS = [
    Click(point=[0.123, 0.777]),
    LongPress(point=[0.5, 0.5], duration=2),
    Swipe(start=[0.5, 0.8], end=[0.5, 0.2]),
    Scroll(direction="down"),
    TypeText(text='it\'s "a"\nb 你好 \\d'),
    Back(),
    Home(),
    Enter(),
    Recent(),
    Wait(duration=2),
    Complete(),
    Impossible(reason="blocked"),
]
CANNOT = {
    "agentcpm": [OpenApp(name="Clock"), Complete(answer="4:00 AM"), TypeText(text="x", submit=True)],
    "qwen": [TypeText(text="x", submit=True), TypeText(text="x", clear=True)],
    "uitars": [TypeText(text="x", clear=True), OpenApp(package="com.x")],
}


@pytest.mark.parametrize("fmt", ["json", "agentcpm", "uitars", "qwen"])
@pytest.mark.parametrize("space", ["image_pixels", "relative_1000"])
def test_what_a_format_writes_its_parser_reads_back(fmt, space):
    device = (1080, 2400)
    mapping = ScreenMapping(device, target_size(device, 1344, fmt in PIXEL_FORMATS))
    ctx = ParseContext(mapping, space if fmt in PIXEL_FORMATS else "image_pixels")
    extra = [OpenApp(name="Clock"), Complete(answer="4:00 AM"), Answer(text="yes")] if fmt != "agentcpm" else []
    for action in ACTIONS + extra:
        text, lowered = format_action(fmt, action, ctx, "I'll tap it")
        back = parse_output(fmt, text, ctx)
        assert same_action(back.action, lowered, coordinate_tolerance(ctx)), (fmt, action, text, back.action)
        assert back.thought == "I'll tap it"
    for action in CANNOT.get(fmt, []):
        with pytest.raises(UnexpressibleAction, match=f"{fmt} output cannot express {action.type}"):
            format_action(fmt, action, ctx)


def test_a_moved_point_is_not_the_same_action():
    ctx = ParseContext(ScreenMapping((1080, 2400), (1080, 2400)))
    a, b = Click(point=[0.5, 0.5]), Click(point=[0.52, 0.5])
    assert same_action(a, a, coordinate_tolerance(ctx)) and not same_action(a, b, coordinate_tolerance(ctx))
