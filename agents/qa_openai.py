"""`openai` in QA mode: screen question answering with any OpenAI-compatible VLM endpoint.

The request: the system prompt of the output format (`harness/modelio/prompts/system_qa.md` for `json`,
`system_qa_<format>.md` for the others), then the question, the numbered element list (`UITree.to_prompt`;
"(none)" for a screen without a hierarchy) and the screenshot (resized as the acting agent sends it: smart-resized
for the formats that answer in image pixels, with the `ScreenMapping` back to the screenshot). `output_format`:

- `json` (ours): `{"elements": [index, ...], "answer": str | null, "no_answer": bool}`; an element index must be
  one of the listed ones;
- `qwen`, `uitars`, `agentcpm`: the open GUI models' own grounding formats, answering with boxes / points on
  the screenshot (`agents.qa_formats` has the shapes and the coordinate spaces; `coordinate_space` as for the
  acting agent). The answer's `regions` are scored through `harness.qa_agent.predicted_items`.

Malformed output gets up to `max_repairs` repair turns quoting the error; after that the answer is counted as
"no answer" with the error recorded (`QAAnswer.error`), never a crash. Endpoint failures after the retries are
`EndpointError`s (infrastructure), as for the acting agent; the key is never recorded.
"""

from __future__ import annotations

import string
from importlib import resources
from typing import Any

from agents.openai_agent import OpenAIAgent
from agents.qa_formats import parse_qa
from harness.agent import Usage
from harness.modelio.imaging import encode_image, prepare_image
from harness.modelio.parsers import PIXEL_FORMATS, OutputParseError, ParseContext
from harness.observation import Observation
from harness.qa_agent import QAAnswer

PROMPTS = {
    "json": "system_qa.md",
    "qwen": "system_qa_qwen.md",
    "uitars": "system_qa_uitars.md",
    "agentcpm": "system_qa_agentcpm.md",
}
EXAMPLES = {
    "json": '{"elements": [index, ...], "answer": "...", "no_answer": false}',
    "qwen": '```json\n[{"bbox_2d": [x1, y1, x2, y2], "label": "..."}]\n```  (or [] when there is no answer)',
    "uitars": "Thought: ...\nAction: finished(content='...', start_box='<|box_start|>(x1,y1),(x2,y2)<|box_end|>')",
    "agentcpm": '{"thought": "...", "answer": "...", "BOX": [[x1, y1, x2, y2]]}',
}
REPAIR = "Your reply could not be used: $error\nReply with exactly one answer in the required format only:\n$example"


def _prompt(name: str) -> str:
    return resources.files("harness.modelio.prompts").joinpath(name).read_text(encoding="utf-8")


class OpenAIQA:
    """`create_qa_agent("openai", model=..., base_url=..., api_key=..., output_format=...)`: the `openai`
    agent's options."""

    def __init__(self, **options: Any) -> None:
        self._agent = OpenAIAgent(**options)
        self.name = "openai"
        o = self._agent.options
        self._system = _prompt(PROMPTS[o.output_format])
        self._pixels = o.output_format in PIXEL_FORMATS and o.coordinate_space == "image_pixels"

    def answer(self, observation: Observation, question: str, lang: str) -> QAAnswer:
        o = self._agent.options
        img, mapping = prepare_image(observation.screenshot, observation.size, o.max_image_side, smart=self._pixels)
        url, _ = encode_image(img, o.image_format, o.jpeg_quality)
        listed = {e.index for e in observation.tree.prompt_elements()}
        w, h = mapping.image_size
        note = (
            f"absolute pixels of the {w}x{h} screenshot, x first"
            if self._pixels
            else "integers in [0, 1000] relative to the screenshot, x first"
        )
        system = string.Template(self._system).safe_substitute(image_width=w, image_height=h, coordinate_note=note)
        elements = observation.tree.to_prompt(max_len=o.max_elements_chars) if o.include_elements else ""
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": system},
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": f"Question: {question}\n\nElements:\n{elements or '(none)'}"},
                    {"type": "image_url", "image_url": {"url": url}},
                ],
            },
        ]
        ctx = ParseContext(
            mapping=mapping,
            coordinate_space=o.coordinate_space if o.output_format in PIXEL_FORMATS else "image_pixels",
            tree=observation.tree,
        )
        usage, raw, error = Usage(), "", ""
        meta: dict[str, Any] = {}
        for attempt in range(o.max_repairs + 1):
            response = self._agent.complete(messages, meta)
            u = response.get("usage", {})
            usage = usage + Usage(*(int(u.get(k) or 0) for k in ("prompt_tokens", "completion_tokens", "total_tokens")))
            raw = response.get("content") or ""
            try:
                reply = parse_qa(o.output_format, raw, ctx, listed)
            except (OutputParseError, ValueError) as exc:  # ValueError: a coordinate the helpers refuse
                error = str(exc).splitlines()[0][:300] if str(exc) else type(exc).__name__
                if attempt < o.max_repairs:
                    repair = string.Template(REPAIR).safe_substitute(error=error, example=EXAMPLES[o.output_format])
                    messages = messages + [
                        {"role": "assistant", "content": raw},
                        {"role": "user", "content": repair},
                    ]
                continue
            return QAAnswer(
                elements=reply.elements,
                text=reply.text,
                no_answer=reply.no_answer,
                raw_output=raw,
                usage=usage,
                regions=reply.regions,
                space=reply.space,
            )
        return QAAnswer(no_answer=True, raw_output=raw, usage=usage, error=f"unusable output: {error}")
