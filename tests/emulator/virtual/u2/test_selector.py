"""In-process tests of the virtual uiautomator2 server: selector matching, HTTP framing, the JSON-RPC methods and
the server's life cycle. No adb: requests go through an in-memory stream."""

from __future__ import annotations

import base64
import io
import json
import queue
import threading
import time
import xml.etree.ElementTree as ET

import pytest
from PIL import Image

from emulator.virtual.model import VirtualDeviceModel
from emulator.virtual.streams import StreamClosed
from emulator.virtual.u2 import selector as S
from emulator.virtual.u2.rpc import RpcService
from emulator.virtual.u2server import running_server, serve_until_closed
from emulator.virtual.ui.view import View
from tests.u2_fake_ui import FakeUI, rid


# --- helpers --------------------------------------------------------------------------------------------
def sel(**kw):
    """The dict uiautomator2's Selector(**kw) sends (mask + fields + empty chain)."""
    s = {"mask": 0, "childOrSibling": [], "childOrSiblingSelector": []}
    for k, v in kw.items():
        s[k] = v
        s["mask"] |= S.FIELDS[k]
    return s


def child(s, **kw):
    return S.with_chain(s, "child", sel(**kw))


def sibling(s, **kw):
    return S.with_chain(s, "sibling", sel(**kw))


class MemStream:
    """An adb stream in memory. The host side feeds chunks (None = host closed) and reads what the device wrote."""

    def __init__(self) -> None:
        self._in: queue.Queue[bytes | None] = queue.Queue()
        self.out = bytearray()
        self._closed = threading.Event()

    def feed(self, data: bytes | None) -> None:
        self._in.put(data)

    def read(self, n: int = -1, timeout: float | None = None) -> bytes:
        try:
            chunk = self._in.get(timeout=timeout)
        except queue.Empty:
            return b""
        if chunk is None:
            self._closed.set()
            return b""
        return chunk

    def read_exact(self, n: int) -> bytes:
        raise NotImplementedError

    def write(self, data: bytes) -> None:
        if self._closed.is_set():
            raise StreamClosed()
        self.out += data

    def hold_output(self) -> None:
        pass  # nothing is sent anywhere: there is no WRTE to join

    def release_output(self) -> None:
        pass

    def close(self) -> None:
        self._closed.set()

    @property
    def closed(self) -> bool:
        return self._closed.is_set()

    def wait_closed(self, timeout: float | None = None) -> bool:
        return self._closed.wait(timeout)


class MemShellIO:
    def __init__(self) -> None:
        self.stdout = bytearray()
        self.stderr = bytearray()
        self._closed = threading.Event()

    def read_stdin(self, n: int = -1, timeout: float | None = None) -> bytes:
        self._closed.wait(timeout)
        return b""

    def write_stdout(self, data: bytes) -> None:
        self.stdout += data

    def write_stderr(self, data: bytes) -> None:
        self.stderr += data

    def close(self) -> None:
        self._closed.set()

    @property
    def closed(self) -> bool:
        return self._closed.is_set()

    def wait_closed(self, timeout: float | None = None) -> bool:
        return self._closed.wait(timeout)


def parse_response(raw: bytes) -> tuple[int, dict[str, str], bytes]:
    head, _, body = bytes(raw).partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    status = int(lines[0].split()[1])
    headers = {k.lower(): v.strip() for k, _, v in (l.partition(":") for l in lines[1:])}
    return status, headers, body


def http(handler, method: str, path: str, body: bytes | None = None, split: bool = True):
    """Send one request to a port handler the way uiautomator2's http.client does: headers, then the body in a
    second write, and close the stream once the reply has come (the server would keep it for another request)."""
    s = MemStream()
    head = f"{method} {path} HTTP/1.1\r\nHost: localhost:9008\r\nUser-Agent: uiautomator2\r\nAccept-Encoding: \r\n"
    if body is not None:
        head += f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
    head += "\r\n"
    t = threading.Thread(target=handler, args=(s,), daemon=True)
    t.start()
    if split:
        for i in range(0, len(head), 7):  # headers dribble in
            s.feed(head[i : i + 7].encode())
        time.sleep(0.01)
        if body:
            s.feed(body)
    else:
        s.feed(head.encode() + (body or b""))
    s.feed(None)  # http.client has read the Content-Length bytes and closes
    t.join(10)
    assert not t.is_alive(), "handler did not finish"
    assert s.closed, "the server must end the stream once the client closed it"
    return parse_response(s.out) if s.out else (None, {}, b"")


@pytest.fixture
def model():
    return VirtualDeviceModel()


@pytest.fixture
def ui(model):
    return FakeUI.install(model)


@pytest.fixture
def server(model):
    """A running server (serve_until_closed in a thread) and its shell I/O; stopped at teardown."""
    io_ = MemShellIO()
    result: dict[str, int] = {}
    t = threading.Thread(target=lambda: result.setdefault("rc", serve_until_closed(model, io_, 9008)), daemon=True)
    t.start()
    deadline = time.time() + 5
    while 9008 not in model.ports and time.time() < deadline:
        time.sleep(0.01)
    assert 9008 in model.ports
    yield model.ports[9008], io_, t, result
    io_.close()
    t.join(5)


def rpc(model_or_handler, method, params=None):
    """Call a method through HTTP on a handler and return (result, error)."""
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": [] if params is None else params})
    status, headers, raw = http(model_or_handler, "POST", "/jsonrpc/0", body.encode())
    assert status == 200
    data = json.loads(raw)
    assert data["jsonrpc"] == "2.0" and data["id"] == 1
    return data.get("result"), data.get("error")


@pytest.fixture
def svc(model, ui):
    return RpcService(model, threading.Event())


def call(svc, method, *params):
    data = json.loads(
        svc.handle(
            json.dumps({"jsonrpc": "2.0", "id": 7, "method": method, "params": list(params) if params else {}}).encode()
        )
    )
    assert data["id"] == 7
    if "error" in data:
        raise AssertionError(f"unexpected error {data['error']}")
    return data["result"]


def inputs(model, mark):
    """Events since `mark` without the RPC log itself."""
    return [e for e in model.events.since(mark) if e.kind != "u2_rpc"]


def call_error(svc, method, *params):
    data = json.loads(
        svc.handle(json.dumps({"jsonrpc": "2.0", "id": 7, "method": method, "params": list(params)}).encode())
    )
    assert "error" in data and "result" not in data, data
    return data["error"]


# --- selector matching on a hand-built tree --------------------------------------------------------------
def tree():
    a = View(
        cls="android.widget.TextView",
        text="Alpha",
        desc="first",
        resource_id="p:id/a",
        package="p",
        bounds=(0, 0, 100, 50),
        clickable=True,
    )
    b = View(
        cls="android.widget.TextView",
        text="Beta",
        desc="second",
        resource_id="p:id/b",
        package="p",
        bounds=(0, 50, 100, 100),
        checkable=True,
        checked=True,
    )
    c = View(
        cls="android.widget.Button",
        text="Alpha",
        resource_id="p:id/c",
        package="p",
        bounds=(0, 100, 100, 150),
        enabled=False,
        long_clickable=True,
    )
    row1 = View(
        cls="android.widget.LinearLayout", package="p", resource_id="p:id/row", bounds=(0, 0, 100, 100), children=[a, b]
    )
    row2 = View(
        cls="android.widget.LinearLayout",
        package="p",
        resource_id="p:id/row",
        bounds=(0, 100, 100, 200),
        children=[
            c,
            View(
                cls="android.widget.TextView",
                text="Gamma",
                package="p",
                bounds=(0, 150, 100, 250),
                selected=True,
                focusable=True,
                focused=True,
            ),
        ],
    )
    root = View(
        cls="android.widget.FrameLayout", package="p", bounds=(0, 0, 100, 200), children=[row1, row2], scrollable=True
    )
    bar = View(
        cls="android.widget.FrameLayout",
        package="com.android.systemui",
        bounds=(0, 190, 100, 200),
        children=[
            View(
                cls="android.widget.ImageView",
                desc="Back",
                package="com.android.systemui",
                bounds=(0, 190, 50, 200),
                clickable=True,
            )
        ],
    )
    return S.flatten([root, bar], (100, 200))


def texts(nodes):
    return [n.view.text or n.view.desc or n.view.cls.rsplit(".", 1)[-1] for n in nodes]


@pytest.mark.parametrize(
    "criteria, expected",
    [
        ({"text": "Alpha"}, ["Alpha", "Alpha"]),
        ({"text": "alpha"}, []),
        ({"textContains": "et"}, ["Beta"]),
        ({"textStartsWith": "Ga"}, ["Gamma"]),
        ({"textMatches": "A.*"}, ["Alpha", "Alpha"]),
        ({"textMatches": "lph"}, []),  # Java String.matches: the whole text must match
        ({"textMatches": "(?i)BETA"}, ["Beta"]),
        ({"className": "android.widget.Button"}, ["Alpha"]),
        ({"classNameMatches": r".*\.LinearLayout"}, ["LinearLayout", "LinearLayout"]),
        ({"description": "first"}, ["Alpha"]),
        ({"descriptionContains": "eco"}, ["Beta"]),
        ({"descriptionStartsWith": "Ba"}, ["Back"]),
        ({"descriptionMatches": "f.rst"}, ["Alpha"]),
        ({"packageName": "com.android.systemui"}, ["FrameLayout", "Back"]),
        ({"packageNameMatches": "com\\..*", "clickable": True}, ["Back"]),
        ({"resourceId": "p:id/b"}, ["Beta"]),
        ({"resourceIdMatches": ".*/[ab]"}, ["Alpha", "Beta"]),
        ({"checkable": True}, ["Beta"]),
        ({"checked": True}, ["Beta"]),
        ({"clickable": True}, ["Alpha", "Back"]),
        ({"longClickable": True}, ["Alpha"]),
        ({"scrollable": True}, ["FrameLayout"]),
        ({"enabled": False}, ["Alpha"]),
        ({"focusable": True, "focused": True, "selected": True}, ["Gamma"]),
        ({"text": "Alpha", "className": "android.widget.TextView"}, ["Alpha"]),
        ({"className": "android.widget.TextView", "index": 1}, ["Beta", "Gamma"]),
        ({"className": "android.widget.FrameLayout", "index": 1}, ["FrameLayout"]),  # window roots are indexed too
        ({"text": "Alpha", "instance": 1}, ["Alpha"]),
        ({"text": "Alpha", "instance": 2}, []),
    ],
)
def test_selector_criteria(criteria, expected):
    assert texts(S.find_all(tree(), sel(**criteria))) == expected


def test_instance_picks_nth_in_document_order():
    nodes = tree()
    first = S.find(nodes, sel(text="Alpha", instance=0))
    second = S.find(nodes, sel(text="Alpha", instance=1))
    assert first.view.cls == "android.widget.TextView" and second.view.cls == "android.widget.Button"


def test_mask_decides_which_fields_count():
    s = sel(text="Beta")
    s["className"] = "android.widget.Button"  # present but its mask bit is not set: ignored, like the server
    assert texts(S.find_all(tree(), s)) == ["Beta"]


def test_child_and_sibling_chains():
    nodes = tree()
    rows = sel(resourceId="p:id/row")
    assert texts(S.find_all(nodes, child(rows, className="android.widget.TextView"))) == ["Alpha", "Beta", "Gamma"]
    # instance on the child pattern counts across every row
    assert texts(S.find_all(nodes, child(rows, className="android.widget.TextView", instance=2))) == ["Gamma"]
    # instance on the parent picks the row first
    assert texts(S.find_all(nodes, child(sel(resourceId="p:id/row", instance=1), textContains="a"))) == [
        "Alpha",
        "Gamma",
    ]
    # sibling = search from the parent: Beta's row holds Alpha
    assert texts(S.find_all(nodes, sibling(sel(text="Beta"), text="Alpha"))) == ["Alpha"]
    assert texts(S.find_all(nodes, sibling(sel(text="Gamma"), className="android.widget.Button"))) == ["Alpha"]
    # child of a child
    nested = child(child(sel(scrollable=True), resourceId="p:id/row", instance=1), text="Gamma")
    assert texts(S.find_all(nodes, nested)) == ["Gamma"]
    assert S.find_all(nodes, child(sel(text="Beta"), text="Alpha")) == []


def test_visible_bounds_are_clipped_by_parents_and_display():
    nodes = tree()
    gamma = S.find(nodes, sel(text="Gamma"))
    info = S.obj_info(gamma)
    assert info["bounds"] == {"left": 0, "top": 150, "right": 100, "bottom": 250}
    assert info["visibleBounds"] == {"left": 0, "top": 150, "right": 100, "bottom": 200}


def test_bad_regex_is_a_java_error():
    with pytest.raises(S.SelectorError) as e:
        S.find_all(tree(), sel(textMatches="("))
    assert e.value.java_class == "java.util.regex.PatternSyntaxException"


def test_describe_like_java():
    s = child(sel(text="OK", clickable=True), className="android.widget.Button")
    assert S.describe(s) == "UiSelector[TEXT=OK, CLICKABLE=true, CHILD=UiSelector[CLASS=android.widget.Button]]"


def test_obj_info_shape():
    info = S.obj_info(S.find(tree(), sel(text="Beta")))
    assert set(info) == {
        "bounds",
        "checkable",
        "checked",
        "childCount",
        "className",
        "clickable",
        "contentDescription",
        "enabled",
        "focusable",
        "focused",
        "longClickable",
        "packageName",
        "resourceName",
        "scrollable",
        "selected",
        "text",
        "visibleBounds",
    }
    assert info["resourceName"] == "p:id/b" and info["checked"] is True and info["childCount"] == 0


# --- HTTP framing and the server's life cycle ------------------------------------------------------------------
def test_ping_and_http_framing(server):
    handler, *_ = server
    status, headers, body = http(handler, "GET", "/ping")
    assert (status, body) == (200, b"pong")
    assert headers["content-length"] == "4" and headers["connection"].lower() == "keep-alive"  # HTTP/1.1's default
    status, _, _ = http(handler, "GET", "/nope")
    assert status == 404


@pytest.mark.parametrize("split", [True, False])
def test_jsonrpc_over_http(server, split):
    handler, *_ = server
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "deviceInfo", "params": {}}).encode()
    status, headers, raw = http(handler, "POST", "/jsonrpc/0", body, split=split)
    assert status == 200 and headers["content-type"].startswith("application/json")
    assert int(headers["content-length"]) == len(raw)
    info = json.loads(raw)["result"]
    assert info["displayWidth"] == 1080 and info["displayHeight"] == 2400 and info["sdkInt"] == 34


def test_jsonrpc_errors(server):
    handler, *_ = server
    status, _, raw = http(handler, "POST", "/jsonrpc/0", b"{not json")
    assert status == 200 and json.loads(raw)["error"]["code"] == -32700
    _, err = rpc(handler, "noSuchMethod", [])
    assert err["code"] == -32601 and "method not found" in err["message"].lower()
    _, err = rpc(handler, "objInfo", [sel(text="definitely not there")])
    assert err["code"] == -32002 and "uiautomator.UiObjectNotFoundException" in err["message"]
    _, err = rpc(handler, "click", [1])
    assert err["code"] == -32602


def test_serve_lifecycle_close(model, server):
    handler, io_, t, result = server
    assert model.u2_running and model.u2_pid
    assert b"Starting Server" in io_.stdout
    io_.close()  # the client kills the server by closing the shell stream
    t.join(5)
    assert result["rc"] == 0
    assert 9008 not in model.ports and not model.u2_running and running_server(model) is None


def test_kill_u2_unregisters_and_exits_137(model, server):
    handler, io_, t, result = server
    model.faults.kill_u2()
    assert 9008 not in model.ports  # refused at once, before the serve loop even wakes
    t.join(5)
    assert result["rc"] == 137 and not model.u2_running
    # a new launch works after a kill
    io2 = MemShellIO()
    t2 = threading.Thread(target=lambda: serve_until_closed(model, io2, 9008), daemon=True)
    t2.start()
    deadline = time.time() + 5
    while 9008 not in model.ports and time.time() < deadline:
        time.sleep(0.01)
    status, _, body = http(model.ports[9008], "GET", "/ping")
    assert body == b"pong"
    io2.close()
    t2.join(5)


def test_kill_drops_in_flight_request(model, ui, server):
    handler, *_ = server
    s = MemStream()
    body = json.dumps(
        {"jsonrpc": "2.0", "id": 1, "method": "waitForExists", "params": [sel(text="never"), 20000]}
    ).encode()
    s.feed(f"POST /jsonrpc/0 HTTP/1.1\r\nContent-Length: {len(body)}\r\n\r\n".encode() + body)
    t = threading.Thread(target=handler, args=(s,), daemon=True)
    t.start()
    time.sleep(0.2)
    assert t.is_alive()  # still waiting for the view
    model.faults.kill_u2()
    t.join(5)
    assert not t.is_alive() and s.closed and s.out == b""  # no reply: the connection just drops


def test_second_server_reports_already_registered(model, server):
    io2 = MemShellIO()
    rc = serve_until_closed(model, io2, 9008)
    assert rc == 1 and b"already registered" in io2.stdout + io2.stderr
    assert 9008 in model.ports  # the first one keeps serving


def test_port_taken_by_something_else(model):
    model.ports[9008] = lambda stream: None
    io_ = MemShellIO()
    assert serve_until_closed(model, io_, 9008) == 1
    assert b"Address already in use" in io_.stderr


# --- RPC methods on the fake screen ------------------------------------------------------------------
def test_every_rpc_is_logged_and_applies_u2_rpc_latency_once(model, svc, monkeypatch):
    mark = model.events.mark()
    call(svc, "exist", sel(text="OK"))
    assert [e["method"] for e in model.events.since(mark, "u2_rpc")] == ["exist"]
    ops = []
    monkeypatch.setattr(model.latency, "delay", lambda op: ops.append(op))
    call(svc, "deviceInfo")
    assert ops == ["u2_rpc"]
    ops.clear()
    call(svc, "takeScreenshot", 1, 80)
    assert sorted(ops) == ["u2_rpc", "u2_screenshot"]
    ops.clear()
    call(svc, "dumpWindowHierarchy", False, 50)
    assert sorted(ops) == ["u2_hierarchy", "u2_rpc"]


def test_device_info(model, svc):
    info = call(svc, "deviceInfo")
    assert info == {
        "currentPackageName": "com.google.android.apps.nexuslauncher",
        "displayHeight": 2400,
        "displayRotation": 0,
        "displaySizeDpX": 411,
        "displaySizeDpY": 914,
        "displayWidth": 1080,
        "naturalOrientation": True,
        "productName": model.props["ro.product.name"],
        "screenOn": True,
        "sdkInt": 34,
    }
    call(svc, "setOrientation", "left")
    info = call(svc, "deviceInfo")
    assert (info["displayRotation"], info["displayWidth"], info["displayHeight"]) == (1, 2400, 1080)
    assert info["naturalOrientation"] is False
    call(svc, "setOrientation", "natural")
    assert model.rotation == 0


def test_screenshot_is_jpeg_of_display(svc):
    img = Image.open(io.BytesIO(base64.b64decode(call(svc, "takeScreenshot", 1, 80))))
    assert img.format == "JPEG" and img.size == (1080, 2400)
    small = Image.open(io.BytesIO(base64.b64decode(call(svc, "takeScreenshot", 0.5, 50))))
    assert small.size == (540, 1200)


def test_hierarchy_is_u2_xml(svc):
    xml = call(svc, "dumpWindowHierarchy", False, 50)
    root = ET.fromstring(xml.encode())
    assert root.tag == "hierarchy" and root.find(".//node[@text='OK']") is not None
    assert root.find(".//node[@text='OK']").get("visible-to-user") == "true"
    shallow = ET.fromstring(call(svc, "dumpWindowHierarchy", False, 1).encode())
    assert len(list(shallow.iter("node"))) == 1
    assert ET.fromstring(call(svc, "dumpWindowHierarchy", True, 50, True).encode()).find(".//node") is not None


def test_click_and_long_click_coordinates(model, ui, svc):
    mark = model.events.mark()
    assert call(svc, "click", 270, 250) is True
    assert ui.ok_clicks == 1
    assert call(svc, "click", 810.7, 250.2, 600) is True  # [x, y, ms] = long_click; floats are truncated
    assert ui.long_presses == 1
    assert call(svc, "click", 270, 250, 100) is True  # a short hold is a tap
    assert ui.ok_clicks == 2
    assert call(svc, "click", -1, 5) is False
    evs = [(e.kind, e.data.get("source")) for e in inputs(model, mark)]
    assert evs == [("tap", "u2"), ("long_press", "u2"), ("tap", "u2")]
    lp = model.events.since(mark, "long_press")[0]
    assert (lp["x"], lp["y"], lp["duration_ms"]) == (810, 250, 600)


def test_swipe_duration_is_steps_times_5ms(model, ui, svc):
    mark = model.events.mark()
    call(svc, "swipe", 540, 1800, 540, 1200, 20)
    ev = model.events.since(mark, "swipe")[0]
    assert (ev["x1"], ev["y1"], ev["x2"], ev["y2"], ev["duration_ms"], ev["source"]) == (
        540,
        1800,
        540,
        1200,
        100,
        "u2",
    )
    assert ui.offset == 600
    call(svc, "swipePoints", [540, 1900, 540, 1800, 540, 1700], 10)
    assert ui.offset == 800
    call(svc, "drag", 10, 1500, 10, 1400, 20)
    assert model.events.since(mark, "swipe")[-1]["duration_ms"] > 100


def test_inject_input_event_gestures(model, ui, svc):
    mark = model.events.mark()
    call(svc, "injectInputEvent", 0, 270, 250, 0)
    call(svc, "injectInputEvent", 1, 272, 251, 0)
    assert ui.ok_clicks == 1
    call(svc, "injectInputEvent", 0, 540, 1900, 0)
    call(svc, "injectInputEvent", 2, 540, 1700, 0)
    call(svc, "injectInputEvent", 1, 540, 1500, 0)
    assert ui.offset == 400
    kinds = [e.kind for e in inputs(model, mark)]
    assert kinds == ["tap", "swipe"]
    assert call(svc, "injectInputEvent", 5, 1, 1, 0) is False


def test_keys(model, ui, svc):
    mark = model.events.mark()
    assert call(svc, "pressKey", "back") is True
    assert call(svc, "pressKey", "ENTER") is True
    assert call(svc, "pressKey", "no-such-key") is False
    assert call(svc, "pressKeyCode", 67) is True
    assert call(svc, "pressKeyCode", 29, 1) is True
    assert [(e["code"], e["source"]) for e in model.events.since(mark, "key")] == [
        (4, "u2"),
        (66, "u2"),
        (67, "u2"),
        (29, "u2"),
    ]
    call(svc, "sleep")
    assert not model.screen_on and call(svc, "isScreenOn") is False
    call(svc, "wakeUp")
    assert model.screen_on


def test_clipboard_and_paste(model, ui, svc):
    call(svc, "setClipboard", None, "你好 world")
    assert call(svc, "getClipboard") == "你好 world"
    assert call(svc, "pasteClipboard") is False  # nothing focused
    call(svc, "click", 540, 350)  # focus the input
    assert call(svc, "pasteClipboard") is True
    assert ui.fields["input"] == "你好 world"
    assert call(svc, "clearInputText") is True and ui.fields["input"] == ""


def test_selector_methods(model, ui, svc):
    ok = sel(text="OK")
    assert call(svc, "exist", ok) is True
    assert call(svc, "exist", sel(text="Nope")) is False
    assert call(svc, "count", sel(resourceId=rid("row_go"))) == 3
    info = call(svc, "objInfo", ok)
    assert info["bounds"] == {"left": 0, "top": 200, "right": 540, "bottom": 300}
    assert info["className"] == "android.widget.Button" and info["resourceName"] == rid("ok")
    assert [i["text"] for i in call(svc, "objInfoOfAllInstances", sel(resourceId=rid("row_label")))] == [
        "Row 0",
        "Row 1",
        "Row 2",
    ]
    assert call(svc, "click", ok) is True and ui.ok_clicks == 1
    assert call(svc, "getText", sel(resourceId=rid("status"))) == "Clicks: 1"
    err = call_error(svc, "getText", sel(text="Nope"))
    assert err["code"] == -32002 and "UiObjectNotFoundException" in err["message"]
    # an item half scrolled out of the list is clipped in visibleBounds
    ui.offset = 100
    item = call(svc, "objInfo", sel(text="Item 0"))
    assert item["bounds"]["top"] == 900 and item["visibleBounds"]["top"] == 1000


def test_set_text_focuses_and_replaces(model, ui, svc):
    mark = model.events.mark()
    assert call(svc, "setText", sel(resourceId=rid("input2")), "héllo") is True
    assert ui.fields["input2"] == "héllo" and ui.focus == "input2"
    assert call(svc, "getText", sel(resourceId=rid("input2"))) == "héllo"
    assert [e.kind for e in inputs(model, mark)] == ["tap", "set_text"]
    call(svc, "clearTextField", sel(resourceId=rid("input2")))
    assert ui.fields["input2"] == ""
    assert call(svc, "setText", sel(text="U2 Demo"), "x") is False  # not editable: nothing typed


def test_wait_for_exists_and_gone(model, ui, svc):
    assert call(svc, "waitForExists", sel(text="OK"), 0) is True
    assert call(svc, "waitForExists", sel(text="Later"), 100) is False

    def appear():
        time.sleep(0.2)
        with model.lock:
            ui.extra.append(View(cls="android.widget.TextView", text="Later", package="x", bounds=(0, 2100, 10, 2110)))

    threading.Thread(target=appear, daemon=True).start()
    assert call(svc, "waitForExists", sel(text="Later"), 5000) is True
    assert call(svc, "waitUntilGone", sel(text="Later"), 50) is False

    def vanish():
        time.sleep(0.2)
        with model.lock:
            ui.extra.clear()

    threading.Thread(target=vanish, daemon=True).start()
    assert call(svc, "waitUntilGone", sel(text="Later"), 5000) is True


def test_child_by_text_and_named_objects(ui, svc):
    rows = sel(resourceId=rid("rows"))
    name = call(svc, "childByText", rows, sel(className="android.widget.LinearLayout"), "Row 1")
    assert isinstance(name, str) and name in call(svc, "getUiObjects")
    assert call(svc, "objInfo", name)["bounds"]["top"] == 700
    assert call(svc, "waitForExists", name, 0) is True
    go = call(svc, "getChild", name, sel(className="android.widget.Button"))
    assert call(svc, "getText", go) == "Go 1"
    assert call(svc, "click", go) is True and ui.go_clicks == [1]
    label = call(svc, "getFromParent", go, sel(resourceId=rid("row_label")))
    assert call(svc, "getText", label) == "Row 1"
    by_desc = call(svc, "childByDescription", rows, sel(className="android.widget.LinearLayout"), "go 2")
    assert call(svc, "objInfo", by_desc)["bounds"]["top"] == 800
    by_inst = call(svc, "childByInstance", rows, sel(className="android.widget.Button"), 0)
    assert call(svc, "getText", by_inst) == "Go 0"
    err = call_error(svc, "childByText", rows, sel(className="android.widget.LinearLayout"), "Row 9")
    assert "UiObjectNotFoundException" in err["message"]
    assert call(svc, "exist", "no-such-name") is False
    assert "UiObjectNotFoundException" in call_error(svc, "objInfo", "no-such-name")["message"]
    call(svc, "removeUiObject", name)
    assert name not in call(svc, "getUiObjects")


def test_child_by_text_scrolls_a_scrollable_collection(ui, svc):
    lst = sel(scrollable=True)
    name = call(svc, "childByText", lst, sel(resourceId=rid("item")), "Item 17")
    assert call(svc, "getText", name) == "Item 17" and ui.offset > 0


@pytest.mark.slow
def test_scrolling(ui, svc):
    lst = sel(resourceId=rid("list"))
    assert call(svc, "scrollForward", lst, True, 55) is True
    first = ui.offset
    assert first > 0
    assert call(svc, "scrollBackward", lst, True, 55) is True and ui.offset == 0
    assert call(svc, "scrollBackward", lst, True, 55) is False  # already at the top
    assert call(svc, "scrollToEnd", lst, True, 100, 55) is True and ui.offset == ui.max_offset
    assert call(svc, "scrollForward", lst, True, 55) is False  # at the end
    assert call(svc, "flingToBeginning", lst, True, 100) is True and ui.offset == 0
    assert call(svc, "scrollTo", lst, sel(text="Item 25"), True) is True
    assert call(svc, "exist", sel(text="Item 25")) is True
    assert call(svc, "scrollTo", lst, sel(text="Item 99"), True) is False
    assert call(svc, "flingForward", lst, True) is True or ui.offset == ui.max_offset
    assert "UiObjectNotFoundException" in call_error(svc, "scrollForward", sel(text="Nope"), True, 55)["message"]


def test_object_swipe_and_toast(model, ui, svc):
    mark = model.events.mark()
    assert call(svc, "swipe", sel(resourceId=rid("list")), "up", 10) is True
    ev = model.events.since(mark, "swipe")[0]
    assert (ev["y1"], ev["y2"], ev["duration_ms"]) == (1995, 1005, 50)
    assert call(svc, "swipe", sel(resourceId=rid("list")), "down", 0.5, 10) is True
    assert call(svc, "getLastToast") is None
    call(svc, "makeToast", "Saved", 1000)
    assert call(svc, "getLastToast") == "Saved"
    call(svc, "clearLastToast")
    assert call(svc, "getLastToast") is None
