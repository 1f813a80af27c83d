"""Runs and dataset episodes as supervised fine-tuning data (`droidharness export --format sft`, docs/export.md).

One sample per step: the chat the `openai` agent would have sent at that step (the system prompt of the output
format, the user message with the instruction, the history of the earlier steps, the element list and the
screenshot; `harness.modelio.prompting`, the agent's own rendering) and, as the assistant's reply, the step's action
written in the output format (`harness.modelio.parsers.formatters`). Each target is read back with the format's own
parser and must give the action it was written from; a step the format cannot express, an invalid step, a step
without a screenshot is skipped and counted.

The screenshot is the recorded file, hard-linked (or copied) byte for byte into `images/` next to the JSONL,
named by the sha256 of its bytes; nothing is re-encoded, except a dataset screen stored only as pixels (AitW),
which is written as a lossless PNG. A run is read through `harness.trajectory.reader`; an episode's success and
progress are its result as scoring reads it (`harness.report.summary.outcome`).
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PIL import Image
from pydantic import ValidationError

from harness.actions import Action, action_to_dict, parse_action
from harness.coords import ScreenMapping
from harness.errors import ActionValidationError
from harness.eval.steps import observation_for
from harness.hierarchy import UITree
from harness.modelio.imaging import target_size
from harness.modelio.options import OpenAIAgentOptions
from harness.modelio.parsers import PIXEL_FORMATS, ParseContext, parse_output
from harness.modelio.parsers.formatters import coordinate_tolerance, format_action, same_action
from harness.modelio.prompting import PromptSet, history_line, language_name
from harness.report.summary import episode_instruction, outcome
from harness.scrub import redact
from harness.trajectory.reader import EpisodeRecord, Run
from harness.trajectory.records import atomic_write_bytes
from tasks.datasets.adapter import LoadRequest
from tasks.datasets.base import DatasetEpisode
from tasks.datasets.registry import adapter

from .episodes import ExportError
from .sft_schema import EpisodeOutcome, SFTSample, Source

IMAGES_DIR = "images"


@dataclass(frozen=True)
class SFTOptions:
    """What the samples say (the `openai` agent's prompt options) and which episodes they come from."""

    output_format: str = "json"
    coordinate_space: str = "image_pixels"  # uitars / qwen: image pixels of the resized screen, or [0, 1000]
    max_image_side: int = 1344
    include_elements: bool = True
    max_history: int = 8
    success_only: bool = False  # a run's episodes: only those that succeeded
    min_progress: float = 0.0  # a run's episodes: only those with at least this progress
    langs: tuple[str, ...] = ()  # only these languages (empty: all)
    link: bool = True  # hard-link the screenshots when the file system allows it (else copy)

    def agent_options(self) -> OpenAIAgentOptions:
        if not 0.0 <= self.min_progress <= 1.0:
            raise ExportError(f"--min-progress {self.min_progress:g}: progress is a fraction in 0..1")
        try:
            return OpenAIAgentOptions(
                output_format=self.output_format,
                coordinate_space=self.coordinate_space,
                max_image_side=self.max_image_side,
                include_elements=self.include_elements,
                max_history=self.max_history,
            )
        except ValidationError as exc:
            first = exc.errors()[0]
            raise ExportError(f"--{str(first['loc'][0]).replace('_', '-')}: {first['msg']}") from None


@dataclass
class SFTStats:
    episodes: int = 0  # episodes read
    kept: int = 0  # episodes that passed the filters
    samples: int = 0
    images: int = 0  # distinct image files written
    filtered: Counter[str] = field(default_factory=Counter)  # episodes left out, by reason
    skipped: Counter[str] = field(default_factory=Counter)  # steps left out, by reason

    def line(self) -> str:
        parts = [f"{self.samples} samples from {self.kept} of {self.episodes} episodes", f"{self.images} images"]
        if self.filtered:
            parts.append("episodes left out: " + ", ".join(f"{k} {v}" for k, v in sorted(self.filtered.items())))
        if self.skipped:
            parts.append("steps skipped: " + ", ".join(f"{k} {v}" for k, v in sorted(self.skipped.items())))
        return "; ".join(parts)


@dataclass(frozen=True)
class StepInput:
    """One step as a sample needs it, whatever it came from."""

    source: Source
    instruction: str
    history: list[str]
    package: str
    tree: UITree | None
    device_size: tuple[int, int]
    action: Action
    thought: str
    image: Path | bytes  # the screenshot file, or lossless PNG bytes of a screen stored as pixels
    outcome: EpisodeOutcome


class SampleWriter:
    """Renders samples and writes them with their images under the JSONL's folder."""

    def __init__(self, out: Path, options: SFTOptions) -> None:
        if out.suffix != ".jsonl":
            raise ExportError(f"--out {out}: the samples go to a .jsonl file (DIR/data.jsonl)")
        self.out, self.options = out, options
        self.agent = options.agent_options()
        self.prompts = PromptSet.load(self.agent.output_format)
        self.images = out.parent / IMAGES_DIR
        self.stats = SFTStats()
        self.lines: list[str] = []
        self._written: set[str] = set()  # the export's distinct images: grows with it, as `lines` (docs/caches.md)

    def _image(self, image: Path | bytes) -> tuple[str, tuple[int, int]]:
        data = image.read_bytes() if isinstance(image, Path) else image
        ext = image.suffix.lower() if isinstance(image, Path) else ".png"
        name = f"{hashlib.sha256(data).hexdigest()}{ext}"
        dest = self.images / name
        if name not in self._written:
            self.images.mkdir(parents=True, exist_ok=True)
            if not dest.is_file():
                if isinstance(image, Path) and self.options.link:
                    try:
                        os.link(image, dest)
                    except OSError:  # another file system, or links not allowed: a byte-for-byte copy
                        shutil.copyfile(image, dest)
                elif isinstance(image, Path):
                    shutil.copyfile(image, dest)
                else:
                    atomic_write_bytes(dest, data, fsync=False)
            self._written.add(name)
            self.stats.images += 1
        with Image.open(io.BytesIO(data)) as im:
            return f"{IMAGES_DIR}/{name}", im.size

    def add(self, s: StepInput) -> None:
        o = self.agent
        fmt = o.output_format
        rel, size = self._image(s.image)
        device = s.device_size or size
        mapping = ScreenMapping(
            device_size=device, image_size=target_size(size, o.max_image_side, fmt in PIXEL_FORMATS)
        )
        space = o.coordinate_space if fmt in PIXEL_FORMATS else "image_pixels"
        ctx = ParseContext(mapping=mapping, coordinate_space=space, tree=s.tree, swipe_distance=o.swipe_distance)
        try:
            target, lowered = format_action(fmt, s.action, ctx, s.thought, keep_elements=o.include_elements)
            back = parse_output(fmt, target, ctx).action
        except ActionValidationError:
            self.stats.skipped[f"not expressible in {fmt}"] += 1
            return
        if not same_action(back, lowered, coordinate_tolerance(ctx)):
            self.stats.skipped[f"not expressible in {fmt}"] += 1
            return
        elements = None
        if o.include_elements:
            elements = s.tree.to_prompt(max_len=o.max_elements_chars) if s.tree is not None else ""
        user = self.prompts.render_user(
            instruction=s.instruction,
            history=s.history,
            max_history=o.max_history,
            package=s.package,
            elements=elements,
            image_size=mapping.image_size,
        )
        system = self.prompts.render_system(mapping.image_size, o.coordinate_space, language_name(s.source.lang))
        sample = SFTSample(
            id=f"{s.source.name}/{s.source.episode}/{s.source.step}",
            source=s.source,
            output_format=fmt,
            coordinate_space=space,
            images=[rel],
            image_size=size,
            resize_to=mapping.image_size,
            messages=[
                {"role": "system", "content": system},
                {"role": "user", "content": [{"type": "text", "text": user}, {"type": "image", "image": rel}]},
                {"role": "assistant", "content": target},
            ],
            action=action_to_dict(lowered),
            recorded_action=action_to_dict(s.action),
            episode=s.outcome,
        )
        self.lines.append(redact(json.dumps(sample.to_json(), ensure_ascii=False)))
        self.stats.samples += 1

    def finish(self) -> SFTStats:
        self.out.parent.mkdir(parents=True, exist_ok=True)
        text = "".join(line + "\n" for line in self.lines)
        try:
            atomic_write_bytes(self.out, text.encode("utf-8", "backslashreplace"), fsync=False)
        except OSError as exc:
            raise ExportError(f"{self.out}: cannot write: {exc.strerror or exc}") from None
        return self.stats


# --- a run -------------------------------------------------------------------------------------------------
def _recorded_action(data: dict[str, Any] | None) -> Action | None:
    if not data:
        return None
    try:
        return parse_action(data)
    except ActionValidationError:
        return None


def run_steps(run: Run, options: SFTOptions, stats: SFTStats) -> Iterator[StepInput]:
    """The steps of `run`'s episodes that pass the filters."""
    run_id = run.manifest.run_id if run.manifest else run.path.name
    for ep in run.episodes.values():
        stats.episodes += 1
        r = outcome(run, ep)
        why = _left_out(ep, r.scored, r.success, r.progress, options)
        if why:
            stats.filtered[why] += 1
            continue
        stats.kept += 1
        yield from _episode_steps(
            run, ep, run_id, EpisodeOutcome(status=r.status, success=r.success, progress=r.progress), stats
        )


def _left_out(ep: EpisodeRecord, scored: bool, success: bool, progress: float, options: SFTOptions) -> str:
    if options.langs and ep.lang not in options.langs:
        return "other language"
    if not scored:
        return "not scored (infrastructure failure or unfinished)"
    if options.success_only and not success:
        return "not a success"
    if progress < options.min_progress:
        return "progress below the minimum"
    return ""


def _episode_steps(
    run: Run, ep: EpisodeRecord, run_id: str, result: EpisodeOutcome, stats: SFTStats
) -> Iterator[StepInput]:
    instruction = episode_instruction(run, ep) or ""
    history: list[str] = []
    for step in ep.steps:
        action = _recorded_action(step.agent.action)
        path = ep.frame_path(step.step, "screenshot")
        if action is None:
            stats.skipped["invalid step"] += 1
        elif path is None:
            stats.skipped["no screenshot"] += 1
        else:
            xml = ep.xml(step.step)
            size = step.observation.size
            yield StepInput(
                source=Source(
                    kind="run", name=run_id, episode=ep.key, step=step.step, task_id=ep.task_id, lang=ep.lang
                ),
                instruction=instruction,
                history=list(history),
                package=step.observation.package or "",
                tree=UITree.from_xml(xml) if xml else None,
                device_size=(int(size[0]), int(size[1])) if size else (0, 0),
                action=action,
                thought=step.agent.thought or "",
                image=path,
                outcome=result,
            )
        history.append(history_line(step.step, action, step.agent.error, step.result))


# --- a dataset ---------------------------------------------------------------------------------------------
def dataset_episodes(name: str, data: str | Path, images: str | None, options: SFTOptions) -> Iterable[DatasetEpisode]:
    """Dataset `name`'s episodes at `data`, through the adapter registry."""
    ds = adapter(name)
    if not ds.episodic:
        raise ExportError(f"--dataset {ds.name}: not a dataset of recorded episodes (no actions to learn)")
    request = LoadRequest(images=images, langs=options.langs or ("en", "zh"), need_images=True)
    return ds.open(data, **ds.load_kwargs(request))


def dataset_steps(episodes: Iterable[DatasetEpisode], options: SFTOptions, stats: SFTStats) -> Iterator[StepInput]:
    """The steps of a dataset's episodes: demonstrations, with no result to filter on (docs/export.md)."""
    for ep in episodes:
        stats.episodes += 1
        if options.langs and ep.lang not in options.langs:
            stats.filtered["other language"] += 1
            continue
        stats.kept += 1
        history: list[str] = []
        for step in ep.steps:
            if step.action is None:
                stats.skipped["not representable in the unified actions"] += 1
            else:
                obs = observation_for(step, ep)
                image: Path | bytes
                if step.image_path is not None:
                    image = Path(step.image_path)
                else:
                    buf = io.BytesIO()
                    obs.screenshot.save(buf, "PNG")  # pixels only (AitW): lossless
                    image = buf.getvalue()
                yield StepInput(
                    source=Source(
                        kind="dataset", name=ep.dataset, episode=str(ep.episode_id), step=step.index + 1, lang=ep.lang
                    ),
                    instruction=ep.instruction,
                    history=list(history),
                    package=obs.package,
                    tree=obs.tree,
                    device_size=(int(obs.size[0]), int(obs.size[1])),
                    action=step.action,
                    thought=str(step.extras.get("coat_action_think") or "") if isinstance(step.extras, dict) else "",
                    image=image,
                    outcome=EpisodeOutcome(),
                )
            history.append(history_line(step.index + 1, step.action, "not representable", None))


def export_sft(steps: Iterable[StepInput], out: Path, options: SFTOptions, stats: SFTStats) -> SFTStats:
    """Write the samples of `steps` to `out` (JSONL) and their images to `images/` next to it."""
    writer = SampleWriter(out, options)
    writer.stats = stats
    for s in steps:
        writer.add(s)
    return writer.finish()


__all__ = ["SFTOptions", "SFTStats", "StepInput", "run_steps", "dataset_episodes", "dataset_steps", "export_sft"]
