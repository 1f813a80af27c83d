"""QA answers by location (issue 15, item 2): `harness.qa_agent.predicted_items` (element indices, boxes, points, in
screenshot pixels or [0, 1000]; screens with an empty hierarchy), the open GUI models' QA output formats
(`agents.qa_formats`), and the `openai` QA agent in each format against a local OpenAI-compatible stub."""

from __future__ import annotations

import json
import re

import pytest
from PIL import Image

from agents.qa_formats import parse_qa
from harness.coords import ScreenMapping
from harness.hierarchy import UITree
from harness.modelio.parsers import OutputParseError, ParseContext
from harness.observation import Observation
from harness.qa_agent import QAAnswer, Region, predicted_items

W, H = 1000, 2000
XML = f"""<?xml version="1.0" encoding="UTF-8"?><hierarchy rotation="0">
<node class="android.widget.FrameLayout" bounds="[0,0][{W},{H}]">
  <node class="android.widget.LinearLayout" text="" bounds="[0,100][1000,300]">
    <node class="android.widget.TextView" text="Humidity" bounds="[0,100][500,200]"/>
    <node class="android.widget.TextView" text="48%" bounds="[500,100][1000,200]"/>
    <node class="android.widget.TextView" text="Wind 7 mph" bounds="[0,200][1000,300]"/>
  </node>
  <node class="android.widget.ImageView" content-desc="Sunny" bounds="[400,1000][600,1200]"/>
</node></hierarchy>"""
EMPTY = '<?xml version="1.0" encoding="UTF-8"?><hierarchy rotation="0"></hierarchy>'


def _obs(xml: str = XML) -> Observation:
    return Observation(
        screenshot=Image.new("RGB", (W, H), "white"),
        tree=UITree.from_xml(xml),
        xml=xml,
        package="com.example",
        activity="",
        size=(W, H),
        rotation=0,
    )


HUMIDITY, VALUE, WIND, SUNNY = 2, 3, 4, 5


def test_element_indices_give_bounds_and_text_and_unknown_ones_are_dropped_and_counted():
    obs = _obs()
    assert obs.tree[VALUE].text == "48%"
    got = predicted_items(QAAnswer(elements=(VALUE, 99, SUNNY, -1), text="48%"), obs)
    assert got.items == [((500, 100, 1000, 200), "48%"), ((400, 1000, 600, 1200), "Sunny")]
    assert got.unknown == 2
    assert predicted_items(QAAnswer(no_answer=True), obs) == ([], 0)


def test_a_box_names_the_element_it_overlaps_best_else_it_stands_for_itself():
    obs = _obs()
    # IoU with "48%" (500..1000 x 100..200): inter 450*100 / union (500*100 + 450*110 - 45000) = 0.818
    near = Region(box=(550, 100, 1000, 210))
    far = Region(box=(100, 1500, 300, 1600))  # over nothing labelled
    got = predicted_items(QAAnswer(regions=(near, far), text="48%"), obs)
    assert got.items == [((500, 100, 1000, 200), "48%"), ((100, 1500, 300, 1600), "48%")]
    # a box overlapping "48%" by IoU 0.25 < MATCH_IOU is kept as a box, with the region's own text
    weak = Region(box=(500, 100, 625, 200), text="48")
    assert predicted_items(QAAnswer(regions=(weak,), text="x"), obs).items == [((500, 100, 625, 200), "48")]


def test_boxes_and_points_in_0_1000_are_converted_with_the_screen_size():
    obs = _obs()
    # [500, 50, 1000, 100] of 1000 -> pixels (500, 100, 1000, 200) on 1000x2000: exactly "48%"
    box = predicted_items(QAAnswer(regions=(Region(box=(500, 50, 1000, 100)),), space="relative_1000"), obs)
    assert box.items == [((500, 100, 1000, 200), "48%")]
    # a point at (500, 550)/1000 -> pixel (500, 1100): inside "Sunny" (and the full-screen frame, which has no label)
    pt = predicted_items(QAAnswer(regions=(Region(point=(500, 550)),), text="sunny", space="relative_1000"), obs)
    assert pt.items == [((400, 1000, 600, 1200), "Sunny")]


def test_a_point_names_the_smallest_labelled_element_containing_it_else_a_small_box():
    obs = _obs()
    on_value = predicted_items(QAAnswer(regions=(Region(point=(700, 150)),), text="48%"), obs)
    assert on_value.items == [((500, 100, 1000, 200), "48%")]
    # nothing labelled at (100, 1800): a square of 4% of the short side (40 px) around it
    empty = predicted_items(QAAnswer(regions=(Region(point=(100, 1800)),), text="blue"), obs)
    assert empty.items == [((80, 1780, 120, 1820), "blue")]


def test_an_element_named_twice_is_kept_once_and_regions_off_the_screen_are_counted():
    obs = _obs()
    ans = QAAnswer(
        regions=(
            Region(point=(700, 150)),
            Region(box=(500, 100, 1000, 200)),
            Region(point=(5000, 10)),
            Region(box=(900, 10, 100, 20)),
        ),
        text="48%",
    )
    got = predicted_items(ans, obs)
    assert got.items == [((500, 100, 1000, 200), "48%")] and got.unknown == 2


def test_the_screenshot_alone_works_items_are_the_boxes_with_the_short_answer():
    obs = _obs(EMPTY)
    assert len(obs.tree) == 0
    ans = QAAnswer(regions=(Region(box=(500, 100, 1000, 200)), Region(point=(10, 10))), text="48%")
    got = predicted_items(ans, obs)
    assert got.items == [((500, 100, 1000, 200), "48%"), ((0, 0, 30, 30), "48%")] and got.unknown == 0
    assert predicted_items(QAAnswer(elements=(0,), text="48%"), obs) == ([], 1)


# --- the output formats ---------------------------------------------------------------------------------------
HALF = ParseContext(mapping=ScreenMapping(device_size=(W, H), image_size=(500, 1000)))  # the model saw half size
REL = ParseContext(mapping=ScreenMapping(device_size=(W, H), image_size=(500, 1000)), coordinate_space="relative_1000")


def test_qwen_bbox_2d_in_image_pixels_maps_to_screenshot_pixels():
    raw = (
        'Here:\n```json\n[{"bbox_2d": [250, 50, 499, 99], "label": "48%"}, {"point_2d": [250, 550], "label": "x"}]\n```'
    )
    r = parse_qa("qwen", raw, HALF, set())
    # image pixel i -> device floor((i + 0.5) * 2): 250 -> 501, 50 -> 101; the far corner's pixel 499 -> 999 (+1)
    assert r.regions == (Region(box=(501, 101, 1000, 200), text="48%"), Region(point=(501, 1101), text="x"))
    assert r.space == "pixels" and r.text == "48%, x" and not r.no_answer
    assert predicted_items(QAAnswer(regions=r.regions, text=r.text), _obs()).items[0] == ((500, 100, 1000, 200), "48%")
    assert parse_qa("qwen", "```json\n[]\n```", HALF, set()).no_answer
    rel = parse_qa("qwen", '[{"bbox_2d": [500, 50, 1000, 100], "label": "48%"}]', REL, set())
    assert rel.space == "relative_1000" and rel.regions[0].box == (500, 50, 1000, 100)


def test_uitars_finished_with_box_tokens():
    raw = (
        "Thought: the value right of Humidity.\nAction: finished(content='48%', start_box='<|box_start|>(250,50),"
        "(499,99)<|box_end|> <|box_start|>(250,550)<|box_end|>')"
    )
    r = parse_qa("uitars", raw, HALF, set())
    assert r.regions == (Region(box=(501, 101, 1000, 200)), Region(point=(501, 1101))) and r.text == "48%"
    r10 = parse_qa("uitars", "Action: finished(content='48%', start_box='(500,50),(1000,100)')", REL, set())
    assert r10.space == "relative_1000" and r10.regions == (Region(box=(500, 50, 1000, 100)),)
    assert parse_qa("uitars", "Thought: no.\nAction: finished(content='<no answer>')", HALF, set()).no_answer
    assert parse_qa("uitars", "Action: call_user()", HALF, set()).no_answer


def test_agentcpm_boxes_and_points_in_0_1000():
    r = parse_qa("agentcpm", '{"thought":"t","answer":"48%","BOX":[[500,50,1000,100]],"POINT":[500,550]}', HALF, set())
    assert r.space == "relative_1000" and r.text == "48%"
    assert r.regions == (Region(box=(500, 50, 1000, 100)), Region(point=(500, 550)))
    items = predicted_items(QAAnswer(regions=r.regions, text=r.text, space=r.space), _obs()).items
    assert items == [((500, 100, 1000, 200), "48%"), ((400, 1000, 600, 1200), "Sunny")]
    assert parse_qa("agentcpm", '{"thought":"none","STATUS":"impossible"}', HALF, set()).no_answer


def test_json_keeps_element_indices_and_refuses_unlisted_ones():
    r = parse_qa("json", '{"elements": [3], "answer": "48%", "no_answer": false}', HALF, {3})
    assert r.elements == (3,) and r.text == "48%"
    with pytest.raises(OutputParseError, match=r"element\(s\) \[7\]"):
        parse_qa("json", '{"elements": [7], "answer": "x"}', HALF, {3})


@pytest.mark.parametrize(
    ("fmt", "raw", "message"),
    [
        ("qwen", "the humidity is 48%", "no JSON array or object"),
        ("qwen", '[{"label": "48%"}]', "neither bbox_2d nor point_2d"),
        ("qwen", '[{"bbox_2d": [1, 2, 3], "label": "x"}]', r"bbox_2d must be \[x1, y1, x2, y2\]"),
        ("qwen", '[{"bbox_2d": [10, 10, 9000, 20], "label": "x"}]', "is not a pixel of the 500x1000 image"),
        ("uitars", "Action: click(start_box='(1,2)')", "expected finished"),
        ("uitars", "Action: finished(content='x', start_box='(1,2,3)')", r"is not \(x,y\)"),
        ("agentcpm", '{"answer": "x", "BOX": [[10, 10, 2000, 20]]}', "outside"),
        ("agentcpm", '{"answer": "x", "BOX": [[500, 10, 100, 20]]}', "inverted"),
        ("agentcpm", '{"answer": "x", "PRESS": "HOME"}', "unknown key"),
        ("json", '{"elements": "3"}', "must be a list"),
    ],
)
def test_malformed_output_names_the_format_and_the_field(fmt, raw, message):
    with pytest.raises(OutputParseError, match=message) as ei:
        parse_qa(fmt, raw, HALF, {3})
    assert str(ei.value).startswith(f"{fmt} output")


# --- the openai QA agent in each format, against a local stub ------------------------------------------------------
def _agent(url: str, fmt: str, **kw):
    from harness.plugins import create_qa_agent

    return create_qa_agent(
        "openai",
        model="stub",
        base_url=url,
        api_key="sk-test-formats-0123456789",
        output_format=fmt,
        retry_seed=0,
        **kw,
    )


def _image_size(body) -> tuple[int, int]:
    m = re.search(r"(\d+)x(\d+)", body["messages"][0]["content"])
    assert m, "the system prompt names the image size"
    return int(m.group(1)), int(m.group(2))


def test_the_qwen_format_answers_by_box_on_the_image_the_model_saw():
    from tests.openai_stub import OpenAIStub

    def model(body):  # points at "48%" in pixels of the (smart-resized) image it was sent
        iw, ih = _image_size(body)
        box = [round(500 * iw / W), round(100 * ih / H), round(1000 * iw / W) - 1, round(200 * ih / H) - 1]
        return json.dumps([{"bbox_2d": box, "label": "48%"}])

    with OpenAIStub(handler=model) as stub:
        ans = _agent(stub.url, "qwen").answer(_obs(), "What is the humidity?", "en")
        sent = stub.requests[0].body
    assert "bbox_2d" in sent["messages"][0]["content"] and "response_format" not in sent
    iw, ih = _image_size(sent)
    assert iw % 28 == 0 and ih % 28 == 0, "pixel formats get a smart-resized image"
    assert ans.space == "pixels" and ans.text == "48%" and ans.error is None
    assert predicted_items(ans, _obs()).items == [((500, 100, 1000, 200), "48%")]


def test_the_screenshot_alone_answers_in_the_agentcpm_format():
    from tests.openai_stub import OpenAIStub

    reply = '{"thought":"top right","answer":"48%","BOX":[[500,50,1000,100]]}'
    with OpenAIStub([reply]) as stub:
        ans = _agent(stub.url, "agentcpm").answer(_obs(EMPTY), "What is the humidity?", "en")
        text = stub.requests[0].body["messages"][1]["content"][0]["text"]
    assert "Elements:\n(none)" in text
    assert predicted_items(ans, _obs(EMPTY)) == ([((500, 100, 1000, 200), "48%")], 0)


def test_malformed_output_in_a_location_format_is_no_answer_with_the_error_kept():
    from tests.openai_stub import OpenAIStub

    with OpenAIStub(
        ["Action: click(start_box='(1,2)')", "Action: finished(content='x', start_box='(9999,1)')"]
    ) as stub:
        ans = _agent(stub.url, "uitars").answer(_obs(), "What is the humidity?", "en")
        repair = stub.requests[1].body["messages"][-1]["content"]
    assert "expected finished" in repair and "<|box_start|>" in repair
    assert ans.no_answer and ans.error and ans.error.startswith("unusable output: uitars output")
    assert predicted_items(ans, _obs()) == ([], 0)
