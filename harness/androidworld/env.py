"""The environment AndroidWorld's task code expects (`interface.AsyncEnv` and its `AndroidWorldController`), over one
leased device of the harness.

AndroidWorld's `initialize_task`, `is_successful` and `tear_down` take an env and use, of it:
- `env.controller`, handed to its `adb_utils` / `file_utils` / `app_snapshot` functions, which call
  `execute_adb_call(AdbRequest)` (here android_env's own parser over the harness's link: `harness.androidworld.adb`),
  `controller.env` (the same), `pull_file` / `push_file` (whole directories: AndroidWorld's own `file_utils`
  through the same calls), `get_ui_elements()`, the screen sizes;
- `env.get_state()`: the screen's pixels, the accessibility forest and AndroidWorld's `ui_elements` made of it by
  its own converter (`harness.androidworld.screen`);
- `env.interaction_cache`: the agent's answer (the information-retrieval judges read it);
- the foreground activity, orientation, screen sizes (AndroidWorld's own `adb_utils` over the same calls).

The agent does not act through this env: its steps go through the harness's loop, as every other suite's.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import numpy as np

from harness.androidworld.adb import AdbCalls, Doors
from harness.androidworld.screen import forest_of
from harness.device.controller import AdbDevice
from harness.observation import Observation

if TYPE_CHECKING:
    from android_env.proto import adb_pb2


class AwController:
    """AndroidWorld's `AndroidWorldController` over the harness: android_env requests, files, the screen."""

    def __init__(self, device: AdbDevice, doors: Doors) -> None:
        self.device = device
        self.doors = doors  # its shell, files, root, console and slot (rebase)
        self.calls = AdbCalls(doors)

    # --- android_env's interface (what `adb_utils` calls) -----------------------------------------------------
    def execute_adb_call(self, request: adb_pb2.AdbRequest) -> adb_pb2.AdbResponse:
        return self.calls.execute_adb_call(request)

    @property
    def env(self) -> AwController:
        """The raw android_env environment AndroidWorld reaches through `controller.env`: the same calls."""
        return self

    def refresh_env(self) -> None:
        """Reconnecting is the link's own business (`harness.device.link.Link.guard`)."""
        return None

    # --- AndroidWorldController's own ------------------------------------------------------------------------
    @property
    def device_screen_size(self) -> tuple[int, int]:
        from android_world.env import adb_utils

        size: tuple[int, int] = adb_utils.get_screen_size(self)
        return size

    @property
    def logical_screen_size(self) -> tuple[int, int]:
        from android_world.env import adb_utils

        size: tuple[int, int] = adb_utils.get_logical_screen_size(self)
        return size

    def screen(self) -> tuple[Observation, Any, list[Any]]:
        """The current screen, its accessibility forest and AndroidWorld's ui_elements of it (its own converter,
        invisible elements left out, as its controller calls it)."""
        from android_world.env import representation_utils

        obs = self.device.observe()
        forest = forest_of(obs.tree, obs.size, obs.package)
        return obs, forest, representation_utils.forest_to_ui_elements(forest, exclude_invisible_elements=True)

    def get_a11y_forest(self) -> Any:
        return self.screen()[1]

    def get_ui_elements(self) -> list[Any]:
        return self.screen()[2]

    @contextlib.contextmanager
    def pull_file(self, remote_db_file_path: str, timeout_sec: float | None = None) -> Iterator[str]:
        """The directory of `remote_db_file_path`, copied into a temporary local directory for the block."""
        import posixpath

        from android_world.utils import file_utils

        with file_utils.tmp_directory_from_device(posixpath.dirname(remote_db_file_path), self, timeout_sec) as d:
            yield str(d)

    def push_file(self, local_db_file_path: str, remote_db_file_path: str, timeout_sec: float | None = None) -> None:
        """Replace the files of `remote_db_file_path`'s directory with `local_db_file_path` (a database without its
        stale -wal and -shm files), as AndroidWorld's controller does."""
        import posixpath

        from android_world.utils import file_utils

        file_utils.clear_directory(posixpath.dirname(remote_db_file_path), self)
        file_utils.copy_data_to_device(local_db_file_path, remote_db_file_path, self, timeout_sec)


class AwEnv:
    """AndroidWorld's `AsyncEnv` over one leased device (see the module docstring)."""

    def __init__(self, device: AdbDevice, doors: Doors) -> None:
        self._controller = AwController(device, doors)
        self.interaction_cache = ""

    @property
    def controller(self) -> AwController:
        return self._controller

    def get_state(self, wait_to_stabilize: bool = False) -> Any:
        """AndroidWorld's `State`: the current screen's pixels (RGB), forest and ui_elements. The harness's capture
        already waits for the screen to settle after its own actions, so `wait_to_stabilize` adds nothing."""
        from android_world.env import interface

        del wait_to_stabilize
        obs, forest, elements = self._controller.screen()
        pixels = np.asarray(obs.screenshot.convert("RGB"))
        return interface.State(pixels=pixels, forest=forest, ui_elements=elements, auxiliaries={})

    def reset(self, go_home: bool = False) -> Any:
        from android_world.env import adb_utils

        if go_home:
            adb_utils.press_home_button(self._controller)
        self.interaction_cache = ""
        return self.get_state()

    def execute_action(self, action: Any) -> None:
        """An AndroidWorld `JSONAction`, as its env executes one (its own actuation); ANSWER fills the cache."""
        from android_world.env import actuation, json_action

        if action.action_type == json_action.ANSWER:
            self.interaction_cache = action.text
            return
        if action.action_type == json_action.STATUS:
            return
        state = self.get_state()
        actuation.execute_adb_action(action, state.ui_elements, self.logical_screen_size, self._controller)

    @property
    def foreground_activity_name(self) -> str:
        from android_world.env import adb_utils

        activity = adb_utils.get_current_activity(self._controller)[0]
        return str(activity) if activity else ""

    @property
    def device_screen_size(self) -> tuple[int, int]:
        return self._controller.device_screen_size

    @property
    def logical_screen_size(self) -> tuple[int, int]:
        return self._controller.logical_screen_size

    @property
    def orientation(self) -> int:
        from android_world.env import adb_utils

        return int(adb_utils.get_orientation(self._controller))

    @property
    def physical_frame_boundary(self) -> tuple[int, int, int, int]:
        from android_world.env import adb_utils

        box: tuple[int, int, int, int] = adb_utils.get_physical_frame_boundary(self._controller)
        return box

    def hide_automation_ui(self) -> None:
        from android_world.env import adb_utils

        adb_utils.issue_generic_request("shell settings put system pointer_location 0", self._controller)

    def display_message(self, message: str, header: str = "") -> None:
        """AndroidWorld's overlay app is not on the device: nothing is shown (nothing on screen changes)."""
        del message, header

    def ask_question(self, question: str, timeout_seconds: float = -1.0) -> str | None:
        raise NotImplementedError("ask_question is not implemented.")  # as AndroidWorld's own env

    def close(self) -> None:
        return None  # the device is the pool's


__all__ = ["AwController", "AwEnv"]
