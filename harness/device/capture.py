"""Screenshot and view-hierarchy capture: the paths, the fallback chain, and the concurrent capture of one screen.

Paths, fastest first (each is a capability `Link` declares at connect):

    screenshot: "grpc_shm" (an emulator's gRPC door writing RGB888 rows into shared memory: no encoding; taken first
                only by a device whose consumer wants pixels, `DeviceConfig.pixels`: `screenshot_chain`)  ->
                "grpc" (an emulator's gRPC door: getScreenshot RGBA8888; only on a link with a usable client)  ->
                "u2" (JSON-RPC takeScreenshot, JPEG)  ->  "screencap_raw" (exec-out `screencap`, RGBA, read
                linearly)  ->  "screencap_png" (`screencap -p`)
    hierarchy:  "u2" (JSON-RPC dumpWindowHierarchy)    ->  "uiautomator_dump" (`uiautomator dump` to a file +
                `cat`, one shell call)
    app:        "dumpsys" (`dumpsys window | grep ...`: focused package and activity) on the shell the link keeps
                open ("kept_shell": no new adb stream on every step), else over exec-out (no stdin, no exit
                status needed: an exec stream takes two adb packets fewer than a shell v2 one); if it fails the
                package comes from the hierarchy

A path that fails (after the `Link.guard` recovery) is recorded and the next one is tried; a lost device stops
the chain at once. A device may take its screenshot paths in another order (`capture_screen(..., screenshots=)`:
what `harness.device.capture_choice` measured fastest on it). The parts run concurrently, each in its own thread
(uiautomator2 RPCs and shell commands are separate adb streams). Decoding (JPEG / RGBA) and XML parsing happen
inside each part's thread.
"""

from __future__ import annotations

import io
import re
import struct
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from PIL import Image

from emulator import b64
from harness.device.fastadb import U2RpcError
from harness.device.link import DeviceLink, DeviceLostError
from harness.device.sharedframe import RawFrame
from harness.errors import DeviceError, HierarchyError
from harness.hierarchy import VOLATILE_PACKAGES, UITree
from harness.observation import Observation
from harness.shellquote import command

DUMP_FILE = "/data/local/tmp/droidharness_window_dump.xml"
JPEG_QUALITY = 80
_FOCUS_RE = re.compile(r"(mFocusedApp|mCurrentFocus)=\S*\{[^}]*?\bu\d+\s+([\w.$]+)/([\w.$]+)")


# --- parsing -------------------------------------------------------------------------------------------------
def parse_raw_screencap(data: bytes, source: str = "screencap") -> Image.Image:
    """Raw `screencap` output -> RGB image. Android 9+ writes a 16-byte header (width, height, format,
    colorspace), older versions 12 bytes; format 1 = RGBA_8888 (also accepted: 2 = RGBX_8888, 5 = BGRA_8888)."""
    if len(data) < 12:
        raise DeviceError(f"{source}: raw screencap returned {len(data)} bytes, expected a header")
    w, h, fmt = struct.unpack_from("<III", data, 0)
    if not (0 < w <= 16384 and 0 < h <= 16384):
        raise DeviceError(f"{source}: raw screencap header says {w}x{h}: not a raw frame ({data[:16]!r})")
    pixels = w * h * 4
    if len(data) >= 16 + pixels:
        header = 16
    elif len(data) == 12 + pixels:  # Android < 9: no colorspace field
        header = 12
    else:
        raise DeviceError(f"{source}: raw screencap is {len(data)} bytes, a {w}x{h} frame needs {16 + pixels}")
    rawmode = {1: "RGBX", 2: "RGBX", 5: "BGRX"}.get(fmt)  # alpha dropped: screens are opaque
    if rawmode is None:
        raise DeviceError(f"{source}: raw screencap pixel format {fmt} is not supported")
    with memoryview(data) as view:
        return Image.frombytes("RGB", (w, h), view[header : header + pixels], "raw", rawmode)


def decode_image(data: bytes, source: str, lazy: bool = False) -> Image.Image:
    """PNG / JPEG bytes -> RGB image. With `lazy`, only the header is parsed here and the pixels are decoded on
    first use (PIL's own lazy loading): the harness itself never needs the pixels, so an observation is not
    delayed by a full-resolution JPEG decode. The stream is still checked to be a complete JPEG / PNG."""
    complete = (data[:2] == b"\xff\xd8" and b"\xff\xd9" in data[-4:]) or (
        data[:8] == b"\x89PNG\r\n\x1a\n" and b"IEND" in data[-16:]
    )
    try:
        if not complete:
            raise ValueError("truncated or not a JPEG / PNG stream")
        img = Image.open(io.BytesIO(data))
        if lazy and img.mode == "RGB":
            return img
        img.load()
    except Exception as e:  # noqa: BLE001 - PIL raises many kinds
        raise DeviceError(f"{source}: not a decodable image ({len(data)} bytes): {e}") from None
    return img if img.mode == "RGB" else img.convert("RGB")


def parse_focus(text: str) -> tuple[str, str]:
    """`dumpsys window` focus lines -> (package, full activity class); ("", "") if none. mFocusedApp (the
    activity) wins over mCurrentFocus (a window, which may be a dialog or the keyboard)."""
    found: dict[str, tuple[str, str]] = {}
    for m in _FOCUS_RE.finditer(text):
        pkg, act = m.group(2), m.group(3)
        found.setdefault(m.group(1), (pkg, pkg + act if act.startswith(".") else act))
    return found.get("mFocusedApp") or found.get("mCurrentFocus") or ("", "")


def package_from_tree(tree: UITree) -> str:
    """The package of the largest visible window root that is not the system UI."""
    roots = [tree[i] for i in tree.roots if tree[i].package and tree[i].package not in VOLATILE_PACKAGES]
    return max(roots, key=lambda e: e.area).package if roots else ""


# --- the paths -----------------------------------------------------------------------------------------------
Encoded = tuple[Image.Image, bytes]  # a decoded screenshot and the bytes the device encoded it as


def screenshot_grpc(link: DeviceLink, fmt: str = "rgba") -> Encoded | Image.Image:
    """`getScreenshot` on the emulator's gRPC door (RGBA8888: no encoding on either side; "png": PNG)."""
    if link.grpc is None:
        raise DeviceError(f"device {link.serial}: no gRPC door")
    image, encoded = link.grpc.screenshot(fmt)
    return image if encoded is None else (image, encoded)


def screenshot_grpc_shared(link: DeviceLink) -> RawFrame:
    """`getScreenshot` RGB888 into shared memory on the emulator's gRPC door: raw rows, no encoding."""
    if link.grpc is None:
        raise DeviceError(f"device {link.serial}: no gRPC door")
    return link.grpc.screenshot_shared()


def screenshot_u2(link: DeviceLink) -> Encoded:
    data = link.rpc("observe: screenshot via uiautomator2", "takeScreenshot", [1, JPEG_QUALITY])
    if not data:
        raise DeviceError(f"device {link.serial}: uiautomator2 takeScreenshot returned nothing")
    raw = b64.decode(data)
    return decode_image(raw, f"device {link.serial}: uiautomator2 takeScreenshot", lazy=True), raw


def screenshot_raw(link: DeviceLink) -> Image.Image:
    data = link.exec_out("observe: raw screencap", "screencap")
    return parse_raw_screencap(data, f"device {link.serial}: screencap")


def screenshot_png(link: DeviceLink) -> Encoded:
    data = link.exec_out("observe: screencap -p", "screencap -p")
    return decode_image(data, f"device {link.serial}: screencap -p"), data


def hierarchy_u2(link: DeviceLink) -> str:
    xml = link.rpc("observe: hierarchy via uiautomator2", "dumpWindowHierarchy", [False, 50])
    if not isinstance(xml, str):
        raise DeviceError(f"device {link.serial}: uiautomator2 dumpWindowHierarchy returned {type(xml).__name__}")
    return xml


def hierarchy_dump(link: DeviceLink) -> str:
    cmd = command("uiautomator", "dump", DUMP_FILE) + " >/dev/null && " + command("cat", DUMP_FILE)
    res = link.shell("observe: uiautomator dump", cmd)
    if res.exit_code != 0:
        raise DeviceError(
            f"device {link.serial}: uiautomator dump exited {res.exit_code}: {(res.error_text or res.text)[:200]}"
        )
    return res.text


FOCUS_QUERY = "dumpsys window | grep -E 'mCurrentFocus|mFocusedApp'"


def foreground_app(link: DeviceLink) -> tuple[str, str]:
    if link.has("kept_shell"):
        out = link.kept_shell("observe: focused app", FOCUS_QUERY).stdout
    else:
        out = link.exec_out("observe: focused app", FOCUS_QUERY)
    return parse_focus(out.decode("utf-8", errors="replace"))


Chain = tuple[tuple[str, Callable[[DeviceLink], Any]], ...]
SCREENSHOT_CHAIN: Chain = (
    ("grpc", screenshot_grpc),
    ("u2", screenshot_u2),
    ("screencap_raw", screenshot_raw),
    ("screencap_png", screenshot_png),
)
PIXEL_PATHS: Chain = (("grpc_shm", screenshot_grpc_shared),)  # paths only such a consumer takes
SCREENSHOT_PATHS: dict[str, Callable[[DeviceLink], Any]] = dict((*PIXEL_PATHS, *SCREENSHOT_CHAIN))  # all, by name
HIERARCHY_CHAIN: Chain = (
    ("u2", hierarchy_u2),
    ("uiautomator_dump", hierarchy_dump),
)


# --- the chain -----------------------------------------------------------------------------------------------
@dataclass
class Part:
    value: Any
    path: str
    seconds: float
    failures: list[str] = field(default_factory=list)


def run_chain(
    link: DeviceLink,
    part: str,
    chain: Sequence[tuple[str, Callable[[DeviceLink], Any]]],
    post: Callable[[Any, str], Any] | None = None,
) -> Part:
    """Try each path the device has, in order; `post(value, path)` (decode / parse) counts as part of the path,
    so malformed output also falls through to the next path."""
    failures: list[str] = []
    errors: list[Exception] = []
    t0 = time.perf_counter()
    for name, fn in chain:
        if not link.has(name):
            continue
        try:
            value = fn(link)
            if post is not None:
                value = post(value, name)
        except DeviceLostError:
            raise
        except (DeviceError, HierarchyError, U2RpcError) as e:
            failures.append(f"{part}: {name} failed: {e}")
            errors.append(e)
            continue
        return Part(value, name, time.perf_counter() - t0, failures)
    tried = "; ".join(failures) or f"the device has none of the paths {[n for n, _ in chain]}"
    if errors and all(isinstance(e, HierarchyError) for e in errors):
        raise HierarchyError(f"device {link.serial}: observe: every {part} path returned malformed XML: {tried}")
    raise DeviceError(f"device {link.serial}: observe: no path could capture the {part}: {tried}")


class TreeMemo:
    """A device's last parsed hierarchy: the same dump again (an unchanged screen) is the same tree, parsed once.
    `UITree` is immutable, so the tree is shared; one entry per device (docs/caches.md)."""

    def __init__(self) -> None:
        self._last: tuple[str, str, UITree] | None = None  # (source, xml, tree)
        self._lock = threading.Lock()
        self.hits = 0

    def parse(self, xml: str, source: str) -> UITree:
        with self._lock:
            last = self._last
        if last is not None and last[0] == source and last[1] == xml:
            self.hits += 1
            return last[2]
        tree = UITree.from_xml(xml, source=source)
        with self._lock:
            self._last = (source, xml, tree)
        return tree


def hierarchy_part(
    link: DeviceLink,
    chain: Sequence[tuple[str, Callable[[DeviceLink], Any]]] = HIERARCHY_CHAIN,
    memo: TreeMemo | None = None,
) -> Part:
    """The hierarchy as (xml, UITree), parsed in the calling thread (once per distinct dump with a `memo`)."""

    def parse(xml: str, path: str) -> tuple[str, UITree]:
        source = f"device {link.serial} {path} hierarchy"
        return xml, memo.parse(xml, source) if memo is not None else UITree.from_xml(xml, source=source)

    return run_chain(link, "hierarchy", chain, parse)


def screenshot_chain(order: Sequence[str], pixels: bool = False) -> Chain:
    """The screenshot paths in `order` (names of `SCREENSHOT_CHAIN`), then the ones it leaves out, as there; with
    `pixels` (a consumer that wants the pixels, not the device's encoding), the raw shared memory path first."""
    lead = PIXEL_PATHS if pixels else ()
    first = [(n, SCREENSHOT_PATHS[n]) for n in order if n in SCREENSHOT_PATHS and n not in dict(lead)]
    rest = tuple((n, fn) for n, fn in SCREENSHOT_CHAIN if n not in order)
    return (*lead, *first, *rest)


def capture_screen(
    link: DeviceLink,
    with_app: bool = True,
    hierarchy: Part | None = None,
    screenshots: Chain = SCREENSHOT_CHAIN,
    fallbacks: Sequence[str] = (),
    memo: TreeMemo | None = None,
) -> Observation:
    """One `Observation`: screenshot, hierarchy (and the focused app) concurrently, each through its fallback
    chain (`screenshots`: the screenshot paths in the device's order). `hierarchy`: a (xml, UITree) part already
    captured on this very screen (the last poll of settling), reused instead of dumping the hierarchy again;
    `fallbacks`: the paths that failed first on the way to this screen (the action's), recorded first."""
    captured_at = time.time()
    t0 = time.perf_counter()
    shot_f = link.submit(lambda: run_chain(link, "screenshot", screenshots))
    app_f = link.submit(lambda: _timed_app(link)) if with_app else None
    hier = hierarchy if hierarchy is not None else hierarchy_part(link, memo=memo)  # in this thread: one hand-off less
    shot = shot_f.result()
    pkg, act, app_s = app_f.result() if app_f is not None else ("", "", 0.0)
    xml, tree = hier.value
    if not pkg:
        pkg = package_from_tree(tree)
    timings = {
        "screenshot": shot.seconds,
        "hierarchy": hier.seconds if hierarchy is None else 0.0,
        "app": app_s,
        "total": time.perf_counter() - t0,
    }
    paths = {
        "screenshot": shot.path,
        "hierarchy": hier.path if hierarchy is None else f"{hier.path} (settle)",
        "app": "dumpsys" if act else "hierarchy",
    }
    image, encoded, raw = shot_parts(shot.value)
    if encoded is not None and getattr(image, "format", None) not in ("JPEG", "PNG"):
        encoded = None  # converted on decoding (an unusual mode): the bytes are not these pixels' encoding
    return Observation(
        screenshot=image,
        tree=tree,
        xml=xml,
        package=pkg,
        activity=act,
        size=image.size,
        rotation=tree.rotation,
        timings=timings,
        paths=paths,
        captured_at=captured_at,
        fallbacks=(*fallbacks, *shot.failures, *([] if hierarchy is not None else hier.failures)),
        screenshot_bytes=encoded,
        pixels=raw.pixels if raw is not None else None,
    )


def shot_parts(value: Encoded | Image.Image | RawFrame) -> tuple[Image.Image, bytes | None, RawFrame | None]:
    """What a screenshot path returned, as (image, the bytes the device encoded it as, the raw frame): a path
    gives an image, an image with its encoding, or raw rows (`RawFrame`, whose image decodes lazily)."""
    if isinstance(value, RawFrame):
        return value.image, None, value
    if isinstance(value, tuple):
        return value[0], value[1], None
    return value, None, None


def _timed_app(link: DeviceLink) -> tuple[str, str, float]:
    t = time.perf_counter()
    try:
        pkg, act = foreground_app(link)
    except DeviceLostError:
        raise
    except DeviceError:
        pkg, act = "", ""
    return pkg, act, time.perf_counter() - t
