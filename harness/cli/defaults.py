"""The engine's values that the commands' `--help` shows (defaults, lists of choices), kept here so that printing
help imports no engine: the virtual device, the dataset adapters, the evaluator, the report.
tests/harness/cli/test_help.py checks that each one equals the value it stands for."""

from __future__ import annotations

DEFAULT_PROFILE = "medium_phone"  # emulator.virtual.profiles.DEFAULT_PROFILE
CLOCKS = ("real", "virtual")  # emulator.virtual.clock.CLOCKS: an embedded device's clock (`--clock`)
CLOCK_HELP = (
    "Embedded devices' clock: real, or virtual (simulated time: waits, gestures and delays advance the device's "
    "clock instead of sleeping). Phones, emulators and AVD copies keep their own time."
)
AVD_PROFILES = (  # emulator.avd.AVD_DEVICES: the profiles an AVD can be created for
    "pixel_7_pro",
    "pixel_8_pro",
    "pixel_fold",
    "pixel_tablet",
    "medium_phone",
    "small_phone",
    "pixel_4_xl",
)
DATASETS = ("aitw", "odyssey", "androidlens", "aitz", "screenqa")  # tasks.datasets.registry.NAMES
EPISODIC_DATASETS = ("aitw", "odyssey", "androidlens", "aitz")  # tasks.datasets.registry.EPISODIC
AGENT_TIMEOUT = 180.0  # harness.eval.offline.AGENT_TIMEOUT (harness.run.loop.calls)
RESAMPLES = 10_000  # harness.report.compare.RESAMPLES
ANIMATION_FORMATS = ("gif", "mp4")  # harness.export.animation.FORMATS
DEFAULT_WIDTH = 480  # harness.export.animation.DEFAULT_WIDTH
DEFAULT_FRAME_MS = 1000  # harness.export.animation.DEFAULT_FRAME_MS
