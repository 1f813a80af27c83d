"""Finding the Android SDK and running its tools.

`find_sdk(env)` looks at `ANDROID_HOME`, then `ANDROID_SDK_ROOT`, then `PATH`, and returns an `Sdk` record with
the paths of `sdkmanager`, `avdmanager`, `emulator` and `adb` (each may be None) and, for each one missing, why.
The record also carries the environment the tools run under (the caller's, with the SDK root exported), so a
test can point everything at a fake SDK without touching `os.environ`.

SDK layout (what Google's installers create): `cmdline-tools/latest/bin/{sdkmanager,avdmanager}` (or another
`cmdline-tools/<version>/bin`, or the legacy `tools/bin`), `emulator/emulator`, `platform-tools/adb`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .errors import SdkNotFoundError, SdkToolError

TOOLS = ("sdkmanager", "avdmanager", "emulator", "adb")
ROOT_VARIABLES = ("ANDROID_HOME", "ANDROID_SDK_ROOT")
SET_HINT = "set ANDROID_HOME to your Android SDK (the directory holding cmdline-tools/, emulator/, platform-tools/)"


@dataclass(frozen=True)
class Sdk:
    """An Android SDK as found: its root (None when the tools came from PATH alone), where it was found, the
    tools' paths (None: missing; `problems[tool]` says why) and the environment the tools run under."""

    root: Path | None
    source: str  # "ANDROID_HOME", "ANDROID_SDK_ROOT", "PATH" or "none"
    sdkmanager: Path | None = None
    avdmanager: Path | None = None
    emulator: Path | None = None
    adb: Path | None = None
    problems: dict[str, str] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict, repr=False)

    @property
    def found(self) -> bool:
        return any(self.tool(t) is not None for t in TOOLS)

    def tool(self, name: str) -> Path | None:
        if name not in TOOLS:
            raise ValueError(f"unknown SDK tool {name!r}; one of {', '.join(TOOLS)}")
        path: Path | None = getattr(self, name)
        return path

    def require(self, name: str) -> Path:
        """The tool's path, or `SdkNotFoundError` saying why it is missing and what to set."""
        path = self.tool(name)
        if path is None:
            why = self.problems.get(name, "not found")
            raise SdkNotFoundError(f"Android SDK: no {name} ({why}); {SET_HINT}")
        return path

    def describe(self) -> str:
        """One line: where the SDK is and which tools it lacks."""
        where = f"{self.root} (from {self.source})" if self.root else f"from {self.source}"
        missing = [t for t in TOOLS if self.tool(t) is None]
        return where + (f"; missing: {', '.join(missing)}" if missing else "")


def _executable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def _in_root(root: Path, tool: str) -> tuple[Path | None, str]:
    """Where `tool` lives under an SDK root, or (None, why)."""
    if tool in ("sdkmanager", "avdmanager"):
        candidates = [root / "cmdline-tools" / "latest" / "bin" / tool]
        cmdline = root / "cmdline-tools"
        if cmdline.is_dir():
            candidates += sorted((d / "bin" / tool for d in cmdline.iterdir() if d.name != "latest"), reverse=True)
        candidates.append(root / "tools" / "bin" / tool)
        hint = f"install the command-line tools into {root / 'cmdline-tools' / 'latest'}"
    elif tool == "emulator":
        candidates = [root / "emulator" / "emulator"]
        hint = f"install it with `sdkmanager emulator` (expected {candidates[0]})"
    else:
        candidates = [root / "platform-tools" / "adb"]
        hint = f"install it with `sdkmanager platform-tools` (expected {candidates[0]})"
    for c in candidates:
        if _executable(c):
            return c, ""
    return None, f"not under {root}: {hint}"


def find_sdk(env: Mapping[str, str] | None = None) -> Sdk:
    """The SDK named by ANDROID_HOME, else ANDROID_SDK_ROOT, else the tools on PATH (root = the emulator's or
    sdkmanager's SDK). Never raises: a missing SDK is a record with no tools and the reasons."""
    environ = dict(os.environ if env is None else env)
    problems: dict[str, str] = {}
    for var in ROOT_VARIABLES:
        value = environ.get(var, "").strip()
        if not value:
            continue
        root = Path(value).expanduser()
        if not root.is_dir():
            problems[var] = f"{var}={value} is not a directory"
            continue
        tools: dict[str, Path | None] = {}
        for tool in TOOLS:
            path, why = _in_root(root, tool)
            tools[tool] = path
            if path is None:
                problems[tool] = why
        environ.setdefault("ANDROID_HOME", str(root))
        environ.setdefault("ANDROID_SDK_ROOT", str(root))
        return Sdk(root=root, source=var, problems=problems, env=environ, **tools)

    search = environ.get("PATH", "")
    tools = {}
    for tool in TOOLS:
        found = shutil.which(tool, path=search)
        tools[tool] = Path(found) if found else None
        if found is None:
            unset = " and ".join(v for v in ROOT_VARIABLES if v not in problems)
            why = "; ".join(problems[v] for v in ROOT_VARIABLES if v in problems)
            problems[tool] = (why + "; " if why else f"{unset} unset; ") + "not on PATH"
    path_root = _root_from_path(tools)
    if path_root is not None:
        environ.setdefault("ANDROID_HOME", str(path_root))
    source = "PATH" if any(tools.values()) else "none"
    return Sdk(root=path_root, source=source, problems=problems, env=environ, **tools)


def _root_from_path(tools: Mapping[str, Path | None]) -> Path | None:
    """The SDK root the PATH tools belong to: <root>/emulator/emulator or <root>/cmdline-tools/<v>/bin/..."""
    emu = tools.get("emulator")
    if emu is not None:
        real = emu.resolve()
        if real.parent.name == "emulator":
            return real.parent.parent
    mgr = tools.get("sdkmanager")
    if mgr is not None:
        real = mgr.resolve()
        if real.parent.name == "bin" and real.parent.parent.parent.name == "cmdline-tools":
            return real.parent.parent.parent.parent
    return None


def tail(text: str, lines: int = 20) -> str:
    """The last `lines` non-empty lines of a tool's output or log."""
    rows = [r for r in text.splitlines() if r.strip()]
    return "\n".join(rows[-lines:])


def run_tool(
    sdk: Sdk,
    tool: str,
    args: Sequence[str],
    input: str | None = None,
    timeout: float = 600,
    env: Mapping[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run an SDK tool with the SDK's environment; a non-zero exit is `SdkToolError` with the output's tail."""
    path = sdk.require(tool)
    cmd = [str(path), *args]
    try:
        done = subprocess.run(
            cmd, input=input, capture_output=True, text=True, timeout=timeout, env={**sdk.env, **(env or {})}
        )
    except subprocess.TimeoutExpired:
        raise SdkToolError(f"{tool} {' '.join(args)}: no answer in {timeout:g}s") from None
    except OSError as e:
        raise SdkToolError(f"{tool} ({path}): cannot run: {e.strerror or e}") from None
    if done.returncode != 0:
        out = tail((done.stdout or "") + "\n" + (done.stderr or ""), 8)
        raise SdkToolError(f"{tool} {' '.join(args)} exited {done.returncode}" + (f":\n{out}" if out else ""))
    return done
