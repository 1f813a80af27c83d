"""OPEN_APP resolution: which package a name means, and how to find an app's icon by its label on the launcher.

Order used by the actuator (`harness.device.actuate`):

1. `package` given (or a `name` that looks like a package, `a.b.c`) and installed and enabled (`pm list
   packages -e`) -> launch it by package (`cmd package resolve-activity` + `am start -n`, or `monkey` when
   resolution fails). The package list and each resolved activity are kept for the device's next OPEN_APP (two
   shell calls fewer; `pm` starts a runtime on a phone, ~0.3-0.6 s) until a command that may change packages runs
   (`may_change_packages`); a kept activity that fails to start is resolved again, and a kept list is read again
   before OPEN_APP says an app is missing or after a kept app fails to start (apps enabled or disabled where the
   harness does not see it: in Settings, by another adb client).
2. `name` in the small alias table (English and Chinese names of common system apps) and one of its packages
   installed -> launch that package.
A `@role` (`@clock`, `tasks.roles`) as package or name means the role's packages, the first installed one
launched (step 2). Tasks resolve their roles once per episode with `role_packages`, which asks the device what
is installed and enabled (`pm list packages -e`).

3. Otherwise the label is looked up ON THE DEVICE, in the locale it runs: HOME, look for an icon whose text or
   content-desc equals the label (case-insensitive, whitespace-normalized) on the home screen and hotseat; if
   absent, swipe up to open the app drawer and look there, scrolling the drawer a page at a time; tap it.
"""

from __future__ import annotations

import re
import shlex
import unicodedata
from collections.abc import Iterable, Sequence
from typing import Protocol

from harness.actions import OpenApp
from harness.device.fastadb import ShellResult
from harness.errors import DeviceError
from harness.hierarchy import VOLATILE_PACKAGES, UIElement, UITree
from tasks.roles import ROLES, is_role, pick_package, role_of

_PACKAGE_RE = re.compile(r"^[A-Za-z][\w]*(\.[A-Za-z_][\w]*)+$")
DRAWER_IDS = ("apps_list_view", "apps_view", "all_apps_container", "apps_list")
MAX_DRAWER_PAGES = 8

# name (normalized) -> candidate packages, best first (the role table of `tasks.roles` where a role exists)
_ALIAS_GROUPS: list[tuple[tuple[str, ...], tuple[str, ...]]] = [
    (("settings", "设置", "系统设置"), ROLES["settings"]),
    (("clock", "alarm", "alarms", "时钟", "闹钟"), ROLES["clock"]),
    (("contacts", "联系人", "通讯录"), ROLES["contacts"]),
    (("messages", "messaging", "sms", "信息", "短信"), ROLES["messages"]),
    (("phone", "dialer", "电话", "拨号"), ROLES["phone"]),
    (("camera", "相机"), ROLES["camera"]),
    (("chrome", "browser", "浏览器"), ROLES["browser"]),
    (("calendar", "日历"), ROLES["calendar"]),
    (("calculator", "计算器"), ROLES["calculator"]),
    (("photos", "gallery", "相册", "照片", "图库"), ROLES["gallery"]),
    (("files", "file manager", "文件", "文件管理"), ROLES["files"]),
    (("gmail", "email", "邮件", "电子邮件"), ROLES["email"]),
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
    for ref in (package, name):
        if ref and is_role(ref.strip()):
            try:
                out += [p for p in ROLES[role_of(ref.strip())] if p in have]
            except ValueError:
                pass  # an unknown role: nothing to launch directly
    if package and package in have:
        out.append(package)
    if name and not is_role(name.strip()):
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


# --- roles on a device -------------------------------------------------------------------------------------
class RoleError(DeviceError):
    """The device has no app for a role a task names (names the device, the role and the packages tried)."""


class ShellDevice(Protocol):
    """What role resolution needs from a device (`harness.device.controller.Device` has it)."""

    @property
    def serial(self) -> str: ...

    def shell(self, argv: Sequence[str]) -> ShellResult: ...


def parse_package_list(text: str) -> list[str]:
    """The packages of `pm list packages` output (`package:NAME` lines; others ignored)."""
    return [line[len("package:") :].strip() for line in text.splitlines() if line.startswith("package:")]


# `pm` / `cmd package` subcommands that only read; and programs that never install, update, enable or remove a
# package. Any other command may (a task's setup installs an APK, `pm disable-user`, `sh -c ...`).
_PACKAGE_READS = frozenset(
    {
        "list",
        "path",
        "dump",
        "resolve-activity",
        "query-activities",
        "query-services",
        "query-receivers",
        "has-feature",
        "list-features",
    }
)
_NO_PACKAGE_CHANGE = frozenset(
    {
        "settings",
        "content",
        "dumpsys",
        "getprop",
        "setprop",
        "am",
        "input",
        "wm",
        "cat",
        "ls",
        "date",
        "svc",
        "echo",
        "ime",
        "uiautomator",
        "screencap",
        "stat",
        "test",
        "id",
        "log",
        "logcat",
        "monkey",
    }
)


def may_change_packages(argv: Sequence[str]) -> bool:
    """Whether a shell command (its argv) may change which packages are installed and enabled, or their
    activities: False only for commands known to leave them as they are (`pm list`, `settings get`, ...)."""
    if not argv:
        return False
    prog = argv[0].rsplit("/", 1)[-1]
    if prog == "sh" and len(argv) == 3 and argv[1] == "-c":  # a list of commands (a preparation's, after a reset)
        commands = command_list(argv[2])
        return commands is None or any(may_change_packages(c) for c in commands)
    if prog == "pm":
        return len(argv) < 2 or argv[1] not in _PACKAGE_READS
    if prog == "cmd":  # `cmd <service> ...`: only the package service installs or removes
        return len(argv) < 2 or (argv[1] == "package" and (len(argv) < 3 or argv[2] not in _PACKAGE_READS))
    return prog not in _NO_PACKAGE_CHANGE


def command_list(line: str) -> list[list[str]] | None:
    """The argvs of a shell line that is only simple commands separated by `;` (words, quoted or not); None for
    anything else the shell would do (pipes, `&&`, redirections, substitutions, variables, globs, subshells)."""
    if "\n" in line or "\r" in line:
        return None
    lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    commands: list[list[str]] = [[]]
    try:
        for token in lexer:
            if token == ";":
                commands.append([])
            elif token and (set(token) <= set(lexer.punctuation_chars) or any(c in token for c in "$`*?[~")):
                return None
            else:
                commands[-1].append(token)
    except ValueError:  # an unclosed quote
        return None
    return [c for c in commands if c]


ENABLED_PACKAGES = ("pm", "list", "packages", "-e")  # what can be launched: installed and enabled


def installed_packages(device: ShellDevice) -> list[str]:
    """`pm list packages -e` on the device: the installed packages that are enabled (a disabled app cannot be
    launched, so it does not play its role)."""
    res = device.shell(ENABLED_PACKAGES)
    pkgs = parse_package_list(res.text)
    if not pkgs:
        why = (res.error_text or res.text).strip() or f"exit status {res.exit_code}, no output"
        raise DeviceError(f"device {device.serial}: pm list packages listed no package ({why})")
    return pkgs


def resolve_roles(roles: Iterable[str], installed: Iterable[str], serial: str) -> dict[str, str]:
    """role -> the package that plays it among `installed` (the role's first candidate); RoleError when none."""
    have = list(installed)
    out: dict[str, str] = {}
    for role in roles:
        pkg = pick_package(role, have)
        if pkg is None:
            raise RoleError(
                f"device {serial} has no {role} app for @{role} (none of {', '.join(ROLES[role])} is installed "
                "and enabled)"
            )
        out[role] = pkg
    return out


def role_packages(device: ShellDevice, roles: Iterable[str]) -> dict[str, str]:
    """role -> package on this device, asking it what is installed (no shell call when `roles` is empty)."""
    wanted = list(roles)
    return resolve_roles(wanted, installed_packages(device), device.serial) if wanted else {}
