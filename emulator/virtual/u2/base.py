"""What every method of the uiautomator2 server's JSON-RPC shares: the error codes and the Java-style errors the
client looks for, the table of RPC methods (`@rpc`), argument checks as Jackson does them, and UiAutomator's
timings."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..ui.gestures import LONG_PRESS_TIMEOUT_MS

NOT_FOUND_CLASS = "androidx.test.uiautomator.UiObjectNotFoundException"

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
JAVA_EXCEPTION = -32001
UI_OBJECT_NOT_FOUND = -32002

LONG_PRESS_MS = LONG_PRESS_TIMEOUT_MS  # ViewConfiguration.DEFAULT_LONG_PRESS_TIMEOUT
TOUCH_SLOP_PX = 10  # a gesture that moves less than this is a press, not a swipe
STEP_MS = 5  # UiAutomator injects one move step every 5 ms
LONG_CLICK_MS = 600  # what the model's long press holds by default (past the timeout, as longTapNoSync does)
CLICK_MS = 100  # InteractionController.REGULAR_CLICK_LENGTH: a click holds the finger down this long
SWIPE_MARGIN = 5  # UiObject.SWIPE_MARGIN_LIMIT
POLL_S = 0.05  # how often waits look at the screen again
MAX_NAMED_OBJECTS = 1000


class RpcError(Exception):
    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data

    def to_json(self) -> dict[str, Any]:
        err: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            err["data"] = self.data
        return err


class ServerKilled(Exception):
    """The server process died while a request was being served: the connection drops without a reply."""


def java_error(java_class: str, message: str, code: int = JAVA_EXCEPTION) -> RpcError:
    text = f"{java_class}: {message}" if message else java_class
    return RpcError(code, text, f"{text}\n\tat com.wetest.uia2.stub.AutomatorServiceImpl(virtual)")


def not_found(what: str) -> RpcError:
    return java_error(NOT_FOUND_CLASS, what, UI_OBJECT_NOT_FOUND)


METHODS: dict[str, str] = {}  # RPC name -> attribute name


def rpc(name: str | None = None) -> Callable:
    def deco(fn: Callable) -> Callable:
        METHODS[name or fn.__name__] = fn.__name__
        return fn

    return deco


def number(v: Any, name: str = "argument") -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise RpcError(INVALID_PARAMS, f"Invalid method parameters: {name} must be a number, got {v!r}")
    return v


def integer(v: Any, name: str = "argument") -> int:
    return int(number(v, name))  # Jackson truncates a JSON float given for a Java int


def is_target(v: Any) -> bool:
    return isinstance(v, (dict, str))


def method_names() -> list[str]:
    return sorted(METHODS)
