"""`droidharness/Task-v0`: a task of a suite on one Android device as a Gymnasium environment.

    import gymnasium, harness.gym
    env = gymnasium.make("droidharness/Task-v0", task="notes-create", lang="en")   # device=SERIAL for a phone
    obs, info = env.reset(seed=0)          # obs["screenshot"]: HxWx3 uint8; obs["elements"]: "[N] Class ..." lines
    obs, reward, terminated, truncated, info = env.step('{"type": "CLICK", "element": 12}')

- Observation: `Dict(screenshot=Box(0, 255, (H, W, 3), uint8), elements=Text)`: the screen at the device's size
  (or `screen_size=(W, H)`) and the numbered element list exactly as the agents' prompts show it
  (`UITree.to_prompt`).
- Action: the unified action (harness/actions.py) as its JSON text; a dict or an `Action` is taken too. Text that
  is no valid action, or an action that cannot apply to the screen (an element index not on it), is an invalid
  step as in a run: it uses a step of the budget and `info["invalid"]` says why; never an exception.
- Reward: the change of milestone progress at the step, so an episode's rewards sum to its final progress.
  `terminated` after COMPLETE / IMPOSSIBLE / ANSWER, `truncated` at the task's step budget; then the end state is
  judged as in a run and `info["success"]` is the episode's SR flag.
- `reset(seed=...)`: the task (one of `task` when several, drawn with the seed) and the episode seed come from
  the seed; the device is reset by the pool's fastest method and put in the task's start state, so the same seed
  gives the same task and the same first screen.
- `record_to=DIR`: each episode is a run directory `DIR/<run id>-<n>` (trajectory, summary.json, report.html).
- `perturb="dark,font=1.3,notification"` (`perturb_seed=N`): every episode under these perturbations, as
  `droidharness run --perturb` runs them (docs/robustness.md); `info["perturbations"]` says what was applied.
- `clock="virtual"` (the embedded device only; a phone keeps its own time): the device runs on simulated time, so
  a WAIT, a gesture's duration and the device's delays advance its clock instead of sleeping; each step's
  `info["device_seconds"]` is the time that passed on the device's clock.
- What the env starts (its devices, the device zygote, the private adb server) is stopped by `close()`, or when
  the env is garbage collected or the program exits without it. Once the env has started its device, SIGTERM
  and SIGHUP unwind the program as Ctrl-C does (`harness.stopping.Stopped`, exit 143 / 129) unless the program
  handles them itself, so a scheduler's or a container's stop leaves nothing running either.

Every step goes through `harness.run.loop.session.EpisodeSession`, the episode loop's own engine.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from pathlib import Path
from typing import Any, SupportsFloat

import gymnasium
import numpy as np
from gymnasium import spaces
from PIL import Image

from emulator.virtual.profiles import get_profile
from harness.actions import Action, parse_action
from harness.agent import AgentStep
from harness.device.controller import DeviceConfig
from harness.errors import ActionValidationError, ConfigError, HarnessError
from harness.gym.text import UnicodeText
from harness.observation import Observation
from harness.perturbation import PerturbPlan
from harness.run.fleet.kinds import Isolation
from harness.run.fleet.pool import DevicePool
from harness.run.loop.session import EpisodeSession
from harness.run.orchestration.interactive import EpisodeRecording, begin_episode, check_lang, find_task
from harness.stopping import stop_on_unhandled
from harness.trajectory.writer import new_run_id
from tasks.suite import load_suite

ELEMENTS_MAX_CHARS = 16_000  # the element list's cap (whole lines dropped past it, "... N more elements")
ACTION_MAX_CHARS = 4_096

Obs = dict[str, Any]


class TaskEnv(gymnasium.Env[Obs, str]):
    """See the module docstring. `task`: a task id, several (one drawn per reset), or None for every task of
    `suite` in `lang`."""

    metadata = {"render_modes": ["rgb_array"], "render_fps": 4}

    def __init__(
        self,
        task: str | Sequence[str] | None = None,
        lang: str = "en",
        device: str | None = None,
        *,
        suite: str = "virtual",
        profile: str = "medium_phone",
        latency: str = "instant",
        clock: str = "real",
        isolation: Isolation = "thread",
        screen_size: tuple[int, int] | None = None,
        max_steps: int | None = None,
        elements_max_chars: int = ELEMENTS_MAX_CHARS,
        record_to: str | Path | None = None,
        render_mode: str | None = None,
        perturb: str | Sequence[str] | None = None,
        perturb_seed: int = 0,
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ConfigError(f"render_mode {render_mode!r} is not one of {self.metadata['render_modes']}")
        if task is None:
            self.tasks = [t for t in load_suite(suite) if lang in t.languages]
        else:
            ids = [task] if isinstance(task, str) else list(task)
            self.tasks = [find_task(suite, i) for i in ids]
        if not self.tasks:
            raise ConfigError(f"no task of suite {suite!r} in {lang!r}")
        for t in self.tasks:
            check_lang(t, lang)
        self.lang, self.suite, self.max_steps = lang, suite, max_steps
        self.perturb = PerturbPlan.parse(perturb, perturb_seed)  # a bad item: ConfigError, before any device starts
        self.render_mode = render_mode
        self.record_to = Path(record_to) if record_to is not None else None
        self._record_base = new_run_id()
        self._episodes = 0
        self.pool = DevicePool(
            1,
            [device] if device else None,
            profile=profile,
            latency=latency,
            clock=clock,
            isolation=None if device else isolation,
            # nothing recorded: the screen's pixels raw where the device has a door for them (an emulator's gRPC
            # door into shared memory), no JPEG made and decoded; recording keeps the device's JPEG as sent
            config=DeviceConfig(pixels=self.record_to is None),
        )
        self._closer: weakref.finalize[[], TaskEnv] | None = None  # set once the pool is started: closes it once
        if screen_size is None:
            if device:  # a phone's size is known once connected
                self._start_pool()
                screen_size = self.pool.slot(0).info.size
            else:
                p = get_profile(profile)
                screen_size = (p.width, p.height)
        w, h = screen_size
        self.screen_size = (int(w), int(h))
        self.elements_max_chars = elements_max_chars
        self.observation_space = spaces.Dict(
            {
                "screenshot": spaces.Box(0, 255, (self.screen_size[1], self.screen_size[0], 3), np.uint8),
                "elements": UnicodeText(elements_max_chars + 64),
            }
        )
        self.action_space = UnicodeText(ACTION_MAX_CHARS)
        self.session: EpisodeSession | None = None
        self.recording: EpisodeRecording | None = None
        self._done = False

    # --- gymnasium API -----------------------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Obs, dict[str, Any]]:
        super().reset(seed=seed)
        self._end_episode("reset")
        task = self.tasks[int(self.np_random.integers(len(self.tasks)))] if len(self.tasks) > 1 else self.tasks[0]
        if options and options.get("task"):
            task = find_task(self.suite, str(options["task"]))
            check_lang(task, self.lang)
        episode_seed = int(self.np_random.integers(2**31))
        self._start_pool()
        self._episodes += 1
        if self.record_to is not None:
            self.recording = EpisodeRecording.create(
                self.record_to,
                f"{self._record_base}-{self._episodes:04d}",
                task,
                self.lang,
                agent={"name": "gym", "interface": "droidharness/Task-v0"},
                devices=[self.pool.describe(0)],
                suite=self.suite,
                config={
                    "interface": "gym",
                    "max_steps": self.max_steps,
                    "screen_size": list(self.screen_size),
                    "clock": self.pool.clock,
                },
                extra={"perturb": self.perturb.to_json()} if self.perturb else None,
            )
        sink = self.recording.sink if self.recording is not None else None
        try:
            self.session = begin_episode(
                self.pool, task, self.lang, episode_seed, sink=sink, max_steps=self.max_steps, perturb=self.perturb
            )
        except BaseException:
            if self.recording is not None:  # the episode stays unfinished; the run directory is closed and unlocked
                self.recording.finish(report=False)
                self.recording = None
            self.session = None
            raise
        self._done = False
        return self._observe(self.session.observation), self._info(success=False, invalid=False, error=None)

    def step(self, action: str | dict[str, Any] | Action) -> tuple[Obs, SupportsFloat, bool, bool, dict[str, Any]]:
        session = self.session
        if session is None or self._done:
            raise HarnessError("droidharness/Task-v0: the episode is over (or not begun): call reset()")
        outcome = session.apply(as_agent_step(action))
        reward = float(outcome.progress - outcome.progress_before)
        terminated = outcome.terminal
        truncated = not terminated and session.budget_left == 0
        success = False
        if terminated or truncated:
            success = bool(self._end_episode(None if terminated else "max_steps"))
        info = self._info(success=success, invalid=outcome.invalid, error=outcome.agent_step.error)
        info["new_hits"] = list(outcome.newly)
        info["device_seconds"] = outcome.timings.get("device", 0.0)  # on the device's clock (simulated: `clock`)
        return self._observe(outcome.observation), reward, terminated, truncated, info

    def render(self) -> np.ndarray | None:
        if self.render_mode != "rgb_array" or self.session is None:
            return None
        return self._pixels(self.session.observation)

    def close(self) -> None:
        try:
            self._end_episode("closed")
        finally:
            if self._closer is not None:
                self._closer()  # the pool's close, once
                self._closer = None
        super().close()

    # --- for scripted policies ---------------------------------------------------------------------------------
    @property
    def observation(self) -> Observation:
        """The current screen as the harness sees it (its `tree` resolves locators: scripted policies)."""
        if self.session is None:
            raise HarnessError("droidharness/Task-v0: call reset() first")
        return self.session.observation

    @property
    def instruction(self) -> str:
        if self.session is None:
            raise HarnessError("droidharness/Task-v0: call reset() first")
        return self.session.instruction

    # --- internals ---------------------------------------------------------------------------------------------
    def _start_pool(self) -> None:
        if self._closer is None:
            stop_on_unhandled()  # SIGTERM / SIGHUP unwind the program (see the module docstring)
            self.pool.start(wait=True)  # (a start that fails closes what it opened)
            self._closer = weakref.finalize(self, self.pool.close)  # closed at the latest at exit, or when dropped

    def _end_episode(self, terminated_by: str | None) -> bool | None:
        """Finish the current episode (judged, recorded); its success, None when there was none."""
        session, self._done = self.session, True
        if session is None or session.finished:
            return None
        try:
            result = session.finish(terminated_by)
        finally:
            if self.recording is not None:
                self.recording.finish()
                self.recording = None
        return result.success

    def _pixels(self, obs: Observation) -> np.ndarray:
        if obs.pixels is not None and obs.size == self.screen_size:  # raw rows: the capture's own array, as it is
            return obs.pixels
        img = obs.screenshot
        if img is None:
            return np.zeros((self.screen_size[1], self.screen_size[0], 3), np.uint8)
        if img.mode != "RGB":
            img = img.convert("RGB")
        if img.size != self.screen_size:
            img = img.resize(self.screen_size, Image.Resampling.BILINEAR)
        return np.asarray(img, dtype=np.uint8)

    def _observe(self, obs: Observation) -> Obs:
        return {"screenshot": self._pixels(obs), "elements": obs.tree.to_prompt(max_len=self.elements_max_chars)}

    def _info(self, *, success: bool, invalid: bool, error: str | None) -> dict[str, Any]:
        s = self.session
        assert s is not None
        return {
            "task_id": s.task.id,
            "lang": s.lang,
            "instruction": s.instruction,
            "step": s.steps,
            "max_steps": s.max_steps,
            "progress": s.progress,
            "milestones": dict(s.tracker.hits),
            "success": success,
            "invalid": invalid,
            "invalid_steps": s.result.invalid_steps,
            "error": error,
            "seed": s.seed,
            "perturbations": [r.to_json() for r in s.perturbation_records],
        }


def as_agent_step(action: str | bytes | dict[str, Any] | Action) -> AgentStep:
    """A policy's action as the step a run records: text or a dict parsed by the schema's parser (model output is
    data), an `Action` taken as it is; what does not parse is an invalid step saying why."""
    raw = action if isinstance(action, str) else action.decode("utf-8", "replace") if isinstance(action, bytes) else ""
    try:
        parsed = parse_action(action) if isinstance(action, (str, bytes, dict)) else action
    except ActionValidationError as e:
        return AgentStep(action=None, raw_output=raw, invalid=True, error=str(e), meta={"interface": "gym"})
    return AgentStep(action=parsed, raw_output=raw, meta={"interface": "gym"})


__all__ = ["TaskEnv", "as_agent_step"]
