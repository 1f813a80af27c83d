"""QA answers in the open GUI models' output formats: a model's raw reply -> `QAReply` (elements or regions).

| format     | the reply                                                                      | coordinates          |
|------------|--------------------------------------------------------------------------------|----------------------|
| `json`     | `{"elements": [index, ...], "answer": str | null, "no_answer": bool}` (ours)   | element indices      |
| `qwen`     | Qwen2.5-VL grounding: a JSON array `[{"bbox_2d": [x1, y1, x2, y2], "label":   | image pixels (or     |
|            | str}, {"point_2d": [x, y], "label": str}, ...]` best first; `[]` = no answer   | [0, 1000]: Qwen3-VL) |
| `uitars`   | `Action: finished(content='short answer', start_box='<|box_start|>(x1,y1),   | image pixels (1.5)   |
|            | (x2,y2)<|box_end|> ...')`; content `<no answer>` or `call_user()` = no answer  | or [0, 1000] (1.0)   |
| `agentcpm` | `{"thought": str, "answer": str, "POINT": [x, y] | [[x, y], ...], "BOX":     | [0, 1000]            |
|            | [x1, y1, x2, y2] | [[...], ...]}`; `"STATUS": "impossible"` = no answer          |                      |

Facts: Qwen2.5-VL answers grounding queries with `bbox_2d` / `point_2d` JSON in pixels of the image it saw (its
smart-resized input), Qwen3-VL in [0, 1000]; UI-TARS writes boxes as `<|box_start|>(x1,y1),(x2,y2)<|box_end|>`,
in [0, 1000] (UI-TARS-1.0) or smart-resized image pixels (UI-TARS-1.5), and answers with `finished(content=...)`;
AgentCPM-GUI's action JSON uses [0, 1000] `POINT`s. The QA shapes around those coordinates (which key holds
the short answer, how "no answer" is said) are ours, written in `harness/modelio/prompts/system_qa_<format>.md`.

Coordinates are validated and converted with the action parsers' helpers (`harness.modelio.parsers.common`,
`harness.coords`): image pixels are mapped to pixels of the observation's screenshot (the `ScreenMapping` of the
resize) and recorded as space "pixels"; [0, 1000] values are kept as they are, space "relative_1000". Nothing
is evaluated: JSON goes through `json`, UI-TARS call syntax through `harness.modelio.parsers.uitars.parse_call`.
Malformed output raises `OutputParseError` naming the format and the field.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from harness.modelio.parsers.common import (
    OutputParseError,
    ParseContext,
    extract_json_object,
    number,
    pair,
    point_from_1000,
)
from harness.modelio.parsers.uitars import parse_call, split_output
from harness.qa_agent import NO_ANSWER, Region, RegionSpace

FORMATS = ("json", "qwen", "uitars", "agentcpm")
_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)
_UITARS_BOX = re.compile(r"<\|box_start\|>(.*?)<\|box_end\|>|<bbox>(.*?)</bbox>|<point>(.*?)</point>", re.DOTALL)
_NUM = re.compile(r"-?\d+(?:\.\d+)?")
AGENTCPM_KEYS = ("thought", "answer", "POINT", "BOX", "STATUS")


@dataclass(frozen=True)
class QAReply:
    """A parsed QA reply: element indices (json) or regions (the location formats), the short answer."""

    elements: tuple[int, ...] = ()
    regions: tuple[Region, ...] = ()
    space: RegionSpace = "pixels"
    text: str | None = None
    no_answer: bool = False


def parse_qa(fmt: str, raw: str, ctx: ParseContext, listed: set[int]) -> QAReply:
    """Parse a QA reply in `fmt`. `ctx.mapping` maps the model's image to the screenshot; `listed` is the set of
    element indices the model was shown (json). Raises `OutputParseError`."""
    if fmt == "json":
        return _json(raw, listed)
    if fmt == "qwen":
        return _qwen(raw, ctx)
    if fmt == "uitars":
        return _uitars(raw, ctx)
    if fmt == "agentcpm":
        return _agentcpm(raw)
    raise OutputParseError(f"unknown QA output_format {fmt!r}; expected one of {', '.join(FORMATS)}")


# --- json (ours) -------------------------------------------------------------------------------------------
def _json(raw: str, listed: set[int]) -> QAReply:
    obj = extract_json_object(raw, "json")
    unknown = sorted(set(obj) - {"elements", "answer", "no_answer"})
    if unknown:
        raise OutputParseError(f"json output: unknown key(s) {', '.join(map(repr, unknown))}")
    els = obj.get("elements") or []
    if not isinstance(els, list) or not all(isinstance(i, int) and not isinstance(i, bool) for i in els):
        raise OutputParseError(f"json output: 'elements' must be a list of element indices, got {els!r:.60}")
    missing = [i for i in els if i not in listed]
    if missing:
        raise OutputParseError(f"json output: element(s) {missing} are not among the listed elements")
    text = _text(obj.get("answer"), "answer", "json")
    no_answer = obj.get("no_answer", False)
    if not isinstance(no_answer, bool):
        raise OutputParseError(f"json output: 'no_answer' must be true or false, got {no_answer!r:.40}")
    return _reply(tuple(els), (), "pixels", text, no_answer)


# --- qwen (Qwen2.5-VL grounding JSON) ----------------------------------------------------------------------
def _qwen(raw: str, ctx: ParseContext) -> QAReply:
    data = _json_value(raw, "qwen")
    if isinstance(data, dict):
        data = [data]
    if not isinstance(data, list):
        raise OutputParseError('qwen output: expected a JSON array of {"bbox_2d" | "point_2d", "label"}')
    regions, labels = [], []
    for i, item in enumerate(data):
        if not isinstance(item, dict):
            raise OutputParseError(f"qwen output: item [{i}] must be an object, got {type(item).__name__}")
        label = _text(item.get("label"), f"[{i}].label", "qwen")
        if "bbox_2d" in item:
            regions.append(Region(box=_box(item["bbox_2d"], f"[{i}].bbox_2d", ctx, "qwen"), text=label))
        elif "point_2d" in item:
            x, y = pair(item["point_2d"], f"[{i}].point_2d", "qwen")
            regions.append(Region(point=_point(x, y, f"[{i}].point_2d", ctx, "qwen"), text=label))
        else:
            raise OutputParseError(f"qwen output: item [{i}] has neither bbox_2d nor point_2d")
        if label:
            labels.append(label)
    text = ", ".join(labels) or None
    return _reply((), tuple(regions), _space(ctx), text, not regions)


# --- uitars (finished(content=..., start_box=...)) --------------------------------------------------------------
def _uitars(raw: str, ctx: ParseContext) -> QAReply:
    _, action = split_output(raw)
    name, args = parse_call(action)
    if name == "call_user":
        return QAReply(no_answer=True)
    if name != "finished":
        raise OutputParseError(f"uitars output: expected finished(content=..., start_box=...), got {name}()")
    content = (args.get("content", args.get("_0")) or "").strip()
    if content.lower() in (NO_ANSWER, "no answer"):
        return QAReply(no_answer=True)
    regions = []
    for key, value in args.items():
        if not (key.endswith("box") or key.endswith("point")):
            continue
        spans = [next(g for g in m.groups() if g is not None) for m in _UITARS_BOX.finditer(value)] or [value]
        for body in spans:
            nums = [float(n) for n in _NUM.findall(body)]
            if len(nums) == 4:
                regions.append(Region(box=_box(nums, key, ctx, "uitars")))
            elif len(nums) == 2:
                regions.append(Region(point=_point(nums[0], nums[1], key, ctx, "uitars")))
            else:
                raise OutputParseError(f"uitars output: {key}={body!r:.60} is not (x,y) or (x1,y1),(x2,y2)")
    return _reply((), tuple(regions), _space(ctx), content or None, not (regions or content))


# --- agentcpm ([0, 1000] JSON) ---------------------------------------------------------------------------------
def _agentcpm(raw: str) -> QAReply:
    obj = extract_json_object(raw, "agentcpm")
    unknown = [k for k in obj if k not in AGENTCPM_KEYS]
    if unknown:
        raise OutputParseError(
            f"agentcpm output: unknown key(s) {', '.join(map(repr, unknown))}; allowed: {', '.join(AGENTCPM_KEYS)}"
        )
    status = obj.get("STATUS", "finish")
    if status not in ("finish", "impossible"):
        raise OutputParseError(f"agentcpm output: STATUS {status!r:.40} is not finish or impossible")
    if status == "impossible":
        return QAReply(no_answer=True, space="relative_1000")
    regions = []
    for key in ("BOX", "POINT"):
        value = obj.get(key)
        if value is None:
            continue
        many = isinstance(value, list) and bool(value) and all(isinstance(v, list) for v in value)
        for i, v in enumerate(value if many else [value]):
            what = f"{key}[{i}]" if many else key
            if key == "BOX":
                regions.append(Region(box=_box(v, what, None, "agentcpm")))
            else:
                x, y = pair(v, what, "agentcpm")
                point_from_1000(x, y, what, "agentcpm")  # range check
                regions.append(Region(point=(x, y)))
    text = _text(obj.get("answer"), "answer", "agentcpm")
    return _reply((), tuple(regions), "relative_1000", text, not (regions or text))


# --- shared ------------------------------------------------------------------------------------------------
def _reply(
    elements: tuple[int, ...], regions: tuple[Region, ...], space: RegionSpace, text: str | None, no_answer: bool
) -> QAReply:
    no_answer = no_answer or not (elements or regions or text) or (text or "").strip() == NO_ANSWER
    if no_answer:
        return QAReply(space=space, no_answer=True)
    return QAReply(elements, regions, space, text or None, False)


def _space(ctx: ParseContext) -> RegionSpace:
    return "relative_1000" if ctx.coordinate_space == "relative_1000" else "pixels"


def _text(value: Any, what: str, fmt: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise OutputParseError(f"{fmt} output: {what} must be a string, got {value!r:.40}")
    return value.strip() or None


def _json_value(raw: str, fmt: str) -> Any:
    """The first JSON array or object in `raw` (inside a ``` fence if there is one)."""
    decoder = json.JSONDecoder()
    for chunk in [m.group(1) for m in _FENCE.finditer(raw)] + [raw]:
        for m in re.finditer(r"[\[{]", chunk):
            try:
                return decoder.raw_decode(chunk, m.start())[0]
            except json.JSONDecodeError:
                continue
    raise OutputParseError(f"{fmt} output: no JSON array or object found")


def _point(x: float, y: float, what: str, ctx: ParseContext, fmt: str) -> tuple[float, float]:
    """A model point -> the recorded point: [0, 1000] kept (range-checked), image pixels -> screenshot pixels."""
    if ctx.coordinate_space == "relative_1000":
        point_from_1000(x, y, what, fmt)
        return x, y
    try:
        px, py = ctx.mapping.image_to_device((x, y))
    except ValueError as exc:
        w, h = ctx.mapping.image_size
        raise OutputParseError(
            f"{fmt} output: {what} ({x:g}, {y:g}) is not a pixel of the {w}x{h} image: {exc}"
        ) from None
    return float(px), float(py)


def _box(value: Any, what: str, ctx: ParseContext | None, fmt: str) -> tuple[float, float, float, float]:
    """[x1, y1, x2, y2] -> the recorded box (ctx None: [0, 1000], as AgentCPM-GUI)."""
    if not isinstance(value, (list, tuple)) or len(value) != 4:
        raise OutputParseError(f"{fmt} output: {what} must be [x1, y1, x2, y2], got {value!r:.60}")
    x1, y1, x2, y2 = (number(v, what, fmt) for v in value)
    if ctx is None or ctx.coordinate_space == "relative_1000":
        point_from_1000(x1, y1, what, fmt)
        point_from_1000(x2, y2, what, fmt)
        return _check_box((x1, y1, x2, y2), what, fmt)
    l, t = _point(x1, y1, what, ctx, fmt)
    r, b = _point(x2, y2, what, ctx, fmt)
    return _check_box((l, t, r + 1, b + 1), what, fmt)  # the far corner's pixel belongs to the box


def _check_box(box: tuple[float, float, float, float], what: str, fmt: str) -> tuple[float, float, float, float]:
    l, t, r, b = box
    if r < l or b < t:
        raise OutputParseError(f"{fmt} output: {what} {list(box)!r:.60} is inverted (x2 < x1 or y2 < y1)")
    return box
