"""Intents as `am` parses and prints them: Intent.parseCommandArgs options (-a -d -t -c -n -p -f -e/--es --ei
--ez ...) and Intent.toShortString() (`Intent { act=... cat=[...] dat=... flg=0x... cmp=pkg/.Cls (has extras) }`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from .registry import short_component

FLAG_ACTIVITY_NEW_TASK = 0x10000000
FLAG_RECEIVER_FROM_SHELL = 0x00400000


@dataclass
class Intent:
    action: str | None = None
    data: str | None = None
    mime: str | None = None
    categories: list[str] = field(default_factory=list)
    package: str | None = None
    component: tuple[str, str] | None = None  # (package, class as given: ".Main" or full)
    flags: int = 0
    extras: dict[str, Any] = field(default_factory=dict)

    def full_class(self) -> str | None:
        if self.component is None:
            return None
        pkg, cls = self.component
        return pkg + cls if cls.startswith(".") else cls

    def short_component(self) -> str:
        assert self.component is not None
        return short_component(self.component[0], self.full_class() or "")

    def __str__(self) -> str:
        parts = []
        if self.action:
            parts.append(f"act={self.action}")
        if self.categories:
            parts.append("cat=[" + ",".join(self.categories) + "]")
        if self.data:
            parts.append(f"dat={_safe_uri(self.data)}")
        if self.mime:
            parts.append(f"typ={self.mime}")
        if self.flags:
            parts.append(f"flg=0x{self.flags:x}")
        if self.package:
            parts.append(f"pkg={self.package}")
        if self.component:
            parts.append(f"cmp={self.short_component()}")
        if self.extras:
            parts.append("(has extras)")
        return "Intent { " + " ".join(parts) + " }"


def _safe_uri(uri: str) -> str:
    """Uri.toSafeString(): web URLs keep only scheme and host."""
    try:
        u = urlsplit(uri)
    except ValueError:
        return uri
    if u.scheme in ("http", "https", "ftp", "rtsp"):
        return f"{u.scheme}://{u.netloc}/..."
    if u.scheme in ("tel", "sip", "sms", "smsto", "mailto", "nfc"):
        return f"{u.scheme}:xxxxxx"
    return uri


class IntentError(Exception):
    pass


_BOOL = {"true": True, "t": True, "1": True, "false": False, "f": False, "0": False}


def parse_intent(args: list[str]) -> tuple[Intent, dict[str, Any], list[str]]:
    """Intent + am options (-W, -S, --user, ...) + unparsed leftovers, as Intent.parseCommandArgs does."""
    it = Intent()
    opts: dict[str, Any] = {}
    i = 0

    def val() -> str:
        nonlocal i
        if i >= len(args):
            raise IntentError(f'Argument expected after "{args[i - 1]}"')
        i += 1
        return args[i - 1]

    rest: list[str] = []
    while i < len(args):
        a = args[i]
        i += 1
        if a == "-a":
            it.action = val()
        elif a == "-d":
            it.data = val()
        elif a == "-t":
            it.mime = val()
        elif a == "-c":
            it.categories.append(val())
        elif a == "-n":
            comp = val()
            pkg, slash, cls = comp.partition("/")
            if not slash or not pkg or not cls:
                raise IntentError(f"Bad component name: {comp}")
            it.component = (pkg, cls)
        elif a == "-p":
            it.package = val()
        elif a == "-f":
            it.flags |= int(val(), 0)
        elif a in ("-e", "--es"):
            k = val()
            it.extras[k] = val()
        elif a == "--esn":
            it.extras[val()] = None
        elif a in ("--ei", "--el"):
            k, v = val(), val()
            try:
                it.extras[k] = int(v)
            except ValueError:
                raise IntentError(f'For input string: "{v}"') from None
        elif a in ("--ef", "--ed"):
            k, v = val(), val()
            it.extras[k] = float(v)
        elif a == "--ez":
            k, v = val(), val()
            if v.lower() not in _BOOL:
                raise IntentError(f"Invalid boolean value: {v}")
            it.extras[k] = _BOOL[v.lower()]
        elif a in ("--eu", "--ecn"):
            k = val()
            it.extras[k] = val()
        elif a in ("--eia", "--ela", "--efa", "--esa", "--eial", "--elal", "--efal", "--esal"):
            k = val()
            it.extras[k] = val().split(",")
        elif a in (
            "--user",
            "--display",
            "--windowingMode",
            "--activityType",
            "--task",
            "-R",
            "-P",
            "--start-profiler",
            "--sampling",
            "--attach-agent",
            "--receiver-permission",
            "--allow-background-activity-starts",
        ):
            opts[a] = val()
        elif a in (
            "-W",
            "-S",
            "-D",
            "-N",
            "--streaming",
            "--track-allocation",
            "--task-overlay",
            "--lock-task",
            "--allow-background-activity-starts",
            "--async",
            "--wait",
        ):
            opts[a] = True
        elif (
            a.startswith("--activity-")
            or a.startswith("--grant-")
            or a.startswith("--receiver-")
            or a in ("--debug-log-resolution", "--exclude-stopped-packages", "--include-stopped-packages", "--selector")
        ):
            opts[a] = True
        elif a.startswith("-") and len(a) > 1:
            raise IntentError(f"Unknown option: {a}")
        else:
            rest.append(a)
    if rest and it.component is None and it.data is None:
        target = rest.pop(0)
        if ":" in target:
            it.data = target
        elif "/" in target:
            pkg, _, cls = target.partition("/")
            it.component = (pkg, cls)
        else:
            it.package = target
    return it, opts, rest
