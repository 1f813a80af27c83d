"""The shared data model of the dataset adapters: episodes of recorded steps, in the unified action schema.

Every loader (`aitw`, `odyssey`, `androidlens`, `aitz`) yields `DatasetEpisode`s lazily (a generator, one
episode in memory at a time); `screenqa` yields `ScreenQAQuestion`s. A step keeps its dataset-native record in
`raw` (what the converters of `tasks.datasets.convert` round-trip to) next to the action in the unified schema.

Errors: a corrupt record or a missing / malformed field raises `DatasetError` whose message names the file, the
record (index, episode id, step) and the field. With `skip_bad=True` a loader skips such records instead and
counts them in a `LoadStats`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from harness.actions import Action, Point
from tasks.schema import Task

from .errors import DatasetError, FieldError
from .milestones import episode_to_task

if TYPE_CHECKING:  # pragma: no cover
    from PIL import Image


@dataclass
class LoadStats:
    """Counters a loader fills in (pass one in to read them after, or while, iterating)."""

    files: int = 0
    records: int = 0  # steps of the yielded episodes (ScreenQA: questions yielded)
    episodes: int = 0  # episodes yielded
    bad_records: int = 0  # records skipped (corrupt or invalid) under skip_bad
    bad_episodes: int = 0  # episodes dropped under skip_bad (one of their records was bad)
    bad_files: int = 0  # files abandoned part-way (broken framing / gzip / JSON) under skip_bad
    errors: list[str] = field(default_factory=list)  # the first `MAX_ERRORS` messages

    MAX_ERRORS = 100

    def note(self, exc: BaseException) -> None:
        if len(self.errors) < self.MAX_ERRORS:
            self.errors.append(str(exc))

    def load_episode(self, load: Callable[[], DatasetEpisode], skip_bad: bool) -> DatasetEpisode | None:
        """Run one per-file episode loader: count it, or (under skip_bad) count and note its failure and return
        None; without skip_bad the DatasetError propagates."""
        self.files += 1
        try:
            ep = load()
        except DatasetError as exc:
            if not skip_bad:
                raise
            self.bad_records += 1
            self.bad_episodes += 1
            self.note(exc)
            return None
        self.records += len(ep.steps)
        self.episodes += 1
        return ep


@dataclass(frozen=True)
class UIBox:
    """An annotated UI element of a recorded screen."""

    bounds: tuple[int, int, int, int]  # l, t, r, b in pixels of the stored screenshot
    text: str = ""
    kind: str = ""  # AitW / AITZ ui_types ("TEXT", "ICON_HOME", ...); Odyssey / AndroidLens: "" or a class


@dataclass(frozen=True)
class DatasetStep:
    index: int  # 0-based step within the episode
    width: int  # stored screenshot size in pixels
    height: int
    action: Action | None  # the recorded action in the unified schema; None if not representable
    raw: dict[str, Any]  # the dataset-native record of this step (what converters round-trip to)
    elements: tuple[UIBox, ...] = ()
    image_path: str | None = None  # file on disk, or None when the image is embedded (AitW)
    load_image: Callable[[], Image.Image] | None = None  # lazy decode (AitW pixels, or open image_path)
    extras: dict[str, Any] = field(default_factory=dict)  # activity, sam2_bbox, low-level instruction, ...

    def image(self) -> Image.Image:
        """Decode the screenshot now (nothing is decoded while loading). Raises DatasetError naming the file."""
        if self.load_image is not None:
            try:
                return self.load_image()
            except DatasetError:
                raise
            except Exception as exc:  # decoding failures of any kind
                raise DatasetError(
                    f"{self.image_path or '<embedded image>'}: step {self.index}: screenshot cannot be decoded: {exc}"
                ) from exc
        if self.image_path is None:
            raise DatasetError(f"step {self.index}: no screenshot recorded for this step")
        return open_image(self.image_path, self.index)


def open_image(path: str | Path, step: int | None = None) -> Image.Image:
    """Open and fully decode an image file; DatasetError naming the file and step when missing or broken."""
    from PIL import Image, UnidentifiedImageError

    at = f" (step {step})" if step is not None else ""
    try:
        with Image.open(path) as im:
            im.load()
            return im.copy() if im.mode in ("RGB", "RGBA", "L") else im.convert("RGB")
    except FileNotFoundError:
        raise DatasetError(f"{path}{at}: screenshot file not found") from None
    except (UnidentifiedImageError, OSError) as exc:
        raise DatasetError(f"{path}{at}: screenshot cannot be decoded: {exc}") from exc


def image_size(path: str | Path) -> tuple[int, int]:
    """(width, height) from the image header only (no pixel decoding)."""
    from PIL import Image

    with Image.open(path) as im:
        return im.size


@dataclass(frozen=True)
class DatasetEpisode:
    dataset: str  # the adapter's name (`tasks.datasets.registry`): "aitw" | "odyssey" | "androidlens" | "aitz"
    episode_id: str
    instruction: str
    lang: str = "en"
    steps: tuple[DatasetStep, ...] = ()
    meta: dict[str, Any] = field(default_factory=dict)  # subset / category / app / device_info / types / split

    def to_task(self) -> Task | None:
        """The milestones the steps record (AndroidLens does) as a `Task` scored by them
        (`tasks.datasets.milestones`); None for an episode that records none (AitW, GUI Odyssey, AITZ)."""
        return episode_to_task(self)

    def __len__(self) -> int:
        return len(self.steps)


def as_paths(paths: str | Path | list[str | Path] | tuple[str | Path, ...], pattern: str) -> list[Path]:
    """Expand files / directories (searched recursively with `pattern`) into a sorted, de-duplicated file list."""
    items = [paths] if isinstance(paths, (str, Path)) else list(paths)
    out: list[Path] = []
    for item in items:
        p = Path(item)
        if p.is_dir():
            out.extend(sorted(q for q in p.rglob(pattern) if q.is_file()))
        elif p.exists():
            out.append(p)
        else:
            raise DatasetError(f"{p}: no such file or directory")
    return list(dict.fromkeys(out))  # each file once, in first-seen order


# --- helpers shared by the converters -------------------------------------------------------------------
def make_point(xy: tuple[float, float] | None, field_name: str) -> Point:
    """A unified `Point` from normalized (x, y); FieldError naming the field when missing or out of range."""
    if xy is None:
        raise FieldError(field_name, "a point is required for this action but none is recorded")
    try:
        return Point(x=float(xy[0]), y=float(xy[1]))
    except (ValidationError, TypeError, ValueError) as exc:
        raise FieldError(
            field_name, f"point {tuple(xy)!r} is not a normalized (x, y) in [0, 1]: {str(exc).splitlines()[-1].strip()}"
        ) from None


def target_xy(action: Any, dataset: str) -> tuple[float, float]:
    """The normalized (x, y) of a point-targeted action; DatasetError for element-index targets (a dataset
    record has no live UITree to resolve them against)."""
    if getattr(action, "point", None) is None:
        raise DatasetError(
            f"{dataset}: cannot express {action.type} on element [{action.element}] -- dataset "
            "records need a point target"
        )
    return action.point.x, action.point.y


def scroll_as_swipe(action: Any, size: tuple[int, int]) -> Any:
    """A unified `Scroll` as the finger `Swipe` it performs over the whole screen of `size` (lossy: datasets store
    finger vectors, not scroll intents; an element-scoped scroll is taken over the whole screen)."""
    return action.model_copy(update={"element": None}).to_swipe(None, size)


def unrepresentable(dataset: str, action: Any, why: str = "") -> DatasetError:
    return DatasetError(
        f"{dataset}: the unified action {action.type} has no equivalent in this dataset" + (f" ({why})" if why else "")
    )


def iter_json_array(path: str | Path, chunk_size: int = 1 << 16) -> Iterator[tuple[int, Any]]:
    """Stream `(index, item)` from a JSON file holding one top-level array (or JSON lines, for `.jsonl`), holding
    about one item in memory. DatasetError names the file and the item index on malformed JSON."""
    p = Path(path)
    if p.suffix == ".jsonl":
        with open(p, encoding="utf-8") as f:
            n = 0
            for lineno, line in enumerate(f, 1):
                if line.strip():
                    try:
                        yield n, json.loads(line)
                    except json.JSONDecodeError as exc:
                        raise DatasetError(f"{p}: record {n} (line {lineno}): not valid JSON: {exc.msg}") from None
                    n += 1
        return
    dec = json.JSONDecoder()
    with open(p, encoding="utf-8") as f:
        buf, pos, eof = "", 0, False

        def more(need_bigger: bool = False) -> None:
            nonlocal buf, pos, eof
            data = f.read(max(chunk_size, len(buf) - pos) if need_bigger else chunk_size)
            if not data:
                eof = True
            buf = buf[pos:] + data
            pos = 0

        def skip_ws() -> None:
            nonlocal pos
            while True:
                while pos < len(buf) and buf[pos] in " \t\r\n":
                    pos += 1
                if pos < len(buf) or eof:
                    return
                more()

        more()
        if buf.startswith("\ufeff"):
            pos = 1
        skip_ws()
        if pos >= len(buf) or buf[pos] != "[":
            raise DatasetError(f"{p}: expected a JSON array of records")
        pos += 1
        index = 0
        skip_ws()
        if pos < len(buf) and buf[pos] == "]":
            return
        while True:
            skip_ws()
            while True:
                try:
                    item, end = dec.raw_decode(buf, pos)
                    if end < len(buf) or eof:
                        break
                except json.JSONDecodeError as exc:
                    if eof:
                        raise DatasetError(f"{p}: record {index}: not valid JSON ({exc.msg})") from None
                more(need_bigger=True)  # cut by the buffer end (or ends exactly there): read more, decode again
            pos = end
            yield index, item
            index += 1
            skip_ws()
            if pos >= len(buf):
                raise DatasetError(f"{p}: record {index}: the array is truncated (no closing ']')")
            if buf[pos] == ",":
                pos += 1
            elif buf[pos] == "]":
                return
            else:
                raise DatasetError(f"{p}: after record {index - 1}: expected ',' or ']', got {buf[pos]!r}")
