"""The kinds of a pool's devices (harness.run.fleet.kinds): a run whose devices are reached over adb (processes,
phones, emulators) never imports the embedded device's model into the harness - only a pool of in-process devices
does, when it is built."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.paths import REPO

PROBE = """
import json, sys
import harness.run.fleet.kinds, harness.run.orchestration.suite
before = sorted(m for m in sys.modules if m.startswith(("emulator.virtual.model", "harness.device.inprocess")))
from harness.run.fleet.pool import DevicePool
pool = DevicePool(1, isolation="in_process")
after = sorted(m for m in sys.modules if m.startswith(("emulator.virtual.model", "harness.device.inprocess")))
print(json.dumps([before, after, type(pool.backends[0]).__name__]))
"""


def test_the_device_model_is_imported_only_for_a_pool_of_in_process_devices():
    out = subprocess.run([sys.executable, "-c", PROBE], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    before, after, backend = json.loads(out.stdout.strip().splitlines()[-1])
    assert before == []
    assert "emulator.virtual.model" in after and "harness.device.inprocess" in after
    assert backend == "InProcessBackend"
