"""`droidharness mcp`: the phone tools (harness/mcp/tools.py) served over MCP with the official `mcp` SDK.

Transports: stdio (the default: the client starts `droidharness mcp` and speaks on its stdin/stdout), or the
streamable HTTP transport (`serve_http`) behind a bearer token: a request without `Authorization: Bearer <token>`
gets 401 before it reaches the MCP app.

Tools (names as issue 22 gives them): observe, click, long_press, swipe, scroll, type_text, press_key, open_app,
list_apps, wait, task_status, complete. A tool that cannot do what it was asked answers with an MCP tool error
(`is_error`), never a crash: arguments of the wrong type are refused by the SDK, an action the schema refuses or
that cannot apply is an invalid step (recorded, as in a run) and its reason comes back as the tool error.
"""

from __future__ import annotations

import base64
import contextlib
import hmac
import json
import os
import signal
import sys
import threading
from collections.abc import Awaitable, Callable, Iterator, MutableMapping
from typing import Any

import anyio
import uvicorn
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, ImageContent, TextContent

from harness.errors import HarnessError
from harness.mcp.tools import PhoneTools

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

INSTRUCTIONS = (
    "Drive an Android device. observe() shows the screen and its numbered elements; act with click, long_press, "
    "swipe, scroll, type_text, press_key, open_app, wait (points are normalized x, y in [0, 1]; element = the [N] "
    "index of the latest screen). task_status() gives the task and the milestones reached; complete(answer) ends "
    "the episode. Every action is a step of the episode's budget, recorded and scored like a run's."
)


def _guard(tool: str, fn: Callable[[], Any]) -> Any:
    try:
        return fn()
    except HarnessError as e:  # a refused call, or a device failure: the client reads why
        raise ToolError(str(e) if str(e).startswith(tool) else f"{tool}: {e}") from None


def build_server(tools: PhoneTools) -> MCPServer:
    """The MCP server with the phone tools registered (sync tools: the SDK runs each in a worker thread; the
    tools serialize device access)."""
    server: MCPServer = MCPServer("droidharness", instructions=INSTRUCTIONS)

    @server.tool()
    def observe() -> CallToolResult:
        """The current screen: the screenshot (image) and the numbered element list (text)."""
        data, mime, text = _guard("observe", tools.observe)
        return CallToolResult(
            content=[
                ImageContent(type="image", data=base64.b64encode(data).decode("ascii"), mime_type=mime),
                TextContent(type="text", text=text),
            ]
        )

    @server.tool()
    def click(element: int | None = None, x: float | None = None, y: float | None = None) -> str:
        """Tap an element (its [N] index) or a point (x, y normalized in [0, 1], x first)."""
        return str(_guard("click", lambda: tools.click(element, x, y)))

    @server.tool()
    def long_press(
        element: int | None = None, x: float | None = None, y: float | None = None, duration: float = 1.0
    ) -> str:
        """Press and hold an element or a point (x, y normalized) for `duration` seconds."""
        return str(_guard("long_press", lambda: tools.long_press(element, x, y, duration)))

    @server.tool()
    def swipe(x1: float, y1: float, x2: float, y2: float, duration: float = 0.3) -> str:
        """Move a finger from (x1, y1) to (x2, y2), normalized in [0, 1], over `duration` seconds."""
        return str(_guard("swipe", lambda: tools.swipe(x1, y1, x2, y2, duration)))

    @server.tool()
    def scroll(direction: str, element: int | None = None, distance: float = 0.5) -> str:
        """Scroll the screen (or the scrollable `element`) so that content further `direction` (up, down, left,
        right) comes into view; `distance` is a fraction of the area in (0, 1]."""
        return str(_guard("scroll", lambda: tools.scroll(direction, element, distance)))

    @server.tool()
    def type_text(text: str, element: int | None = None, submit: bool = False) -> str:
        """Type `text` verbatim into the focused field (or focus `element` first); `submit` presses ENTER after."""
        return str(_guard("type_text", lambda: tools.type_text(text, element, submit)))

    @server.tool()
    def press_key(key: str) -> str:
        """Press a key: back, home, enter or recent."""
        return str(_guard("press_key", lambda: tools.press_key(key)))

    @server.tool()
    def open_app(name: str) -> str:
        """Launch an app by its label as the launcher shows it (e.g. "Settings") or its package."""
        return str(_guard("open_app", lambda: tools.open_app(name)))

    @server.tool()
    def list_apps() -> str:
        """The installed, enabled apps (packages, with the names open_app also knows them by)."""
        return str(_guard("list_apps", tools.list_apps))

    @server.tool()
    def wait(seconds: float) -> str:
        """Wait `seconds` (at most 60) and look again."""
        return str(_guard("wait", lambda: tools.wait(seconds)))

    @server.tool()
    def task_status() -> str:
        """The task's instruction, the steps used and left, the milestones reached so far and the progress."""
        return json.dumps(_guard("task_status", tools.task_status), ensure_ascii=False, indent=1)

    @server.tool()
    def complete(answer: str | None = None) -> str:
        """End the episode (with the answer when the task asks a question): the end state is judged as in a
        run, the episode is scored and the run's report written."""
        return str(_guard("complete", lambda: tools.complete(answer)))

    return server


@contextlib.contextmanager
def stdio_kept_clean() -> Iterator[None]:
    """While the device starts (child processes: the adb server, device processes), fd 0 reads the null device
    and fd 1 writes to stderr, so nothing a child inherits can read or write the MCP stdio channel."""
    sys.stdout.flush()
    saved = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(null, 0)
        os.dup2(2, 1)
        yield
    finally:
        sys.stdout.flush()
        os.dup2(saved[0], 0)
        os.dup2(saved[1], 1)
        for fd in (*saved, null):
            os.close(fd)


def serve_stdio(server: MCPServer) -> None:
    server.run("stdio")


class BearerAuth:
    """ASGI middleware: HTTP requests must carry `Authorization: Bearer <token>` (compared in constant time);
    others get 401 with `WWW-Authenticate: Bearer`. Lifespan events pass."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app, self.expected = app, f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            got = b""
            for name, value in scope.get("headers", []):
                if name.lower() == b"authorization":
                    got = value
            if not hmac.compare_digest(got, self.expected):
                body = json.dumps({"error": "unauthorized: send Authorization: Bearer <token>"}).encode()
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [
                            (b"content-type", b"application/json"),
                            (b"www-authenticate", b'Bearer realm="droidharness"'),
                            (b"content-length", str(len(body)).encode()),
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


def http_app(server: MCPServer, token: str, host: str) -> ASGIApp:
    """The streamable HTTP app at /mcp, behind the bearer token."""
    return BearerAuth(server.streamable_http_app(host=host), token)


class HttpServer(uvicorn.Server):
    """uvicorn's server, shut down gracefully on SIGHUP too, as it is on SIGINT and SIGTERM. uvicorn raises the
    signal again once it has shut down, and it then stops the command as every stop does (harness.stopping)."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        with super().capture_signals():  # which raises the signals it caught on the way out, SIGHUP's handler back
            if threading.current_thread() is not threading.main_thread():
                yield
                return
            before = signal.signal(signal.SIGHUP, self.handle_exit)
            try:
                yield
            finally:
                signal.signal(signal.SIGHUP, before)


def serve_http(server: MCPServer, host: str, port: int, token: str) -> None:
    config = uvicorn.Config(http_app(server, token, host), host=host, port=port, log_level="warning")
    anyio.run(HttpServer(config).serve)


__all__ = ["BearerAuth", "build_server", "http_app", "serve_http", "serve_stdio", "stdio_kept_clean"]
