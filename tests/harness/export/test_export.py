"""`droidharness export` through the CLI on runs made here: an episode as a GIF / MP4 that decodes back to one
frame per step plus the final screen, SFT samples that validate and reference the run's own screenshot files
byte for byte, the filters, a dataset's episodes (the AITZ fixture), and bad input as one line with exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import imageio.v3 as iio
import jsonschema
import pytest
from typer.testing import CliRunner

from harness.actions import parse_action
from harness.cli.main import app
from harness.coords import ScreenMapping
from harness.export.sft_schema import SFTSample, json_schema, shipped_schema
from harness.modelio.parsers import ParseContext, parse_output
from harness.modelio.parsers.formatters import coordinate_tolerance, same_action
from harness.trajectory.reader import load_run
from tests.dataset_fixtures import AITZ_DIR

pytestmark = pytest.mark.integration

RUN = ["run", "--isolation", "thread", "--no-report"]


def _cli(*args: str):
    return CliRunner().invoke(app, list(args))


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("runs")
    ref = _cli(*RUN, "--report", "--agent", "reference", "--lang", "en", "--task", "clock-world-time", "--task",
               "settings-dark-theme", "--out", str(out), "--run-id", "ref")  # fmt: skip
    assert ref.exit_code == 0, ref.output
    noop = _cli(*RUN, "--agent", "noop", "--lang", "all", "--task", "clock-world-time", "--out", str(out),
                "--run-id", "noop")  # fmt: skip
    assert noop.exit_code == 0, noop.output
    return {"ref": out / "ref", "noop": out / "noop"}


@pytest.mark.parametrize("fmt", ["gif", "mp4"])
def test_an_episode_exports_as_an_animation_of_one_frame_per_step_and_the_final_screen(runs, fmt):
    run = runs["ref"]
    r = _cli("export", str(run), "--episode", "settings-dark-theme", "--format", fmt, "--frame-ms", "400",
             "--width", "240")  # fmt: skip
    assert r.exit_code == 0, r.output
    out = run / "exports" / f"settings-dark-theme__en.{fmt}"
    steps = len(load_run(run).episodes["settings-dark-theme__en"].steps)
    frames = iio.imread(out, index=None, **({"plugin": "pyav"} if fmt == "mp4" else {}))
    assert steps >= 3 and frames.shape[0] == steps + 1 and frames.shape[2] == 240
    meta = iio.immeta(out, **({"plugin": "pyav"} if fmt == "mp4" else {}))
    assert (meta["duration"] == 400) if fmt == "gif" else meta["fps"] == pytest.approx(2.5)
    assert f'href="exports/settings-dark-theme__en.{fmt}"' in (run / "report.html").read_text(encoding="utf-8")


@pytest.mark.parametrize("output_format", ["json", "uitars", "agentcpm"])
def test_sft_samples_validate_and_reference_the_runs_own_screenshots(runs, tmp_path, output_format):
    out = tmp_path / "sft" / "data.jsonl"
    r = _cli("export", str(runs["ref"]), "--format", "sft", "--out", str(out), "--output-format", output_format,
             "--validate")  # fmt: skip
    assert r.exit_code == 0, r.output
    assert "samples valid" in r.output
    run = load_run(runs["ref"])
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    recorded = sum(len(ep.steps) for ep in run.episodes.values())
    # agentcpm cannot say OPEN_APP or an answer: those steps are skipped and counted
    assert len(lines) == recorded if output_format != "agentcpm" else 0 < len(lines) < recorded
    assert output_format != "agentcpm" or "not expressible in agentcpm" in r.output
    schema = shipped_schema()
    assert schema == json_schema()
    for d in lines:
        jsonschema.validate(d, schema)
        sample = SFTSample.model_validate(d)
        ep = run.episodes[sample.source.episode]
        frame = ep.frame_path(sample.source.step, "screenshot")
        assert frame is not None and (out.parent / sample.images[0]).read_bytes() == frame.read_bytes()
        system, user, assistant = sample.messages
        assert system.role == "system" and user.role == "user" and assistant.role == "assistant"
        assert isinstance(assistant.content, str) and isinstance(user.content, list)
        assert user.content[1].type == "image" and user.content[1].image == sample.images[0]  # type: ignore[union-attr]
        ctx = ParseContext(ScreenMapping(tuple(sample.image_size), tuple(sample.resize_to)), sample.coordinate_space)
        back = parse_output(output_format, assistant.content, ctx).action
        assert same_action(back, parse_action(sample.action), coordinate_tolerance(ctx))
        assert sample.episode.success is True and sample.episode.progress == 1.0


def test_sft_filters_by_success_progress_and_language(runs, tmp_path):
    out = tmp_path / "data.jsonl"
    every = _cli("export", str(runs["noop"]), "--format", "sft", "--out", str(out))
    assert every.exit_code == 0 and "from 2 of 2 episodes" in every.output, every.output
    assert len(out.read_text().splitlines()) > 0
    for flags, why in (
        (["--success-only"], "not a success 2"),
        (["--min-progress", "0.5"], "progress below the minimum 2"),
        (["--lang", "zh", "--success-only"], "not a success 1, other language 1"),
    ):
        r = _cli("export", str(runs["noop"]), "--format", "sft", "--out", str(out), *flags)
        assert r.exit_code == 0 and "0 samples" in r.output and why in r.output, (flags, r.output)
        assert out.read_text() == ""
    kept = _cli("export", str(runs["ref"]), "--format", "sft", "--out", str(out), "--success-only", "--lang", "en")
    assert kept.exit_code == 0 and "from 2 of 2 episodes" in kept.output, kept.output


@pytest.mark.parametrize("output_format", ["json", "qwen"])
def test_sft_from_a_datasets_episodes_feeds_the_same_pipeline(tmp_path, output_format):
    out = tmp_path / "data.jsonl"
    r = _cli("export", "--format", "sft", "--dataset", "aitz", "--data", str(AITZ_DIR), "--out", str(out),
             "--output-format", output_format, "--validate")  # fmt: skip
    assert r.exit_code == 0, r.output
    samples = [SFTSample.model_validate_json(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert len(samples) >= 3 and all(s.source.kind == "dataset" and s.source.name == "aitz" for s in samples)
    fixture = {p.read_bytes() for p in AITZ_DIR.glob("*.png")}
    assert all((out.parent / s.images[0]).read_bytes() in fixture for s in samples)  # the files, byte for byte
    assert samples[1].messages[1].content[0].text.count("Step 1:") == 1  # type: ignore[union-attr]  # the history


@pytest.mark.parametrize(
    "args, message",
    [
        (["/no/such/run", "--episode", "x", "--format", "gif"], "/no/such/run: no such run directory"),
        (["{ref}", "--episode", "nope", "--format", "gif"], "no episode 'nope'; the run has clock-world-time__en"),
        (["{noop}", "--episode", "clock-world-time", "--format", "mp4"], "task 'clock-world-time' has 2 episodes"),
        (["{ref}", "--episode", "clock-world-time", "--format", "avi"], "--format 'avi' is not one of gif, mp4, sft"),
        (["{ref}", "--format", "sft", "--out", "x.txt"], "the samples go to a .jsonl file"),
        (["{ref}", "--format", "sft", "--out", "{tmp}/d.jsonl", "--output-format", "x"], "--output-format"),
        (["{ref}", "--format", "sft", "--out", "{tmp}/d.jsonl", "--min-progress", "2"], "--min-progress 2: progress"),
        (["--format", "sft", "--dataset", "nope", "--data", ".", "--out", "{tmp}/d.jsonl"], "unknown dataset 'nope'"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(runs, tmp_path, args, message):
    r = _cli("export", *(a.format(ref=runs["ref"], noop=runs["noop"], tmp=tmp_path) for a in args))
    assert r.exit_code == 2, r.output
    assert message in r.output and "Traceback" not in r.output and r.output.count("error:") == 1
