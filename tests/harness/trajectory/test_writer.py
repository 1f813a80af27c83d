"""Trajectory writer and reader: round trip, secret scrubbing, crash safety, corrupt input, versions, resume."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from harness.actions import parse_action
from harness.report.render import finish_run
from harness.scrub import REDACTED, scrub
from harness.trajectory.frames import WriterOptions
from harness.trajectory.reader import completed_episode_keys, iter_steps, load_run
from harness.trajectory.records import TrajectoryError, episode_key, parse_episode_key
from harness.trajectory.result import EpisodeResult
from harness.trajectory.writer import RunWriter
from tests.paths import REPO, TESTS
from tests.trajectory_fixtures import HOSTILE, agent_step, build_run, observe, record, write_episode

pytestmark = pytest.mark.integration

ROOT = REPO


@pytest.fixture(scope="module")
def model():
    from emulator.virtual.model import VirtualDeviceModel

    return VirtualDeviceModel()


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    return build_run(tmp_path_factory.mktemp("runs"), episodes=4, steps=5)


def test_round_trip(run_dir: Path) -> None:
    run = load_run(run_dir)
    assert run.manifest is not None and run.manifest.run_id == "run1"
    assert run.manifest.suite["task_ids"] == ["task-0", "task-1", "task-2", "task-3"]
    assert set(run.episodes) == {"task-0__en", "task-1__zh", "task-2__en", "task-3__zh"}
    ep = run.episode("task-0", "en")
    assert ep.finished and ep.meta.status == "success" and ep.meta.success
    assert [s.step for s in ep.steps] == [1, 2, 3, 4, 5]
    s1 = ep.steps[0]
    assert s1.schema_ == "droidharness.step/2"
    assert s1.agent.thought == HOSTILE  # verbatim, unicode intact
    assert parse_action(s1.agent.action).type == "CLICK"
    assert s1.agent.action_text == "click (0.500, 0.300)"
    assert re.fullmatch(r"[0-9a-f]{64}\.webp", s1.observation.screenshot) and s1.observation.size == (1080, 2400)
    assert re.fullmatch(r"[0-9a-f]{64}\.xml\.gz", s1.observation.xml)
    assert ep.frame_path(1) == run_dir / "frames" / s1.observation.screenshot
    assert s1.observation.paths == {"screenshot": "u2", "hierarchy": "u2"}
    assert s1.result.pixels == [[540, 720]] and s1.result.ok
    assert s1.milestones.new_hits == ["open"] and s1.milestones.hits == {"open": 1}
    assert s1.timings.capture == pytest.approx(0.09) and s1.timings.actuation == pytest.approx(0.12)
    assert s1.timings.agent == pytest.approx(1.1)
    s5 = ep.steps[4]
    assert s5.agent.invalid and s5.agent.action is None and s5.result is None
    # episode.json sums what the steps say
    assert ep.meta.steps == 5 and ep.meta.invalid_outputs == 1
    assert ep.meta.tokens.total_tokens == 5 * 1280
    assert ep.meta.timings["agent"] == pytest.approx(sum(s.timings.agent for s in ep.steps))
    assert ep.meta.progress == 1.0 and [m["hit_step"] for m in ep.meta.milestones] == [1, 2, 3]
    assert ep.meta.device["serial"] == "VIRTUAL0001" and ep.meta.device["model"] == "pixel_7" and ep.meta.seed == 7
    # images and xml load lazily from disk; the final observation is frame last step + 1
    assert ep.image(1).size == (1080, 2400)
    assert ep.final_step == 6 and ep.image(6) is not None
    assert ep.frame_path(6) == run_dir / "frames" / ep.meta.final_observation.screenshot
    assert ep.meta.schema_ == "droidharness.episode/2"
    assert ep.xml(1).startswith("<?xml")
    assert ep.image(99) is None
    assert run.summary is not None and run.summary["overall"]["episodes"] == 4


def test_step_lines_are_single_complete_json_lines(run_dir: Path) -> None:
    raw = (run_dir / "episodes" / "task-0__en" / "steps.jsonl").read_bytes()
    assert raw.endswith(b"\n")
    for line in raw.split(b"\n")[:-1]:
        data = json.loads(line)
        assert data["schema"] == "droidharness.step/2"
        assert (run_dir / "frames" / data["observation"]["screenshot"]).is_file()
        assert (run_dir / "frames" / data["observation"]["xml"]).is_file()
    assert not list(run_dir.rglob("*.tmp")), "temp files left behind"


def test_no_secret_reaches_disk(run_dir: Path) -> None:
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["agent"]["api_key"] == REDACTED
    assert manifest["cli_args"] == ["run", "--api-key", REDACTED]
    assert manifest["agent"]["base_url"] == "http://localhost:8000/v1"
    for f in run_dir.rglob("*"):
        if f.is_file() and f.suffix in (".json", ".jsonl", ".html"):
            assert b"SECRET" not in f.read_bytes(), f


def test_scrub_rules() -> None:
    data = {
        "agent": {
            "api_key": "abc",
            "OPENAI_API_KEY": "x",
            "access_token": "t",
            "client_secret": "s",
            "password": "p",
            "headers": {"Authorization": "Bearer abcdefghijklmnop"},
            "max_tokens": 512,
            "keyboard": "gboard",
            "temperature": 0.0,
            "empty_key": None,
        },
        "env": {"HF_TOKEN": "hf_abcdefghijklmnopqrstuv"},
        "notes": "uses sk-proj-abcdefghijklmnopqrstuvwxyz and Bearer eyJabc.defghijklmno.pqr",
        "base_url": "https://user:hunter2@api.example.com/v1?api_key=zzz&region=eu",
        "args": [
            "--model",
            "gpt",
            "--api-key=sk-abcdefghijklmnop1234",
            "--token",
            "t0k3n",
            "--seed",
            "3",
            "--max-tokens",
            "512",
            "--password",
        ],
        "api_tokens": ["abc", "def"],
        "max_new_tokens": "a-string-is-not-a-count",
        "prompt_hash": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    }
    out = scrub(data)
    a = out["agent"]
    assert a["api_key"] == a["OPENAI_API_KEY"] == a["access_token"] == a["client_secret"] == a["password"] == REDACTED
    assert a["headers"]["Authorization"] == REDACTED
    assert a["max_tokens"] == 512 and a["keyboard"] == "gboard" and a["empty_key"] is None
    assert out["env"]["HF_TOKEN"] == REDACTED
    assert "sk-proj" not in out["notes"] and "eyJabc" not in out["notes"]
    assert "hunter2" not in out["base_url"] and "zzz" not in out["base_url"]
    assert out["base_url"].startswith("https://") and "api.example.com/v1" in out["base_url"]
    assert "region=eu" in out["base_url"]
    assert out["args"] == [
        "--model",
        "gpt",
        f"--api-key={REDACTED}",
        "--token",
        REDACTED,
        "--seed",
        "3",
        "--max-tokens",
        "512",
        "--password",
    ]
    assert out["api_tokens"] == REDACTED and out["max_new_tokens"] == REDACTED
    assert out["prompt_hash"] == data["prompt_hash"]  # hashes are not secrets
    assert data["agent"]["api_key"] == "abc"  # input untouched


def test_killed_run_in_process(tmp_path: Path, model) -> None:
    run = RunWriter.create(tmp_path, "killed", agent={"name": "fake"})
    write_episode(run, model, "done-task", "en", 2)
    write_episode(run, model, "half-task", "zh", 3, finish=False)
    steps = run.path / "episodes" / "half-task__zh" / "steps.jsonl"
    with open(steps, "ab") as f:  # what a kill in the middle of a write could leave: a partial line
        f.write(b'{"schema":"droidharness.step/1","step":4,"observation":{"scre')
    loaded = load_run(run.path)
    half = loaded.episode("half-task", "zh")
    assert half.meta is None and not half.finished and half.status == "unfinished"
    assert [s.step for s in half.steps] == [1, 2, 3] and half.stats.truncated
    assert half.image(3) is not None
    assert completed_episode_keys(run.path) == {("done-task", "en")}


KILL_SCRIPT = textwrap.dedent("""
    import sys, time
    sys.path[:0] = [{root!r}, {tests!r}]
    from emulator.virtual.model import VirtualDeviceModel
    from harness.trajectory.frames import WriterOptions
    from harness.trajectory.writer import RunWriter
    from tests.trajectory_fixtures import action_result, agent_step, observe, record
    from harness.actions import Click
    m = VirtualDeviceModel()
    run = RunWriter.create(sys.argv[1], "k", options=WriterOptions(background=True, fsync=False))
    ep = run.episode("forever", "en")
    obs = observe(m, "com.droidharness.notes")
    a = Click(point=(0.5, 0.5))
    i = 0
    while True:
        i += 1
        record(ep, obs, agent_step(a, thought="x" * 20000), action_result(a))
        if i % 3 == 0:
            ep.flush()
            print(i, flush=True)
""")


def test_killed_run_sigkill(tmp_path: Path) -> None:
    """SIGKILL a writer mid-stream: every line on disk is whole and names files that exist."""
    script = tmp_path / "writer.py"
    script.write_text(KILL_SCRIPT.format(root=str(ROOT), tests=str(TESTS)))
    proc = subprocess.Popen([sys.executable, str(script), str(tmp_path)], stdout=subprocess.PIPE, text=True)
    try:
        for line in proc.stdout:
            if int(line) >= 6:
                break
        time.sleep(0.05)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    run = load_run(tmp_path / "k")
    ep = run.episode("forever", "en")
    assert ep.meta is None and len(ep.steps) >= 6
    assert [s.step for s in ep.steps] == list(range(1, len(ep.steps) + 1))
    for s in ep.steps:
        assert (run.path / "frames" / s.observation.screenshot).is_file()
        assert (run.path / "frames" / s.observation.xml).is_file()
        assert ep.image(s.step).size == (1080, 2400) and ep.xml(s.step).startswith("<?xml")
    assert completed_episode_keys(tmp_path / "k") == set()


def test_corrupt_middle_line(tmp_path: Path, model) -> None:
    run = RunWriter.create(tmp_path, "c")
    write_episode(run, model, "t", "en", 3)
    steps = run.path / "episodes" / "t__en" / "steps.jsonl"
    lines = steps.read_bytes().split(b"\n")
    lines[1] = lines[1][:40] + b"#garbage"
    steps.write_bytes(b"\n".join(lines))
    with pytest.raises(TrajectoryError, match=r"steps\.jsonl:2: corrupt step line"):
        load_run(run.path)
    with pytest.raises(TrajectoryError, match=r"steps\.jsonl:2"):
        list(iter_steps(steps))
    loaded = load_run(run.path, skip_bad=True)
    ep = loaded.episode("t", "en")
    assert [s.step for s in ep.steps] == [1, 3] and ep.stats.bad_lines == [2]
    # a line that is JSON but not a step object
    steps.write_bytes(b"\n".join([lines[0], b"[1, 2]", lines[2], b""]))
    with pytest.raises(TrajectoryError, match=r"steps\.jsonl:2"):
        list(iter_steps(steps))
    steps.write_bytes(b"\n".join([lines[0], b'{"schema": "droidharness.step/1", "step": "two"}', b""]))
    with pytest.raises(TrajectoryError, match=r"steps\.jsonl:2: invalid step record: step"):
        list(iter_steps(steps))


def test_schema_versions(tmp_path: Path, model) -> None:
    run = RunWriter.create(tmp_path, "v")
    write_episode(run, model, "t", "en", 2)
    steps = run.path / "episodes" / "t__en" / "steps.jsonl"
    first, second = steps.read_text().splitlines()
    newer_minor = json.loads(second)
    newer_minor["schema"] = "droidharness.step/2.3"
    newer_minor["a_new_field"] = {"x": 1}
    steps.write_text(first + "\n" + json.dumps(newer_minor) + "\n")
    assert [s.step for s in iter_steps(steps)] == [1, 2]  # a newer minor version still reads
    newer_major = dict(newer_minor, schema="droidharness.step/3")
    steps.write_text(first + "\n" + json.dumps(newer_major) + "\n")
    with pytest.raises(TrajectoryError, match=r"steps\.jsonl:2: written with schema droidharness\.step/3"):
        list(iter_steps(steps))
    steps.write_text(first + "\n" + json.dumps(dict(newer_minor, schema="other/1")) + "\n")
    with pytest.raises(TrajectoryError, match="not droidharness.step"):
        list(iter_steps(steps))
    ep_json = run.path / "episodes" / "t__en" / "episode.json"
    data = json.loads(ep_json.read_text())
    ep_json.write_text(json.dumps(dict(data, schema="droidharness.episode/9")))
    with pytest.raises(TrajectoryError, match=r"episode\.json: written with schema droidharness\.episode/9"):
        load_run(run.path)
    ep_json.write_text("{not json")
    with pytest.raises(TrajectoryError, match=r"episode\.json: not valid JSON"):
        load_run(run.path)


def test_resume(tmp_path: Path, model) -> None:
    run = RunWriter.create(tmp_path, "r")
    write_episode(run, model, "a", "en", 2)
    write_episode(run, model, "b", "en", 2, finish=False)
    finish_run(run, report=False)
    assert completed_episode_keys(run.path) == {("a", "en")}
    resumed = RunWriter.resume(run.path)
    with pytest.raises(TrajectoryError, match="already finished"):
        resumed.episode("a", "en")
    write_episode(resumed, model, "b", "en", 1)  # the stale attempt is moved aside, not mixed in
    assert (run.path / "stale" / "b__en.1" / "steps.jsonl").is_file()
    assert completed_episode_keys(run.path) == {("a", "en"), ("b", "en")}
    assert len(load_run(run.path).episode("b", "en").steps) == 1
    with pytest.raises(TrajectoryError, match="already exists"):
        RunWriter.create(tmp_path, "r")
    with pytest.raises(TrajectoryError, match="not a run directory"):
        RunWriter.resume(tmp_path / "nope")


def test_background_and_sync_write_the_same(tmp_path: Path, model) -> None:
    a = RunWriter.create(tmp_path, "bg", options=WriterOptions(background=True))
    b = RunWriter.create(tmp_path, "sync", options=WriterOptions(background=False, fsync=False))
    for run in (a, b):
        write_episode(run, model, "t", "en", 4)

    def strip(path: Path) -> list[dict]:
        return [{k: v for k, v in json.loads(line).items() if k != "time"} for line in path.read_text().splitlines()]

    ea, eb = (r.path / "episodes" / "t__en" for r in (a, b))
    assert strip(ea / "steps.jsonl") == strip(eb / "steps.jsonl")
    assert sorted(p.name for p in ea.iterdir()) == sorted(p.name for p in eb.iterdir())
    shot = json.loads((ea / "steps.jsonl").read_text().splitlines()[2])["observation"]["screenshot"]
    assert (a.path / "frames" / shot).read_bytes() == (b.path / "frames" / shot).read_bytes()
    assert sorted(p.name for p in (a.path / "frames").iterdir()) == sorted(
        p.name for p in (b.path / "frames").iterdir()
    )


def test_writer_thread_errors_surface(tmp_path: Path, model, monkeypatch) -> None:
    import harness.trajectory.frames

    def broken(*a, **k):
        raise OSError("disk full")

    run = RunWriter.create(tmp_path, "err")
    ep = run.episode("t", "en")
    obs = observe(model)
    monkeypatch.setattr(harness.trajectory.frames, "atomic_write_bytes", broken)
    record(ep, obs, agent_step(None, invalid=True, error="x"))
    with pytest.raises(TrajectoryError, match="disk full"):
        ep.flush()
    monkeypatch.undo()
    with pytest.raises(TrajectoryError, match="steps must increase"):
        record(ep, obs, agent_step(None), step=1)
    ep.close()
    assert load_run(run.path).episode("t", "en").steps == []  # the line never went out without its image


def test_episode_keys() -> None:
    for task, lang in [("notes-create", "en"), ("a/b c", "zh"), ("x__y", "en"), ("中文", "zh")]:
        key = episode_key(task, lang)
        assert "/" not in key and parse_episode_key(key) == (task, lang)
    for bad in ("", ".", ".."):
        with pytest.raises(TrajectoryError):
            episode_key(bad, "en")


def test_missing_files(tmp_path: Path) -> None:
    with pytest.raises(TrajectoryError, match="no such run directory"):
        load_run(tmp_path / "missing")
    with pytest.raises(TrajectoryError, match="cannot read"):
        list(iter_steps(tmp_path / "missing.jsonl"))
    assert completed_episode_keys(tmp_path) == set()


def test_write_step_is_off_the_hot_path(tmp_path: Path, model) -> None:
    """Not a timing assertion: the background writer returns before the frame is on disk, flush() waits."""
    run = RunWriter.create(tmp_path, "hot", options=WriterOptions(background=True, fsync=True))
    ep = run.episode("t", "en")
    obs = observe(model)
    record(ep, obs, agent_step(None))
    ep.flush()
    (line,) = (ep.path / "steps.jsonl").read_text().splitlines()
    assert (run.path / "frames" / json.loads(line)["observation"]["screenshot"]).is_file()
    ep.finish(EpisodeResult(ep.task_id, ep.lang))
    assert os.path.isfile(ep.path / "episode.json")


def test_real_harness_types(tmp_path: Path, model) -> None:
    """The loop's own records reach the writer: frames of real Observations, AgentStep, ActionResult, the
    MilestoneTracker's progress record, DeviceInfo."""
    from harness.actions import Click, TypeText
    from harness.agent import AgentStep, Usage
    from harness.hierarchy import UITree
    from harness.observation import ActionResult, DeviceInfo, Observation
    from harness.run.judge.milestones import MilestoneTracker
    from harness.trajectory.sink import Frame, StepEvent
    from tasks.schema import MilestoneGroup

    def obs() -> Observation:
        xml = model.hierarchy_xml()
        img = model.screenshot()
        fg = model.foreground
        return Observation(
            img,
            UITree.from_xml(xml),
            xml,
            fg.package,
            fg.activity,
            img.size,
            0,
            timings={"screenshot": 0.04, "hierarchy": 0.06, "total": 0.07},
            paths={"screenshot": "u2", "hierarchy": "u2"},
            captured_at=time.time(),
        )

    group = MilestoneGroup.model_validate(
        {
            "children": [
                {"id": "notes", "sub_target": {"en": "Open Notes"}, "check": {"package": "com.droidharness.notes"}}
            ]
        }
    )
    tracker = MilestoneTracker(group, "en")
    device = DeviceInfo(
        "VIRTUAL0001",
        "Pixel 7",
        "Google",
        (1080, 2400),
        420,
        0,
        34,
        "14",
        "en-US",
        "device",
        frozenset({"u2", "screencap"}),
    )
    run = RunWriter.create(tmp_path, "real", devices=[device], agent={"name": "heuristic"})
    ep = run.episode("notes-open", "en", category="1-1", instruction="Open Notes")
    model.go_home()
    o = obs()
    click = Click(point=(0.5, 0.5))
    result = ActionResult(click, pixels=((540, 1200),), path="u2", timings={"actuation": 0.05, "settle": 0.2})
    model.start_activity("com.droidharness.notes")
    o2 = obs()
    new = tracker.update(o2, 1)
    ep.write_step(
        StepEvent(
            1,
            Frame.of(o),
            AgentStep(click, thought="open it", usage=Usage(10, 2, 12)),
            result,
            tracker.record(new),
            {"agent": 0.5},
        )
    )
    typed = TypeText(text="hi")
    typed_result = ActionResult(typed, readback="hi", readback_matches=True)
    ep.write_step(StepEvent(2, Frame.of(o2), AgentStep(typed), typed_result, tracker.record(tracker.update(o2, 2))))
    result = EpisodeResult(
        ep.task_id,
        ep.lang,
        status="success",
        success=tracker.complete,
        progress=tracker.progress,
        milestones=tracker.status(),
    )
    meta = ep.finish(result, device=device, final=Frame.of(o2))
    assert meta.progress == 1.0 and meta.milestones == [{"id": "notes", "sub_target": "Open Notes", "hit_step": 1}]
    assert meta.device["serial"] == "VIRTUAL0001" and meta.device["capabilities"] == ["screencap", "u2"]
    loaded = load_run(run.path)
    s1, s2 = loaded.episode("notes-open", "en").steps
    assert s1.milestones.new_hits == ["notes"] and s2.milestones.new_hits == []
    assert s1.result.path == "u2" and s1.result.pixels == [[540, 1200]]
    assert s1.timings.capture == pytest.approx(0.07) and s1.timings.settle == pytest.approx(0.2)
    assert s1.timings.total == pytest.approx(0.07 + 0.5 + 0.05 + 0.2)
    assert s1.agent.usage.total_tokens == 12 and s1.observation.captured_at is not None
    assert s2.result.readback_matches is True and s2.agent.action == {
        "type": "TYPE",
        "text": "hi",
        "clear": False,
        "submit": False,
    }
    assert loaded.manifest.devices[0]["model"] == "Pixel 7"
