"""A local OpenAI-compatible HTTP server for tests: scripted replies, faults on demand, recorded requests.

    with OpenAIStub(["Thought: ...\\nAction: press_home()"]) as stub:
        agent = OpenAIAgent(base_url=stub.url, api_key="sk-test", ...)
        stub.push(fault(429), reply("..."))
        stub.requests[-1].body["messages"]

Scripted items (consumed in order; or pass `handler(body) -> item` to compute one from the request):
- a `str`: a completion whose message content is that text;
- `reply(content, tool_calls=..., usage=...)`: a completion with native tool calls / custom usage;
- `fault(status, message, headers)`: an HTTP error with an OpenAI-style error body (429, 500, 401, ...);
- `malformed(body, status=200)`: raw bytes as the body (not a chat completion);
- a dict with "choices": sent verbatim as the JSON body.
When the queue is empty the stub answers 500 "openai_stub: no scripted response left".
Only `http.server` and a thread; listens on 127.0.0.1 with an OS-assigned port.
"""

from __future__ import annotations

import functools
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Reply:
    content: str | None = None
    tool_calls: list[dict[str, Any]] | None = None
    usage: dict[str, int] | None = None
    finish_reason: str = "stop"


@dataclass(frozen=True)
class Fault:
    status: int
    message: str = "stub fault"
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Malformed:
    body: bytes = b"this is not json"
    status: int = 200
    content_type: str = "application/json"


def reply(
    content: str | None = None, tool_calls: list[dict[str, Any]] | None = None, usage: dict[str, int] | None = None
) -> Reply:
    return Reply(content, tool_calls, usage)


def fault(status: int, message: str = "stub fault", headers: dict[str, str] | None = None) -> Fault:
    return Fault(status, message, dict(headers or {}))


def malformed(body: bytes = b"this is not json", status: int = 200) -> Malformed:
    return Malformed(body, status)


def tool_call(arguments: dict[str, Any], name: str = "mobile_use") -> dict[str, Any]:
    return {"id": "call_0", "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}


@dataclass(frozen=True)
class RecordedRequest:
    path: str
    headers: dict[str, str]
    body: Any  # parsed JSON (or the raw text when it was not JSON)


class OpenAIStub:
    def __init__(
        self, responses: list[Any] | tuple[Any, ...] = (), handler: Callable[[Any], Any] | None = None
    ) -> None:
        self._queue: list[Any] = list(responses)
        self._handler = handler
        self._lock = threading.Lock()
        self.requests: list[RecordedRequest] = []
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._n = 0

    # --- control -----------------------------------------------------------------------------------------
    def start(self) -> OpenAIStub:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:
                stub._serve(self)

            def do_GET(self) -> None:
                self._send(404, b'{"error": {"message": "not found"}}')

            def _send(
                self,
                status: int,
                body: bytes,
                headers: dict[str, str] | None = None,
                content_type: str = "application/json",
            ) -> None:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(body)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        # a 50 ms poll: stop() waits for serve_forever to see the shutdown (its default 0.5 s poll cost each test that)
        serve = functools.partial(self._server.serve_forever, poll_interval=0.05)
        self._thread = threading.Thread(target=serve, name="openai-stub", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> OpenAIStub:  # noqa: PYI034
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._server is not None, "stub not started"
        return self._server.server_address[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def push(self, *items: Any) -> None:
        with self._lock:
            self._queue.extend(items)

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._queue)

    # --- serving -------------------------------------------------------------------------------------------
    def _serve(self, h: Any) -> None:
        length = int(h.headers.get("Content-Length") or 0)
        raw = h.rfile.read(length) if length else b""
        try:
            body: Any = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            body = raw.decode("utf-8", "replace")
        with self._lock:
            self.requests.append(RecordedRequest(h.path, {k.lower(): v for k, v in h.headers.items()}, body))
            self._n += 1
            n = self._n
            if self._handler is not None:
                item = None
            else:
                item = self._queue.pop(0) if self._queue else Fault(500, "openai_stub: no scripted response left")
        if self._handler is not None:
            item = self._handler(body)
        if not h.path.split("?", 1)[0].rstrip("/").endswith("/chat/completions"):
            h._send(404, json.dumps({"error": {"message": f"openai_stub: no route {h.path}"}}).encode())
            return
        if isinstance(item, Fault):
            err = {"error": {"message": item.message, "type": "stub_error", "code": item.status}}
            h._send(item.status, json.dumps(err).encode(), item.headers)
            return
        if isinstance(item, Malformed):
            h._send(item.status, item.body, content_type=item.content_type)
            return
        if isinstance(item, dict) and "choices" in item:
            h._send(200, json.dumps(item).encode())
            return
        if isinstance(item, str):
            item = Reply(content=item)
        if not isinstance(item, Reply):
            raise TypeError(f"openai_stub: cannot serve {type(item).__name__}")
        model = body.get("model", "stub") if isinstance(body, dict) else "stub"
        message: dict[str, Any] = {"role": "assistant", "content": item.content}
        if item.tool_calls:
            message["tool_calls"] = item.tool_calls
        usage = item.usage or {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}
        completion = {
            "id": f"chatcmpl-stub-{n}",
            "object": "chat.completion",
            "created": 0,
            "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": item.finish_reason}],
            "usage": usage,
        }
        h._send(200, json.dumps(completion, ensure_ascii=False).encode("utf-8"))
