"""Model-output parsers, one module per output format. Each turns a model's raw text (and any native tool
calls) into one unified `Action` plus the model's thought, or raises `OutputParseError` naming what is wrong.

| format     | module          | coordinates the model emits                                           |
|------------|-----------------|-----------------------------------------------------------------------|
| `json`     | json_format.py  | normalized [0, 1] `point` (x first) or `element` index                 |
| `agentcpm` | agentcpm.py     | [0, 1000] ints, x first                                               |
| `uitars`   | uitars.py       | image pixels (UI-TARS-1.5) or [0, 1000] (UI-TARS-1.0): coordinate_space |
| `qwen`     | qwen.py         | image pixels of the resized image (or [0, 1000]: coordinate_space)      |
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .agentcpm import parse_agentcpm
from .common import OutputParseError, ParseContext, Parsed, unescape_literal
from .json_format import parse_json
from .qwen import parse_qwen
from .uitars import parse_uitars

Parser = Callable[[str, ParseContext, "list[dict[str, Any]] | None"], Parsed]

PARSERS: dict[str, Parser] = {
    "json": parse_json,
    "agentcpm": parse_agentcpm,
    "uitars": parse_uitars,
    "qwen": parse_qwen,
}
# formats whose pixel coordinates refer to a Qwen2.5-VL smart-resized image (sizes multiple of 28)
PIXEL_FORMATS = ("uitars", "qwen")


def get_parser(output_format: str) -> Parser:
    try:
        return PARSERS[output_format]
    except KeyError:
        raise OutputParseError(
            f"unknown output_format {output_format!r}; expected one of {', '.join(PARSERS)}"
        ) from None


def parse_output(
    output_format: str, text: str, ctx: ParseContext, tool_calls: list[dict[str, Any]] | None = None
) -> Parsed:
    return get_parser(output_format)(text, ctx, tool_calls)


__all__ = [
    "PARSERS",
    "PIXEL_FORMATS",
    "OutputParseError",
    "ParseContext",
    "Parsed",
    "get_parser",
    "parse_output",
    "unescape_literal",
]
