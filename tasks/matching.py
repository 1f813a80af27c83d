"""The task schema's element matches on a live screen: one reading of `ElementMatch` for every checker.

Milestones, end states, locators (`tasks.locate`) and the recorder all match elements through `element_matches`
(rule 2 of `harness.run.judge.milestones`' hit rule): text / desc after trimming and collapsing whitespace,
case-insensitively unless `case_sensitive`, by equals / contains / regex; resource id, class, package, states and
a normalized box.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Protocol

from harness.coords import iou
from harness.hierarchy import UITree
from tasks.schema import ElementMatch
from tasks.schema_base import Localized, localized


class Screen(Protocol):
    """What a check looks at (an `harness.observation.Observation` satisfies it)."""

    @property
    def tree(self) -> UITree: ...

    @property
    def package(self) -> str: ...

    @property
    def activity(self) -> str: ...

    @property
    def size(self) -> tuple[int, int]: ...


@lru_cache(maxsize=8192)  # a screen's texts and a task's expected ones, compared again on every step (docs/caches.md)
def _norm(s: str, case_sensitive: bool) -> str:
    s = " ".join(s.split())
    return s if case_sensitive else s.casefold()


@lru_cache(maxsize=1024)
def _regex(pattern: str, case_sensitive: bool) -> re.Pattern[str]:
    return re.compile(pattern, 0 if case_sensitive else re.IGNORECASE)


def text_matches(value: str, expected: str, how: str, case_sensitive: bool) -> bool:
    if how == "regex":  # on the whitespace-normalized text; case via the regex flag
        return _regex(expected, case_sensitive).search(" ".join(value.split())) is not None
    v, e = _norm(value, case_sensitive), _norm(expected, case_sensitive)
    return v == e if how == "equals" else e in v


def localized_matches(value: str, expected: Localized | None, m: ElementMatch, lang: str, alt: str | None) -> bool:
    """Does `value` match the localized `expected` text in `lang` - or, with `alt`, in that language?"""
    want = localized(expected, lang)
    if want is None or text_matches(value, want, m.match, m.case_sensitive):
        return True
    if alt is None or alt == lang or not isinstance(expected, dict):
        return False
    other = localized(expected, alt)
    return other is not None and other != want and text_matches(value, other, m.match, m.case_sensitive)


def element_matches(el: Any, m: ElementMatch, lang: str, size: tuple[int, int], alt: str | None = None) -> bool:
    """Does one UIElement satisfy one ElementMatch (rule 2 above)? A localized text or desc is read in `lang`, or
    also in `alt`: the device's system language when it is not the episode's (the `locale=` perturbation: the
    UI's labels are in that language while the task speaks the episode's)."""
    # every given field must hold: the plain comparisons first (most elements fail one), the texts after
    if m.package is not None and el.package != m.package:
        return False
    if m.resource_id is not None:
        rid = el.resource_id or ""
        if rid != m.resource_id and (":" in m.resource_id or rid.split(":id/")[-1] != m.resource_id):
            return False
    if m.class_name is not None and m.class_name not in (el.class_name, el.class_name.rsplit(".", 1)[-1]):
        return False
    if m.text is not None and not localized_matches(el.text or "", m.text, m, lang, alt):
        return False
    if m.desc is not None and not localized_matches(el.content_desc or "", m.desc, m, lang, alt):
        return False
    if any(not getattr(el, s) for s in m.states) or any(getattr(el, s) for s in m.not_states):
        return False
    if m.bbox is not None:
        w, h = size
        l, t, r, b = el.bounds
        box = (l / w, t / h, r / w, b / h)
        if m.bbox_rule == "center":
            cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
            x1, y1, x2, y2 = m.bbox
            if not (x1 <= cx <= x2 and y1 <= cy <= y2):
                return False
        elif iou(box, m.bbox) < m.iou:
            return False
    return True


def visible_elements(screen: Screen) -> list[Any]:
    """The elements with a positive area on the screen (and not hidden from the user), in tree order."""
    w, h = screen.size
    out = []
    for el in screen.tree:
        l, t, r, b = el.bounds
        if r > l and b > t and r > 0 and b > 0 and l < w and t < h and getattr(el, "visible_to_user", True):
            out.append(el)
    return out
