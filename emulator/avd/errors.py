"""The AVD lifecycle's typed errors. `emulator/` imports nothing of the harness, so these are its own; the CLI
(`harness/cli/emulator.py`) maps `bad_input` errors to a configuration error (one line, exit 2) and the others
to an infrastructure failure. Every message names the SDK tool, the AVD, the serial or the console port."""

from __future__ import annotations


class AvdError(Exception):
    """Base class of every error the AVD lifecycle raises on purpose."""

    bad_input = False  # True: the user's input or setup is wrong (what to set is in the message)


class SdkNotFoundError(AvdError):
    """No Android SDK, or the SDK lacks the tool a step needs (says which variable to set)."""

    bad_input = True


class AvdNotFoundError(AvdError):
    """The named AVD does not exist (lists the ones that do)."""

    bad_input = True


class AvdConfigError(AvdError):
    """A bad argument: an unknown device profile, a console port outside 5554..5682, ..."""

    bad_input = True


class SdkToolError(AvdError):
    """sdkmanager / avdmanager / emulator ran and failed (names the command, its exit code, its output's tail)."""


class EmulatorExitedError(AvdError):
    """The emulator process ended before its device booted (with the tail of its log)."""


class BootTimeoutError(AvdError):
    """The device did not finish booting in time (what it was waiting for, and the tail of the emulator's log)."""


class ConsoleError(AvdError):
    """The emulator console answered KO, closed, or did not answer (names the port and the command)."""


class ConsoleRefusedError(ConsoleError):
    """Nothing listens on the console port (the emulator is not running, or another port was meant)."""


class ConsoleAuthError(ConsoleError):
    """The console rejected the auth token of ~/.emulator_console_auth_token."""

    bad_input = True
