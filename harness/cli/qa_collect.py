"""`droidharness qa collect`: a person walks a live app, asks questions about its screens and picks the answer
elements on the numbered overlay; the result is a ScreenQA-format dataset (`tasks.datasets.screenqa` reads it).

The loop (stdin prompts, Rich output): each new screen prints its numbered element list and writes
`DIR/overlay.png` (the screenshot with every listed element boxed and numbered). Commands:

    tap N | scroll up|down|left|right | back | home | open APP | type TEXT     act through Device.step
    q QUESTION      ask a question on this screen, then: the answer elements by index in rank order
                    ("3 7"), or "none" for no answer; then the short answer (default: the elements' texts)
    done            finish (end of input too)

Export (rewritten after every question, atomically; an existing dataset in DIR is appended to):

    DIR/answers_and_bboxes/<split>.json   [{image_id, image_width, image_height, question,
                                            ground_truth: [{full_answer, ui_elements: [{text, bounds, vh_index}]}]}]
    DIR/short_answers/<split>.json        [{image_id, question, ground_truth: [short answer | "<no answer>"]}]
    DIR/images/<image_id>.png, .xml       the screen and its uiautomator hierarchy (vh_index = element index)

`image_id` numbers the screens questions were asked on (1, 2, ...). Everything written is redacted
(`harness.trajectory.records.utf8`). Registered on `qa_app` by `harness/cli/qa.py`.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from harness.errors import HarnessError

if TYPE_CHECKING:  # pragma: no cover
    from harness.actions import Action
    from harness.observation import Observation

console = Console()


class CollectError(HarnessError):
    """The output folder holds a dataset that cannot be appended to (names the file)."""


HELP = "commands: tap N | scroll up|down|left|right | back | home | open APP | type TEXT | q QUESTION | done"


@dataclass
class Dataset:
    """The collected records and where they go."""

    out: Path
    split: str
    bboxes: list[dict[str, Any]] = field(default_factory=list)
    shorts: list[dict[str, Any]] = field(default_factory=list)
    next_id: int = 1

    @classmethod
    def open(cls, out: Path, split: str) -> Dataset:
        ds = cls(out, split)
        for kind, target in (("answers_and_bboxes", ds.bboxes), ("short_answers", ds.shorts)):
            p = out / kind / f"{split}.json"
            if p.is_file():
                try:
                    target.extend(json.loads(p.read_text(encoding="utf-8")))
                except (ValueError, OSError) as exc:
                    raise CollectError(f"{p}: cannot append to it: {exc}") from None
        ids = [int(r["image_id"]) for r in ds.bboxes if str(r.get("image_id", "")).isdigit()]
        ds.next_id = max(ids, default=0) + 1
        return ds

    def save_screen(self, obs: Observation) -> int:
        from harness.trajectory.records import atomic_write_bytes, utf8

        image_id = self.next_id
        self.next_id += 1
        images = self.out / "images"
        images.mkdir(parents=True, exist_ok=True)
        obs.screenshot.convert("RGB").save(images / f"{image_id}.png")
        atomic_write_bytes(images / f"{image_id}.xml", utf8(obs.xml), fsync=False)
        return image_id

    def add(self, image_id: int, obs: Observation, question: str, indices: list[int], short: str | None) -> None:
        from harness.qa_agent import NO_ANSWER

        els = [obs.tree[i] for i in indices]
        ui = [{"text": e.text or e.content_desc, "bounds": list(e.bounds), "vh_index": e.index} for e in els]
        self.bboxes.append(
            {
                "image_id": image_id,
                "image_width": obs.size[0],
                "image_height": obs.size[1],
                "question": question,
                "ground_truth": [{"full_answer": short or "", "ui_elements": ui}],
            }
        )
        self.shorts.append({"image_id": image_id, "question": question, "ground_truth": [short or NO_ANSWER]})
        self.write()

    def write(self) -> None:
        from harness.trajectory.records import atomic_write_bytes, utf8

        for kind, records in (("answers_and_bboxes", self.bboxes), ("short_answers", self.shorts)):
            (self.out / kind).mkdir(parents=True, exist_ok=True)
            text = json.dumps(records, ensure_ascii=False, indent=1)
            atomic_write_bytes(self.out / kind / f"{self.split}.json", utf8(text), fsync=False)


def parse_action(line: str) -> Action | None:
    """A walking command -> the action (None: not a walking command). ValueError: a bad argument."""
    from harness.actions import Back, Click, Home, Scroll, TypeText
    from harness.device.apps import open_app_action

    word, _, rest = line.partition(" ")
    rest = rest.strip()
    if word == "tap":
        if not rest.isdigit():
            raise ValueError("tap needs an element number: tap 12")
        return Click(element=int(rest))
    if word == "scroll":
        if rest not in ("up", "down", "left", "right"):
            raise ValueError("scroll needs a direction: up, down, left or right")
        return Scroll(direction=rest)
    if word in ("back", "home") and not rest:
        return Back() if word == "back" else Home()
    if word == "open":
        if not rest:
            raise ValueError("open needs an app: open Weather")
        return open_app_action(rest)
    if word == "type":
        return TypeText(text=rest)
    return None


def show(obs: Observation, out: Path) -> None:
    """The screen's numbered element list, and the numbered overlay written to DIR/overlay.png."""
    from harness.observation import draw_overlay

    draw_overlay(obs.screenshot, obs.tree).save(out / "overlay.png")
    table = Table("#", "element", title=f"{escape(obs.package or '(unknown app)')}  ({out / 'overlay.png'})")
    for e in obs.tree.prompt_elements():
        table.add_row(str(e.index), escape(obs.tree.to_prompt([e]).split("] ", 1)[-1]))
    console.print(table)


def _read(prompt: str) -> str | None:
    console.print(prompt, end="", highlight=False, markup=False)
    try:
        return input()
    except EOFError:
        return None


def qa_collect(
    device: Optional[str] = typer.Option(
        None, "--device", "-s", help="Serial of a real device (default: the embedded virtual device)."
    ),
    out: Path = typer.Option(..., "--out", help="The dataset folder (created; an existing dataset is appended to)."),
    lang: str = typer.Option("en", help="Language of the virtual device: en or zh."),
    split: str = typer.Option("test", help="The split file name: <split>.json."),
) -> None:
    """Walk a live app, ask questions and pick answer elements on the numbered overlay: a ScreenQA dataset."""
    from harness.device.controller import AdbDevice

    if lang not in ("en", "zh"):
        raise typer.BadParameter(f"{lang!r} is not one of: en, zh", param_hint="--lang")
    if not split or "/" in split or split.startswith("."):
        raise typer.BadParameter(f"{split!r} is not a file name", param_hint="--split")
    try:
        out.mkdir(parents=True, exist_ok=True)
        ds = Dataset.open(out, split)
        dev = AdbDevice.connect(device, start_virtual=device is None, virtual_locale=lang)
    except (HarnessError, OSError) as e:
        console.print(f"[red]error:[/red] {escape(str(e))}", highlight=False, soft_wrap=True)
        raise typer.Exit(2) from None
    asked = 0
    try:
        with dev:
            obs = dev.observe()
            screen_id: int | None = None
            show(obs, out)
            console.print(HELP, highlight=False)
            while (line := _read("> ")) is not None:
                line = line.strip()
                if not line:
                    continue
                if line in ("done", "quit", "exit"):
                    break
                if line.startswith("q "):
                    if screen_id is None:
                        screen_id = ds.save_screen(obs)
                    if _ask(ds, screen_id, obs, line[2:].strip()):
                        asked += 1
                    continue
                try:
                    action = parse_action(line)
                except ValueError as e:
                    console.print(f"[yellow]{escape(str(e))}[/yellow]", highlight=False)
                    continue
                if action is None:
                    console.print(f"unknown command {escape(shlex.quote(line))}; {HELP}", highlight=False)
                    continue
                try:
                    result, obs = dev.step(action, obs)
                except HarnessError as e:  # an element number not on the screen, a device failure
                    console.print(f"[yellow]{escape(str(e))}[/yellow]", highlight=False)
                    continue
                if not result.ok:
                    console.print(f"[yellow]{escape(result.error or 'the action did not apply')}[/yellow]")
                screen_id = None
                show(obs, out)
    except HarnessError as e:
        console.print(f"[red]error:[/red] {escape(str(e))}", highlight=False, soft_wrap=True)
        raise typer.Exit(3) from None
    ds.write()
    console.print(
        f"{asked} question(s) collected; {len(ds.bboxes)} in {out / 'answers_and_bboxes' / (split + '.json')}",
        highlight=False,
    )


def _ask(ds: Dataset, image_id: int, obs: Observation, question: str) -> bool:
    from harness.qa_agent import NO_ANSWER, default_short, parse_answer

    if not question:
        console.print("[yellow]q needs a question: q What is the humidity?[/yellow]")
        return False
    while True:
        line = _read("answer elements (numbers in rank order, or none): ")
        if line is None:
            return False
        indices = parse_answer(line, len(obs.tree))
        if indices is not None:
            break
        console.print(f"[yellow]give element numbers of this screen (0..{len(obs.tree) - 1}) or none[/yellow]")
    default = default_short(obs, indices)
    short = _read(f"short answer [{default}]: ")
    short = (short or "").strip() or default
    ds.add(image_id, obs, question, indices, None if short == NO_ANSWER else short)
    console.print(f"saved: image {image_id}, {len(indices)} element(s), answer {escape(short)!r}", highlight=False)
    return True
