"""The harness owns its private adb server: when it dies mid-run (once, or twice) the pool restarts it on the same
port, the episodes that were running are retried as infrastructure failures, and every episode ends scored. No
adb server appears on 5037. The server killed here belongs to the pool this test started (killed by its pid)."""

from __future__ import annotations

import os
import signal
import socket
from typing import Any

from harness.agent import AgentStep, EpisodeContext, HistoryItem
from harness.device.controller import DeviceConfig
from harness.device.link import LinkConfig
from harness.plugins import create_agent
from harness.run.fleet.pool import DevicePool
from harness.run.orchestration.suite import SuiteOptions, run_suite
from tests.run_util import FAST_WRITER

TASKS = ("settings-dark-theme", "notes-search-password", "clock-world-time")


def _listening(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


def _run_with_server_kills(tmp_path: Any, kills_at: set[tuple[str, int]]) -> tuple[Any, DevicePool, int, list[int]]:
    config = DeviceConfig(link=LinkConfig(call_timeout=5.0, reconnect_timeout=2.0))
    killed: list[int] = []
    with DevicePool(2, config=config) as pool:
        port = pool._server.port

        class KillsTheServer:
            name = "reference-that-kills-the-adb-server"

            def __init__(self) -> None:
                self.ref = create_agent("reference")
                self.task = ""

            def reset(self, ctx: EpisodeContext) -> None:
                self.ref.reset(ctx)
                self.task = ctx.task.id

            def act(self, obs: Any, history: list[HistoryItem]) -> AgentStep:
                key = (self.task, len(history) + 1)
                if key in kills_at:
                    kills_at.discard(key)
                    pid = pool._server.pid
                    assert pid is not None
                    os.kill(pid, signal.SIGKILL)
                    killed.append(pid)
                return self.ref.act(obs, history)

        res = run_suite(
            SuiteOptions(writer=FAST_WRITER, task_ids=TASKS, langs=("en",), out=tmp_path, run_id="r", infra_retries=2),
            agent_factory=KillsTheServer,
            pool=pool,
        )
        assert pool._server.alive() and pool._server.port == port, "restarted on the same private port"
    return res, pool, port, killed


def test_the_adb_server_killed_once_is_restarted_and_every_episode_is_scored(tmp_path):
    on_5037 = _listening(5037)
    res, pool, port, killed = _run_with_server_kills(tmp_path, {("notes-search-password", 2)})
    assert len(killed) == 1
    by_task = {r.task_id: r for r in res.results}
    assert by_task["notes-search-password"].attempts >= 2 and by_task["notes-search-password"].success
    assert res.board.overall.scored == len(TASKS) and res.board.overall.infra_errors == 0
    assert res.sr == 1.0 and res.exit_code == 0
    assert not _listening(port), "the pool stopped the server it restarted"
    assert _listening(5037) == on_5037, "no adb server was started on the user's port"


def test_the_adb_server_killed_twice_in_a_run(tmp_path):
    res, _, _, killed = _run_with_server_kills(tmp_path, {("settings-dark-theme", 2), ("clock-world-time", 2)})
    assert len(killed) == 2 and killed[0] != killed[1]
    assert res.board.overall.scored == len(TASKS) and res.sr == 1.0, [
        (r.task_id, r.status, r.error) for r in res.results
    ]
