"""What a run cost: tokens times a price (USD per million input / output tokens), per step, episode and run.

A price comes from `--price IN/OUT` ("2.5/10": $2.50 per million prompt tokens, $10 per million completion
tokens) or from a price table file, a JSON object by model name:

    {"gpt-4o": "2.5/10", "UI-TARS-1.5-7B": {"input": 0.2, "output": 0.2}, "default": "0/0"}

(`default`, when present, prices a model the table does not name). The price a run used is recorded in its
manifest (`config.price`), so summary.json, the report and `droidharness compare` price its tokens the same way;
the live view prices the tokens of the episodes finished so far. Every cost is `Price.cost(prompt, completion)`.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.errors import ConfigError
from harness.trajectory.result import EpisodeResult

PER = 1_000_000  # prices are per million tokens
_PAIR = re.compile(r"\s*(\d+(?:\.\d*)?|\.\d+)\s*/\s*(\d+(?:\.\d*)?|\.\d+)\s*")
DEFAULT_ENTRY = "default"


@dataclass(frozen=True)
class Price:
    """USD per million input (prompt) and output (completion) tokens, and where it came from."""

    input: float
    output: float
    source: str = ""  # "--price 2.5/10", "prices.json: gpt-4o"

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        return (prompt_tokens * self.input + completion_tokens * self.output) / PER

    def to_json(self) -> dict[str, Any]:
        return {"input_per_million": self.input, "output_per_million": self.output, "source": self.source}

    @classmethod
    def from_json(cls, data: object) -> Price | None:
        """The price a manifest recorded (`config.price`); None when the run had none (or it is unreadable)."""
        if not isinstance(data, Mapping):
            return None
        try:
            return cls(float(data["input_per_million"]), float(data["output_per_million"]), str(data.get("source", "")))
        except (KeyError, TypeError, ValueError):
            return None

    def __str__(self) -> str:
        return f"${self.input:g} / ${self.output:g} per million input / output tokens"


def parse_price(text: str, source: str | None = None) -> Price:
    """ "IN/OUT" (USD per million input / output tokens) -> Price; anything else is a ConfigError."""
    m = _PAIR.fullmatch(text)
    if m is None:
        raise ConfigError(f"--price {text!r}: expected IN/OUT in USD per million input/output tokens, e.g. 2.5/10")
    p = Price(float(m.group(1)), float(m.group(2)), source or f"--price {text.strip()}")
    if not (math.isfinite(p.input) and math.isfinite(p.output)):
        raise ConfigError(f"--price {text!r}: prices must be finite numbers")
    return p


def _entry(path: Path, model: str, value: object) -> Price:
    where = f"{path}: {model}"
    if isinstance(value, str):
        m = _PAIR.fullmatch(value)
        if m is None:
            raise ConfigError(f"{where}: {value!r} is not IN/OUT (USD per million input/output tokens)")
        return Price(float(m.group(1)), float(m.group(2)), where)
    if isinstance(value, Mapping):
        try:
            p = Price(float(value["input"]), float(value["output"]), where)
        except (KeyError, TypeError, ValueError):
            raise ConfigError(f'{where}: expected {{"input": USD, "output": USD}} per million tokens') from None
        if p.input < 0 or p.output < 0 or not (math.isfinite(p.input) and math.isfinite(p.output)):
            raise ConfigError(f"{where}: prices must be finite, not negative")
        return p
    raise ConfigError(f'{where}: expected "IN/OUT" or {{"input": USD, "output": USD}}')


def load_price_table(path: str | Path) -> dict[str, Price]:
    """A price table file (module docstring) -> model name -> Price."""
    p = Path(path)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except OSError as e:
        raise ConfigError(f"{p}: cannot read the price table: {e.strerror or e}") from None
    except (ValueError, UnicodeDecodeError) as e:
        raise ConfigError(f"{p}: the price table is not valid JSON: {e}") from None
    if not isinstance(data, dict) or not data:
        raise ConfigError(f"{p}: the price table must be a JSON object of model name -> price")
    return {str(k): _entry(p, str(k), v) for k, v in data.items()}


def resolve_price(spec: str, model: str | None) -> Price:
    """`--price` as given: "IN/OUT", or a price table file looked up by `model` (its `default` entry when the
    table does not name the model). A table without the model and without `default` is a ConfigError."""
    if _PAIR.fullmatch(spec):
        return parse_price(spec)
    path = Path(spec)
    if not path.is_file():
        raise ConfigError(f"--price {spec!r}: neither IN/OUT (e.g. 2.5/10) nor a price table file")
    table = load_price_table(path)
    if model is not None and model in table:
        return table[model]
    if DEFAULT_ENTRY in table:
        return table[DEFAULT_ENTRY]
    named = f"model {model!r}" if model else "an agent without a model"
    raise ConfigError(f"{path}: no price for {named} and no {DEFAULT_ENTRY!r} entry (models: {', '.join(table)})")


def usage_cost(prompt_tokens: int, completion_tokens: int, price: Price | None) -> float | None:
    """The cost of some tokens; None without a price (the run was not priced)."""
    return None if price is None else price.cost(prompt_tokens, completion_tokens)


def results_cost(results: Iterable[EpisodeResult], price: Price | None) -> float | None:
    """The cost of the episodes' tokens (every episode's: an unscored one spent them too)."""
    if price is None:
        return None
    return sum(price.cost(int(r.tokens.get("prompt", 0)), int(r.tokens.get("completion", 0))) for r in results)


def money(x: float | None) -> str:
    """A cost as the surfaces print it: "$0.0123" (4 significant decimals below a dollar), "–" for none."""
    if x is None:
        return "–"
    return f"${x:,.2f}" if abs(x) >= 1 else f"${x:.4f}"


__all__ = [
    "Price",
    "parse_price",
    "load_price_table",
    "resolve_price",
    "usage_cost",
    "results_cost",
    "money",
]
