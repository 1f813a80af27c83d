"""The text the `openai` agent sends: the prompt templates of `harness/modelio/prompts/` and how they are filled in.

One place renders the system message of an output format and the user message of a step (instruction, the
compact history, the numbered element list, the screenshot's size), so that the live agent and everything that
must reproduce its requests byte for byte (the SFT export, `harness.export.sft`) write the same text.
"""

from __future__ import annotations

import string
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from harness.actions import Action, describe
from harness.agent import describe_result
from harness.errors import ConfigError

SYSTEM_PROMPTS = {
    "json": "system_json.md",
    "agentcpm": "system_agentcpm.md",
    "uitars": "system_uitars.md",
    "qwen": "system_qwen.md",
}
LANGUAGE_NAMES = {"zh": "Chinese"}  # the thought's language named in the uitars prompt (else English)


def load_prompt(name: str) -> str:
    """A bundled prompt file of `harness/modelio/prompts/`."""
    return (resources.files("harness.modelio") / "prompts" / name).read_text(encoding="utf-8")


@dataclass(frozen=True)
class PromptSet:
    """The templates of one output format: the system prompt (bundled, or a file replacing it), the user step,
    the element-list block and the repair message."""

    system: str
    user: str
    elements_block: str
    repair: str

    @classmethod
    def load(cls, output_format: str, system_prompt: str | None = None) -> PromptSet:
        """The bundled templates of `output_format`; `system_prompt` names a file replacing its system prompt."""
        if system_prompt:
            try:
                system = Path(system_prompt).read_text(encoding="utf-8")
            except OSError as exc:
                raise ConfigError(f"openai agent: system_prompt {system_prompt}: {exc.strerror}") from None
        else:
            system = load_prompt(SYSTEM_PROMPTS[output_format])
        return cls(system, load_prompt("user_step.md"), load_prompt("elements_block.md"), load_prompt("repair.md"))

    def render_system(self, image_size: tuple[int, int], coordinate_space: str, language: str) -> str:
        """The system message for a screenshot of `image_size` (the frame pixel coordinates refer to)."""
        note = (
            "integers in [0, 1000] relative to the screenshot, x first."
            if coordinate_space == "relative_1000"
            else f"absolute pixels of the {image_size[0]}x{image_size[1]} screenshot, x first."
        )
        return string.Template(self.system).safe_substitute(
            image_width=image_size[0], image_height=image_size[1], language=language, coordinate_note=note
        )

    def render_user(
        self,
        *,
        instruction: str,
        history: Sequence[str],
        max_history: int,
        package: str,
        elements: str | None,
        image_size: tuple[int, int],
    ) -> str:
        """The user message of a step: `history` holds one `history_line` per earlier step (oldest first), of
        which the last `max_history` are shown; `elements` is the numbered element list (None: not sent)."""
        shown = list(history[-max_history:]) if max_history else []
        lines = list(shown)
        if len(history) > len(shown):
            lines.insert(0, f"({len(history) - len(shown)} earlier actions not shown)")
        block = ""
        if elements is not None:
            block = string.Template(self.elements_block).safe_substitute(elements=elements or "(none)")
        return string.Template(self.user).safe_substitute(
            instruction=instruction,
            history="\n".join(lines) or "(none yet)",
            history_count=len(shown),
            package=package or "(unknown)",
            elements_block=block,
            image_width=image_size[0],
            image_height=image_size[1],
        )


def language_name(lang: str | None, override: str | None = None) -> str:
    """The language the uitars prompt asks the thought in: `override`, else the episode's language's name."""
    return override or LANGUAGE_NAMES.get(lang or "en", "English")


def history_line(step: int, action: Action | None, error: str | None, result: Any = None) -> str:
    """One earlier step as the history shows it: "Step 3: click element [4] -> ok" (`result` is read duck-typed:
    an `ActionResult`, or a recorded step's result)."""
    if action is None:
        text = f"Step {step}: no valid action ({(error or 'invalid output')[:120]})"
    else:
        text = f"Step {step}: {describe(action)}"
    shown = describe_result(result)
    return f"{text} -> {shown[:160]}" if shown else text


__all__ = ["PromptSet", "SYSTEM_PROMPTS", "load_prompt", "language_name", "history_line"]
