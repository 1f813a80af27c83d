"""Agents found by entry point (harness.plugins): a run makes a fresh agent for every episode, and finding its
factory again reads no distribution's metadata (parsing it took ~1 ms an agent)."""

from __future__ import annotations

import importlib.metadata

import pytest

from harness.plugins import create_agent


def test_making_an_agent_again_reads_no_distribution_metadata(monkeypatch: pytest.MonkeyPatch) -> None:
    assert create_agent("reference").name == "reference"

    def read(self: importlib.metadata.Distribution) -> None:
        raise AssertionError(f"{self!r}: metadata read again")

    monkeypatch.setattr(importlib.metadata.Distribution, "metadata", property(read))
    for _ in range(3):
        assert create_agent("reference").name == "reference"
