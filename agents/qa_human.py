"""`human`: a person answers a screen question at the terminal, the way ScreenQA's annotators did.

The screen's numbered element list is shown with the question; the person gives the answer elements' numbers in
rank order ("3 7" or "3,7"), or "none" when the screen does not answer, then a short answer (Enter keeps the
default: the elements' texts). A number that is not an element of this screen is refused and asked again. End
of input raises `AgentError` (the QA runners score it as "no answer" with the error). `parse_answer` is the
one reading of an answer line (`droidharness qa collect` uses it too).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from agents.base import AgentError
from agents.qa_base import QAAnswer
from agents.qa_formats import NO_ANSWER

if TYPE_CHECKING:  # pragma: no cover - typing only
    from harness.observation import Observation

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


class HumanQA:
    def __init__(self, input_fn: Callable[[str], str] | None = None, console: Any = None) -> None:
        from rich.console import Console

        self.name = "human"
        self._input = input_fn
        self.console = console or Console()

    def _read(self, prompt: str) -> str:
        try:
            return self._input(prompt) if self._input is not None else self.console.input(prompt)
        except EOFError:
            raise AgentError("human QA agent: input closed (end of file) while waiting for an answer") from None

    def answer(self, observation: Observation, question: str, lang: str) -> QAAnswer:
        from rich.panel import Panel

        tree = observation.tree
        self.console.print(Panel(tree.to_prompt() or "(no elements)", title=observation.package or ""), markup=False)
        self.console.print(f"Q: {question}", markup=False, highlight=False)
        while True:
            indices = parse_answer(self._read("answer elements (numbers in rank order, or none): "), len(tree))
            if indices is not None:
                break
            self.console.print(f"give element numbers of this screen (0..{len(tree) - 1}) or none", markup=False)
        default = default_short(observation, indices)
        short = self._read(f"short answer [{default}]: ").strip() or default
        if not indices and short == NO_ANSWER:
            return QAAnswer(no_answer=True)
        return QAAnswer(elements=tuple(indices), text=None if short == NO_ANSWER else short)
