"""Where the harness records the processes it starts (private adb servers, device processes, emulators), so that
a later run can reap what a SIGKILLed owner left behind: one folder of JSON records per kind of process under the
state directory (`$DROIDHARNESS_STATE_DIR`, default `<tmp>/droidharness-<uid>`), each naming its owner's pid.

Kept apart from `adbserver` (which needs adbutils) so that a device process, which only writes its record, starts
without the adb client's imports.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any


def state_dir() -> Path:
    """Where the harness records what it started (`$DROIDHARNESS_STATE_DIR`, default `<tmp>/droidharness-<uid>`)."""
    env = os.environ.get("DROIDHARNESS_STATE_DIR")
    uid = os.getuid() if hasattr(os, "getuid") else 0
    d = Path(env) if env else Path(tempfile.gettempdir()) / f"droidharness-{uid}"
    d.mkdir(parents=True, exist_ok=True, mode=0o700)
    return d


def state_subdir(name: str) -> Path:
    """`state_dir()/name` (adb-servers, devices, emulators: one folder of records per kind of process)."""
    d = state_dir() / name
    d.mkdir(parents=True, exist_ok=True)
    return d


def pid_alive(pid: int) -> bool:
    """Is process `pid` running? Someone else's process counts (alive, and not ours); a zombie does not."""
    if pid <= 0:  # 0 and negatives address process groups, never one process
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a zombie child of this process is gone for our purposes
        return Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1][:1] != "Z"
    except (OSError, IndexError):
        return True


def orphaned_records(
    kind: str, ints: tuple[str, ...] = (), strs: tuple[str, ...] = ()
) -> Iterator[tuple[Path, dict[str, Any]]]:
    """The records in `state_subdir(kind)` whose owner process is gone, with the fields `ints` / `strs` converted;
    a record that cannot be read or lacks them is removed. What the owner started is the caller's to reap."""
    for rec_path in sorted(state_subdir(kind).glob("*.json")):
        try:
            rec = json.loads(rec_path.read_text())
            owner = int(rec["owner"])
            rec.update({k: int(rec[k]) for k in ints})
            rec.update({k: str(rec[k]) for k in strs})
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            rec_path.unlink(missing_ok=True)
            continue
        if owner == os.getpid() or pid_alive(owner):
            continue
        yield rec_path, rec
