"""`human`: a person answers a screen question at the terminal, the way ScreenQA's annotators did.

The screen's numbered element list is shown with the question; the person gives the answer elements' numbers in
rank order ("3 7" or "3,7"), or "none" when the screen does not answer, then a short answer (Enter keeps the
default: the elements' texts). A number that is not an element of this screen is refused and asked again. End
of input raises `AgentError` (the QA runners score it as "no answer" with the error). `harness.qa_agent.parse_answer`
is the one reading of an answer line (`droidharness qa collect` uses it too).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from harness.agent import AgentError
from harness.qa_agent import NO_ANSWER, QAAnswer, default_short, parse_answer

if TYPE_CHECKING:  # pragma: no cover - typing only
    from harness.observation import Observation


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
