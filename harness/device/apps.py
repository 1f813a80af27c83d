"""OPEN_APP resolution: which package a name means, and how to find an app's icon by its label on the launcher.

Order used by the actuator (`harness.device.actuate`):

1. `package` given (or a `name` that looks like a package, `a.b.c`) and installed -> launch it by package
   (`cmd package resolve-activity` + `am start -n`, or `monkey` when resolution fails).
2. `name` in the small alias table (English and Chinese names of common system apps) and one of its packages
   installed -> launch that package.
3. Otherwise the label is looked up ON THE DEVICE, in the locale it runs: HOME, look for an icon whose text or
   content-desc equals the label (case-insensitive, whitespace-normalized) on the home screen and hotseat; if
   absent, swipe up to open the app drawer and look there, scrolling the drawer a page at a time; tap it.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from typing import Protocol

from harness.actions import OpenApp
from harness.hierarchy import VOLATILE_PACKAGES, UIElement, UITree

_PACKAGE_RE = re.compile(r"^[A-Za-z][\w]*(\.[A-Za-z_][\w]*)+$")
DRAWER_IDS = ("apps_list_view", "apps_view", "all_apps_container", "apps_list")
MAX_DRAWER_PAGES = 8

# name (normalized) -> candidate packages, most common first (AOSP, Google, common OEM builds)
_ALIAS_GROUPS: list[tuple[tuple[str, ...], tuple[str, ...]]] = [
    (("settings", "设置", "系统设置"), ("com.android.settings",)),
    (("clock", "alarm", "alarms", "时钟", "闹钟"), ("com.google.android.deskclock", "com.android.deskclock")),
    (("contacts", "联系人", "通讯录"), ("com.google.android.contacts", "com.android.contacts")),
    (
        ("messages", "messaging", "sms", "信息", "短信"),
        ("com.google.android.apps.messaging", "com.android.mms", "com.android.messaging"),
    ),
    (("phone", "dialer", "电话", "拨号"), ("com.google.android.dialer", "com.android.dialer")),
    (("camera", "相机"), ("com.android.camera2", "com.google.android.GoogleCamera", "com.android.camera")),
    (("chrome", "browser", "浏览器"), ("com.android.chrome", "org.chromium.chrome", "com.android.browser")),
    (("calendar", "日历"), ("com.google.android.calendar", "com.android.calendar")),
    (("calculator", "计算器"), ("com.google.android.calculator", "com.android.calculator2")),
    (("photos", "gallery", "相册", "照片", "图库"), ("com.google.android.apps.photos", "com.android.gallery3d")),
    (("files", "file manager", "文件", "文件管理"), ("com.google.android.apps.nbu.files", "com.android.documentsui")),
    (("gmail", "email", "邮件", "电子邮件"), ("com.google.android.gm", "com.android.email")),
    (("maps", "google maps", "地图"), ("com.google.android.apps.maps",)),
    (("play store", "google play", "应用商店"), ("com.android.vending",)),
    (("youtube",), ("com.google.android.youtube",)),
]
ALIASES: dict[str, tuple[str, ...]] = {}


def normalize_label(text: str) -> str:
    """Case-folded, NFKC (full-width -> ASCII), whitespace collapsed."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


for _names, _pkgs in _ALIAS_GROUPS:
    for _n in _names:
        ALIASES[normalize_label(_n)] = _pkgs


def looks_like_package(name: str) -> bool:
    return bool(_PACKAGE_RE.match(name.strip()))


def alias_packages(name: str) -> tuple[str, ...]:
    return ALIASES.get(normalize_label(name), ())


def candidate_packages(name: str | None, package: str | None, installed: Iterable[str]) -> list[str]:
    """Installed packages to launch directly, best first (steps 1 and 2 above); [] -> look the label up."""
    have = set(installed)
    out: list[str] = []
    if package and package in have:
        out.append(package)
    if name:
        if looks_like_package(name) and name.strip() in have:
            out.append(name.strip())
        out += [p for p in alias_packages(name) if p in have]
    return list(dict.fromkeys(out))


def find_icon(tree: UITree, label: str, within: tuple[int, int, int, int] | None = None) -> UIElement | None:
    """The visible launcher element whose text or content-desc equals `label` (normalized), preferring
    clickable ones; with `within`, its centre must lie inside that box (e.g. the drawer's visible list)."""
    want = normalize_label(label)
    if not want:
        return None
    best: UIElement | None = None
    for e in tree:
        if not e.is_visible or e.package in VOLATILE_PACKAGES or e.is_editable:
            continue
        if want not in (normalize_label(e.text), normalize_label(e.content_desc)):
            continue
        if within is not None:
            cx, cy = e.center
            l, t, r, b = within
            if not (l <= cx < r and t <= cy < b):
                continue
        if best is None or (e.clickable and not best.clickable):
            best = e
    return best


def drawer_list(tree: UITree) -> UIElement | None:
    """The app drawer's scrolling list, if the drawer is open."""
    for e in tree:
        if e.resource_name in DRAWER_IDS and e.scrollable and e.is_visible:
            return e
    scrollables = [e for e in tree if e.scrollable and e.is_visible and e.package not in VOLATILE_PACKAGES]
    return max(scrollables, key=lambda e: e.area) if scrollables else None


class LauncherOps(Protocol):
    """What `open_by_label` needs from a device (implemented by `harness.device.actuate.Actuator`)."""

    def press_home(self) -> None: ...

    def settled_tree(self) -> UITree: ...

    def tap(self, x: int, y: int) -> str: ...

    def swipe(self, x1: int, y1: int, x2: int, y2: int, ms: int) -> str: ...

    def screen_size(self) -> tuple[int, int]: ...


def open_by_label(ops: LauncherOps, label: str, max_pages: int = MAX_DRAWER_PAGES) -> UIElement | None:
    """Tap the launcher icon labelled `label` (home screen first, then the app drawer). Returns the element
    tapped, or None (the launcher is left on the home screen)."""
    ops.press_home()
    tree = ops.settled_tree()
    icon = find_icon(tree, label)
    if icon is not None:
        ops.tap(*icon.center)
        return icon
    w, h = ops.screen_size()
    ops.swipe(w // 2, int(h * 0.75), w // 2, int(h * 0.25), 250)  # swipe up: open the drawer
    tree = ops.settled_tree()
    for _ in range(max_pages):
        lst = drawer_list(tree)
        icon = find_icon(tree, label, within=lst.bounds if lst is not None else None)
        if icon is not None:
            ops.tap(*icon.center)
            return icon
        if lst is None:
            break
        l, t, r, b = lst.bounds
        x = (l + r) // 2
        before = tree.signature()
        ops.swipe(x, t + (b - t) * 4 // 5, x, t + (b - t) // 5, 300)  # finger up: next page
        tree = ops.settled_tree()
        if tree.signature() == before:
            break
    ops.press_home()
    return None


def open_app_action(app: str) -> OpenApp:
    """OPEN_APP of a package name (`com.example.app`) or of an app's label."""
    return OpenApp(package=app) if looks_like_package(app) else OpenApp(name=app)
