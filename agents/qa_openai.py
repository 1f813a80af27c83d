"""`openai` in QA mode: screen question answering with any OpenAI-compatible VLM endpoint.

The request: the system prompt `agents/prompts/system_qa.md`, then the question, the numbered element list
(`UITree.to_prompt`) and the screenshot (resized, as the acting agent sends it). The reply must be one JSON object
`{"elements": [index, ...], "answer": str | null, "no_answer": bool}`; an element index must be one of the
listed ones. Malformed output gets up to `max_repairs` repair turns quoting the error; after that the answer is
counted as "no answer" with the error recorded (`QAAnswer.error`), never a crash. Endpoint failures after the
retries are `EndpointError`s (infrastructure), as for the acting agent; the key is never recorded.
"""

from __future__ import annotations

import json
import string
from importlib import resources
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from agents.base import Usage
from agents.imaging import encode_image, prepare_image
from agents.openai_agent import OpenAIAgent
from agents.qa import QAAnswer
from harness.observation import Observation

REPAIR = (
    "Your reply could not be used: $error\n"
    'Reply with one JSON object only: {"elements": [index, ...], "answer": "...", "no_answer": false}.'
)


class _Reply(BaseModel):
    model_config = ConfigDict(extra="forbid")
    elements: list[int] = []
    answer: str | None = None
    no_answer: bool = False


def _prompt() -> str:
    return resources.files("agents.prompts").joinpath("system_qa.md").read_text(encoding="utf-8")


class OpenAIQA:
    """`create_qa_agent("openai", model=..., base_url=..., api_key=...)`: the `openai` agent's options."""

    def __init__(self, **options: Any) -> None:
        self._agent = OpenAIAgent(**options)
        self.name = "openai"
        self._system = _prompt()

    def answer(self, observation: Observation, question: str, lang: str) -> QAAnswer:
        o = self._agent.options
        img, _ = prepare_image(observation.screenshot, observation.size, o.max_image_side)
        url, _ = encode_image(img, o.image_format, o.jpeg_quality)
        listed = {e.index for e in observation.tree.prompt_elements()}
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": self._system},
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": f"Question: {question}\n\nElements:\n{observation.tree.to_prompt()}"},
                    {"type": "image_url", "image_url": {"url": url}},
                ],
            },
        ]
        usage, raw, error = Usage(), "", ""
        meta: dict[str, Any] = {}
        for attempt in range(o.max_repairs + 1):
            response = self._agent.complete(messages, meta)
            u = response.get("usage", {})
            usage = usage + Usage(*(int(u.get(k) or 0) for k in ("prompt_tokens", "completion_tokens", "total_tokens")))
            raw = response.get("content") or ""
            try:
                reply = _Reply.model_validate(json.loads(_strip_fence(raw)))
                unknown = [i for i in reply.elements if i not in listed]
                if unknown:
                    raise ValueError(f"element(s) {unknown} are not among the listed elements")
            except (ValueError, ValidationError) as exc:  # JSONDecodeError is a ValueError
                error = f"{type(exc).__name__}: {exc}".splitlines()[0][:300]
                if attempt < o.max_repairs:
                    messages = messages + [
                        {"role": "assistant", "content": raw},
                        {"role": "user", "content": string.Template(REPAIR).safe_substitute(error=error)},
                    ]
                continue
            no_answer = reply.no_answer or not (reply.elements or reply.answer)
            return QAAnswer(
                elements=() if no_answer else tuple(reply.elements),
                text=None if no_answer else reply.answer,
                no_answer=no_answer,
                raw_output=raw,
                usage=usage,
            )
        return QAAnswer(no_answer=True, raw_output=raw, usage=usage, error=f"unusable output: {error}")


def _strip_fence(text: str) -> str:
    """The JSON inside a ```json fence, if the model wrapped it in one."""
    t = text.strip()
    if t.startswith("```"):
        t = t.split("\n", 1)[1] if "\n" in t else ""
        t = t.rsplit("```", 1)[0]
    return t.strip()
