"""`droidharness mcp` (issue 22): the official `mcp` client SDK drives the server over stdio through a bundled
task's solution to a recorded, scored success; bad tool arguments are tool errors, not crashes; the streamable
HTTP transport refuses requests without the bearer token.

The server is the real command in a child process, with its embedded virtual device behind its own private adb
server."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client, ClientSession, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from emulator.virtual.adbserver import free_port
from harness.mcp.server import BearerAuth
from harness.mcp.tools import FREE_TASK_ID, PhoneTools, ToolCallError
from harness.run.fleet.pool import DevicePool
from harness.run.orchestration.interactive import find_task
from harness.scoring.episodes import score
from harness.trajectory.reader import load_run
from tests.paths import REPO

pytestmark = pytest.mark.integration

ROOT = REPO
TASK = "settings-dark-theme"
TOOLS = {
    "observe",
    "click",
    "long_press",
    "swipe",
    "scroll",
    "type_text",
    "press_key",
    "open_app",
    "list_apps",
    "wait",
    "task_status",
    "complete",
}


def text_of(result: Any) -> str:
    return "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")


def element(text: str, label: str) -> int:
    """The [N] index of the element line showing `label` in a tool's element list."""
    m = re.search(rf'^\[(\d+)\] \w+ "{re.escape(label)}"', text, re.M)
    assert m, f"no element {label!r} in:\n{text}"
    return int(m.group(1))


def test_stdio_client_drives_a_task_to_a_recorded_scored_success(tmp_path):
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "harness", "mcp", "--task", TASK, "--out", str(tmp_path), "--run-id", "session"],
        env=dict(os.environ),
        cwd=str(ROOT),
    )

    async def session() -> dict[str, Any]:
        seen: dict[str, Any] = {}
        async with Client(params) as client:
            seen["tools"] = {t.name for t in (await client.list_tools()).tools}
            status = json.loads(text_of(await client.call_tool("task_status", {})))
            assert status["instruction"] == "Switch the phone to dark theme." and status["progress"] == 0
            shot = await client.call_tool("observe", {})
            assert [c.type for c in shot.content] == ["image", "text"] and "Settings" in text_of(shot)
            # bad arguments: refused by the SDK's argument check, or an invalid step of the episode; never a crash
            for name, args in [
                ("click", {"element": "twelve"}),  # not an integer
                ("click", {}),  # no target
                ("click", {"x": 1.5, "y": 0.5}),  # off the screen
                ("click", {"element": 999}),  # no such element
                ("press_key", {"key": "volume_up"}),
                ("scroll", {"direction": "sideways"}),
                ("swipe", {"x1": 0.5}),  # missing arguments
            ]:
                r = await client.call_tool(name, args)
                assert r.is_error, (name, args, text_of(r))
                seen.setdefault("errors", []).append(text_of(r))
            r = await client.call_tool("open_app", {"name": "Settings"})
            assert not r.is_error, text_of(r)
            r = await client.call_tool("scroll", {"direction": "down"})
            r = await client.call_tool("click", {"element": element(text_of(r), "Display")})
            assert "progress 50% (new: display)" in text_of(r)
            r = await client.call_tool("click", {"element": element(text_of(r), "Dark theme")})
            assert "progress 100% (new: dark)" in text_of(r), text_of(r)
            seen["complete"] = text_of(await client.call_tool("complete", {}))
            late = await client.call_tool("click", {"element": 1})
            assert late.is_error and "episode is over" in text_of(late)
            seen["status"] = json.loads(text_of(await client.call_tool("task_status", {})))
        return seen

    seen = anyio.run(session)
    assert seen["tools"] == TOOLS  # exactly the tools: no shell
    assert "episode finished: SUCCESS, progress 100%; end state held" in seen["complete"]
    assert seen["status"]["finished"] and seen["status"]["success"] is True
    errors = seen["errors"]
    assert "element" in errors[0] and "a target is required" in errors[1] and "no element [999]" in errors[3]
    assert "not one of back, home, enter, recent" in errors[4] and "x2" in errors[6]

    run = load_run(tmp_path / "session")
    ep = run.episode(TASK, "en")
    assert ep.meta.success and ep.meta.progress == 1.0 and ep.meta.reset_method == "state_restore"
    assert ep.meta.extra["terminated_by"] == "COMPLETE"
    assert ep.meta.invalid_outputs == 4 and ep.meta.steps == 4 + 5  # the invalid steps and the solution's 5
    assert score([ep.meta.to_result()]).sr == 1.0 and run.manifest.agent["name"] == "mcp"
    steps = [json.loads(line) for line in (ep.path / "steps.jsonl").read_text().splitlines()]
    assert [json.loads(s["agent"]["raw_output"])["tool"] for s in steps][-3:] == ["click", "click", "complete"]
    assert (tmp_path / "session" / "summary.json").is_file() and (tmp_path / "session" / "report.html").is_file()


def _free_port() -> int:
    """A port a server this test starts will listen on: outside the kernel's ephemeral range, so no socket bound
    to port 0 in the meantime (an outgoing connection, a parallel test) takes it first."""
    return free_port(listen_later=True)


def _post(url: str, headers: dict[str, str]) -> int:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}).encode()
    req = urllib.request.Request(url, body, {"Content-Type": "application/json", **headers}, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return int(resp.status)
    except urllib.error.HTTPError as e:
        return int(e.code)


def test_http_transport_requires_the_bearer_token(tmp_path):
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if k != "DROIDHARNESS_MCP_TOKEN"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "harness", "mcp", "--http", f"127.0.0.1:{port}", "--out", str(tmp_path)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        token = first.rsplit(" ", 1)[-1].strip()
        assert first.startswith("droidharness mcp: bearer token ") and len(token) >= 24
        url = f"http://127.0.0.1:{port}/mcp"
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read() if proc.stderr else ""
                time.sleep(0.2)
        assert _post(url, {}) == 401
        assert _post(url, {"Authorization": "Bearer wrong"}) == 401
        assert _post(url, {"Authorization": token}) == 401  # not a bearer header

        async def with_token() -> set[str]:
            async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60) as http:
                async with streamable_http_client(url, http_client=http) as (read, write):
                    async with ClientSession(read, write) as s:
                        await s.initialize()
                        r = await s.call_tool("task_status", {})
                        assert json.loads(text_of(r))["task_id"] is None  # a free session
                        return {t.name for t in (await s.list_tools()).tools}

        assert anyio.run(with_token) == TOOLS
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.mark.parametrize("header", [None, b"Bearer nope", b"Bearer s3cret"])
def test_bearer_auth_middleware(header):
    """The middleware alone: only the exact bearer token reaches the app; lifespan events pass."""
    reached: list[str] = []
    sent: list[dict[str, Any]] = []

    async def app(scope, receive, send):
        reached.append(scope["type"])

    async def send(message):
        sent.append(message)

    async def go() -> None:
        auth = BearerAuth(app, "s3cret")
        headers = [(b"authorization", header)] if header else []
        await auth({"type": "http", "headers": headers}, None, send)
        await auth({"type": "lifespan"}, None, send)

    anyio.run(go)
    if header == b"Bearer s3cret":
        assert reached == ["http", "lifespan"] and not sent
    else:
        assert reached == ["lifespan"] and sent[0]["status"] == 401


@pytest.fixture
def inproc_pool():
    """One in-process virtual device (no adb): the tools' episode logic, quickly."""
    pool = DevicePool(1, isolation="in_process").start()
    yield pool
    pool.close()


def test_the_step_budget_ends_the_episode_as_in_a_run(tmp_path, inproc_pool):
    task = find_task("virtual", TASK).model_copy(update={"max_steps": 2})
    tools = PhoneTools(inproc_pool, task, "en", tmp_path, "budget")
    tools.begin()
    assert tools.press_key("home").startswith("step 1/2: press home; progress 0%")
    with pytest.raises(ToolCallError, match=r"invalid step 2, nothing done: .*budget is used up: episode finished"):
        tools.click(element=999)
    with pytest.raises(ToolCallError, match="the episode is over"):
        tools.press_key("back")
    tools.close()
    ep = load_run(tmp_path / "budget").episode(TASK, "en").meta
    assert ep.extra["terminated_by"] == "max_steps" and ep.steps == 2 and ep.invalid_outputs == 1 and not ep.success


def test_a_free_session_is_recorded_not_scored(tmp_path, inproc_pool):
    tools = PhoneTools(inproc_pool, None, "en", tmp_path, "free")
    tools.begin()
    assert tools.task_status()["progress"] is None
    assert "Settings" in tools.observe()[2] and "com.android.settings" in tools.list_apps()
    assert tools.open_app("Settings").startswith('step 1/200: open app "Settings"')
    assert "nothing scored" in tools.complete()
    run = load_run(tmp_path / "free", skip_bad=True)
    assert run.episode(FREE_TASK_ID, "en").status == "unfinished"
    steps = (tmp_path / "free" / "episodes").glob("*/steps.jsonl")
    assert [len(p.read_text().splitlines()) for p in steps] == [2]  # OPEN_APP and COMPLETE, recorded
