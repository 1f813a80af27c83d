"""Record model responses and play them back, so an episode can be re-run without a network, bit for bit.

A cassette is a JSONL file; each line is one recorded response:

    {"v": 1, "key": "<sha256 of the request>", "step": 3, "response": {"content": ..., "tool_calls": ...,
     "finish_reason": ..., "usage": {...}, "model": ..., "seconds": 0.84}}

(`seconds`: the recorded call's round trip, which a playback reports as the step's model latency.)

The key hashes the request as the model sees it: model, messages (each image replaced by the sha256 of its
data URL), and sampling options. It never includes the API key, the endpoint URL or headers. The same request
may occur more than once (two identical episodes); the n-th lookup of a key in a process returns the n-th
recorded response for it (the last one once they run out), so a playback follows the recording.

Record mode appends one line per response with a single `write` on an `O_APPEND` descriptor under an
exclusive `flock` (where available), so concurrent episodes sharing a cassette never interleave lines. Replay
mode never touches the network: a request with no recorded response raises `CassetteMissError` naming the
step and the key.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections import Counter
from pathlib import Path
from typing import Any, Literal

from harness.errors import ConfigError, EndpointError
from harness.scrub import redact

try:  # POSIX only; Windows falls back to the in-process lock
    import fcntl
except ImportError:  # pragma: no cover
    fcntl = None  # type: ignore[assignment]  # reason: no fcntl on Windows; the in-process lock remains

CassetteMode = Literal["record", "playback"]
VERSION = 1


class CassetteMissError(EndpointError):
    """Playback found no recorded response for a request (names the cassette, step and key). The cassette
    stands in for the endpoint, so a miss is an infrastructure failure, listed as such, not the agent's."""


def _hash_images(value: Any) -> Any:
    """A copy of a request with every data URL replaced by its sha256 (keys are small and stable)."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if k == "url" and isinstance(v, str) and v.startswith("data:"):
                out[k] = "sha256:" + hashlib.sha256(v.encode("ascii", "replace")).hexdigest()
            else:
                out[k] = _hash_images(v)
        return out
    if isinstance(value, (list, tuple)):
        return [_hash_images(v) for v in value]
    return value


def request_key(request: dict[str, Any]) -> str:
    """sha256 of the canonical JSON of `request` (model, messages, options) with images hashed."""
    canon = json.dumps(_hash_images(request), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canon.encode("utf-8")).hexdigest()


class Cassette:
    def __init__(self, path: str | os.PathLike[str], mode: CassetteMode = "record") -> None:
        if mode not in ("record", "playback"):
            raise ConfigError(f"cassette_mode must be 'record' or 'playback', got {mode!r}")
        self.path = Path(path)
        self.mode: CassetteMode = mode
        self._lock = threading.Lock()
        self._entries: dict[str, list[dict[str, Any]]] = {}
        self._used: Counter[str] = Counter()
        if mode == "playback" and not self.path.is_file():
            raise ConfigError(f"cassette {self.path}: file not found (playback needs a recorded cassette)")
        if self.path.is_file():
            self._load()

    def _load(self) -> None:
        with self.path.open("r", encoding="utf-8") as fh:
            for n, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    entry = json.loads(line)
                    key, response = entry["key"], entry["response"]
                except (json.JSONDecodeError, KeyError, TypeError) as exc:
                    raise ConfigError(f"cassette {self.path}: line {n} is not a cassette entry: {exc}") from None
                self._entries.setdefault(key, []).append(response)

    def __len__(self) -> int:
        return sum(len(v) for v in self._entries.values())

    def lookup(self, key: str, step: int | str) -> dict[str, Any]:
        """The recorded response for `key` (its n-th occurrence). Raises `CassetteMissError`."""
        with self._lock:
            entries = self._entries.get(key)
            if not entries:
                raise CassetteMissError(
                    f"cassette {self.path}: no recorded response for the request of step "
                    f"{step} (key {key}); the prompt, screenshot or options differ from the "
                    f"recording, or it was never recorded"
                )
            n = self._used[key]
            self._used[key] += 1
            return entries[min(n, len(entries) - 1)]

    def record(self, key: str, response: dict[str, Any], step: int | str) -> None:
        """Append one response (one atomic line)."""
        line = (
            json.dumps(
                {"v": VERSION, "key": key, "step": step, "response": response},
                ensure_ascii=False,
                sort_keys=True,
                separators=(",", ":"),
            )
            + "\n"
        )
        data = redact(line).encode("utf-8", "backslashreplace")  # secrets never reach a cassette either
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                if fcntl is not None:
                    fcntl.flock(fd, fcntl.LOCK_EX)
                written = os.write(fd, data)
                if written != len(data):  # pragma: no cover - a short write on a regular file
                    raise OSError(f"short write to cassette {self.path}")
                os.fsync(fd)
            finally:
                if fcntl is not None:
                    fcntl.flock(fd, fcntl.LOCK_UN)
                os.close(fd)
            self._entries.setdefault(key, []).append(response)
            self._used[key] += 1
