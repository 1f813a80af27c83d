"""Builds real trajectories with `harness.trajectory.writer.RunWriter` from synthetic steps on the virtual device model
(used by tests/harness/trajectory/test_writer.py and tests/harness/report/test_report.py)."""

from __future__ import annotations

import weakref
from pathlib import Path
from typing import Any

from harness.actions import Back, Click, LongPress, Swipe, TypeText, parse_action
from harness.agent import AgentStep, Usage
from harness.observation import ActionResult, DeviceInfo
from harness.report.render import finish_run
from harness.trajectory.episode_writer import EpisodeWriter
from harness.trajectory.frames import WriterOptions
from harness.trajectory.records import ManifestTask, MilestoneProgress
from harness.trajectory.result import EpisodeResult
from harness.trajectory.sink import Frame, StepEvent
from harness.trajectory.writer import RunWriter

HOSTILE = (
    "<script>document.title='PWNED'</script>\"'><img src=x onerror=\"document.title='PWNED2'\">"
    "</textarea></pre></details>&amp; 中文 ✓ \u202e"
)
DEVICE = DeviceInfo("VIRTUAL0001", "pixel_7", "Google", (1080, 2400), 420, 0, 34, "14", "en-US", "device")
APPS = [
    "com.droidharness.notes",
    "com.android.settings",
    "com.google.android.contacts",
    "com.google.android.deskclock",
    "com.droidharness.shop",
    "com.droidharness.weather",
]


def make_frame(
    screenshot: Any,
    xml: str | None,
    package: str | None,
    activity: str | None,
    size: tuple[int, int] | None,
    rotation: int = 0,
    *,
    encoded: bytes | None = None,
) -> Frame:
    """A recorded screen with the capture timings and paths a u2 capture reports."""
    return Frame(
        screenshot,
        xml,
        package,
        activity,
        size,
        rotation,
        timings={"screenshot": 0.05, "hierarchy": 0.08, "total": 0.09},
        paths={"screenshot": "u2", "hierarchy": "u2"},
        encoded=encoded,
    )


def agent_step(action: Any, **kw: Any) -> AgentStep:
    """An agent's step with the token usage of a typical model call."""
    return AgentStep(action, **{"usage": Usage(1200, 80, 1280), **kw})


def action_result(action: Any, **kw: Any) -> ActionResult:
    return ActionResult(action, **{"timings": {"actuation": 0.12, "settle": 0.3}, **kw})


_NEXT: weakref.WeakKeyDictionary[EpisodeWriter, int] = weakref.WeakKeyDictionary()


def record(
    ep: EpisodeWriter,
    frame: Frame,
    agent: AgentStep,
    result: ActionResult | None = None,
    *,
    step: int | None = None,
    milestones: MilestoneProgress | None = None,
    timings: dict[str, float] | None = None,
) -> None:
    """`ep.write_step` with the step numbered after the previous one (first: 1) unless given."""
    n = step if step is not None else _NEXT.get(ep, 1)
    _NEXT[ep] = n + 1
    ep.write_step(StepEvent(n, frame, agent, result, milestones, dict(timings or {})))


class FakeTracker:
    """Milestone progress by hand (hits, progress, status() as harness.run.judge.milestones.MilestoneTracker has)."""

    def __init__(self, ids: list[str]) -> None:
        self.ids, self.hits = ids, {}

    @property
    def progress(self) -> float:
        return len(self.hits) / len(self.ids)

    def status(self) -> list[dict[str, Any]]:
        return [{"id": i, "sub_target": f'reach <{i}> "now"', "hit_step": self.hits.get(i)} for i in self.ids]

    def record(self, new_hits: list[str]) -> MilestoneProgress:
        return MilestoneProgress(new_hits=new_hits, progress=round(self.progress, 6), hits=dict(self.hits))


def observe(model: Any, package: str | None = None) -> Frame:
    if package:
        model.start_activity(package)
    fg = model.foreground
    img = model.screenshot()
    return make_frame(img, model.hierarchy_xml(), fg.package, getattr(fg, "activity", "") or "", img.size)


ACTIONS = [
    Click(point=(0.5, 0.3)),
    Swipe(start=(0.5, 0.8), end=(0.5, 0.3)),
    LongPress(point=(0.3, 0.6)),
    TypeText(text="Groceries 中文 <b>"),
    Back(),
    Click(element=3),
    parse_action({"type": "HOME"}),
]


def write_episode(
    run: RunWriter,
    model: Any,
    task_id: str,
    lang: str,
    n_steps: int,
    *,
    finish: bool = True,
    hostile: bool = False,
    category: str = "1-1",
    success: bool = True,
) -> Any:
    ep = run.episode(task_id, lang, category=category, instruction=(HOSTILE if hostile else f"Do {task_id}"))
    tracker = FakeTracker(["open", "edit", "saved"])
    obs = observe(model, APPS[sum(map(ord, task_id)) % len(APPS)])
    for i in range(1, n_steps + 1):
        action = ACTIONS[(i - 1) % len(ACTIONS)]
        invalid = hostile and i == 5
        agent = agent_step(
            None if invalid else action,
            thought=(HOSTILE if hostile else f"step {i} thought"),
            raw_output=(HOSTILE if hostile else '{"type": "CLICK"}'),
            invalid=invalid,
            error=("bad JSON " + HOSTILE) if invalid else None,
        )
        result = (
            None
            if invalid
            else action_result(
                action,
                pixels=((540, 720),),
                readback=("x" if action.type == "TYPE" else None),
                readback_matches=(False if action.type == "TYPE" else None),
            )
        )
        new = []
        if i <= 3 and (success or i < 3):  # milestones hit at steps 1, 2, 3
            tracker.hits[tracker.ids[i - 1]] = i
            new = [tracker.ids[i - 1]]
        obs_next = observe(model, APPS[(sum(map(ord, task_id)) + i) % len(APPS)])
        record(
            ep,
            obs,
            agent,
            result,
            step=i,
            milestones=tracker.record(new),
            timings={"agent": 1.0 + i / 10, "total": 1.6 + i / 10},
        )
        obs = obs_next
    if finish:
        result = EpisodeResult(
            ep.task_id,
            ep.lang,
            status="success" if success else "failed",
            success=success,
            progress=tracker.progress,
            milestones=tracker.status(),
            answer=(HOSTILE if hostile else None),
            seed=7,
        )
        ep.finish(result, device=DEVICE, final=obs)
    else:
        ep.flush()
    return ep


def build_run(
    root: Path,
    run_id: str = "run1",
    *,
    episodes: int = 4,
    steps: int = 5,
    options: WriterOptions | None = None,
    hostile: bool = True,
) -> Path:
    from emulator.virtual.model import VirtualDeviceModel

    model = VirtualDeviceModel()
    tasks = [
        ManifestTask(
            id=f"task-{i}",
            category=["1-1", "1-3", "2-1", "3-2"][i % 4],
            instruction={"en": f"Do task {i}", "zh": f"做任务 {i}"},
        )
        for i in range(episodes)
    ]
    run = RunWriter.create(
        root,
        run_id,
        options=options,
        tasks=tasks,
        languages=["en", "zh"],
        agent={
            "name": "fake",
            "model": "m1",
            "base_url": "http://localhost:8000/v1",
            "api_key": "sk-THISISASECRETKEY1234567890",
        },
        suite_name="unit",
        seeds=[7],
        cli_args=["run", "--api-key", "sk-SECRETSECRETSECRET123"],
    )
    for i in range(episodes):
        lang = "en" if i % 2 == 0 else "zh"
        write_episode(
            run,
            model,
            f"task-{i}",
            lang,
            steps,
            hostile=hostile and i == 0,
            category=tasks[i].category or "",
            success=i % 3 != 1,
        )
    finish_run(run)
    return run.path
