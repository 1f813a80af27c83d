"""Agents are plug-ins: found by name in the entry-point groups `droidharness.agents` and `droidharness.qa_agents`.

    create_agent("openai", model="gpt-4o", output_format="uitars")
    create_agent("reference")

The built-in agents (agents/) register there exactly as a third-party package does, in droidharness' own
pyproject.toml; the engine imports no agent module. An entry point names a factory (a class or a function)
called with the options as keyword arguments and returning an object that satisfies `harness.agent.Agent`
(`harness.qa_agent.QAAgent` for the QA group):

    [project.entry-points."droidharness.agents"]
    myagent = "mypkg.agent:MyAgent"

droidharness' own entry points win over another package's with the same name (a plug-in cannot shadow
`openai`). Modules are imported when an agent is created, so `available_agents()` costs nothing and a broken
plug-in only fails when it is asked for.
"""

from __future__ import annotations

import functools
import inspect
import logging
from collections.abc import Callable, Mapping
from importlib.metadata import EntryPoint, entry_points
from types import MappingProxyType
from typing import Any

from harness.agent import Agent
from harness.errors import ConfigError
from harness.qa_agent import QAAgent

log = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "droidharness.agents"
QA_ENTRY_POINT_GROUP = "droidharness.qa_agents"
DISTRIBUTION = "droidharness"  # whose entry points are the built-ins

_registered: dict[str, Callable[..., Agent]] = {}


@functools.cache  # one entry per entry point found (docs/caches.md): its distribution's name parses its METADATA
def _dist_name(ep: EntryPoint) -> str:
    """The normalized name of the distribution that gives `ep` (reading it parses the distribution's metadata, ~1
    ms: once per entry point, not once per agent made)."""
    dist = getattr(ep, "dist", None)
    return (getattr(dist, "name", None) or "").lower().replace("_", "-")


@functools.cache  # unbounded, finite by construction: one entry per group this package reads (docs/caches.md)
def _entry_points(group: str) -> Mapping[str, EntryPoint]:
    """name -> entry point of `group`; where two packages give one name, droidharness' own wins. Read once per
    process: scanning every installed distribution's metadata takes milliseconds, and a run creates a fresh agent
    for every episode (a package installed meanwhile is found by the next process)."""
    try:
        found = list(entry_points(group=group))
    except Exception as exc:  # noqa: BLE001 - a broken distribution's metadata must not break the others
        log.warning("could not read entry points %s: %s", group, exc)
        return {}
    out: dict[str, EntryPoint] = {}
    for ep in sorted(found, key=lambda e: _dist_name(e) == DISTRIBUTION):  # ours last: they win
        out[ep.name] = ep
    return MappingProxyType(out)


def builtin_agents() -> list[str]:
    """The agents droidharness itself registers (its own entry points), sorted."""
    return sorted(n for n, ep in _entry_points(ENTRY_POINT_GROUP).items() if _dist_name(ep) == DISTRIBUTION)


def register_agent(name: str, factory: Callable[..., Agent]) -> None:
    """Register a factory in-process (tests, notebooks). Built-in names cannot be replaced."""
    if name in builtin_agents():
        raise ConfigError(f"agent name {name!r} is a built-in agent and cannot be re-registered")
    _registered[name] = factory


def unregister_agent(name: str) -> None:
    """Forget a factory `register_agent` registered (nothing if there is none)."""
    _registered.pop(name, None)


def available_agents() -> list[str]:
    """Names accepted by `create_agent`, sorted."""
    return sorted(set(_registered) | set(_entry_points(ENTRY_POINT_GROUP)))


def _not_found(kind: str, name: str, available: list[str]) -> ConfigError:
    if not available:
        return ConfigError(
            f"unknown {kind} {name!r}: no {kind}s are registered (entry-point group "
            f"{ENTRY_POINT_GROUP if kind == 'agent' else QA_ENTRY_POINT_GROUP}); is droidharness installed "
            "(pip install -e .)?"
        )
    return ConfigError(f"unknown {kind} {name!r}; available: {', '.join(available)}")


def _load_entry_point(kind: str, name: str, ep: EntryPoint) -> Callable[..., Any]:
    try:
        factory: Callable[..., Any] = ep.load()
    except Exception as exc:
        raise ConfigError(f"{kind} {name!r}: entry point {ep.value!r} failed to load: {exc}") from exc
    return factory


def _load(name: str) -> Callable[..., Agent]:
    eps = _entry_points(ENTRY_POINT_GROUP)
    if name in eps and _dist_name(eps[name]) == DISTRIBUTION:
        return _load_entry_point("agent", name, eps[name])
    if name in _registered:
        return _registered[name]
    if name in eps:
        return _load_entry_point("agent", name, eps[name])
    raise _not_found("agent", name, available_agents())


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


def create_agent(name: str, /, **options: Any) -> Agent:
    """Build the agent called `name` with `options`. Raises `ConfigError` naming the agent and the option."""
    factory = _load(name)
    _check_options(name, factory, options)
    agent = factory(**options)
    if not isinstance(agent, Agent):
        raise ConfigError(
            f"agent {name!r}: the factory returned {type(agent).__name__}, which lacks name / reset / act"
        )
    return agent


# --- QA agents (screen question answering, harness.qa_agent): the same lookup, their own group -------------------


def available_qa_agents() -> list[str]:
    """Names accepted by `create_qa_agent`, sorted."""
    return sorted(_entry_points(QA_ENTRY_POINT_GROUP))


def create_qa_agent(name: str, /, **options: Any) -> QAAgent:
    """Build the QA agent called `name`. Raises `ConfigError` naming the agent and the option."""
    eps = _entry_points(QA_ENTRY_POINT_GROUP)
    if name not in eps:
        raise _not_found("QA agent", name, available_qa_agents())
    factory: Callable[..., QAAgent] = _load_entry_point("QA agent", name, eps[name])
    _check_options(name, factory, options)
    agent = factory(**options)
    if not isinstance(agent, QAAgent):
        raise ConfigError(f"QA agent {name!r}: the factory returned {type(agent).__name__}, which lacks name / answer")
    return agent
