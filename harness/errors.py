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
