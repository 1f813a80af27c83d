"""What service handlers see of an adb stream (implemented by the transport) and of a shell's standard I/O.

Every service handler runs in its own thread and may block.
"""

from __future__ import annotations

from typing import Protocol


class StreamClosed(Exception):
    """The stream was closed (by the host, by the device, or because the transport dropped)."""


class Stream(Protocol):
    """One adb stream (OPEN ... CLSE) as a byte pipe. Used by `sync:`, `tcp:PORT`, shell and exec services."""

    def read(self, n: int = -1, timeout: float | None = None) -> bytes:
        """Up to n bytes (n < 0: whatever is buffered, at least one chunk). b"" once the host closed it.
        Raises TimeoutError when `timeout` seconds pass with nothing to read."""

    def read_exact(self, n: int) -> bytes:
        """Exactly n bytes, or raise StreamClosed."""

    def write(self, data: bytes | bytearray | memoryview) -> None:
        """Send, as WRTEs of at most the negotiated max payload, one in flight: queued, waiting only while a
        pipe's worth (64 KiB) is unsent. Raises StreamClosed if the stream is gone."""

    def hold_output(self) -> None:
        """Keep what is written until the stream closes (or a full WRTE is waiting), so the output of a command
        that ends at once leaves with its end as one WRTE."""

    def release_output(self) -> None:
        """Send what `hold_output` kept, now; later writes go as they come."""

    def close(self) -> None:
        """Close from the device side (CLSE), after what is still to send. Idempotent."""

    @property
    def closed(self) -> bool: ...

    def wait_closed(self, timeout: float | None = None) -> bool:
        """Block until the stream is closed by either side; True if closed."""


class ShellIO(Protocol):
    """Standard I/O of one shell command line. The shell services build it over a Stream:
    `shell:` (v1) merges stderr into stdout; `shell,v2:` frames stdout (1), stderr (2) and the exit code (3);
    `exec:` passes raw stdout and drops stderr (as adbd's exec does not, it has no pty: stderr goes to stdout
    on a phone only with 2>&1, so we drop it)."""

    def read_stdin(self, n: int = -1, timeout: float | None = None) -> bytes:
        """Bytes the host sent (b"" at end of input: v2 close-stdin, or the stream closed)."""

    def write_stdout(self, data: bytes) -> None: ...

    def write_stderr(self, data: bytes) -> None: ...

    @property
    def closed(self) -> bool:
        """True once the host closed the stream (the command's "terminal" went away)."""

    def wait_closed(self, timeout: float | None = None) -> bool: ...
