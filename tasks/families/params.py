"""Typed parameters of a task family (`tasks.families.base.Family`): each draws one value from a seeded
`random.Random`, so the same seed gives the same values on every machine and Python version (only
`randrange`, `choice`-by-index and `sample` over fixed lists are used).

    TimeParam(minutes=(0, 5, ..., 55))   -> TimeOfDay(hour=6, minute=15)       "6:15 AM" / "上午6:15"
    DurationParam(max_hours=1)           -> Duration(hours=1, minutes=25, seconds=0)
    NameParam()                          -> Name(en="Maya Chen", zh="林晓")
    PhoneParam()                         -> Phone(en="+1 415-555-0142", zh="+86 139 1234 5678")
    TextParam(TEXTS)                     -> Text(en="Running late", zh="我要迟到了")
    ChoiceParam(("london", "beijing"))   -> "london"
    CountParam(1, 3)                     -> 2
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

T = TypeVar("T", covariant=True)
C = TypeVar("C")


class Param(Protocol[T]):
    """One typed parameter: `kind` names its type (time, duration, name, phone, text, choice, count)."""

    @property
    def kind(self) -> str: ...

    def draw(self, rng: random.Random) -> T: ...


def pick(rng: random.Random, options: tuple[C, ...] | list[C]) -> C:
    """One of `options`, by index (stable across Python versions)."""
    return options[rng.randrange(len(options))]


@dataclass(frozen=True)
class TimeOfDay:
    hour: int  # 0-23
    minute: int

    @property
    def h12(self) -> int:
        return self.hour % 12 or 12

    @property
    def pm(self) -> bool:
        return self.hour >= 12

    def en(self) -> str:
        return f"{self.h12}:{self.minute:02d} {'PM' if self.pm else 'AM'}"

    def zh(self) -> str:
        return f"{'下午' if self.pm else '上午'}{self.h12}:{self.minute:02d}"


@dataclass(frozen=True)
class TimeParam:
    """A time of day: hours in `hours`, minutes in `minutes`, never one of `avoid` ((hour, minute) pairs)."""

    hours: tuple[int, ...] = tuple(range(24))
    minutes: tuple[int, ...] = tuple(range(0, 60, 5))
    avoid: tuple[tuple[int, int], ...] = ()
    kind: str = "time"

    def draw(self, rng: random.Random) -> TimeOfDay:
        while True:
            t = TimeOfDay(pick(rng, self.hours), pick(rng, self.minutes))
            if (t.hour, t.minute) not in self.avoid:
                return t


@dataclass(frozen=True)
class Duration:
    hours: int
    minutes: int
    seconds: int

    def parts(self) -> list[tuple[int, str, str]]:
        """(value, en unit, zh unit) of the non-zero parts."""
        out = [(self.hours, "hour", "小时"), (self.minutes, "minute", "分钟"), (self.seconds, "second", "秒")]
        return [p for p in out if p[0]]

    def en(self) -> str:
        words = [f"{v} {u}{'s' if v != 1 else ''}" for v, u, _ in self.parts()]
        return " and ".join([", ".join(words[:-1]), words[-1]]) if len(words) > 1 else words[0]

    def zh(self) -> str:
        return "".join(f"{v}{u}" for v, _, u in self.parts())


@dataclass(frozen=True)
class DurationParam:
    """A duration of 0..`max_hours` hours, 1..59 minutes and a number of seconds from `seconds`."""

    max_hours: int = 1
    seconds: tuple[int, ...] = (0, 30)
    kind: str = "duration"

    def draw(self, rng: random.Random) -> Duration:
        return Duration(rng.randrange(self.max_hours + 1), 1 + rng.randrange(59), pick(rng, self.seconds))


@dataclass(frozen=True)
class Name:
    en: str
    zh: str

    @property
    def first(self) -> str:
        return self.en.split()[0]


FIRST = ("Maya", "Oscar", "Priya", "Tomas", "Yuki", "Nadia", "Felix", "Ingrid", "Rafael", "Zoe", "Hugo", "Leila")
LAST = ("Okafor", "Lindqvist", "Moreau", "Tanaka", "Kowalski", "Haddad", "Novak", "Ferreira", "Sato", "Brennan")
ZH_SURNAME = ("林", "陈", "吴", "何", "罗", "宋", "唐", "韩", "冯", "曹")
ZH_GIVEN = ("晓", "雨桐", "子涵", "浩然", "欣怡", "思远", "嘉怡", "宇航", "梦琪", "俊杰", "若曦", "天佑")


@dataclass(frozen=True)
class NameParam:
    """A person's name in each language (English first + last name; a Chinese surname + given name): none of the
    virtual device's seeded contacts' first names, so a search for the first name finds only this person."""

    kind: str = "name"

    def draw(self, rng: random.Random) -> Name:
        return Name(f"{pick(rng, FIRST)} {pick(rng, LAST)}", pick(rng, ZH_SURNAME) + pick(rng, ZH_GIVEN))


@dataclass(frozen=True)
class Phone:
    en: str  # "+1 415-555-0142"
    zh: str  # "+86 139 1234 5678"

    @property
    def en_digits(self) -> str:
        return "".join(ch for ch in self.en if ch.isdigit())[-10:]

    @property
    def zh_digits(self) -> str:
        return "".join(ch for ch in self.zh if ch.isdigit())[-11:]


@dataclass(frozen=True)
class PhoneParam:
    """A phone number as written in each language: a US 415-555-01NN number (the fictional range) and a
    Chinese mobile number."""

    kind: str = "phone"

    def draw(self, rng: random.Random) -> Phone:
        n = 120 + rng.randrange(80)
        a, b = 1000 + rng.randrange(9000), 1000 + rng.randrange(9000)
        return Phone(f"+1 415-555-0{n}", f"+86 139 {a} {b}")


@dataclass(frozen=True)
class Text:
    en: str
    zh: str

    def loc(self) -> dict[str, str]:
        return {"en": self.en, "zh": self.zh}


@dataclass(frozen=True)
class TextParam:
    """A text from a fixed list of (en, zh) pairs."""

    texts: tuple[tuple[str, str], ...]
    kind: str = "text"

    def draw(self, rng: random.Random) -> Text:
        return Text(*pick(rng, self.texts))


@dataclass(frozen=True)
class ChoiceParam(Generic[C]):
    """One of `options`."""

    options: tuple[C, ...]
    kind: str = "choice"

    def draw(self, rng: random.Random) -> C:
        return pick(rng, self.options)


@dataclass(frozen=True)
class CountParam:
    """A whole number in [low, high]."""

    low: int
    high: int
    kind: str = "count"

    def draw(self, rng: random.Random) -> int:
        return self.low + rng.randrange(self.high - self.low + 1)


def describe(value: Any) -> str:
    """A parameter value in one short line (for tags and listings)."""
    if isinstance(value, TimeOfDay):
        return value.en()
    if isinstance(value, Duration):
        return f"{value.hours}h{value.minutes:02d}m{value.seconds:02d}s"
    if isinstance(value, (Name, Phone, Text)):
        return value.en
    if isinstance(value, (tuple, list)):
        return "+".join(describe(v) for v in value)
    return str(value)
