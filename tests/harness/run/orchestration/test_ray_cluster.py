"""Ray across nodes (docs/ray.md, "Two nodes on one host"): a Ray cluster formed on this host with the `ray` CLI as
on two machines - `ray start --head`, then `ray start --address` - each node with its own temp dir and free ports,
token authentication on (`RAY_AUTH_MODE=token`, a token file of the test's own, the same for both nodes and the
driver). `droidharness run --ray-address` (a subprocess, as a user runs it) puts its two devices on the two nodes and
records each episode's node (episode.json `node`: the Ray node id); the second node killed mid-run (its raylet and
every process it started, SIGKILL by pid, as a machine that is lost) loses no episode; a driver without the
cluster's token gets one line and exit 2.

Nothing here is found or killed by name: the test knows its nodes by their private temp dirs (every process a
`ray start` leaves has it on its command line) and their descendants (the workers, their adb servers), and kills
exactly those pids, at the end even when the test fails. Other Ray instances on the machine are left alone."""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from emulator.virtual.adbserver import free_port, reap_orphans
from harness.scoring.episodes import EXIT_OK
from harness.trajectory.reader import load_run
from harness.trajectory.records import EPISODES_DIR
from tests.paths import REPO

pytestmark = [pytest.mark.ray, pytest.mark.slow, pytest.mark.integration]

RAY = str(Path(sys.executable).with_name("ray"))
DRIVER = [sys.executable, "-m", "harness.cli.main"]
RUN = ["run", "--agent", "reference", "--lang", "en", "--isolation", "thread", "--no-report"]


# --- the processes of one node, by pid ---------------------------------------------------------------------------
def _processes() -> dict[int, tuple[int, str]]:
    """pid -> (parent pid, command line) of every process (Linux /proc)."""
    out: dict[int, tuple[int, str]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmd = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:  # gone meanwhile
            continue
        out[int(entry)] = (int(stat[stat.rindex(")") + 2 :].split()[1]), cmd)
    return out


def node_processes(marker: str) -> dict[int, str]:
    """The processes whose command line names `marker` (a node's private temp dir: its raylet, GCS, log monitor,
    dashboard) and all their descendants (agents, workers, what the workers started), pid -> command line."""
    table = _processes()
    found = {pid for pid, (_, cmd) in table.items() if marker in cmd and pid != os.getpid()}
    grew = True
    while grew:
        more = {pid for pid, (ppid, _) in table.items() if ppid in found and pid not in found}
        found |= more
        grew = bool(more)
    return {pid: table[pid][1] for pid in found}


def kill_node(marker: str) -> dict[int, str]:
    """SIGKILL every process of the node (`node_processes`), by pid; what was killed."""
    procs = node_processes(marker)
    for pid in procs:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return procs


def _free_port() -> int:
    """A port a server this test starts will listen on: outside the kernel's ephemeral range, so no socket bound
    to port 0 in the meantime (an outgoing connection, a parallel test) takes it first."""
    return free_port(listen_later=True)


# --- the cluster ---------------------------------------------------------------------------------------------
@dataclass
class Cluster:
    root: Path  # the test's own directory: the nodes' temp dirs, the token, the runs
    env: dict[str, str]  # what `ray start` and the driver run with: the same token everywhere
    port: int = 0
    nodes: dict[str, str] = field(default_factory=dict)  # name ("head", "node2") -> Ray node id

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def marker(self, name: str) -> str:
        return f"{self.root}/{name}/"

    def start_node(self, name: str, *args: str) -> str:
        """`ray start ARGS` for node `name` with its own temp dir and ports; its node id (from its raylet)."""
        (self.root / name).mkdir()
        cmd = [RAY, "start", *args, "--temp-dir", str(self.root / name), "--num-cpus", "1"]
        cmd += ["--object-store-memory", str(100 * 1024 * 1024), "--disable-usage-stats"]
        cmd += ["--dashboard-agent-listen-port", str(_free_port())]
        done = subprocess.run(cmd, env=self.env, capture_output=True, text=True, timeout=90)
        assert done.returncode == 0, f"{' '.join(cmd)}:\n{done.stdout}\n{done.stderr}"
        raylets = [c for c in node_processes(self.marker(name)).values() if "/raylet " in c and "--node_id=" in c]
        assert len(raylets) == 1, raylets
        node_id = raylets[0].split("--node_id=")[1].split()[0]
        self.nodes[name] = node_id
        return node_id

    def driver(self, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
        """`droidharness ARGS` as a user runs it, in the cluster's environment unless `env`."""
        return subprocess.Popen(
            [*DRIVER, *args], env=env or self.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )

    def stop(self) -> None:
        for name in self.nodes | {"head": "", "node2": ""}:
            kill_node(self.marker(name))


def _env(root: Path, token_file: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("RAY_ADDRESS", "RAY_AUTH_TOKEN")}
    env.update(
        RAY_AUTH_MODE="token",  # explicit: Ray 2.60 turns it on for `ray start --head` only when ~/.ray has a token
        RAY_AUTH_TOKEN_PATH=str(token_file),
        RAY_USAGE_STATS_ENABLED="0",
        DROIDHARNESS_STATE_DIR=str(root / "state"),  # the actors' adb server records: this test's own
        PYTHONPATH=os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH")) if p),
    )
    return env


@pytest.fixture
def cluster(monkeypatch) -> Iterator[Cluster]:
    """A head node (token auth on, a private token) and nothing else yet; every process of its nodes killed by pid
    at the end, then the orphaned adb servers of killed actors reaped (from this test's state dir) and the dir
    removed. The root is short: Ray's unix sockets live under the temp dirs (a socket path has <= 107 bytes)."""
    root = Path(tempfile.mkdtemp(prefix="raycl-"))
    token = root / "token"
    token.write_text(secrets.token_hex(32))
    token.chmod(0o600)
    c = Cluster(root, _env(root, token))
    try:
        c.port = _free_port()
        c.start_node(
            "head",
            "--head",
            "--port",
            str(c.port),
            "--dashboard-port",
            str(_free_port()),
        )
        yield c
    finally:
        c.stop()
        time.sleep(0.5)  # a killed raylet's last workers are reparented, not gone: a second pass
        c.stop()
        monkeypatch.setenv("DROIDHARNESS_STATE_DIR", str(root / "state"))
        reap_orphans()
        left = {n: node_processes(c.marker(n)) for n in ("head", "node2")}
        shutil.rmtree(root, ignore_errors=True)
        assert left == {"head": {}, "node2": {}}, f"processes of the test's nodes left: {left}"


def _episodes(run_dir: Path) -> dict[str, dict]:
    return {p.parent.name: json.loads(p.read_text()) for p in (run_dir / EPISODES_DIR).glob("*/episode.json")}


def _finish(proc: subprocess.Popen[str], timeout: float = 150) -> tuple[int, str]:
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, _ = proc.communicate()
        pytest.fail(f"the driver did not finish within {timeout} s:\n{out}")
    return proc.returncode, out


@pytest.mark.timeout(300)  # ~55 s alone; two nodes' start and three runs on a loaded 2-core machine take longer
def test_two_nodes_run_the_episodes_and_a_node_lost_mid_run_loses_none(cluster):
    head = cluster.nodes["head"]
    node2 = cluster.start_node("node2", "--address", cluster.address)
    assert head != node2

    # both nodes used: one device on each (one CPU each), one episode each, each recording its node
    tasks = ["--task", "clock-world-time", "--task", "contacts-create-exact"]
    out1 = cluster.root / "runs1"
    code, out = _finish(
        cluster.driver(*RUN, "--ray-address", cluster.address, "--devices", "2", *tasks, "--out", str(out1))
    )
    assert code == EXIT_OK, out
    (run1,) = out1.iterdir()
    eps = _episodes(run1)
    assert sorted(eps) == ["clock-world-time__en", "contacts-create-exact__en"]
    assert all(e["status"] == "success" and e["attempts"] == 1 for e in eps.values()), eps
    assert {e["node"] for e in eps.values()} == {head, node2}
    assert load_run(run1).episode("clock-world-time", "en").meta.node in (head, node2)  # read back, typed
    manifest = json.loads((run1 / "manifest.json").read_text())
    assert {n["id"] for n in manifest["config"]["ray"]["nodes"]} == {head, node2}

    # the second node lost mid-episode: the episode is retried on a fresh actor on the head; nothing is lost
    tasks = ["--task", "clock-world-time", "--task", "contacts-create-exact", "--task", "clock-yoga-alarm"]
    tasks += ["--latency", "pixel"]  # a phone's pace: an episode takes seconds, the kill lands inside one
    out2 = cluster.root / "runs2"
    proc = cluster.driver(*RUN, "--ray-address", cluster.address, "--devices", "2", *tasks, "--out", str(out2))
    killed: dict[int, str] = {}
    deadline = time.monotonic() + 120
    while proc.poll() is None and time.monotonic() < deadline:
        if any("EpisodeWorker.run" in cmd for cmd in node_processes(cluster.marker("node2")).values()):
            killed = kill_node(cluster.marker("node2"))  # the raylet, its agents, the actor's worker, its adb server
            break
        time.sleep(0.05)
    code, out = _finish(proc)
    assert killed, f"no episode ran on the second node before the run ended:\n{out}"
    assert any("/raylet " in cmd for cmd in killed.values()) and any("EpisodeWorker" in cmd for cmd in killed.values())
    assert not node_processes(cluster.marker("node2"))
    (run2,) = out2.iterdir()
    eps = _episodes(run2)
    assert len(eps) == 3, out  # every episode recorded
    assert code == EXIT_OK, out  # a fresh actor took the lost one's place: every episode scored
    assert all(e["status"] == "success" for e in eps.values()), {k: (e["status"], e["error"]) for k, e in eps.items()}
    retried = [e for e in eps.values() if e["attempts"] == 2]
    assert len(retried) == 1 and retried[0]["node"] == head, eps  # the lost node's episode, again on the head
    assert all(e["node"] in (head, node2) for e in eps.values())
    assert "the Ray worker died during the episode" in out and f"node {node2[:8]}" in out
    stale = [p.name for p in (run2 / "stale").iterdir()]  # the lost attempt's trajectory, kept aside
    assert stale == [f"{retried[0]['task_id']}__en.1"]
    summary = json.loads((run2 / "summary.json").read_text())
    assert summary["exit_code"] == EXIT_OK and summary["overall"]["infra_errors"] == 0


def _one_line_exit_2(proc: subprocess.Popen[str], *words: str) -> str:
    """The driver's one line. Not ray.init's 20 s of retries: the `words` asked for are said only by the check
    made before ray.init (distributed.check_auth), and ray.init would log a line per refused retry - an order of
    events, not a wall-clock bound."""
    code, out = _finish(proc, timeout=60)
    lines = [ln for ln in out.splitlines() if ln.strip()]
    assert code == 2 and len(lines) == 1, out
    assert all(w in lines[0] for w in words), lines[0]
    assert "Traceback" not in out
    return lines[0]


def test_a_driver_without_the_clusters_token_gets_one_line_exit_2(cluster):
    args = [*RUN, "--ray-address", cluster.address, "--task", "clock-world-time", "--out", str(cluster.root / "runs")]
    no_auth = {k: v for k, v in cluster.env.items() if not k.startswith("RAY_AUTH_")}
    line = _one_line_exit_2(cluster.driver(*args, env=no_auth), cluster.address, "token", "RAY_AUTH_MODE")
    assert "sends none" in line
    wrong = {**cluster.env, "RAY_AUTH_TOKEN": secrets.token_hex(32)}  # RAY_AUTH_TOKEN wins over the path
    line = _one_line_exit_2(cluster.driver(*args, env=wrong), "refused", "from RAY_AUTH_TOKEN")
    missing = {**cluster.env, "RAY_AUTH_TOKEN_PATH": str(cluster.root / "no-such-token")}
    line = _one_line_exit_2(cluster.driver(*args, env=missing), "no token in RAY_AUTH_TOKEN_PATH=")
    assert not (cluster.root / "runs").exists()  # nothing started (with the token it runs: the test above)
