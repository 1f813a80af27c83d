"""The `openai` agent through the real runner: the real `openai` client against a local OpenAI-compatible
server whose answers come from the live screen; 429 / 500 / malformed replies on the way; a cassette recorded
once replays the run identically with the server stopped."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.plugins import create_agent
from harness.run.fleet.pool import DevicePool
from harness.run.orchestration.suite import SuiteOptions, run_suite
from harness.trajectory.reader import load_run
from tasks.suite import load_suite
from tests.openai_stub import OpenAIStub, fault, malformed
from tests.run_util import FAST_WRITER

pytestmark = pytest.mark.integration

TASK = "notes-search-password"  # open Notes, search, type, see the filtered list
KEY = "sk-test-NEVER-WRITE-ME-0123456789"


def _oracle(pool: DevicePool, lang: str):
    """A stub handler that plays the task's reference solution as a model would answer: from the live screen."""
    from harness.agent import EpisodeContext

    task = next(t for t in load_suite("virtual") if t.id == TASK)
    replay = create_agent("reference")
    replay.reset(
        EpisodeContext(task=task, lang=lang, instruction=task.instruction_for(lang), seed=0, max_steps=task.max_steps)
    )
    script = {1: fault(429, "slow down"), 3: fault(500, "boom"), 5: malformed(b'{"choices": "nope"}')}
    n = {"i": 0}

    def handler(body):
        n["i"] += 1
        if n["i"] in script:
            return script[n["i"]]
        if n["i"] == 7:
            return "I think I should tap the search icon."  # not JSON: the agent must ask for a repair
        step = replay.act(pool.slot(0).observe(), [])
        return json.dumps({"thought": f"step {n['i']}", "action": step.action.model_dump(mode="json")})

    return handler


def _episode(run_dir: Path, lang: str):
    return load_run(run_dir).episode(TASK, lang)


def test_openai_agent_completes_a_task_and_the_cassette_replays_it(tmp_path):
    cassette = tmp_path / "cassette.jsonl"
    opts = dict(
        model="stub-vlm",
        api_key=KEY,
        output_format="json",
        cassette=str(cassette),
        backoff_base=0.001,
        backoff_max=0.01,
        retry_seed=1,
        max_repairs=1,
    )
    with DevicePool(1) as pool:
        with OpenAIStub(handler=_oracle(pool, "zh")) as stub:
            rec = run_suite(
                SuiteOptions(
                    writer=FAST_WRITER, task_ids=(TASK,), langs=("zh",), out=tmp_path, run_id="live", agent="openai"
                ),
                pool=pool,
                agent_factory=lambda: create_agent("openai", base_url=stub.url, cassette_mode="record", **opts),
            )
            sent = stub.requests
    (r,) = rec.results
    assert r.success and r.status == "success", r
    assert any(
        isinstance(m["content"], list) and any(p.get("type") == "image_url" for p in m["content"])
        for q in sent
        for m in q.body["messages"]
    ), "the screenshot is sent"
    ep = _episode(tmp_path / "live", "zh")
    assert sum(s.agent.repair_attempts for s in ep.steps) >= 1 and ep.meta.invalid_outputs == 0
    for f in tmp_path.rglob("*"):
        if f.is_file() and f.suffix in (".json", ".jsonl", ".html", ".xml"):
            assert KEY not in f.read_text(errors="replace"), f"API key leaked into {f}"

    # the server is stopped: the cassette alone reproduces the run, bit for bit in actions and results
    again = run_suite(
        SuiteOptions(
            writer=FAST_WRITER, task_ids=(TASK,), langs=("zh",), out=tmp_path, run_id="replayed", agent="openai"
        ),
        agent_factory=lambda: create_agent(
            "openai", base_url="http://127.0.0.1:9/v1", cassette_mode="playback", **opts
        ),
    )
    (r2,) = again.results
    assert (r2.success, r2.progress, r2.steps, r2.answer) == (r.success, r.progress, r.steps, r.answer)
    a, b = _episode(tmp_path / "live", "zh"), _episode(tmp_path / "replayed", "zh")
    assert [s.agent.action for s in a.steps] == [s.agent.action for s in b.steps]
    assert [s.agent.raw_output for s in a.steps] == [s.agent.raw_output for s in b.steps]
