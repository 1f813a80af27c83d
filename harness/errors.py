"""Typed errors. Every message names the file, field, device or step it is about.

The failure taxonomy (docs/scoring.md) rests on one line in this file: an `InfrastructureError` (a device,
the adb server, a transport or a model endpoint that is unusable after its own retries) is the only failure
that is retried and left out of SR / ATP. Everything an agent causes is the agent's failure and is scored.
"""


class HarnessError(Exception):
    """Base class of every error DroidHarness raises on purpose."""


class InfrastructureError(HarnessError):
    """Something the agent does not control is unusable: a device, the adb server, a transport, a model endpoint.
    The only kind of failure that is retried (on a fresh device) and, if it persists, left out of the scores."""


class DeviceError(InfrastructureError):
    """A device call failed (names the device serial and the operation)."""


class EndpointError(InfrastructureError):
    """A model endpoint (or the cassette standing in for it) gave no usable answer after its own retries
    (names the endpoint, the model and the step; never the key)."""


class ConfigError(HarnessError):
    """Bad configuration or command-line input (names the option or field)."""


class ActionValidationError(HarnessError):
    """An action (usually a model's output) failed validation (names the field path and the offending value)."""


class HierarchyError(HarnessError):
    """A view-hierarchy dump could not be parsed (names the source and the line or attribute)."""


class DiskFullError(InfrastructureError):
    """The disk (or the user's quota) filled up while the run wrote `path`, a file under `run_dir`: the run stops
    - a fresh device would not make room - with nothing half-written, and `--resume run_dir` completes it once
    there is room (`resumable` False: the run directory could not even be created). `needed`: the bytes the
    failed write needed."""

    def __init__(self, path: str, run_dir: str | None = None, needed: int = 0, resumable: bool = True) -> None:
        self.path, self.run_dir, self.needed, self.resumable = path, run_dir, needed, resumable
        where = f"{run_dir}: " if run_dir else ""
        super().__init__(f"{where}disk full writing {path}" + (f" ({needed} bytes)" if needed else ""))


EXPECTED_FAILURES = (HarnessError, OSError, EOFError)  # what devices, servers and transports raise (and timeouts)


def describe_error(e: BaseException) -> str:
    """One line for a failure: a harness error says itself, anything else names its type."""
    return str(e) if isinstance(e, HarnessError) else f"{type(e).__name__}: {e}"


def describe_failure(e: BaseException) -> str:
    """`describe_error`, and for an exception that no device, server or transport raises on its own (a bug of the
    harness or of the device it embeds: a BufferError, a KeyError), where it was raised -
    `BufferError: ... (at emulator/virtual/fs.py:388 in write)`: an infrastructure failure's record then points at
    its cause, which a retried episode otherwise hides."""
    text = describe_error(e)
    if isinstance(e, EXPECTED_FAILURES) or e.__traceback__ is None:
        return text
    import traceback
    from pathlib import Path

    where = traceback.extract_tb(e.__traceback__)[-1]
    path = Path(where.filename)
    root = Path(__file__).resolve().parent.parent  # the checkout: harness/, emulator/, agents/ ...
    shown = path.relative_to(root) if path.is_relative_to(root) else Path(*path.parts[-2:])
    return f"{text} (at {shown.as_posix()}:{where.lineno} in {where.name})"
