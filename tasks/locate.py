"""Reference steps on a live screen: a `tasks.schema.Locator` -> the index of the element it finds, and a
`ReferenceStep` -> the unified action it stands for on this screen.

A locator resolves to the `nth` matching VISIBLE element in reading order, matched with
`tasks.matching.element_matches` (the milestone rule). Used by the reference agent and by end-state probes.
"""

from __future__ import annotations

from typing import Any

from harness.actions import Action, parse_action
from harness.errors import ActionValidationError
from tasks.matching import Screen, element_matches
from tasks.schema import Locator, ReferenceStep
from tasks.schema_base import localized

LOCATABLE = ("CLICK", "LONG_PRESS", "TYPE", "SCROLL")
_LOCALIZED_FIELDS = ("text", "name", "answer", "reason")


class LocatorNotFound(ActionValidationError):
    """A locator finds no (or too few) matching visible elements on this screen."""


def _describe_locator(loc: Locator) -> str:
    fields = loc.model_dump(exclude_defaults=True)
    return ", ".join(f"{k}={v!r}" for k, v in fields.items()) or "(empty)"


def locate(loc: Locator, screen: Screen, lang: str, n: int = 0, alt: str | None = None) -> int:
    """Index of the `loc.nth` matching visible element in reading order; `LocatorNotFound` (an
    `ActionValidationError`) if none. With `alt` (another language the screen may speak: the device's system
    language under `locale=`), a locator that finds too few in `lang` is read in either."""
    size = screen.size
    match = loc.as_match()
    order = screen.tree.reading_order()
    hits = [e.index for e in order if element_matches(e, match, lang, size)]
    if len(hits) <= loc.nth and alt is not None:
        hits = [e.index for e in order if element_matches(e, match, lang, size, alt)]
    if len(hits) <= loc.nth:
        found = f"only {len(hits)} match(es)" if hits else "no visible element matches"
        raise LocatorNotFound(
            f"reference step {n}: locator {{{_describe_locator(loc)}}}: {found} on the "
            f"screen of {getattr(screen, 'package', '?')}"
        )
    return hits[loc.nth]


def resolve_step(step: ReferenceStep, screen: Screen, lang: str, n: int = 0, alt: str | None = None) -> Action:
    """The reference step as a unified action on this screen (locator -> element index; `alt`: `locate`'s)."""
    data: dict[str, Any] = {"type": step.type}
    for k, v in (step.model_extra or {}).items():
        data[k] = localized(v, lang) if isinstance(v, dict) and k in _LOCALIZED_FIELDS else v
    if step.locate is not None:
        if step.type not in LOCATABLE:
            raise ActionValidationError(
                f"reference step {n}: a {step.type} step cannot have 'locate' (only {', '.join(LOCATABLE)})"
            )
        data["element"] = locate(step.locate, screen, lang, n, alt)
        data.pop("point", None)
    try:
        return parse_action(data)
    except ActionValidationError as exc:
        raise ActionValidationError(f"reference step {n}: {exc}") from None
