"""Helpers for the agent tests: observations of the in-process virtual device model, a minimal task, and a tiny
executor that carries unified actions out on the model (tap at the chosen element's centre, etc.)."""

from __future__ import annotations

from typing import Any

from emulator.virtual.model import VirtualDeviceModel
from harness import coords
from harness.actions import (
    Back,
    Click,
    Enter,
    Home,
    LongPress,
    OpenApp,
    Recent,
    Scroll,
    Swipe,
    TypeText,
    is_terminal,
)
from harness.agent import AgentStep, EpisodeContext, HistoryItem
from harness.hierarchy import UITree
from harness.observation import ActionResult, Observation
from tasks.schema import parse_task


def observe(m: VirtualDeviceModel) -> Observation:
    xml = m.hierarchy_xml()
    fg = m.foreground
    img = m.screenshot()
    return Observation(
        screenshot=img,
        tree=UITree.from_xml(xml),
        xml=xml,
        package=fg.package,
        activity=fg.activity,
        size=img.size,
        rotation=m.rotation,
    )


def make_task(
    instruction: str | dict[str, str] = "Do something",
    reference: dict[str, Any] | None = None,
    task_id: str = "t1",
    **extra: Any,
) -> Any:
    instr = {"en": instruction} if isinstance(instruction, str) else instruction
    data = {
        "id": task_id,
        "instruction": instr,
        "category": "1-1",
        "milestones": {"children": [{"id": "m", "sub_target": "x", "check": {"package": "com.android.settings"}}]},
        **extra,
    }
    if reference is not None:
        data["reference"] = reference
    return parse_task(data)


def context(task: Any, lang: str = "en", seed: int = 0, max_steps: int = 20) -> EpisodeContext:
    return EpisodeContext(task=task, lang=lang, instruction=task.instruction_for(lang), seed=seed, max_steps=max_steps)


def _px(obs: Observation, action: Any) -> tuple[int, int]:
    if action.element is not None:
        return obs.tree[action.element].center
    return coords.to_pixels(action.point.as_tuple(), obs.size)


def execute(m: VirtualDeviceModel, obs: Observation, action: Any) -> ActionResult:
    """Carry out `action` on the model in-process (no adb)."""
    if isinstance(action, Click):
        m.tap(*_px(obs, action))
    elif isinstance(action, LongPress):
        m.long_press(*_px(obs, action), duration_ms=int(action.duration * 1000))
    elif isinstance(action, TypeText):
        if action.target is not None:
            m.tap(*_px(obs, action))
        if action.clear:
            m.set_focused_text("")
        if not m.commit_text(action.text):
            return ActionResult(action=action, ok=False, error="no focused field")
        if action.submit:
            m.key(66)
    elif isinstance(action, Swipe):
        (x1, y1), (x2, y2) = (coords.to_pixels(p.as_tuple(), obs.size) for p in (action.start, action.end))
        m.swipe(x1, y1, x2, y2, int(action.duration * 1000))
    elif isinstance(action, Scroll):
        bounds = obs.tree[action.element].bounds if action.element is not None else None
        return execute(m, obs, action.to_swipe(bounds, obs.size))
    elif isinstance(action, Back):
        m.key(4)
    elif isinstance(action, Home):
        m.key(3)
    elif isinstance(action, Enter):
        m.key(66)
    elif isinstance(action, Recent):
        m.key(187)
    elif isinstance(action, OpenApp):
        for pkg in m.packages.values():
            if action.package == pkg.name or (
                action.name and action.name.casefold() in {v.casefold() for v in pkg.labels.values()}
            ):
                m.start_activity(pkg.name)
                return ActionResult(action=action, package=pkg.name)
        return ActionResult(action=action, ok=False, error=f"no app {action.name!r}")
    return ActionResult(action=action)


def run(
    agent: Any, m: VirtualDeviceModel, task: Any, lang: str = "en", seed: int = 0, max_steps: int = 15
) -> list[AgentStep]:
    """A minimal episode loop on the model; returns the agent's steps."""
    agent.reset(context(task, lang, seed, max_steps))
    history: list[HistoryItem] = []
    steps: list[AgentStep] = []
    for step in range(1, max_steps + 1):
        obs = observe(m)
        s = agent.act(obs, list(history))
        steps.append(s)
        result = execute(m, obs, s.action) if s.action is not None else None
        history.append(HistoryItem(step=step, agent_step=s, result=result))
        if s.action is not None and is_terminal(s.action):
            break
    return steps
