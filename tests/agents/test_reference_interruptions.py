"""The reference agent and interruptions (agents/interruptions.py): a heads-up notification over the app is swiped
away, a system or permission dialog closed by its dismissing button (or BACK), each as a step of its own with a
thought saying what was dismissed, before the same reference step is played; a step meant for the interruption is
played as is. On the in-process device (the Device seam), with a heads-up posted through its shell."""

from __future__ import annotations

from agents.interruptions import find_interruption
from agents.reference import ReferenceAgent
from harness.actions import Back, Click, Swipe
from harness.device.inprocess import InProcessDevice
from harness.hierarchy import UIElement, UITree
from tests.agents_helpers import context, make_task

HEADS_UP = "com.android.systemui:id/heads_up_notification"


def _ids(tree: UITree) -> set[str]:
    return {e.resource_id for e in tree}


def test_a_posted_heads_up_is_swiped_away_before_the_same_step_on_an_in_process_device():
    with InProcessDevice() as dev:
        dev.execute({"type": "OPEN_APP", "name": "Settings", "package": "com.android.settings"})
        dev.shell(["cmd", "notification", "post", "-S", "bigtext", "-t", "Lunch", "tag", "At noon"])
        obs = dev.observe()
        assert HEADS_UP in _ids(obs.tree), "the heads-up is on the screen"
        agent = ReferenceAgent(actions=[{"type": "CLICK", "locate": {"text": "Connected devices"}}])
        agent.reset(context(make_task()))
        first = agent.act(obs, [])
        assert isinstance(first.action, Swipe) and first.action.direction == "up"
        assert first.thought.startswith('dismissing the heads-up notification "Lunch" before reference step 1')
        assert first.meta == {"reference_step": 1, "reference_steps": 1, "dismissed": "heads-up"}
        dev.execute(first.action, obs)
        after = dev.observe()
        assert HEADS_UP not in _ids(after.tree) and after.package == "com.android.settings"
        assert [n.title for n in dev.model.notifications.posted] == ["Lunch"], "still in the shade"
        second = agent.act(after, [])
        assert isinstance(second.action, Click) and second.thought.startswith("reference step 1: ")
        assert after.tree[second.action.element].text == "Connected devices"
        dev.execute(second.action, after)
        assert "bluetooth_row" in {e.resource_name for e in dev.observe().tree}


def test_without_an_interruption_nothing_is_dismissed():
    with InProcessDevice() as dev:
        dev.execute({"type": "OPEN_APP", "name": "Settings", "package": "com.android.settings"})
        obs = dev.observe()
        assert find_interruption(obs.tree, obs.size) is None
        agent = ReferenceAgent(actions=[{"type": "CLICK", "locate": {"text": "Connected devices"}}])
        agent.reset(context(make_task()))
        assert "dismissed" not in agent.act(obs, []).meta


def _dialog_tree(package: str, buttons: list[str]) -> UITree:
    els = [
        UIElement(
            0,
            (0, 0, 1080, 2400),
            package="com.android.settings",
            resource_id="com.android.settings:id/x",
            text="Connected devices",
            children=(),
            clickable=True,
        ),
        UIElement(1, (100, 800, 980, 1600), package=package, children=tuple(range(2, 3 + len(buttons)))),
        UIElement(2, (140, 840, 940, 1000), package=package, text="Settings isn't responding", parent=1, depth=1),
    ]
    for i, b in enumerate(buttons):
        els.append(
            UIElement(
                3 + i,
                (140, 1100 + 150 * i, 940, 1230 + 150 * i),
                package=package,
                text=b,
                clickable=True,
                parent=1,
                depth=1,
            )
        )
    xml = ['<hierarchy rotation="0">']
    for e in els:
        if e.parent is None:
            xml.append(_node(e, els))
    xml.append("</hierarchy>")
    return UITree.from_xml("".join(xml))


def _node(e: UIElement, els: list[UIElement]) -> str:
    l, t, r, b = e.bounds
    kids = "".join(_node(els[c], els) for c in e.children)
    return (
        f'<node index="0" text="{e.text}" resource-id="{e.resource_id}" class="android.widget.Button" '
        f'package="{e.package}" content-desc="" clickable="{str(e.clickable).lower()}" enabled="true" '
        f'visible-to-user="true" bounds="[{l},{t}][{r},{b}]">{kids}</node>'
    )


class _Screen:
    def __init__(self, tree: UITree) -> None:
        self.tree, self.package, self.activity, self.size = tree, "com.android.settings", ".Settings", (1080, 2400)


def test_a_system_dialog_is_closed_by_its_wait_button_and_a_permission_dialog_by_dont_allow():
    agent = ReferenceAgent(actions=[{"type": "CLICK", "locate": {"text": "Connected devices"}}])
    agent.reset(context(make_task()))
    anr = _Screen(_dialog_tree("android", ["Close app", "Wait"]))
    step = agent.act(anr, [])
    assert isinstance(step.action, Click) and anr.tree[step.action.element].text == "Wait"
    assert step.meta["dismissed"] == "dialog" and '"Wait" button' in step.thought
    perm = _Screen(_dialog_tree("com.google.android.permissioncontroller", ["Allow", "不允许"]))
    step = agent.act(perm, [])
    assert isinstance(step.action, Click) and perm.tree[step.action.element].text == "不允许"
    bare = _Screen(_dialog_tree("android", ["Details"]))
    step = agent.act(bare, [])
    assert step.action == Back() and "with BACK" in step.thought


def test_a_step_meant_for_the_dialog_is_played_and_dismissals_in_a_row_are_bounded():
    agent = ReferenceAgent(actions=[{"type": "CLICK", "locate": {"text": "Close app"}}])
    agent.reset(context(make_task()))
    anr = _Screen(_dialog_tree("android", ["Close app", "Wait"]))
    step = agent.act(anr, [])
    assert "dismissed" not in step.meta and anr.tree[step.action.element].text == "Close app"
    agent = ReferenceAgent(actions=[{"type": "CLICK", "locate": {"text": "Connected devices"}}])
    agent.reset(context(make_task()))
    kinds = [agent.act(anr, []).meta.get("dismissed") for _ in range(4)]
    assert kinds == ["dialog", "dialog", "dialog", None], "at most 3 dismissals before the step itself"


def _interrupt(dev: InProcessDevice, kind: str) -> None:
    dev.shell(["am", "broadcast", "-a", "com.droidharness.virtual.action.INTERRUPT", "--es", "kind", kind])


def test_the_devices_anr_dialog_is_closed_by_wait_and_the_app_stays():
    with InProcessDevice() as dev:
        dev.execute({"type": "OPEN_APP", "name": "Settings", "package": "com.android.settings"})
        _interrupt(dev, "anr")
        obs = dev.observe()
        found = find_interruption(obs.tree, obs.size)
        assert found is not None and found.kind == "dialog" and isinstance(found.action, Click)
        assert obs.tree[found.action.element].text == "Wait" and obs.tree[found.root].package == "android"
        dev.execute(found.action, obs)
        after = dev.observe()
        assert find_interruption(after.tree, after.size) is None and after.package == "com.android.settings"


def test_a_popup_over_the_apps_own_permission_prompt_goes_first_and_the_prompt_is_left_to_the_task():
    """Messages opens with its own SMS permission prompt (a window of the permission controller, which the task's
    solution answers); a promo over it is the topmost window: its Close button goes first, then nothing."""
    with InProcessDevice() as dev:
        dev.execute({"type": "OPEN_APP", "name": "Messages", "package": "com.google.android.apps.messaging"})
        _interrupt(dev, "promo")
        obs = dev.observe()
        found = find_interruption(obs.tree, obs.size)
        assert found is not None and found.kind == "popup" and isinstance(found.action, Click)
        assert obs.tree[found.action.element].content_desc == "Close"
        dev.execute(found.action, obs)
        after = dev.observe()
        assert "promo_close" not in {e.resource_name for e in after.tree}
        below = find_interruption(after.tree, after.size)
        assert below is not None and below.kind == "dialog", "the app's own prompt: a step meant for it plays"


def test_a_rating_popup_is_closed_by_not_now_in_both_languages():
    for locale, label in (("en", "Not now"), ("zh", "以后再说")):
        with InProcessDevice(locale=locale) as dev:
            dev.execute({"type": "OPEN_APP", "package": "com.droidharness.notes"})
            before = sorted(e.text for e in dev.observe().tree if e.text)
            _interrupt(dev, "rate")
            obs = dev.observe()
            found = find_interruption(obs.tree, obs.size)
            assert found is not None and found.kind == "popup" and isinstance(found.action, Click)
            assert obs.tree[found.action.element].text == label
            dev.execute(found.action, obs)
            after = dev.observe()
            assert find_interruption(after.tree, after.size) is None
            assert sorted(e.text for e in after.tree if e.text) == before, "the app as it was"
