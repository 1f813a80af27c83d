"""Episodes as Ray actors: `droidharness run --ray [--ray-address ADDRESS]` (docs/ray.md).

This module owns the distributed runner and is the only one that imports `ray` (lazily: the `ray` extra is
optional). N actors (`--devices N`, spread over the cluster's nodes) each own ONE device on their node: an
embedded virtual device behind the actor's own private adb server (a `DevicePool(1)` inside the actor process).
The driver keeps the queue of (task, language) episodes and hands them to idle actors, waiting on all of them
at once (`ray.wait`). An actor runs the episode with `run_episode` exactly as the local runner does, but into a
`harness.trajectory.sink.QueueSink`: every `StepEvent` (its `Frame` pickled as the device's bytes or exact
pixels) comes back to the driver as one item of a Ray streaming generator, and the driver hands it to the run's
normal `EpisodeWriter` (`replay_into`) - so
the run directory lives on the driver and has the format of a local run, step by step as the steps happen.

Failures follow docs/scoring.md and `harness.run.suite`: an exception out of an attempt (an infrastructure
failure on the device, or the actor's process dying: `RayActorError`) is retried on a fresh device - a fresh
actor when the old one died, else the actor's pool replaces its device - `infra_retries` times, then recorded as
`infra_error` with `suite._record_infra_error`; a `ConfigError` is recorded at once. The live view
(`harness.run.workers.LiveView`) and the summary / report at the end (`harness.report.render.finish_run`) are
the local run's.
"""

from __future__ import annotations

import importlib
import logging
import os
import queue
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from rich.console import Console

from agents.qa_base import QAAgent
from agents.registry import create_agent
from harness.errors import ConfigError, HarnessError, InfrastructureError
from harness.observation import DeviceInfo
from harness.run.episode import episode_seed, run_episode
from harness.run.suite import (
    SuiteOptions,
    SuiteResult,
    _headline,
    _record_infra_error,
    plan_run,
)
from harness.run.workers import NO_DEVICE_LEFT, LiveView, close_quietly
from harness.trajectory.result import EpisodeResult
from harness.trajectory.sink import Finished, QueueSink, StepEvent, replay_into
from harness.trajectory.writer import EpisodeWriter, RunWriter
from tasks.schema import Task

log = logging.getLogger(__name__)

LOCAL = None  # `RayTarget.address` of a local Ray instance started (and shut down) by the run
ACTOR_BOOT_TIMEOUT = 300.0  # seconds for an actor to start its device (a node may first have to start a worker)


class RayError(ConfigError):
    """`--ray` cannot be used: the `ray` extra is missing, or the cluster address is bad or does not answer."""


# --- connecting --------------------------------------------------------------------------------------------------
def _ray() -> Any:
    """The `ray` module, imported on first use (the extra is optional)."""
    try:
        return importlib.import_module("ray")
    except ImportError:
        raise RayError("--ray needs Ray: pip install 'droidharness[ray]'") from None


def check_address(address: str) -> str:
    """A cluster address as `ray.init(address=...)` takes it: `HOST:PORT` (the head's GCS port, 6379 by default),
    `ray://HOST:PORT` (Ray Client) or `auto` (RAY_ADDRESS / the cluster `ray start` left on this machine).
    Anything else, or an address where nothing answers, is a one-line `RayError` naming `--ray-address`."""
    text = address.strip()
    if text == "auto":
        return text
    hostport = text.removeprefix("ray://")
    host, sep, port = hostport.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise RayError(f"--ray-address {address!r} is not HOST:PORT, ray://HOST:PORT or auto")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=5.0):
            pass
    except OSError as e:
        raise RayError(
            f"--ray-address {address}: no Ray head answers there ({e.strerror or e}); start one with `ray start --head`"
        ) from None
    return text


@dataclass(frozen=True)
class RayTarget:
    """Where the actors run: `address` None = a local Ray instance started with `num_cpus` CPUs (default: the
    machine's) and shut down at the end; else an existing cluster (the driver only disconnects from it)."""

    address: str | None = LOCAL
    num_cpus: int | None = None


@contextmanager
def connected(target: RayTarget) -> Iterator[None]:
    """Ray initialized for the run. A driver that is already connected (a notebook, the tests) is used as is."""
    ray = _ray()
    if target.address is not None:
        check_address(target.address)
    if ray.is_initialized():
        yield
        return
    common = {"include_dashboard": False, "log_to_driver": False, "configure_logging": False}
    try:
        if target.address is None:
            ray.init(num_cpus=target.num_cpus or os.cpu_count() or 1, **common)
        else:
            ray.init(address=target.address, **common)
    except (ConnectionError, ValueError, RuntimeError) as e:
        where = "a local Ray instance" if target.address is None else f"--ray-address {target.address}"
        raise RayError(f"{where}: Ray could not start or connect: {str(e).splitlines()[0] if str(e) else e}") from e
    try:
        yield
    finally:
        ray.shutdown()  # a local instance stops; a cluster only loses this driver


# --- what travels from an actor to the driver ----------------------------------------------------------------
@dataclass(frozen=True)
class ResetMessage:
    """The actor leased its device: how the pool reset it (episode.json `reset_method`, `reset_seconds`)."""

    method: str
    seconds: float
    pid: int  # the actor's process (the live view; a test kills it)
    node: str


@dataclass(frozen=True)
class WorkerSetup:
    """What every actor needs to run episodes (pickled to its node)."""

    make_agent: Callable[[], Any]
    make_qa: Callable[[], QAAgent] | None
    opts: SuiteOptions


class EpisodeWorker:
    """The body of a Ray actor (`ray.remote(EpisodeWorker)`): one device on this node, episodes one at a time."""

    def __init__(self, setup: WorkerSetup) -> None:
        from harness.run.pool import DevicePool, Isolation

        self.setup = setup
        o = setup.opts
        # the actor is the device's own process already (what `--isolation process` gives a local run): the
        # device runs in it, behind the actor's private adb server
        iso: Isolation = "in_process" if o.isolation == "in_process" else "thread"
        self.pool = DevicePool(1, profile=o.profile, latency=o.latency, isolation=iso).start()

    def pid(self) -> int:
        return os.getpid()

    def device_info(self) -> DeviceInfo:
        return self.pool.slot(0).info

    def node(self) -> str:
        return socket.gethostname()

    def run(self, task: Task, lang: str, seed: int, attempt: int) -> Iterator[Any]:
        """Attempt `attempt` of (task, lang): a `ResetMessage`, a `StepEvent` per step, a `Finished`.
        An infrastructure failure is raised (the driver retries); what the agent causes is scored."""
        o = self.setup.opts
        lease = self.pool.lease(0, task.apps, lang)
        yield ResetMessage(lease.reset.method, lease.reset.seconds, os.getpid(), socket.gethostname())
        out: queue.Queue[Any] = queue.Queue()
        sink = QueueSink(out)
        done = object()

        def episode() -> None:
            try:
                agent = self.setup.make_agent()  # fresh per attempt, as in the local runner
                qa = self.setup.make_qa() if self.setup.make_qa is not None and task.probes else None
                result = run_episode(
                    task, agent, lease.device, lang, o.limits, seed=seed, sink=sink, attempt=attempt, probe_agent=qa
                )
                result.reset_method, result.reset_seconds = lease.reset.method, lease.reset.seconds
                out.put(sink.finished(result))
            except BaseException as e:  # noqa: BLE001 - re-raised by the generator, on the actor's thread
                out.put(e)
            finally:
                out.put(done)

        th = threading.Thread(target=episode, name=f"episode-{task.id}-{lang}", daemon=True)
        th.start()
        while (msg := out.get()) is not done:
            if isinstance(msg, BaseException):
                raise msg
            if isinstance(msg, Finished):
                self.pool.succeeded(0)
            yield msg
        th.join()

    def failed(self, reason: str) -> None:
        """An infrastructure failure on this actor's device: the pool replaces it (quarantine after two)."""
        self.pool.failed(0, reason)

    def quarantined(self) -> list[dict[str, Any]]:
        return [q.to_json() for q in self.pool.quarantined]

    def close(self) -> None:
        self.pool.close()


# --- the driver --------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class RayEvent:
    """What the driver just did or received (`run_suite_ray(on_event=...)`): kind "attempt" (an episode handed
    to an actor) or "step" (a step written). Tests use it to kill an actor mid-episode."""

    kind: str
    slot: int
    pid: int
    label: str
    attempt: int
    step: int = 0


@dataclass
class _Slot:
    index: int
    actor: Any
    pid: int
    node: str
    alive: bool = True
    # the attempt in flight
    stream: Any = None  # the Ray ObjectRefGenerator of EpisodeWorker.run
    item: tuple[Task, str] | None = None
    attempt: int = 0
    ep: EpisodeWriter | None = None
    t0: float = 0.0


def _label(item: tuple[Task, str]) -> str:
    return f"{item[0].id} [{item[1]}]"


def _describe(e: BaseException) -> str:
    """One line for an attempt's failure: the original exception of a Ray task error, or the actor's death."""
    ray = _ray()
    if isinstance(e, ray.exceptions.RayActorError):
        first = next((ln.strip() for ln in str(e).splitlines() if ln.strip()), "")
        return f"{type(e).__name__}: the Ray worker died during the episode ({first})"
    cause = getattr(e, "cause", None)
    if isinstance(e, ray.exceptions.RayTaskError) and isinstance(cause, BaseException):
        e = cause
    return str(e) if isinstance(e, HarnessError) else f"{type(e).__name__}: {e}"


def _is_config_error(e: BaseException) -> bool:
    return isinstance(e, ConfigError) or isinstance(getattr(e, "cause", None), ConfigError)


class _Driver:
    """The driver's loop: hand queued episodes to idle actors, write what their streams bring, retry failures."""

    def __init__(
        self,
        setup: WorkerSetup,
        writer: RunWriter,
        live: LiveView[EpisodeResult],
        slots: list[_Slot],
        on_event: Callable[[RayEvent], None] | None,
    ) -> None:
        self.ray = _ray()
        self.setup, self.opts, self.writer, self.live, self.slots = setup, setup.opts, writer, live, slots
        self.on_event = on_event
        self.queue: deque[tuple[tuple[Task, str], int]] = deque()
        self.quarantined: list[dict[str, Any]] = []

    def run(self, todo: list[tuple[Task, str]]) -> None:
        self.queue.extend((item, 1) for item in todo)
        with self.live:
            while True:
                for s in self.slots:
                    if s.alive and s.stream is None and self.queue:
                        self._start(s, *self.queue.popleft())
                busy = {id(s.stream): s for s in self.slots if s.stream is not None}
                if not busy:
                    break
                ready, _ = self.ray.wait([s.stream for s in busy.values()], num_returns=1)
                for gen in ready:
                    self._receive(busy[id(gen)])
            while self.queue:  # every actor stopped with work left: nothing can do it
                item, _ = self.queue.popleft()
                self.live.done(self._give_up(item, NO_DEVICE_LEFT, 0))

    def _start(self, s: _Slot, item: tuple[Task, str], attempt: int) -> None:
        task, lang = item
        s.item, s.attempt, s.t0 = item, attempt, time.perf_counter()
        s.ep = self.writer.episode(task.id, lang, category=task.category, instruction=task.instruction_for(lang))
        seed = episode_seed(self.opts.seed, task.id, lang)
        s.stream = s.actor.run.options(num_returns="streaming").remote(task, lang, seed, attempt)
        self.live.set(s.index, f"{_label(item)} attempt {attempt} on {s.node} (pid {s.pid})")
        self._event(RayEvent("attempt", s.index, s.pid, _label(item), attempt))

    def _event(self, ev: RayEvent) -> None:
        if self.on_event is not None:
            self.on_event(ev)

    def _receive(self, s: _Slot) -> None:
        """The next item of slot `s`'s stream."""
        assert s.item is not None and s.ep is not None
        try:
            msg = self.ray.get(next(s.stream))
        except StopIteration:
            self._failed(s, RuntimeError("the episode's stream ended without a result"))
            return
        except Exception as e:  # noqa: BLE001 - any failure of the attempt is an infrastructure failure
            self._failed(s, e)
            return
        try:
            if isinstance(msg, ResetMessage):
                s.ep.note_reset(msg.method, msg.seconds)
            elif isinstance(msg, StepEvent):
                replay_into(s.ep, msg)
                self._event(RayEvent("step", s.index, s.pid, _label(s.item), s.attempt, msg.step))
            elif isinstance(msg, Finished):
                replay_into(s.ep, msg)
                s.stream = s.ep = s.item = None
                self.live.done(msg.result)
                self.live.set(s.index, "idle")
        except Exception as e:  # noqa: BLE001 - the driver could not record the attempt: retried like a failure
            self._failed(s, e)

    def _failed(self, s: _Slot, e: BaseException) -> None:
        """Attempt `s.attempt` failed: a fresh device for the slot, then retry or record `infra_error`."""
        assert s.item is not None
        item, attempt = s.item, s.attempt
        error = _describe(e)
        close_quietly(s.ep)
        self._cancel(s)
        s.stream = s.ep = s.item = None
        log.warning(
            "%s attempt %d failed after %.1f s on %s (pid %d): %s",
            _label(item),
            attempt,
            time.perf_counter() - s.t0,
            s.node,
            s.pid,
            error,
        )
        if _is_config_error(e):  # a setup mistake: a fresh device would not help
            self.live.done(self._give_up(item, error, attempt))
            return
        try:
            self._fresh_device(s, error, died=isinstance(e, self.ray.exceptions.RayActorError))
        except Exception as e2:  # noqa: BLE001 - the slot is dead; the run goes on with the others
            s.alive = False
            self.live.set(s.index, "[red]stopped: no working device[/red]")
            self.live.done(
                self._give_up(item, f"{error}; a fresh device could not be brought up: {_describe(e2)}", attempt)
            )
            return
        if attempt <= self.opts.infra_retries:
            self.queue.appendleft((item, attempt + 1))  # the next idle actor (this fresh one) takes it first
        else:
            self.live.done(self._give_up(item, error, attempt))

    def _cancel(self, s: _Slot) -> None:
        if s.stream is None:
            return
        try:
            self.ray.cancel(s.stream)
        except Exception as e:  # noqa: BLE001 - a finished or dead stream has nothing to cancel
            log.debug("cancelling %s: %s", s.node, e)

    def _fresh_device(self, s: _Slot, error: str, died: bool) -> None:
        """The actor's pool replaces its device; an actor that died (or cannot) is replaced by a fresh actor."""
        if not died:
            try:
                self.ray.get(s.actor.failed.remote(error), timeout=ACTOR_BOOT_TIMEOUT)
                return
            except Exception as e:  # noqa: BLE001 - the actor cannot replace its device: replace the actor
                log.warning("slot %d: the actor could not replace its device (%s); starting a fresh actor", s.index, e)
        self._collect_quarantined(s)
        _kill(self.ray, s.actor)
        self.live.set(s.index, "starting a fresh worker")
        fresh = _start_actors(self.setup, 1)[0]
        s.actor, s.pid, s.node = fresh.actor, fresh.pid, fresh.node

    def _collect_quarantined(self, s: _Slot) -> None:
        try:
            self.quarantined += self.ray.get(s.actor.quarantined.remote(), timeout=30)
        except Exception as e:  # noqa: BLE001 - a dead actor's list is lost with it
            log.debug("slot %d: no quarantine list (%s)", s.index, e)

    def _give_up(self, item: tuple[Task, str], error: str, attempts: int) -> EpisodeResult:
        return _record_infra_error(item[0], item[1], error, attempts, self.writer, self.opts)

    def close(self) -> None:
        for s in self.slots:
            if s.alive:
                self._collect_quarantined(s)
        _stop_actors(self.ray, [s.actor for s in self.slots])


def _kill(ray: Any, actor: Any) -> None:
    try:
        ray.kill(actor, no_restart=True)
    except Exception as e:  # noqa: BLE001 - already gone
        log.debug("killing an actor: %s", e)


def _stop_actors(ray: Any, actors: list[Any]) -> None:
    """Close each actor's device pool (its adb server, its device), then end the actor."""
    refs = []
    for a in actors:
        try:
            refs.append(a.close.remote())
        except Exception as e:  # noqa: BLE001 - a dead actor
            log.debug("closing an actor: %s", e)
    if refs:
        try:
            ray.wait(refs, num_returns=len(refs), timeout=30)
        except Exception as e:  # noqa: BLE001 - closing is best effort; the kill below ends them anyway
            log.debug("closing actors: %s", e)
    for a in actors:
        _kill(ray, a)


def _start_actors(setup: WorkerSetup, n: int) -> list[_Slot]:
    """N actors spread over the cluster's nodes, each with its device started; a failure stops them all."""
    ray = _ray()
    cls = ray.remote(EpisodeWorker).options(scheduling_strategy="SPREAD", max_restarts=0, max_task_retries=0)
    actors = [cls.remote(setup) for _ in range(n)]
    try:
        pids = ray.get([a.pid.remote() for a in actors], timeout=ACTOR_BOOT_TIMEOUT)
        nodes = ray.get([a.node.remote() for a in actors], timeout=ACTOR_BOOT_TIMEOUT)
    except BaseException as e:
        _stop_actors(ray, actors)
        if isinstance(e, Exception):
            raise InfrastructureError(f"Ray workers could not start their devices: {_describe(e)}") from e
        raise
    return [_Slot(i, a, pid, node) for i, (a, pid, node) in enumerate(zip(actors, pids, nodes, strict=True))]


def run_suite_ray(
    opts: SuiteOptions,
    target: RayTarget = RayTarget(),
    console: Console | None = None,
    agent_factory: Callable[[], Any] | None = None,
    probe_agent: Callable[[], QAAgent] | None = None,
    on_event: Callable[[RayEvent], None] | None = None,
) -> SuiteResult:
    """`harness.run.suite.run_suite` with the episodes run by `opts.devices` Ray actors (embedded virtual devices
    on the cluster's nodes) and recorded in one run directory on this machine. `agent_factory` and `probe_agent`
    are pickled to the nodes (cloudpickle: a lambda is fine; what it uses must be importable there)."""
    if opts.serials:
        raise ConfigError("--ray runs embedded devices on the cluster's nodes: give no --device serial")
    if opts.devices < 1:
        raise ConfigError(f"--devices must be >= 1, got {opts.devices}")
    plan = plan_run(opts, agent_factory or _agent_factory(opts.agent, opts.agent_options), probe_agent)
    setup = WorkerSetup(plan.make_agent, plan.make_qa, opts)
    try:
        with connected(target):
            ray = _ray()
            slots = _start_actors(setup, opts.devices)
            infos = (
                []
                if plan.writer
                else ray.get([s.actor.device_info.remote() for s in slots], timeout=ACTOR_BOOT_TIMEOUT)
            )
            nodes = sorted({s.node for s in slots})
            writer = plan.create_writer(infos, ray={"address": target.address or "local", "nodes": nodes})
            live: LiveView[EpisodeResult] = LiveView(console, len(plan.todo), len(slots), _headline, plan.earlier)
            driver = _Driver(setup, writer, live, slots, on_event)
            try:
                driver.run(plan.todo)
            finally:
                driver.close()
            writer.add_quarantined(driver.quarantined)
        return plan.finish(writer, live.results, console)
    finally:
        plan.release()


def _agent_factory(name: str, options: dict[str, Any]) -> Callable[[], Any]:
    """A picklable factory of the named agent (a plain function of module-level names, for the nodes)."""
    return _AgentFactory(name, dict(options))


@dataclass(frozen=True)
class _AgentFactory:
    name: str
    options: dict[str, Any]

    def __call__(self) -> Any:
        return create_agent(self.name, **self.options)


__all__ = ["RayTarget", "RayEvent", "RayError", "EpisodeWorker", "check_address", "connected", "run_suite_ray"]
