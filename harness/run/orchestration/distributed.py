"""Episodes as Ray actors: `droidharness run --ray [--ray-address ADDRESS]` (docs/ray.md).

This module holds only what is Ray, and is the only one that imports `ray` (lazily: the `ray` extra is
optional): connecting, the actor (`EpisodeWorker`) and the executor (`RayExecutor`) the one driver of
`harness.run.orchestration.driver` runs on. N actors (`--devices N`, spread over the cluster's nodes) each own ONE
device on their node: an embedded virtual device behind the actor's own private adb server (a `DevicePool(1)` inside the
actor process; `--isolation` says where in the actor it runs, `actor_isolation`). The driver's slot thread hands
an episode to its actor, which runs it with `run_episode` exactly as the local runner does, but into a
`harness.trajectory.sink.QueueSink`: every `StepEvent` (its `Frame` pickled as the device's bytes or exact
pixels) comes back as one item of a Ray streaming generator, and the driver hands it to the run's normal
`EpisodeWriter` (`replay_into`) - so the run directory lives on the driver and has the format of a local run,
step by step as the steps happen.

The queue, retries, quarantine, draining and failure rules are the driver's (docs/scoring.md); the plan, lock,
resume, writer and finish the run lifecycle's (`harness.run.orchestration.suite.RunPlan`). What Ray adds: an actor whose
process died (`RayActorError`: killed, or its node lost) is replaced by a fresh actor on a node that is alive, else
the actor's own pool replaces its device; each episode records the Ray node that ran it (episode.json `node`).
"""

from __future__ import annotations

import importlib
import logging
import os
import queue
import socket
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from rich.console import Console

from harness.errors import ConfigError, InfrastructureError, describe_failure
from harness.plugins import create_agent
from harness.qa_agent import QAAgent
from harness.run.fleet.kinds import Isolation
from harness.run.fleet.pool import DevicePool
from harness.run.loop.episode import run_episode
from harness.run.orchestration.leasing import lease_episode
from harness.run.orchestration.lifecycle import item_label
from harness.run.orchestration.suite import SuiteOptions, SuiteResult, plan_run, skipped_result
from harness.trajectory.episode_writer import EpisodeWriter
from harness.trajectory.result import EpisodeResult
from harness.trajectory.sink import Finished, QueueSink, StepEvent, replay_into
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


# Ray's token authentication (Ray >= 2.52; docs/ray.md): the driver sends the token of its own environment
AUTH_MODE_ENV, TOKEN_ENV, TOKEN_PATH_ENV = "RAY_AUTH_MODE", "RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH"
TOKEN_HELP = (
    f"the driver needs the cluster's token, as every node does: {AUTH_MODE_ENV}=token and the token in "
    f"{TOKEN_ENV}, in a file named by {TOKEN_PATH_ENV}, or in ~/.ray/auth_token (docs/ray.md)"
)


def driver_token() -> tuple[str | None, str]:
    """The token Ray would send from this process when token authentication is on, and where it comes from, in
    Ray's documented order: `RAY_AUTH_TOKEN`, the file `RAY_AUTH_TOKEN_PATH` names, `~/.ray/auth_token`."""
    if token := os.environ.get(TOKEN_ENV, "").strip():
        return token, TOKEN_ENV
    named = os.environ.get(TOKEN_PATH_ENV)
    path = Path(named) if named else Path.home() / ".ray" / "auth_token"
    where = f"{TOKEN_PATH_ENV}={named}" if named else str(path)
    try:
        return path.read_text(encoding="utf-8").strip() or None, where
    except OSError:
        return None, where


class _NoAuthError(Exception):
    """Stands for `ray.exceptions.AuthenticationError` in a Ray without token authentication (< 2.52)."""


def auth_error(ray: Any) -> type[Exception]:
    """Ray's `AuthenticationError` (a token missing or refused), where this Ray has one."""
    found = getattr(ray.exceptions, "AuthenticationError", None)
    return found if isinstance(found, type) and issubclass(found, Exception) else _NoAuthError


@contextmanager
def _native_stderr_silenced() -> Iterator[None]:
    """File descriptor 2 to /dev/null for a moment: Ray's C++ client logs each refused call there itself; what
    the refusal means is said once, by the `RayError` it becomes."""
    try:
        saved = os.dup(2)
    except OSError:
        yield
        return
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def check_auth(address: str) -> None:
    """A cluster that requires a token this driver does not have is one line (`RayError`), before `ray.init`
    (which would retry for ~20 s, logging each refusal, and then blame the connection). Asks the head's GCS for
    the cluster id as `ray.init` does first; any answer but "unauthenticated" is left to `ray.init` to judge."""
    if address == "auto" or address.startswith("ray://"):  # found by Ray itself / Ray Client: ray.init says
        return
    ray = _ray()
    mode = os.environ.get(AUTH_MODE_ENV, "").strip().lower()
    token, where = driver_token()
    if mode == "token" and token is None:
        raise RayError(f"--ray-address {address}: {AUTH_MODE_ENV}=token but there is no token in {where}; {TOKEN_HELP}")
    client = getattr(importlib.import_module("ray._raylet"), "GcsClient", None)
    if client is None or auth_error(ray) is _NoAuthError:  # a Ray without token authentication
        return
    try:
        with _native_stderr_silenced():
            client(address=address)
    except auth_error(ray):
        if mode != "token":
            raise RayError(
                f"--ray-address {address}: the cluster requires a Ray auth token and this driver sends none "
                f"({AUTH_MODE_ENV} is {mode or 'unset'}); {TOKEN_HELP}"
            ) from None
        raise RayError(
            f"--ray-address {address}: the cluster refused this driver's Ray auth token (from {where}); {TOKEN_HELP}"
        ) from None
    except Exception as e:  # noqa: BLE001 - not an authentication answer: ray.init connects and says
        log.debug("probing %s: %s", address, e)


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
    if target.address is not None:
        check_auth(target.address.strip())
    common = {"include_dashboard": False, "log_to_driver": False, "configure_logging": False}
    try:
        if target.address is None:
            ray.init(num_cpus=target.num_cpus or os.cpu_count() or 1, **common)
        else:
            ray.init(address=target.address, **common)
    except (ConnectionError, ValueError, RuntimeError, auth_error(ray)) as e:
        where = "a local Ray instance" if target.address is None else f"--ray-address {target.address}"
        first = str(e).splitlines()[0] if str(e) else type(e).__name__
        if isinstance(e, auth_error(ray)):  # its own text goes on at length about `ray get-auth-token`
            first = f"{getattr(e, 'message', first)}; {TOKEN_HELP}"
        raise RayError(f"{where}: Ray could not start or connect: {first}") from e
    try:
        yield
    finally:
        ray.shutdown()  # a local instance stops; a cluster only loses this driver


# --- what travels from an actor to the driver ----------------------------------------------------------------
@dataclass(frozen=True)
class NodeInfo:
    """The Ray node an actor runs on: `id` (Ray's node id, hex: what episode.json `node` records - two nodes on
    one host share its name and address), its IP address and host name."""

    id: str
    ip: str
    host: str

    def __str__(self) -> str:
        return f"{self.host} {self.ip} node {self.id[:8]}"


def this_node() -> NodeInfo:
    """The node of the calling Ray worker (an actor)."""
    ray = _ray()
    return NodeInfo(ray.get_runtime_context().get_node_id(), ray.util.get_node_ip_address(), socket.gethostname())


@dataclass(frozen=True)
class ResetMessage:
    """The actor leased its device: how the pool reset it (episode.json `reset_method`, `reset_seconds`)."""

    method: str
    seconds: float
    pid: int  # the actor's process (the live view; a test kills it)
    node: str  # the Ray node id


@dataclass(frozen=True)
class WorkerSetup:
    """What every actor needs to run episodes (pickled to its node)."""

    make_agent: Callable[[], Any]
    make_qa: Callable[[], QAAgent] | None
    opts: SuiteOptions


def actor_isolation(opts: SuiteOptions) -> Isolation:
    """`--isolation` under Ray: where an actor's device runs. Unset, in a thread of the actor (the actor is a
    process of its own already, which is what `process` gives a local run); `process` gives the device a child
    process of the actor, `thread` and `in_process` apply as they do locally."""
    return opts.isolation or "thread"


class EpisodeWorker:
    """The body of a Ray actor (`ray.remote(EpisodeWorker)`): one device on this node, episodes one at a time."""

    def __init__(self, setup: WorkerSetup) -> None:
        self.setup = setup
        o = setup.opts
        image = o.outside.image if o.outside is not None else "phone"  # AndroidWorld's: the emulator's image
        self.pool = DevicePool(
            1, profile=o.profile, latency=o.latency, clock=o.clock, isolation=actor_isolation(o), image=image
        ).start()
        self.where = this_node()

    def pid(self) -> int:
        return os.getpid()

    def device_info(self) -> dict[str, Any]:
        """The actor's device as the manifest lists it: its DeviceInfo and its preparation."""
        return self.pool.describe(0)

    def node(self) -> NodeInfo:
        return self.where

    def run(self, task: Task, lang: str, seed: int, attempt: int) -> Iterator[Any]:
        """Attempt `attempt` of (task, lang): a `ResetMessage`, a `StepEvent` per step, a `Finished`.
        An infrastructure failure is raised (the driver retries); what the agent causes is scored."""
        o = self.setup.opts
        lease, leased = lease_episode(self.pool, 0, task, lang, o.plan)
        yield ResetMessage(lease.reset.method, lease.reset.seconds, os.getpid(), self.where.id)
        judge = None
        if o.outside is not None:  # an outside suite's instance: skipped where the device cannot host it
            why = o.outside.skip_reason(task, lease.device)
            if why is not None:
                yield Finished(skipped_result(task, lang, why, seed), None, None)
                return
            judge = o.outside.judge(task, lease.device, self.pool.slot_doors(0))
        out: queue.Queue[Any] = queue.Queue()
        sink = QueueSink(out)
        done = object()

        def episode() -> None:
            try:
                agent = self.setup.make_agent()  # fresh per attempt, as in the local runner
                qa = self.setup.make_qa() if self.setup.make_qa is not None and task.probes else None
                result = run_episode(
                    task,
                    agent,
                    lease.device,
                    lang,
                    o.limits,
                    seed=seed,
                    sink=sink,
                    attempt=attempt,
                    probe_agent=qa,
                    perturb=o.plan,
                    leased=leased,
                    outside=judge,
                )
                result.reset_method, result.reset_seconds = lease.reset.method, lease.reset.seconds
                result.node = self.where.id
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
            yield msg
        th.join()

    def succeeded(self) -> None:
        """The driver counted an attempt on this actor's device a success: its run of failures is over."""
        self.pool.succeeded(0)

    def failed(self, reason: str) -> None:
        """An infrastructure failure on this actor's device: the pool replaces it (quarantine after two)."""
        self.pool.failed(0, reason)

    def quarantined(self) -> list[dict[str, Any]]:
        return [q.to_json() for q in self.pool.quarantined]

    def close(self) -> None:
        self.pool.close()


# --- the executor ------------------------------------------------------------------------------------------
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
class ActorSlot:
    """One slot of the Ray executor: an actor on some node, owning one device."""

    actor: Any
    pid: int
    node: NodeInfo
    died: bool = False  # the actor's process died during the last attempt: replace the actor, not its device


def describe_ray_error(e: BaseException) -> str:
    """One line for an attempt's failure: the original exception of a Ray task error, or the actor's death."""
    ray = _ray()
    if isinstance(e, ray.exceptions.RayActorError):
        first = next((ln.strip() for ln in str(e).splitlines() if ln.strip()), "")
        return f"{type(e).__name__}: the Ray worker died during the episode ({first})"
    cause = getattr(e, "cause", None)
    if isinstance(e, ray.exceptions.RayTaskError) and isinstance(cause, BaseException):
        e = cause
    return describe_failure(e)


class RayExecutor:
    """The driver's executor on a Ray cluster: slot i is an actor owning one device on its node. An attempt
    (`attempt`) streams the actor's episode into the run's writer on this machine; a slot's fresh device is the
    actor's pool replacing its device, or a fresh actor when the old one died."""

    def __init__(self, setup: WorkerSetup, slots: list[ActorSlot], on_event: Callable[[RayEvent], None] | None):
        self.ray = _ray()
        self.setup, self.slots, self.on_event = setup, slots, on_event
        self._quarantined: list[dict[str, Any]] = []

    @property
    def size(self) -> int:
        return len(self.slots)

    def where(self, slot: int) -> str:
        s = self.slots[slot]
        return f"{s.node} (pid {s.pid})"  # host, IP and the node id's first 8 digits

    def succeeded(self, slot: int) -> None:
        self.ray.get(self.slots[slot].actor.succeeded.remote(), timeout=ACTOR_BOOT_TIMEOUT)

    def attempt(self, slot: int, task: Task, lang: str, seed: int, n: int, ep: EpisodeWriter) -> EpisodeResult:
        """Attempt n of (task, lang) on the slot's actor, its events written into `ep` as they come. Any failure
        is raised as one line (`InfrastructureError`; a `ConfigError` as itself: a fresh device would not help)."""
        s = self.slots[slot]
        label = item_label((task, lang))
        stream = s.actor.run.options(num_returns="streaming").remote(task, lang, seed, n)
        self._event(RayEvent("attempt", slot, s.pid, label, n))
        try:
            for ref in stream:
                msg = self.ray.get(ref)
                if isinstance(msg, ResetMessage):
                    ep.note_reset(msg.method, msg.seconds)
                elif isinstance(msg, StepEvent):
                    replay_into(ep, msg)
                    self._event(RayEvent("step", slot, s.pid, label, n, msg.step))
                elif isinstance(msg, Finished):
                    replay_into(ep, msg)
                    return msg.result
        except Exception as e:
            self._cancel(stream)
            s.died = isinstance(e, self.ray.exceptions.RayActorError)
            cause = getattr(e, "cause", None)
            if isinstance(e, ConfigError) or isinstance(cause, ConfigError):
                raise cause if isinstance(cause, ConfigError) else e from None
            raise InfrastructureError(describe_ray_error(e)) from e
        raise InfrastructureError("the episode's stream ended without a result")

    def replace(self, slot: int, error: str) -> None:
        """The actor's pool replaces its device; an actor that died (or cannot) is replaced by a fresh actor."""
        s = self.slots[slot]
        if not s.died:
            try:
                self.ray.get(s.actor.failed.remote(error), timeout=ACTOR_BOOT_TIMEOUT)
                return
            except Exception as e:  # noqa: BLE001 - the actor cannot replace its device: replace the actor
                log.warning("slot %d: the actor could not replace its device (%s); starting a fresh actor", slot, e)
        self._collect_quarantined(s)
        _kill(self.ray, s.actor)
        others = [o.node.id for i, o in enumerate(self.slots) if i != slot]
        self.slots[slot] = _start_actors(self.setup, 1, others, avoid=s.node.id if s.died else None)[0]

    def quarantined(self) -> list[dict[str, Any]]:
        return list(self._quarantined)

    def _event(self, ev: RayEvent) -> None:
        if self.on_event is not None:
            self.on_event(ev)

    def _cancel(self, stream: Any) -> None:
        try:
            self.ray.cancel(stream)
        except Exception as e:  # noqa: BLE001 - a finished or dead stream has nothing to cancel
            log.debug("cancelling a stream: %s", e)

    def _collect_quarantined(self, s: ActorSlot) -> None:
        try:
            self._quarantined += self.ray.get(s.actor.quarantined.remote(), timeout=30)
        except Exception as e:  # noqa: BLE001 - a dead actor's list is lost with it
            log.debug("%s: no quarantine list (%s)", s.node, e)

    def close(self) -> None:
        for s in self.slots:
            if not s.died:
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


def placements(
    nodes: list[dict[str, Any]], n: int, taken: Sequence[str] = (), avoid: str | None = None
) -> list[str | None]:
    """Which node each of `n` new actors goes to: round robin over the alive nodes that can host an actor (a CPU;
    `ray.nodes()` rows), the least used first - `taken` holds the node ids of the run's other actors - and not
    the node `avoid` (a dead actor's: its node may be lost) while another exists. None: no node is known (an
    autoscaling cluster with no worker yet), Ray chooses."""
    alive = [str(d["NodeID"]) for d in nodes if d.get("Alive") and (d.get("Resources") or {}).get("CPU", 0) >= 1]
    alive = [nid for nid in alive if nid != avoid] or alive
    if not alive:
        return [None] * n
    load = {nid: taken.count(nid) for nid in alive}
    out: list[str | None] = []
    for _ in range(n):
        nid = min(alive, key=lambda x: load[x])  # the first least used, in the cluster's order
        load[nid] += 1
        out.append(nid)
    return out


def _start_actors(setup: WorkerSetup, n: int, taken: Sequence[str] = (), avoid: str | None = None) -> list[ActorSlot]:
    """N actors spread over the cluster's nodes (`placements`: Ray's own "SPREAD" is best effort and may put two
    on one node while another is idle), each with its device started; a failure stops them all. Each placement is
    a soft node affinity: a node that cannot host the actor (full, or lost since) leaves the choice to Ray."""
    ray = _ray()
    strategies = importlib.import_module("ray.util.scheduling_strategies")
    cls = ray.remote(EpisodeWorker)
    actors = []
    for node_id in placements(ray.nodes(), n, taken, avoid):
        where = "SPREAD" if node_id is None else strategies.NodeAffinitySchedulingStrategy(node_id, soft=True)
        actors.append(cls.options(scheduling_strategy=where, max_restarts=0, max_task_retries=0).remote(setup))
    try:
        pids = ray.get([a.pid.remote() for a in actors], timeout=ACTOR_BOOT_TIMEOUT)
        nodes = ray.get([a.node.remote() for a in actors], timeout=ACTOR_BOOT_TIMEOUT)
    except BaseException as e:
        _stop_actors(ray, actors)
        if isinstance(e, Exception):
            raise InfrastructureError(f"Ray workers could not start their devices: {describe_ray_error(e)}") from e
        raise
    return [ActorSlot(a, pid, node) for a, pid, node in zip(actors, pids, nodes, strict=True)]


def run_suite_ray(
    opts: SuiteOptions,
    target: RayTarget = RayTarget(),
    console: Console | None = None,
    agent_factory: Callable[[], Any] | None = None,
    probe_agent: Callable[[], QAAgent] | None = None,
    on_event: Callable[[RayEvent], None] | None = None,
) -> SuiteResult:
    """`harness.run.orchestration.suite.run_suite` with the episodes run by `opts.devices` Ray actors (embedded virtual
    devices on the cluster's nodes) and recorded in one run directory on this machine, through the same driver and run
    lifecycle. `agent_factory` and `probe_agent` are pickled to the nodes (cloudpickle: a lambda is fine; what it
    uses must be importable there)."""
    if opts.serials:
        raise ConfigError("--ray runs embedded devices on the cluster's nodes: give no --device serial")
    if opts.devices < 1:
        raise ConfigError(f"--devices must be >= 1, got {opts.devices}")
    plan = plan_run(opts, agent_factory or _agent_factory(opts.agent, opts.agent_options), probe_agent)
    setup = WorkerSetup(plan.make_agent, plan.make_qa, opts)
    with plan.life:  # unlocked at the end; a stop says what it left, once the actors are closed
        with connected(target):
            ray = _ray()
            executor = RayExecutor(setup, _start_actors(setup, opts.devices), on_event)
            try:
                infos = (
                    []
                    if plan.life.writer
                    else ray.get([s.actor.device_info.remote() for s in executor.slots], timeout=ACTOR_BOOT_TIMEOUT)
                )
                nodes = [asdict(n) for n in sorted({s.node for s in executor.slots}, key=str)]
                ray_config = {"address": target.address or "local", "nodes": nodes, "isolation": actor_isolation(opts)}
                writer = plan.create_writer(infos, len(executor.slots), ray=ray_config)
                return plan.execute(executor, writer, executor.attempt, console)
            finally:
                executor.close()


def _agent_factory(name: str, options: dict[str, Any]) -> Callable[[], Any]:
    """A picklable factory of the named agent (a plain function of module-level names, for the nodes)."""
    return _AgentFactory(name, dict(options))


@dataclass(frozen=True)
class _AgentFactory:
    name: str
    options: dict[str, Any]

    def __call__(self) -> Any:
        return create_agent(self.name, **self.options)


__all__ = [
    "RayTarget",
    "RayEvent",
    "RayError",
    "NodeInfo",
    "EpisodeWorker",
    "check_address",
    "check_auth",
    "connected",
    "run_suite_ray",
]
