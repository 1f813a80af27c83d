"""A Gymnasium `Text` space of any Unicode text (element lists in Chinese, actions typing emoji).

Gymnasium's `Text` holds strings over a fixed character set (alphanumerics by default) and stores them in a
vector environment's shared memory as indices into that set. `UnicodeText` holds any string up to `max_length`
characters; it samples from printable ASCII (a random policy's gibberish) and is stored in shared memory as code
points, so `gymnasium.vector.AsyncVectorEnv` works with its default `shared_memory=True` (Gymnasium reads a
shared `Text` buffer once, when the vector env is made; `SharedTexts` reads it live, and a copy of it - what the
vector env returns by default - is a tuple of the strings at that moment).
"""

from __future__ import annotations

import multiprocessing as mp
import string
from collections.abc import Iterator, Sequence
from types import ModuleType
from typing import Any

import numpy as np
from gymnasium.spaces import Text
from gymnasium.vector.utils import create_shared_memory, read_from_shared_memory, write_to_shared_memory

SAMPLE_CHARSET = string.digits + string.ascii_letters + string.punctuation + " "


class UnicodeText(Text):
    """Any `str` of `min_length`..`max_length` characters (see the module docstring)."""

    def __init__(self, max_length: int, *, min_length: int = 0, seed: int | np.random.Generator | None = None):
        super().__init__(max_length, min_length=min_length, charset=SAMPLE_CHARSET, seed=seed)

    def contains(self, x: Any) -> bool:
        return isinstance(x, str) and self.min_length <= len(x) <= self.max_length

    def __repr__(self) -> str:
        return f"UnicodeText({self.min_length}, {self.max_length})"

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, UnicodeText)
            and self.min_length == other.min_length
            and self.max_length == other.max_length
        )

    def __hash__(self) -> int:
        return hash(("UnicodeText", self.min_length, self.max_length))


class SharedTexts(Sequence[str]):
    """The strings of a vector env's shared buffer (one row per sub-env), decoded when read."""

    def __init__(self, data: np.ndarray) -> None:
        self._data = data

    def __len__(self) -> int:
        return int(self._data.shape[0])

    def __getitem__(self, i: int | slice) -> Any:
        if isinstance(i, slice):
            return tuple(self[j] for j in range(*i.indices(len(self))))
        row = self._data[i]
        return "".join(chr(int(v) - 1) for v in row[row > 0])

    def __iter__(self) -> Iterator[str]:
        return (self[i] for i in range(len(self)))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and tuple(self) == tuple(other)

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __deepcopy__(self, memo: dict[int, Any]) -> tuple[str, ...]:
        return tuple(self)

    def __repr__(self) -> str:
        return repr(tuple(self))


# shared memory: code point + 1 per character, 0 pads (a NUL character does not survive; no screen text has one)
@create_shared_memory.register(UnicodeText)
def _create(space: UnicodeText, n: int = 1, ctx: ModuleType = mp) -> Any:
    return ctx.Array(np.dtype(np.int32).char, n * space.max_length)


@read_from_shared_memory.register(UnicodeText)
def _read(space: UnicodeText, shared_memory: Any, n: int = 1) -> SharedTexts:
    return SharedTexts(np.frombuffer(shared_memory.get_obj(), dtype=np.int32).reshape((n, space.max_length)))


@write_to_shared_memory.register(UnicodeText)
def _write(space: UnicodeText, index: int, values: str, shared_memory: Any) -> None:
    size = space.max_length
    dest = np.frombuffer(shared_memory.get_obj(), dtype=np.int32)
    row = np.zeros(size, dtype=np.int32)
    codes = np.fromiter((ord(c) + 1 for c in values[:size]), dtype=np.int32, count=min(len(values), size))
    row[: len(codes)] = codes
    np.copyto(dest[index * size : (index + 1) * size], row)


__all__ = ["SAMPLE_CHARSET", "SharedTexts", "UnicodeText"]
