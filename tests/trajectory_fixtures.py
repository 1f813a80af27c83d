"""Builds real trajectories with `harness.run.record.RunWriter` from synthetic steps on the virtual device model
(used by tests/test_record.py and tests/test_report.py)."""

from __future__ import annotations

from harness.run.result import EpisodeResult

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.actions import Back, Click, LongPress, Swipe, TypeText, parse_action
from harness.run.record import RunWriter, WriterOptions

HOSTILE = ("<script>document.title='PWNED'</script>\"'><img src=x onerror=\"document.title='PWNED2'\">"
           "</textarea></pre></details>&amp; 中文 ✓ \u202e")
APPS = ["com.droidharness.notes", "com.android.settings", "com.google.android.contacts",
        "com.google.android.deskclock", "com.droidharness.shop", "com.droidharness.weather"]


@dataclass(frozen=True)
class FakeObservation:
    screenshot: Any
    xml: str
    package: str
    activity: str
    size: tuple[int, int]
    rotation: int = 0
    timings: dict[str, float] = field(default_factory=lambda: {"screenshot": 0.05, "hierarchy": 0.08,
                                                                 "total": 0.09})
    paths: dict[str, str] = field(default_factory=lambda: {"screenshot": "u2", "hierarchy": "u2"})


@dataclass(frozen=True)
class FakeUsage:
    prompt_tokens: int = 1200
    completion_tokens: int = 80
    total_tokens: int = 1280


@dataclass(frozen=True)
class FakeAgentStep:
    action: Any
    thought: str = ""
    raw_output: str = ""
    usage: FakeUsage = FakeUsage()
    invalid: bool = False
    error: str | None = None
    repair_attempts: int = 0
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class FakeResult:
    action: Any
    ok: bool = True
    pixels: tuple[tuple[int, int], ...] = ()
    readback: str | None = None
    readback_matches: bool | None = None
    settled: bool = True
    error: str | None = None
    timings: dict[str, float] = field(default_factory=lambda: {"actuation": 0.12, "settle": 0.3})


class FakeTracker:
    """Quacks like harness.run.milestones.MilestoneTracker (hits, progress, status())."""

    def __init__(self, ids: list[str]) -> None:
        self.ids, self.hits = ids, {}

    @property
    def progress(self) -> float:
        return len(self.hits) / len(self.ids)

    def status(self) -> list[dict[str, Any]]:
        return [{"id": i, "sub_target": f"reach <{i}> \"now\"", "hit_step": self.hits.get(i)} for i in self.ids]


def observe(model: Any, package: str | None = None) -> FakeObservation:
    if package:
        model.start_activity(package)
    fg = model.foreground
    img = model.screenshot()
    return FakeObservation(img, model.hierarchy_xml(), fg.package, getattr(fg, "activity", "") or "", img.size)


ACTIONS = [Click(point=(0.5, 0.3)), Swipe(start=(0.5, 0.8), end=(0.5, 0.3)), LongPress(point=(0.3, 0.6)),
           TypeText(text="Groceries 中文 <b>"), Back(), Click(element=3), parse_action({"type": "HOME"})]


def write_episode(run: RunWriter, model: Any, task_id: str, lang: str, n_steps: int, *, finish: bool = True,
                  hostile: bool = False, category: str = "1-1", success: bool = True) -> Any:
    ep = run.episode(task_id, lang, category=category, instruction=(HOSTILE if hostile else f"Do {task_id}"))
    tracker = FakeTracker(["open", "edit", "saved"])
    obs = observe(model, APPS[sum(map(ord, task_id)) % len(APPS)])
    for i in range(1, n_steps + 1):
        action = ACTIONS[(i - 1) % len(ACTIONS)]
        invalid = hostile and i == 5
        agent = FakeAgentStep(None if invalid else action, thought=(HOSTILE if hostile else f"step {i} thought"),
                              raw_output=(HOSTILE if hostile else '{"type": "CLICK"}'), invalid=invalid,
                              error=("bad JSON " + HOSTILE) if invalid else None)
        result = None if invalid else FakeResult(action, pixels=((540, 720),),
                                                 readback=("x" if action.type == "TYPE" else None),
                                                 readback_matches=(False if action.type == "TYPE" else None))
        new = []
        if i <= 3 and (success or i < 3):  # milestones hit at steps 1, 2, 3
            tracker.hits[tracker.ids[i - 1]] = i
            new = [tracker.ids[i - 1]]
        obs_next = observe(model, APPS[(sum(map(ord, task_id)) + i) % len(APPS)])
        ep.write_step(obs, agent, result, milestones=tracker, new_hits=new,
                      timings={"agent": 1.0 + i / 10, "total": 1.6 + i / 10})
        obs = obs_next
    if finish:
        result = EpisodeResult(ep.task_id, ep.lang, status="success" if success else "failed", success=success,
                               progress=tracker.progress, milestones=tracker.status(),
                               answer=(HOSTILE if hostile else None), seed=7)
        ep.finish(result, device={"serial": "VIRTUAL0001", "profile": "pixel_7"}, final_observation=obs)
    else:
        ep.flush()
    return ep


def build_run(root: Path, run_id: str = "run1", *, episodes: int = 4, steps: int = 5,
              options: WriterOptions | None = None, hostile: bool = True) -> Path:
    from emulator.virtual.model import VirtualDeviceModel

    model = VirtualDeviceModel()
    tasks = [{"id": f"task-{i}", "category": ["1-1", "1-3", "2-1", "3-2"][i % 4],
              "instruction": {"en": f"Do task {i}", "zh": f"做任务 {i}"}} for i in range(episodes)]
    run = RunWriter.create(root, run_id, options=options, tasks=tasks, languages=["en", "zh"],
                           agent={"name": "fake", "model": "m1", "base_url": "http://localhost:8000/v1",
                                  "api_key": "sk-THISISASECRETKEY1234567890"},
                           suite_name="unit", seeds=[7], cli_args=["run", "--api-key", "sk-SECRETSECRETSECRET123"])
    for i in range(episodes):
        lang = "en" if i % 2 == 0 else "zh"
        write_episode(run, model, f"task-{i}", lang, steps, hostile=hostile and i == 0,
                      category=tasks[i]["category"], success=i % 3 != 1)
    run.finish()
    return run.path
