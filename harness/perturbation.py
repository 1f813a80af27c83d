"""Perturbations: the same tasks under other screen conditions and interruptions, scored side by side (issue 40;
docs/robustness.md).

What a run asks (`droidharness run --perturb dark,font=1.3,notification --perturb-seed 7`, `SuiteOptions.perturb`,
the Gymnasium env's `perturb=`) is a `PerturbPlan`: typed `Perturbation`s and the seed of the interruptions. What an
episode did with each is a `PerturbationRecord` (episode.json `perturbations`): applied or not, and why not (the task
checks what it changes, or the device refused).

- screen conditions, put on the device at the episode's start by Android's own means: `dark` (night mode),
  `font=SCALE`, `size=WxH`, `density=DPI`, `landscape`, `locale=TAG` (a system language other than the
  instruction's), `animations` (left on where device preparation turns them off);
- interruptions, at a step drawn from the plan's seed and the episode's: `notification` (a heads-up notification),
  `dialog` (a system dialog: `dialog=anr|battery|permission`, or one drawn from the seeds), `popup` (an in-app
  rating prompt or promo: `popup=rate|promo`, or one drawn; embedded devices only).

`parse_perturbations` turns the option's text into records; bad input is a `ConfigError` of one line naming the
option and the item.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from harness.errors import ConfigError

OPTION = "--perturb"
CONDITIONS = ("dark", "font", "size", "density", "landscape", "locale", "animations")
INTERRUPTIONS = ("notification", "dialog", "popup")
PLANNED: tuple[str, ...] = ()  # known names, not available yet (none now)
NAMES = (*CONDITIONS, *INTERRUPTIONS, *PLANNED)
# the interruptions that take a value or none (then one is drawn from the seeds): their kinds
KINDS: dict[str, tuple[str, ...]] = {"dialog": ("anr", "battery", "permission"), "popup": ("rate", "promo")}
VALUES = {  # the perturbations that take a value, and what the value is
    "font": "a font scale, e.g. font=1.3",
    "size": "a display size WIDTHxHEIGHT in pixels, e.g. size=1080x1920",
    "density": "a display density in dpi, e.g. density=320",
    "locale": "a language tag, e.g. locale=zh-CN",
}
_SCALE = re.compile(r"\d+(\.\d+)?")
_SIZE = re.compile(r"([1-9]\d{1,4})x([1-9]\d{1,4})")
_DPI = re.compile(r"[1-9]\d{1,3}")
_TAG = re.compile(r"[A-Za-z]{2,3}(-[A-Za-z]{4})?(-([A-Za-z]{2}|\d{3}))?")


@dataclass(frozen=True)
class Perturbation:
    """One perturbation a run asks for: its name (one of NAMES) and, for those in VALUES, its value."""

    name: str
    value: str | None = None

    @property
    def label(self) -> str:
        """As the option writes it: `dark`, `font=1.3`."""
        return self.name if self.value is None else f"{self.name}={self.value}"

    @property
    def interruption(self) -> bool:
        """Happens at a step (an interruption) rather than for the whole episode (a screen condition)."""
        return self.name in INTERRUPTIONS

    def __str__(self) -> str:
        return self.label


@dataclass(frozen=True)
class PerturbationRecord:
    """What an episode did with one perturbation (episode.json `perturbations[i]`): `step` is the step whose screen
    an interruption came before (None for a condition, put on at the start); `applied` False says why in `reason`
    (the task checks what it changes, the device refused it, the episode ended first)."""

    name: str
    value: str | None = None
    step: int | None = None
    applied: bool = False
    reason: str = ""

    @property
    def label(self) -> str:
        return Perturbation(self.name, self.value).label

    def counts_for(self, label: str) -> bool:
        """Is this the record of the run's perturbation `label`? Its own label, or, for a dialog or popup asked
        without a kind (`dialog`), the kind the episode drew (`dialog=anr`)."""
        return label == self.label or (label == self.name and self.name in KINDS)

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, data: Any) -> PerturbationRecord:
        """A stored record; ValueError when it is not one."""
        if not isinstance(data, dict) or not isinstance(data.get("name"), str):
            raise ValueError(f"a perturbation record needs a name, got {data!r:.80}")
        step, value = data.get("step"), data.get("value")
        return cls(
            data["name"],
            None if value is None else str(value),
            step if isinstance(step, int) and not isinstance(step, bool) else None,
            bool(data.get("applied")),
            str(data.get("reason") or ""),
        )


@dataclass(frozen=True)
class PerturbPlan:
    """What a run asks: the perturbations, each episode under all of them, and the seed the interruptions' steps
    are drawn with (with each episode's own seed)."""

    perturbations: tuple[Perturbation, ...] = ()
    seed: int = 0

    def __bool__(self) -> bool:
        return bool(self.perturbations)

    @property
    def labels(self) -> list[str]:
        return [p.label for p in self.perturbations]

    def get(self, name: str) -> Perturbation | None:
        return next((p for p in self.perturbations if p.name == name), None)

    def to_json(self) -> dict[str, Any]:
        """manifest.json `perturb`."""
        return {"perturbations": self.labels, "seed": self.seed}

    @classmethod
    def parse(cls, spec: str | Sequence[str] | None, seed: int = 0) -> PerturbPlan:
        return cls(parse_perturbations(spec or ()), seed)


def _bad(item: str, why: str) -> ConfigError:
    return ConfigError(f"{OPTION} {item}: {why}")


def parse_one(item: str) -> Perturbation:
    """One item of the option (`dark`, `font=1.3`); a `ConfigError` naming the option and the item when it is no
    perturbation, one not available yet, or a bad value."""
    text = item.strip()
    name, sep, value = text.partition("=")
    name, value = name.strip().lower(), value.strip()
    if name not in NAMES:
        raise _bad(text, f"unknown perturbation {name!r}; known: {', '.join(n for n in NAMES if n not in PLANNED)}")
    if name in PLANNED:
        raise _bad(text, f"{name} is not available yet")
    if name in KINDS:
        if sep and value not in KINDS[name]:
            raise _bad(text, f"{value!r} is not one of {'|'.join(KINDS[name])} (or none: one is drawn)")
        return Perturbation(name, value or None)
    if name not in VALUES:
        if sep:
            raise _bad(text, f"{name} takes no value")
        return Perturbation(name)
    if not value:
        raise _bad(text, f"{name} needs {VALUES[name]}")
    if name == "font":
        if not _SCALE.fullmatch(value) or not 0 < float(value) <= 4:
            raise _bad(text, f"{value!r} is not {VALUES[name]} (above 0, at most 4)")
    elif name == "size":
        if _SIZE.fullmatch(value) is None:
            raise _bad(text, f"{value!r} is not {VALUES[name]}")
    elif name == "density":
        if not _DPI.fullmatch(value):
            raise _bad(text, f"{value!r} is not {VALUES[name]}")
    elif not _TAG.fullmatch(value):
        raise _bad(text, f"{value!r} is not {VALUES[name]}")
    return Perturbation(name, value)


def parse_perturbations(spec: str | Sequence[str]) -> tuple[Perturbation, ...]:
    """The option's text (comma-separated; repeated options add up) as perturbations, in the order given; a name
    given twice is a `ConfigError`."""
    items = [spec] if isinstance(spec, str) else list(spec)
    out: list[Perturbation] = []
    for chunk in items:
        for item in chunk.split(","):
            if not item.strip():
                continue
            p = parse_one(item)
            if any(q.name == p.name for q in out):
                raise _bad(item.strip(), f"{p.name} is given twice")
            out.append(p)
    return tuple(out)


def locale_language(tag: str) -> str:
    """The language of a language tag, lower case: `zh-CN` -> `zh`."""
    return tag.replace("_", "-").split("-")[0].lower()


def system_language(records: Sequence[PerturbationRecord]) -> str | None:
    """The device's system language when an applied `locale=` put it on (None: the episode's own)."""
    for r in records:
        if r.name == "locale" and r.applied and r.value:
            return locale_language(r.value)
    return None


__all__ = [
    "CONDITIONS",
    "INTERRUPTIONS",
    "KINDS",
    "NAMES",
    "PLANNED",
    "Perturbation",
    "PerturbationRecord",
    "PerturbPlan",
    "locale_language",
    "parse_one",
    "parse_perturbations",
    "system_language",
]
