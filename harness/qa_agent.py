"""The screen question-answering contract (ScreenQA on live screens): what a QA agent gets and returns.

A QA agent sees one `Observation` and a question, and answers the way ScreenQA's annotators do: the UI elements
that hold the answer, ranked best first (element indices of the observation's tree), plus a short answer; or
"no answer" when the screen does not hold one. QA agents are found by name like the agents
(`harness.plugins.create_qa_agent`, entry-point group `droidharness.qa_agents`).

An answer may also point at the screen instead (the open GUI models answer with boxes and points, and a screen
may have no hierarchy at all): `QAAnswer.regions`, boxes `[l, t, r, b]` or points `(x, y)` in `QAAnswer.space`,
"pixels" of the observation's screenshot or "relative_1000" ([0, 1000], x first). `predicted_items` is the one
place that turns an answer into the `(bounds, text)` items the ScreenQA metrics score (rules in its docstring).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, NamedTuple, Protocol, runtime_checkable

from harness import coords
from harness.agent import Usage
from harness.coords import Box

if TYPE_CHECKING:  # pragma: no cover - typing only
    from harness.hierarchy import UIElement
    from harness.observation import Observation


RegionSpace = Literal["pixels", "relative_1000"]


@dataclass(frozen=True)
class Region:
    """A place on the screen an answer points at: a `box` (l, t, r, b) or a `point` (x, y), in the answer's
    `space`; `text` is what the model said is there (None: use the short answer)."""

    box: tuple[float, float, float, float] | None = None
    point: tuple[float, float] | None = None
    text: str | None = None


@dataclass(frozen=True)
class QAAnswer:
    """A ranked answer. `elements` and `regions` empty and `no_answer` true: the screen does not answer the
    question. Elements rank before regions."""

    elements: tuple[int, ...] = ()  # indices into the observation's tree, best first
    text: str | None = None  # the short answer
    no_answer: bool = False
    raw_output: str = ""  # a model's raw reply ("" for non-model agents)
    usage: Usage = Usage()
    error: str | None = None  # why the answer could not be used (malformed output, unknown element), if so
    regions: tuple[Region, ...] = ()  # boxes / points on the screen, best first
    space: RegionSpace = "pixels"  # of `regions`: pixels of the observation's screenshot, or [0, 1000]


@runtime_checkable
class QAAgent(Protocol):
    name: str

    def answer(self, observation: Observation, question: str, lang: str) -> QAAnswer: ...


def answer_elements(answer: QAAnswer, observation: Observation) -> list[UIElement]:
    """The answer's elements that exist in the observation's tree, in rank order (unknown indices dropped)."""
    tree = observation.tree
    out = []
    for i in answer.elements:
        try:
            out.append(tree[i])
        except IndexError:
            continue
    return out


MATCH_IOU = 0.5  # a box names the element it overlaps this much (IoU), else it stands for itself
POINT_BOX_FRACTION = 0.04  # an unmatched point becomes a square this fraction of the screen's short side


class Predicted(NamedTuple):
    items: list[tuple[Box, str]]  # (bounds in screenshot pixels, text), best first
    unknown: int  # element indices not in the tree and regions off the screen: dropped, counted


def predicted_items(answer: QAAnswer, observation: Observation) -> Predicted:
    """The `(bounds, text)` items an answer predicts on this screen, in rank order; what the metrics score.

    - an element index -> that element's bounds and text (or content-desc); an index the tree lacks is dropped
      and counted (as `answer_elements` does);
    - a box -> the labelled element (text or content-desc) whose bounds match it best if their IoU is at least
      `MATCH_IOU`, else the box itself with the region's text or the short answer;
    - a point -> the smallest labelled element containing it, else a square around it (`POINT_BOX_FRACTION`
      of the screen's short side) with the region's text or the short answer;
    - a region off the screen (or malformed) is dropped and counted; an element two regions name is kept once.
    With an empty hierarchy (the screenshot alone) the items are the boxes with the short answer. "No answer"
    predicts nothing.
    """
    found = answer_elements(answer, observation)
    unknown = len(answer.elements) - len(found)
    if answer.no_answer:
        return Predicted([], unknown)
    items = [(e.bounds, e.text or e.content_desc) for e in found]
    if not answer.regions:
        return Predicted(items, unknown)
    size = (int(observation.size[0]), int(observation.size[1]))
    labelled = [e for e in observation.tree.visible() if (e.text or e.content_desc).strip()]
    named: set[int] = set()
    for region in answer.regions:
        text = region.text if region.text is not None else (answer.text or "")
        try:
            element, box = _resolve(region, answer.space, size, labelled)
        except (ValueError, TypeError):
            unknown += 1
            continue
        if element is None:
            items.append((box, text))
        elif element.index not in named:
            named.add(element.index)
            items.append((element.bounds, element.text or element.content_desc))
    return Predicted(items, unknown)


def _resolve(
    region: Region, space: RegionSpace, size: tuple[int, int], labelled: list[UIElement]
) -> tuple[UIElement | None, Box]:
    """(the element a region names or None, the region as a pixel box). ValueError: off the screen."""
    w, h = size
    if region.box is not None:
        if space == "relative_1000":
            box = coords.xyxy_1000_to_ltrb(region.box, size)
        else:
            l, t, r, b = (round(v) for v in region.box)
            box = (min(max(l, 0), w), min(max(t, 0), h), min(max(r, 0), w), min(max(b, 0), h))
            if box[2] <= box[0] or box[3] <= box[1]:
                raise ValueError(f"box {region.box!r} is empty or off the {w}x{h} screen")
        if labelled:
            ious = coords.iou_matrix([box], [e.bounds for e in labelled])[0]
            best = int(ious.argmax())
            if ious[best] >= MATCH_IOU:
                return labelled[best], box
        return None, box
    if region.point is None:
        raise ValueError("a region needs a box or a point")
    if space == "relative_1000":
        x, y = coords.to_pixels(coords.from_1000(region.point), size)
    else:
        x, y = round(region.point[0]), round(region.point[1])
        coords.from_pixels((x, y), size)  # ValueError when off the screen
    inside = [e for e in labelled if e.contains(x, y)]
    if inside:
        return min(inside, key=lambda e: (e.area, -e.depth)), (x, y, x + 1, y + 1)
    half = max(1, round(min(w, h) * POINT_BOX_FRACTION / 2))
    return None, (max(0, x - half), max(0, y - half), min(w, x + half), min(h, y + half))


NO_ANSWER = "<no answer>"  # ScreenQA's spelling of "the screen does not answer"
NONE_WORDS = ("none", "no", "-", NO_ANSWER)


def parse_answer(line: str, n_elements: int) -> list[int] | None:
    """ "3 7" / "3,7" -> [3, 7]; "none" -> []; None when not a valid answer on a screen of `n_elements`."""
    text = line.strip().lower()
    if text in NONE_WORDS:
        return []
    try:
        indices = [int(t) for t in text.replace(",", " ").split()]
    except ValueError:
        return None
    if not indices or any(not 0 <= i < n_elements for i in indices):
        return None
    return indices


def default_short(observation: Observation, indices: list[int]) -> str:
    """The short answer the screen gives for these elements: their texts, in order ("<no answer>" for none)."""
    tree = observation.tree
    return ", ".join(tree[i].text or tree[i].content_desc for i in indices) or NO_ANSWER
