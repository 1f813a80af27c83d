"""`run --suite androidworld --ray`: the suite's instances go to Ray actors (the suite pickled to them and drawn
again there from its seed), each actor's device started as the emulator's image; the same outcomes as a local run,
the skipped instance listed, the records and AndroidWorld's figure alike."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("android_env.proto.adb_pb2")
pytest.importorskip("ray")

from harness.androidworld.suite import AwSuite  # noqa: E402
from harness.run.orchestration.distributed import RayTarget, run_suite_ray  # noqa: E402
from harness.run.orchestration.suite import SuiteOptions, run_suite  # noqa: E402
from tests.harness.androidworld.fixture_suite import FixtureBinding  # noqa: E402
from tests.run_util import FAST_WRITER  # noqa: E402

pytestmark = [pytest.mark.ray, pytest.mark.slow, pytest.mark.integration]
CLASSES = ("FixtureTask", "WifiOnVerify", "NeedsMissingApp", "JudgeOpensSettings")


def _summary(res) -> dict:
    return json.loads((res.run_dir / "summary.json").read_text())


def test_ray_actors_run_the_suite_as_the_local_runner_does(ray_instance, tmp_path):
    def opts(name: str) -> SuiteOptions:
        suite = AwSuite(binding=FixtureBinding(), classes=CLASSES)
        return SuiteOptions(
            suite="androidworld",
            outside=suite,
            langs=("en",),
            agent="noop",
            devices=2,
            isolation="thread",
            out=tmp_path / name,
            writer=FAST_WRITER,
            report=False,
        )

    local = _summary(run_suite(opts("local")))
    remote = _summary(run_suite_ray(opts("ray"), RayTarget(None)))
    assert remote["statuses"] == local["statuses"] == {"failed": 2, "skipped": 1, "success": 1}
    [skip] = remote["skipped"]  # its reason names the actor's device
    assert skip["task_id"] == "NeedsMissingApp" and "com.android.chrome" in skip["reason"]
    assert remote["androidworld"]["by_class"] == local["androidworld"]["by_class"]
    assert remote["androidworld"]["success_rate"] == 1 / 3
