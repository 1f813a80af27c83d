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
