"""The screen question-answering contract (ScreenQA on live screens): what a QA agent gets and returns.

A QA agent sees one `Observation` and a question, and answers the way ScreenQA's annotators do: the UI elements
that hold the answer, ranked best first (element indices of the observation's tree), plus a short answer; or
"no answer" when the screen does not hold one. QA agents are found by name like the agents
(`agents.registry.create_qa_agent`, entry-point group `droidharness.qa_agents`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from agents.base import Usage

if TYPE_CHECKING:  # pragma: no cover - typing only
    from harness.hierarchy import UIElement
    from harness.observation import Observation


@dataclass(frozen=True)
class QAAnswer:
    """A ranked answer. `elements` empty and `no_answer` true: the screen does not answer the question."""

    elements: tuple[int, ...] = ()  # indices into the observation's tree, best first
    text: str | None = None  # the short answer
    no_answer: bool = False
    raw_output: str = ""  # a model's raw reply ("" for non-model agents)
    usage: Usage = Usage()
    error: str | None = None  # why the answer could not be used (malformed output, unknown element), if so


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
