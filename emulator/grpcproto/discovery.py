"""The discovery file a running emulator writes for itself, so tools find its gRPC port (and token) without being
told: `$XDG_RUNTIME_DIR/avd/running/pid_<pid>.ini` (`~/.android/avd/running/` without XDG_RUNTIME_DIR), `key=value`
lines - `port.serial` (the console), `port.adb`, `avd.name`, `avd.dir`, `avd.id`, `cmdline`, `grpc.port` and, when
calls need a token, `grpc.token`. Written when the device starts (mode 0600: it may hold the token), removed when
it stops. An emulator is one process; a second virtual device in the same process writes
`pid_<pid>_<grpc port>.ini` beside the first rather than overwrite it.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path


def running_dir(env: dict[str, str] | None = None) -> Path:
    env = dict(os.environ) if env is None else env
    runtime = env.get("XDG_RUNTIME_DIR")
    if runtime:
        return Path(runtime) / "avd" / "running"
    return Path(env.get("HOME") or os.path.expanduser("~")) / ".android" / "avd" / "running"


def entries(console_port: int, adb_port: int, avd_name: str, grpc_port: int, token: str | None) -> dict[str, str]:
    avd_dir = Path(os.path.expanduser("~")) / ".android" / "avd" / f"{avd_name}.avd"
    out = {
        "port.serial": str(console_port),
        "port.adb": str(adb_port),
        "avd.name": avd_name,
        "avd.dir": str(avd_dir),
        "avd.id": avd_name,
        "cmdline": " ".join([sys.executable, *sys.argv]),
        "grpc.port": str(grpc_port),
    }
    if token:
        out["grpc.token"] = token
    return out


def write(values: dict[str, str], directory: Path | None = None) -> Path:
    """Write the discovery file (atomically, 0600); returns its path."""
    directory = directory or running_dir()
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"pid_{os.getpid()}.ini"
    if path.exists():
        path = directory / f"pid_{os.getpid()}_{values['grpc.port']}.ini"
    tmp = path.with_name(f".{path.name}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write("".join(f"{k}={v}\n" for k, v in values.items()))
    os.replace(tmp, path)
    return path


def read(path: Path) -> dict[str, str]:
    out: dict[str, str] = {}
    for line in path.read_text().splitlines():
        key, sep, value = line.partition("=")
        if sep:
            out[key.strip()] = value.strip()
    return out


def remove(path: Path) -> None:
    try:
        path.unlink()
    except FileNotFoundError:
        pass
