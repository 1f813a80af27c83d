"""The AVD lifecycle: find the Android SDK, install a system image, create AVDs for the virtual device's
profiles, start them headless (read-only copies in parallel), wait for a real boot, snapshot them through the
emulator console, stop them. Imports nothing of the harness (its errors are `AvdError`s). See docs/emulators.md.
"""

from .console import EmulatorConsoleClient, auth_token_file, read_auth_token
from .errors import (
    AvdConfigError,
    AvdError,
    AvdNotFoundError,
    BootTimeoutError,
    ConsoleAuthError,
    ConsoleError,
    ConsoleRefusedError,
    EmulatorExitedError,
    SdkNotFoundError,
    SdkToolError,
)
from .launch import (
    RunningEmulator,
    find_running,
    running_emulators,
    start_avd_copies,
    start_emulator,
    stop_emulator,
    wait_for_boot,
)
from .manage import AVD_DEVICES, avd_device, create_avd, default_image, install_image, list_avds, require_avd
from .sdk import Sdk, find_sdk
from .server import AdbServerInUse, adb_server_for, answering_adb_server, default_adb_server_port

__all__ = [
    "AVD_DEVICES",
    "AdbServerInUse",
    "AvdConfigError",
    "AvdError",
    "AvdNotFoundError",
    "BootTimeoutError",
    "ConsoleAuthError",
    "ConsoleError",
    "ConsoleRefusedError",
    "EmulatorConsoleClient",
    "EmulatorExitedError",
    "RunningEmulator",
    "Sdk",
    "SdkNotFoundError",
    "SdkToolError",
    "adb_server_for",
    "answering_adb_server",
    "auth_token_file",
    "avd_device",
    "create_avd",
    "default_adb_server_port",
    "default_image",
    "find_running",
    "find_sdk",
    "install_image",
    "list_avds",
    "read_auth_token",
    "require_avd",
    "running_emulators",
    "start_avd_copies",
    "start_emulator",
    "stop_emulator",
    "wait_for_boot",
]
