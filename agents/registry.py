"""Find agents by name: the built-ins, plus any package's entry points in the group `droidharness.agents`.

    create_agent("openai", model="gpt-4o", output_format="uitars")
    create_agent("reference")

An entry point names a factory (a class or a function) called with the options as keyword arguments and
returning an object that satisfies `agents.base.Agent`:

    [project.entry-points."droidharness.agents"]
    myagent = "mypkg.agent:MyAgent"

Built-ins win over entry points with the same name (a plug-in cannot shadow `openai`). Modules are imported
lazily, so `available_agents()` costs nothing and a broken plug-in only fails when it is asked for.
"""

from __future__ import annotations

import importlib
import inspect
import logging
from collections.abc import Callable
from importlib.metadata import entry_points
from typing import Any

from harness.errors import ConfigError

from .base import Agent
from .qa_base import QAAgent

log = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "droidharness.agents"

BUILTIN_AGENTS: dict[str, str] = {
    "openai": "agents.openai_agent:OpenAIAgent",
    "reference": "agents.reference:ReferenceAgent",
    "random": "agents.random_agent:RandomAgent",
    "heuristic": "agents.heuristic:HeuristicAgent",
    "human": "agents.human:HumanAgent",
    "noop": "agents.noop:NoOpAgent",
}

_registered: dict[str, Callable[..., Agent]] = {}


def register_agent(name: str, factory: Callable[..., Agent]) -> None:
    """Register a factory in-process (tests, notebooks). Built-in names cannot be replaced."""
    if name in BUILTIN_AGENTS:
        raise ConfigError(f"agent name {name!r} is a built-in agent and cannot be re-registered")
    _registered[name] = factory


def _entry_points() -> dict[str, Any]:
    try:
        return {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)}
    except Exception as exc:  # noqa: BLE001 - a broken distribution's metadata must not break the built-ins
        log.warning("could not read entry points %s: %s", ENTRY_POINT_GROUP, exc)
        return {}


def available_agents() -> list[str]:
    """Names accepted by `create_agent`, sorted."""
    return sorted(set(BUILTIN_AGENTS) | set(_registered) | set(_entry_points()))


def _load(name: str) -> Callable[..., Agent]:
    if name in BUILTIN_AGENTS:
        module, _, attr = BUILTIN_AGENTS[name].partition(":")
        return getattr(importlib.import_module(module), attr)
    if name in _registered:
        return _registered[name]
    eps = _entry_points()
    if name in eps:
        try:
            return eps[name].load()
        except Exception as exc:
            raise ConfigError(f"agent {name!r}: entry point {eps[name].value!r} failed to load: {exc}") from exc
    raise ConfigError(f"unknown agent {name!r}; available: {', '.join(available_agents())}")


def _check_options(name: str, factory: Callable[..., object], options: dict[str, Any]) -> None:
    """Name an unknown option before calling the factory (a TypeError from deep inside is no help)."""
    try:
        params = inspect.signature(factory).parameters
    except (TypeError, ValueError):
        return
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return
    known = {n for n, p in params.items() if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD) and n != "self"}
    unknown = sorted(set(options) - known)
    if unknown:
        raise ConfigError(
            f"agent {name!r}: unknown option(s) {', '.join(unknown)}; accepted: {', '.join(sorted(known)) or 'none'}"
        )


def create_agent(name: str, **options: Any) -> Agent:
    """Build the agent called `name` with `options`. Raises `ConfigError` naming the agent and the option."""
    factory = _load(name)
    _check_options(name, factory, options)
    agent = factory(**options)
    if not isinstance(agent, Agent):
        raise ConfigError(
            f"agent {name!r}: the factory returned {type(agent).__name__}, which lacks name / reset / act"
        )
    return agent


# --- QA agents (screen question answering, agents.qa_base): the same lookup, their own names and entry points ------
QA_ENTRY_POINT_GROUP = "droidharness.qa_agents"
BUILTIN_QA_AGENTS: dict[str, str] = {
    "lexical": "agents.qa_lexical:LexicalQA",
    "openai": "agents.qa_openai:OpenAIQA",
    "human": "agents.qa_human:HumanQA",
}


def available_qa_agents() -> list[str]:
    try:
        eps = {ep.name for ep in entry_points(group=QA_ENTRY_POINT_GROUP)}
    except Exception as exc:  # noqa: BLE001 - a broken distribution's metadata must not break the built-ins
        log.warning("could not read entry points %s: %s", QA_ENTRY_POINT_GROUP, exc)
        eps = set()
    return sorted(set(BUILTIN_QA_AGENTS) | eps)


def create_qa_agent(name: str, **options: Any) -> QAAgent:
    """Build the QA agent called `name`. Raises `ConfigError` naming the agent and the option."""
    if name in BUILTIN_QA_AGENTS:
        module, _, attr = BUILTIN_QA_AGENTS[name].partition(":")
        factory: Callable[..., QAAgent] = getattr(importlib.import_module(module), attr)
    else:
        eps = {ep.name: ep for ep in entry_points(group=QA_ENTRY_POINT_GROUP)}
        if name not in eps:
            raise ConfigError(f"unknown QA agent {name!r}; available: {', '.join(available_qa_agents())}")
        try:
            factory = eps[name].load()
        except Exception as exc:
            raise ConfigError(f"QA agent {name!r}: entry point {eps[name].value!r} failed to load: {exc}") from exc
    _check_options(name, factory, options)
    agent = factory(**options)
    if not isinstance(agent, QAAgent):
        raise ConfigError(f"QA agent {name!r}: the factory returned {type(agent).__name__}, which lacks name / answer")
    return agent
