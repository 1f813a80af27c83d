"""The Gymnasium environment `droidharness/Task-v0` (issue 22): the env checker, rewards that sum to the progress,
a scripted episode to success (recorded as a run directory), seeded resets, an invalid step, a vector env of 2.

Devices: embedded virtual devices behind the env's own private adb server (the `thread` isolation), driven through
the real adb server and uiautomator2 like a phone."""

from __future__ import annotations

import json
import os
import random
import re
from functools import partial

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import harness.gym  # noqa: F401 - registers droidharness/Task-v0
from harness.actions import action_to_dict
from harness.errors import ConfigError
from harness.gym.env import TaskEnv
from harness.gym.text import UnicodeText
from harness.scoring.episodes import score
from harness.trajectory.reader import load_run
from tasks.locate import resolve_step

TASK = "settings-dark-theme"  # two milestones, an end state read from the device's settings
SMALL = (180, 400)  # the screenshot as observed: a small array keeps the pipes of the vector env quick


def scripted_action(env: TaskEnv, n: int) -> str:
    """The task's reference step n, resolved on the live screen, as the JSON text a policy sends."""
    steps = env.session.task.reference[env.lang] if env.session else ()
    if n > len(steps):
        return json.dumps({"type": "COMPLETE"})
    return json.dumps(action_to_dict(resolve_step(steps[n - 1], env.observation, env.lang, n)))


def random_action(rng: random.Random, elements: str) -> str:
    """A random policy over the action text: a click on a listed element, a scroll, BACK, or gibberish."""
    indices = [int(m) for m in re.findall(r"^\[(\d+)\]", elements, re.M)]
    kind = rng.choice(["click", "click", "scroll", "back", "junk"])
    if kind == "click" and indices:
        return json.dumps({"type": "CLICK", "element": rng.choice(indices)})
    if kind == "scroll":
        return json.dumps({"type": "SCROLL", "direction": rng.choice(["up", "down"])})
    if kind == "back":
        return '{"type": "BACK"}'
    return "not an action"


TASKS = [TASK, "notes-search-password", "weather-thursday-high", "shop-search-tea"]


@pytest.fixture(scope="module")
def env():
    """One env (one device) for the tests that need no recording: a task drawn per reset, or `options`' task."""
    e = gymnasium.make("droidharness/Task-v0", task=TASKS, lang="en", screen_size=SMALL)
    yield e
    e.close()


def test_check_env_passes(env):
    check_env(env.unwrapped, skip_render_check=True)
    assert env.observation_space["screenshot"].shape == (SMALL[1], SMALL[0], 3)


def test_scripted_episode_reaches_success_rewards_sum_to_progress_and_is_recorded(tmp_path):
    env = gymnasium.make("droidharness/Task-v0", task=TASK, lang="zh", record_to=tmp_path, screen_size=SMALL)
    try:
        obs, info = env.reset(seed=3)
        assert info["instruction"] == "把手机切换成深色主题。" and info["progress"] == 0.0
        assert env.observation_space.contains(obs) and "设置" in obs["elements"]  # the zh element list
        total, n, done, rewards = 0.0, 0, False, []
        while not done:
            n += 1
            obs, reward, terminated, truncated, info = env.step(scripted_action(env.unwrapped, n))
            rewards.append(reward)
            total += reward
            done = terminated or truncated
        assert terminated and not truncated
        assert info["success"] is True and info["progress"] == 1.0 and not info["invalid"]
        assert total == pytest.approx(info["progress"]) and sum(r > 0 for r in rewards) == 2
        assert set(info["milestones"]) == {"display", "dark"}
    finally:
        env.close()
    (run_dir,) = tmp_path.iterdir()
    run = load_run(run_dir)
    (ep,) = run.episodes.values()
    assert ep.meta.success and ep.meta.progress == 1.0 and ep.meta.steps == n
    assert ep.meta.reset_method == "state_restore" and run.manifest.agent["name"] == "gym"
    assert score([ep.meta.to_result()]).sr == 1.0
    assert (run_dir / "summary.json").is_file() and (run_dir / "report.html").is_file()


def test_random_episode_rewards_sum_to_progress_and_invalid_steps_never_raise(env):
    rng = random.Random(5)
    for seed in (0,):
        obs, info = env.reset(seed=seed, options={"task": TASK})
        total, done, invalid = 0.0, False, 0
        while not done:
            obs, reward, terminated, truncated, info = env.step(random_action(rng, obs["elements"]))
            assert env.observation_space.contains(obs)
            total += reward
            invalid += info["invalid"]
            done = terminated or truncated
        assert truncated and info["step"] == info["max_steps"] == 15  # the task's step budget
        assert total == pytest.approx(info["progress"]) and info["invalid_steps"] == invalid
    obs, info = env.reset(seed=2)
    _, reward, terminated, _, info = env.step('{"type": "CLICK", "element": 9999}')
    assert info["invalid"] and "no element [9999]" in info["error"] and reward == 0.0 and not terminated
    _, _, _, _, info = env.step("CLICK somewhere")
    assert info["invalid"] and "not valid JSON" in info["error"]


def test_seeded_resets_reproduce_the_task_and_the_first_screen(env):
    firsts = {}
    for seed in (11, 12, 11, 12):
        obs, info = env.reset(seed=seed)
        key = (info["task_id"], info["seed"], obs["elements"], obs["screenshot"].tobytes())
        assert firsts.setdefault(seed, key) == key
        env.step('{"type": "HOME"}')  # the device moves on; the next reset puts it back
    seen = {env.reset(seed=s)[1]["task_id"] for s in range(8)}
    assert len(seen) > 1  # the seed draws the task


def test_unicode_text_space_holds_any_text():
    space = UnicodeText(16)
    assert space.contains("设置 ✓ [12]") and not space.contains("x" * 17) and not space.contains(3)
    assert space.contains(space.sample())


def test_async_vector_env_of_two_devices():
    """Each sub-env in its own process with its own embedded device; the default shared memory carries the zh
    element lists (`UnicodeText`)."""
    make = partial(gymnasium.make, "harness.gym:droidharness/Task-v0", task=TASK, lang="zh", screen_size=SMALL)
    envs = gymnasium.vector.AsyncVectorEnv([make, make], context="spawn")
    try:
        obs, infos = envs.reset(seed=[0, 1])
        assert obs["screenshot"].shape == (2, SMALL[1], SMALL[0], 3) and obs["screenshot"].dtype == np.uint8
        assert all("设置" in e for e in obs["elements"])
        actions = ['{"type": "CLICK", "element": 9999}', '{"type": "OPEN_APP", "name": "设置"}']
        obs, rewards, terminated, truncated, infos = envs.step(actions)
        assert list(infos["invalid"]) == [True, False] and not terminated.any()
        assert "显示" in obs["elements"][1] and "显示" not in obs["elements"][0]
        assert len(set(infos["seed"])) == 2
    finally:
        envs.close()


def test_a_virtual_clock_env_counts_device_seconds_and_a_phone_refuses_it(tmp_path):
    """`clock="virtual"`: the device runs on simulated time (an in-process device here: its model's clock), a WAIT of
    3 s is 3 device seconds; a phone keeps its own time (refused before anything connects)."""
    env = TaskEnv(task=TASK, lang="en", clock="virtual", isolation="in_process", screen_size=SMALL, record_to=tmp_path)
    try:
        env.reset(seed=0)
        _, reward, terminated, _, info = env.step('{"type": "WAIT", "duration": 3}')
        assert info["device_seconds"] == pytest.approx(3.0, abs=0.02) and not info["invalid"] and not terminated
        assert env.pool.slot(0).config.clock == "virtual"
    finally:
        env.close()
    (run_dir,) = tmp_path.iterdir()
    assert load_run(run_dir).manifest.config["clock"] == "virtual"
    with pytest.raises(ConfigError, match="device R58M123ABC \\(phone\\) keeps its own time"):
        TaskEnv(task=TASK, lang="en", device="R58M123ABC", clock="virtual")


def test_an_env_under_perturbations_says_what_each_episode_got(tmp_path):
    """`perturb=`: each episode under the perturbations, as `run --perturb` runs them (the locale switched at the
    reset, the conditions after the start state); `info["perturbations"]` and the recorded run say what was applied;
    a bad item is refused before any device starts."""
    env = TaskEnv(
        task=TASK,
        lang="en",
        isolation="in_process",
        screen_size=SMALL,
        record_to=tmp_path,
        perturb="dark,font=1.3,locale=zh-CN",
        perturb_seed=4,
    )
    try:
        _, info = env.reset(seed=0)
        model = env.pool.model(0)
        assert model is not None and model.locale == "zh" and model.settings["system"]["font_scale"] == "1.3"
        assert [(p["name"], p["applied"]) for p in info["perturbations"]] == [
            ("dark", False),  # the task checks ui_night_mode
            ("font", True),
            ("locale", True),
        ]
        _, _, terminated, _, info = env.step('{"type": "COMPLETE"}')
        assert terminated and [p["name"] for p in info["perturbations"]] == ["dark", "font", "locale"]
        assert model.settings["system"]["font_scale"] == "1.0", "put back at the episode's end"
    finally:
        env.close()
    (run_dir,) = tmp_path.iterdir()
    run = load_run(run_dir)
    assert run.manifest.model_extra["perturb"] == {"perturbations": ["dark", "font=1.3", "locale=zh-CN"], "seed": 4}
    (ep,) = run.episodes.values()
    assert [p.name for p in ep.meta.perturbations if p.applied] == ["font", "locale"]
    with pytest.raises(ConfigError, match=r"--perturb popup=banner: 'banner' is not one of rate\|promo"):
        TaskEnv(task=TASK, lang="en", perturb="popup=banner")


def test_unrecorded_observations_are_the_devices_pixels_through_shared_memory_and_recorded_ones_its_jpeg(tmp_path):
    """Nothing recorded: the screenshot comes raw through the gRPC door's shared memory (no JPEG made or decoded),
    pixel for pixel what `adb exec-out screencap` shows, as a fresh writable array; the region's file is gone at
    once. Recording: the device's JPEG, stored as sent."""
    from harness.device.sharedframe import shm_directory

    def leftover() -> set[str]:
        mine = f"droidharness-frame-{os.getpid()}-"  # this process's regions (other workers make theirs meanwhile)
        return {n for n in os.listdir(shm_directory()) if n.startswith(mine)}

    before = leftover()
    env = gymnasium.make("droidharness/Task-v0", task=TASK, lang="en")
    try:
        obs, _ = env.reset(seed=1)
        obs, *_ = env.step('{"type": "SCROLL", "direction": "down"}')
        u = env.unwrapped
        assert u.observation.paths["screenshot"] == "grpc_shm" and u.observation.screenshot_bytes is None
        shown = u.session.device.link.exec_out("screencap", "screencap")  # raw RGBA rows after a 16-byte header
        w, h = u.screen_size
        rgba = np.frombuffer(shown[16:], np.uint8).reshape(h, w, 4)
        assert obs["screenshot"].shape == (h, w, 3) and obs["screenshot"].flags.writeable
        assert np.array_equal(obs["screenshot"], rgba[..., :3])
        assert np.array_equal(np.asarray(u.observation.screenshot), obs["screenshot"])  # its PIL image agrees
        assert leftover() == before
    finally:
        env.close()
    recorded = gymnasium.make("droidharness/Task-v0", task=TASK, lang="en", record_to=tmp_path, screen_size=SMALL)
    try:
        recorded.reset(seed=1)
        assert recorded.unwrapped.observation.paths["screenshot"] == "u2"
        assert recorded.unwrapped.observation.screenshot_bytes[:2] == b"\xff\xd8"  # the device's JPEG
    finally:
        recorded.close()
