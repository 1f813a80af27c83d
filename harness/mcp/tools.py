"""What the MCP server's tools do, apart from the protocol (harness/mcp/server.py wires them to the `mcp` SDK).

One `PhoneTools` holds one device (leased from a one-slot `DevicePool`: reset by the pool's fastest method) and
one episode (`harness.run.loop.session.EpisodeSession`, the episode loop's own engine): every action tool builds a
unified action (harness/actions.py; points normalized x-first in [0, 1], or an element index of the latest
screen) and applies it as a run's step - validated, executed by `Device.step`, scored live against the task's
milestones, recorded into the session's trajectory. An action that cannot apply (no such element, a point off
the screen, a text no device can type) is an invalid step, recorded as in a run, and the tool answers with an
error saying why (`ToolCallError`). There is no shell tool and nothing runs device commands from text.

With a task, `complete()` ends the episode: the end state is judged as in a run, episode.json, summary.json and
report.html are written. Without a task the session is recorded (steps, screens) but has nothing to score: its
episode stays without episode.json (an unfinished episode: listed, not scored).
"""

from __future__ import annotations

import io
import json
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.actions import describe, parse_action
from harness.agent import AgentStep
from harness.device.apps import ALIASES, installed_packages
from harness.errors import ActionValidationError, HarnessError
from harness.observation import Observation
from harness.run.fleet.pool import DevicePool
from harness.run.loop.session import EpisodeSession, StepOutcome
from harness.run.orchestration.interactive import EpisodeRecording, begin_episode
from harness.trajectory.result import EpisodeResult
from tasks.schema import ElementMatch, Milestone, MilestoneGroup, ScreenCheck, Task

KEYS = {"back": "BACK", "home": "HOME", "enter": "ENTER", "recent": "RECENT"}  # press_key's keys -> action types
FREE_TASK_ID = "mcp-session"
FREE_STEPS = 200  # a free session's step budget (the task schema's maximum)


class ToolCallError(HarnessError):
    """A tool call that could not do what it was asked (bad arguments, an inapplicable action, a finished
    episode): the client gets it as a tool error naming the tool, the session goes on."""


def free_task() -> Task:
    """The stand-in task of a session without `--task`: nothing to reach, so nothing is scored."""
    never = ScreenCheck(element=ElementMatch(resource_id="droidharness:id/no-task"))
    return Task(
        id=FREE_TASK_ID,
        instruction={"en": "(a free MCP session: no task)", "zh": "（自由 MCP 会话：没有任务）"},
        category="1-1",
        max_steps=FREE_STEPS,
        milestones=MilestoneGroup(children=(Milestone(id="no-task", sub_target="no task", check=never),)),
    )


@dataclass
class PhoneTools:
    """One device and one episode behind the MCP tools (see the module docstring). `task` None: a free session."""

    pool: DevicePool
    task: Task | None
    lang: str
    out: Path
    run_id: str | None = None
    seed: int = 0
    session: EpisodeSession | None = None
    recording: EpisodeRecording | None = None
    result: EpisodeResult | None = None
    _dir: Path | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    # --- the episode ---------------------------------------------------------------------------------------
    def begin(self) -> None:
        """Lease the device (reset by the pool's fastest method), create the run directory, begin the episode."""
        task = self.task or free_task()
        self.recording = EpisodeRecording.create(
            self.out,
            self.run_id,
            task,
            self.lang,
            agent={"name": "mcp"},
            devices=[self.pool.describe(0)],
            suite=None,
            config={"interface": "mcp", "task": self.task.id if self.task else None, "clock": self.pool.clock},
        )
        self._dir = self.recording.path
        try:
            self.session = begin_episode(self.pool, task, self.lang, self.seed, sink=self.recording.sink)
        except BaseException:
            self.recording.finish(report=False)
            raise

    @property
    def run_dir(self) -> Path | None:
        return self._dir

    def close(self) -> None:
        """End the session: a task's episode still open is finished (judged and scored with what it reached,
        terminated_by "closed"); a free session's stays unfinished. The run's summary and report are written."""
        with self._lock:
            self._end("closed")

    def _end(self, terminated_by: str | None) -> None:
        s, rec = self.session, self.recording
        if s is None or rec is None:
            return
        try:
            if self.task is not None and not s.finished:
                self.result = s.finish(terminated_by)
        finally:
            self.recording = None
            rec.finish()

    def _session(self, tool: str) -> EpisodeSession:
        s = self.session
        if s is None or s.finished or self.recording is None:
            raise ToolCallError(f"{tool}: the episode is over (completed, or its step budget used up)")
        return s

    # --- reading -------------------------------------------------------------------------------------------
    def observe(self) -> tuple[bytes, str, str]:
        """The current screen: (image bytes, its MIME type, the numbered element list with a header line)."""
        with self._lock:
            s = self._session("observe")
            obs = s.observation
            data, mime = screenshot_bytes(obs)
            return data, mime, self._screen_text(s, obs)

    def task_status(self) -> dict[str, Any]:
        with self._lock:
            s = self.session
            if s is None:
                raise ToolCallError("task_status: no episode")
            result = self.result
            return {
                "task_id": s.task.id if self.task is not None else None,
                "instruction": s.instruction if self.task is not None else None,
                "lang": s.lang,
                "steps": s.steps,
                "max_steps": s.max_steps,
                "invalid_steps": s.result.invalid_steps,
                "progress": round(s.progress, 6) if self.task is not None else None,
                "milestones": s.tracker.status() if self.task is not None else [],
                "finished": s.finished,
                "success": result.success if result is not None else None,
                "run_dir": self.run_dir_text(),
            }

    def list_apps(self) -> str:
        with self._lock:
            s = self._session("list_apps")
            names: dict[str, list[str]] = {}
            for label, pkgs in ALIASES.items():
                for p in pkgs:
                    names.setdefault(p, []).append(label)
            lines = [
                f"{p}" + (f"  ({', '.join(names[p])})" if p in names else "")
                for p in sorted(installed_packages(s.device))
            ]
            return "open_app(name) takes an app's label as the launcher shows it, or a package:\n" + "\n".join(lines)

    # --- acting --------------------------------------------------------------------------------------------
    def click(self, element: int | None = None, x: float | None = None, y: float | None = None) -> str:
        return self._act("click", {"type": "CLICK", **target(element, x, y)})

    def long_press(
        self, element: int | None = None, x: float | None = None, y: float | None = None, duration: float = 1.0
    ) -> str:
        return self._act("long_press", {"type": "LONG_PRESS", **target(element, x, y), "duration": duration})

    def swipe(self, x1: float, y1: float, x2: float, y2: float, duration: float = 0.3) -> str:
        return self._act("swipe", {"type": "SWIPE", "start": [x1, y1], "end": [x2, y2], "duration": duration})

    def scroll(self, direction: str, element: int | None = None, distance: float = 0.5) -> str:
        return self._act("scroll", {"type": "SCROLL", "direction": direction, "element": element, "distance": distance})

    def type_text(self, text: str, element: int | None = None, submit: bool = False) -> str:
        return self._act("type_text", {"type": "TYPE", "text": text, "element": element, "submit": submit})

    def press_key(self, key: str) -> str:
        k = key.strip().lower()
        if k not in KEYS:
            raise ToolCallError(f"press_key: key {key!r} is not one of {', '.join(KEYS)}")
        return self._act("press_key", {"type": KEYS[k]})

    def open_app(self, name: str) -> str:
        return self._act("open_app", {"type": "OPEN_APP", "name": name})

    def wait(self, seconds: float) -> str:
        return self._act("wait", {"type": "WAIT", "duration": seconds})

    def complete(self, answer: str | None = None) -> str:
        text = self._act("complete", {"type": "COMPLETE", "answer": answer})
        with self._lock:
            self._end(None)
        r = self.result
        where = self.run_dir_text()
        if r is None:
            return f"{text}\nthe session is over (no task: nothing scored); recorded in {where}"
        verdict = "SUCCESS" if r.success else "not successful"
        end = f"; end state {'held' if r.end_state.get('held') else 'did not hold'}" if r.end_state else ""
        return f"{text}\nepisode finished: {verdict}, progress {r.progress:.0%}{end}; recorded in {where}"

    def run_dir_text(self) -> str:
        return str(self._dir) if self._dir is not None else "(not recorded)"

    def _act(self, tool: str, action: dict[str, Any]) -> str:
        """Apply the tool's action as a run's step: parsed by the action schema's parser (an action it refuses is
        an invalid step too, recorded with why), executed, scored, recorded."""
        with self._lock:
            s = self._session(tool)
            data = drop_none(action)
            raw = json.dumps({"tool": tool, "action": data}, ensure_ascii=False)
            meta = {"interface": "mcp", "tool": tool}
            try:
                step = AgentStep(action=parse_action(data), raw_output=raw, meta=meta)
            except ActionValidationError as e:
                step = AgentStep(action=None, raw_output=raw, invalid=True, error=f"{tool}: {e}", meta=meta)
            outcome = s.apply(step)
            out_of_budget = s.budget_left == 0 and not outcome.terminal
            if out_of_budget:  # as in a run: the episode ends at its step budget
                self._end("max_steps")
            if outcome.invalid:
                raise ToolCallError(
                    f"{tool}: invalid step {outcome.step}, nothing done: {outcome.agent_step.error} "
                    f"({s.budget_left} steps left){self._verdict(' ') if out_of_budget else ''}"
                )
            return self._after(s, outcome) + (self._verdict("\n") if out_of_budget else "")

    def _verdict(self, sep: str) -> str:
        """How the episode ended at its step budget."""
        r = self.result
        if r is None:
            return f"{sep}the step budget is used up: the session is over (no task: nothing scored)"
        verdict = "SUCCESS" if r.success else "not successful"
        return f"{sep}the step budget is used up: episode finished, {verdict}, progress {r.progress:.0%}"

    def _after(self, s: EpisodeSession, outcome: StepOutcome) -> str:
        action = outcome.agent_step.action
        head = f"step {outcome.step}/{s.max_steps}: {describe(action) if action is not None else '?'}"
        rr = outcome.result
        if rr is not None and rr.readback is not None:
            head += f"; field now reads {rr.readback!r}"
        if self.task is not None:
            new = f" (new: {', '.join(outcome.newly)})" if outcome.newly else ""
            head += f"; progress {outcome.progress:.0%}{new}"
        return head + "\n" + self._screen_text(s, outcome.observation)

    def _screen_text(self, s: EpisodeSession, obs: Observation) -> str:
        w, h = obs.size
        top = f"screen {w}x{h}, app {obs.package or '?'}; elements ([N] = element index):"
        return top + "\n" + (obs.tree.to_prompt() or "(no elements)")


def target(element: int | None, x: float | None, y: float | None) -> dict[str, Any]:
    """A tool's target as the schema takes it: an element index, or a normalized point (x and y together)."""
    if (x is None) != (y is None):
        raise ToolCallError("give both x and y (normalized, in [0, 1]), or an element")
    return {"element": element, "point": [x, y] if x is not None else None}


def drop_none(d: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in d.items() if v is not None}


def screenshot_bytes(obs: Observation) -> tuple[bytes, str]:
    """The screen as the device gave it (its own JPEG / PNG bytes), else PNG-encoded pixels."""
    data = obs.screenshot_bytes
    if data is not None:
        if data.startswith(b"\xff\xd8"):
            return data, "image/jpeg"
        if data.startswith(b"\x89PNG"):
            return data, "image/png"
    buf = io.BytesIO()
    img = obs.screenshot
    if img is None:
        raise ToolCallError("observe: the screen came without a screenshot")
    img.save(buf, "PNG")
    return buf.getvalue(), "image/png"


__all__ = ["FREE_TASK_ID", "KEYS", "PhoneTools", "ToolCallError", "free_task", "screenshot_bytes", "target"]
