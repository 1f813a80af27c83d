"""Milestone semantics on hand-built screens (real uiautomator XML parsed by harness.hierarchy)."""

from __future__ import annotations

from dataclasses import dataclass
from xml.sax.saxutils import quoteattr

import pytest

from harness.hierarchy import UITree
from harness.run.judge.milestones import MilestoneTracker, answer_matches, final_milestones, normalize_answer
from tasks.schema import ExpectedAnswer, MilestoneGroup, TaskError, parse_task

W, H = 1000, 2000


@dataclass
class Screen:
    tree: UITree
    package: str = "com.example"
    activity: str = "com.example.MainActivity"
    size: tuple[int, int] = (W, H)


def node(text="", rid="", cls="android.widget.TextView", bounds=(0, 0, 100, 100), desc="", **states) -> str:
    l, t, r, b = bounds
    flags = " ".join(f'{k.replace("_", "-")}="{"true" if v else "false"}"' for k, v in states.items())
    return (
        f'<node index="0" text={quoteattr(text)} resource-id={quoteattr(rid)} class={quoteattr(cls)} '
        f'package="com.example" content-desc={quoteattr(desc)} {flags} bounds="[{l},{t}][{r},{b}]" />'
    )


def screen(*nodes: str, package="com.example", activity="com.example.MainActivity") -> Screen:
    xml = (
        "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"
        f'<node index="0" text="" resource-id="" class="android.widget.FrameLayout" package="com.example" '
        f'content-desc="" bounds="[0,0][{W},{H}]">{"".join(nodes)}</node></hierarchy>'
    )
    return Screen(UITree.from_xml(xml), package, activity)


def group(order, *children, id="root"):
    return MilestoneGroup.model_validate({"id": id, "order": order, "children": list(children)})


def leaf(id, **check):
    return {"id": id, "sub_target": id, "check": check}


EMPTY = screen()
A = screen(node("Alpha", "com.example:id/a"))
B = screen(node("Beta", "com.example:id/b"))
AB = screen(node("Alpha", "com.example:id/a"), node("Beta", "com.example:id/b", bounds=(0, 200, 100, 300)))


def test_ordered_needs_predecessors_and_hits_latch():
    t = MilestoneTracker(group("ordered", leaf("a", element={"text": "alpha"}), leaf("b", element={"text": "Beta"})))
    assert t.update(B, 1) == []  # b holds but a is not done yet
    assert t.update(A, 2) == ["a"]
    assert t.update(EMPTY, 3) == []  # a stays hit
    assert t.progress == 0.5
    assert t.update(B, 4) == ["b"] and t.complete and t.hits == {"a": 2, "b": 4}


def test_ordered_same_screen_hits_consecutive_milestones():
    t = MilestoneTracker(group("ordered", leaf("a", element={"text": "Alpha"}), leaf("b", element={"text": "Beta"})))
    assert t.update(AB, 1) == ["a", "b"]


def test_unordered_progresses_independently():
    t = MilestoneTracker(group("unordered", leaf("a", element={"text": "Alpha"}), leaf("b", element={"text": "Beta"})))
    assert t.update(B, 1) == ["b"]
    assert t.progress == 0.5
    assert t.update(A, 2) == ["a"]


def test_nested_group_in_ordered_parent_waits_for_predecessor():
    root = group(
        "ordered",
        leaf("open", package="com.example"),
        {
            "id": "items",
            "order": "unordered",
            "children": [leaf("a", element={"text": "Alpha"}), leaf("b", element={"text": "Beta"})],
        },
        leaf("done", element={"text": "Done"}),
    )
    t = MilestoneTracker(root)
    other = Screen(AB.tree, package="com.other")
    assert t.update(other, 1) == []  # nested items can't count before "open"
    assert t.update(A, 2) == ["open", "a"]
    assert t.update(screen(node("Done")), 3) == []  # "done" waits for the whole nested group
    assert t.update(B, 4) == ["b"]
    assert t.update(screen(node("Done")), 5) == ["done"]
    assert [m.id for m in final_milestones(root)] == ["done"]


def test_text_rules_equals_contains_regex_case_and_localized():
    s = screen(node("  Wi-Fi   password: sunflower42 "))
    holds = lambda **el: MilestoneTracker(group("ordered", leaf("x", element=el))).update(s, 1) == ["x"]  # noqa: E731
    assert holds(text="wi-fi password: SUNFLOWER42")
    assert not holds(text="wi-fi password: SUNFLOWER42", case_sensitive=True)
    assert holds(text="sunflower", match="contains") and not holds(text="sunflower", match="equals")
    assert holds(text=r"\d{2}$", match="regex") and not holds(text=r"^\d", match="regex")
    zh = MilestoneTracker(
        group("ordered", leaf("x", element={"text": {"en": "Nope", "zh": "Wi-Fi password: sunflower42"}})), lang="zh"
    )
    assert zh.update(s, 1) == ["x"]


def test_under_another_system_language_a_localized_text_matches_in_either_and_a_plain_one_as_given():
    """`alt` (the device's system language under `locale=`): a label the task gives per language matches in the
    episode's language or the device's; a plain text, a regex and an `absent` check are read the same way; the
    episode's language alone without it."""
    s = screen(node("显示", "android:id/title"), node("Alice Johnson", "name", bounds=(0, 200, 100, 300)))
    display = {"text": {"en": "Display", "zh": "显示"}, "resource_id": "android:id/title"}

    def hits(alt: str | None, **check: object) -> list[str]:
        return MilestoneTracker(group("ordered", leaf("x", **check)), lang="en", alt=alt).update(s, 1)

    assert hits(None, element=display) == [], "an en episode on an en device: the zh label is not it"
    assert hits("zh", element=display) == ["x"]
    assert hits("en", element=display) == [], "alt in the episode's language adds nothing"
    assert hits("zh", element={"text": "Display"}) == [], "a plain text is the text, whatever the device speaks"
    assert hits("zh", element={"text": {"en": "Alice Johnson", "zh": "爱丽丝"}}) == ["x"], "content stays en"
    assert hits("zh", element={"text": {"en": "^Disp", "zh": "^显"}, "match": "regex"}) == ["x"]
    assert hits("zh", element={"text": {"en": "Display", "zh": "显示设置"}}) == [], "equals, in either language"
    assert hits("zh", absent=[display]) == [] and hits(None, absent=[display]) == ["x"]


def test_resource_id_class_states_and_invisible_elements():
    sw_on = node("", "com.android.settings:id/switch_widget", "android.widget.Switch", checked=True, checkable=True)
    sw_off = node("", "com.android.settings:id/switch_widget", "android.widget.Switch", checked=False)
    offscreen = node("Hidden", bounds=(0, 2100, 100, 2200))
    m = {"resource_id": "switch_widget", "class_name": "Switch", "states": ["checked"]}
    assert MilestoneTracker(group("ordered", leaf("on", element=m))).update(screen(sw_on), 1) == ["on"]
    assert MilestoneTracker(group("ordered", leaf("on", element=m))).update(screen(sw_off), 1) == []
    off = {"resource_id": "com.android.settings:id/switch_widget", "not_states": ["checked"]}
    assert MilestoneTracker(group("ordered", leaf("off", element=off))).update(screen(sw_off), 1) == ["off"]
    assert MilestoneTracker(group("ordered", leaf("h", element={"text": "Hidden"}))).update(screen(offscreen), 1) == []


def test_bbox_center_and_iou_rules():
    s = screen(node("Save", bounds=(800, 100, 1000, 200)))  # normalized x 0.8-1.0, y 0.05-0.1

    def hit(**el):
        return MilestoneTracker(group("ordered", leaf("x", element={"text": "Save", **el}))).update(s, 1) == ["x"]

    assert hit(bbox=[0.7, 0.0, 1.0, 0.2])  # centre (0.9, 0.075) inside
    assert not hit(bbox=[0.0, 0.0, 0.5, 0.2])
    assert hit(bbox=[0.8, 0.05, 1.0, 0.1], bbox_rule="iou", iou=0.99)
    assert not hit(bbox=[0.7, 0.0, 1.0, 0.2], bbox_rule="iou", iou=0.5)  # IoU = 0.01/0.06


def test_package_activity_all_elements_and_absent():
    s = screen(
        node("Cart"), node("Total: $5", bounds=(0, 200, 100, 300)), package="com.shop", activity="com.shop.CartActivity"
    )

    def hit(**check):
        return MilestoneTracker(group("ordered", leaf("x", **check))).update(s, 1) == ["x"]

    assert hit(package="com.shop", activity="CartActivity")
    assert hit(activity="com.shop.CartActivity") and not hit(activity="Main")
    assert hit(all_elements=[{"text": "Cart"}, {"text": "Total", "match": "contains"}])
    assert not hit(all_elements=[{"text": "Cart"}, {"text": "Checkout"}])
    assert hit(package="com.shop", absent=[{"text": "Error"}]) and not hit(absent=[{"text": "Cart"}])


def test_answers():
    exp = ExpectedAnswer(values=("19°", {"en": "nineteen", "zh": "十九"}), match="exact")
    assert answer_matches(exp, "19°", "en") and answer_matches(exp, "Nineteen.", "en")
    assert answer_matches(exp, "十九", "zh") and not answer_matches(exp, "20", "en")
    assert not answer_matches(exp, None, "en")
    assert answer_matches(ExpectedAnswer(values=("19",), match="number"), "The high is 19 degrees", "en")
    assert not answer_matches(ExpectedAnswer(values=("19",), match="number"), "about 190", "en")
    assert answer_matches(ExpectedAnswer(values=("sunflower42",), match="contains"), "It is sunflower42!", "en")
    assert normalize_answer("The  Price is $12.50.") == "price is 12.50"


def test_bad_task_files_name_the_field():
    base = {
        "id": "t",
        "instruction": {"en": "x"},
        "category": "1-1",
        "milestones": {"children": [leaf("a", element={"text": "A"})]},
    }
    parse_task(base)
    with pytest.raises(TaskError, match=r"t.json: invalid task: category"):
        parse_task({**base, "category": "4-1"}, "t.json")
    with pytest.raises(TaskError, match="bad regex"):
        parse_task({**base, "milestones": {"children": [leaf("a", element={"text": "(", "match": "regex"})]}})
    with pytest.raises(TaskError, match="repeated: \\['a'\\]"):
        parse_task({**base, "milestones": {"children": [leaf("a", package="p"), leaf("a", package="q")]}})
    with pytest.raises(TaskError, match="unknown state"):
        parse_task({**base, "milestones": {"children": [leaf("a", element={"states": ["shiny"]})]}})
    with pytest.raises(TaskError, match="needs at least one of"):
        parse_task({**base, "milestones": {"children": [leaf("a", element={"match": "regex"})]}})
