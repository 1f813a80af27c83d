"""The error of offline evaluation (at the bottom of `harness.eval`: every module of it may raise it)."""

from __future__ import annotations

from harness.errors import HarnessError


class EvalError(HarnessError):
    """Bad evaluation input (predictions file, options); the message names the file / line / option."""
