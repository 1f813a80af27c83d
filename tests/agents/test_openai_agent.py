"""The `openai` agent against a local OpenAI-compatible stub, through the real `openai` client."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from agents.cassette import CassetteMissError
from agents.openai_agent import OpenAIAgent
from harness.actions import Click, Home
from harness.agent import AgentStep, HistoryItem
from harness.coords import ScreenMapping
from harness.errors import ConfigError, EndpointError
from harness.plugins import create_agent
from tests.agents_helpers import VirtualDeviceModel, context, make_task, observe, run
from tests.openai_stub import OpenAIStub, fault, malformed, reply, tool_call

KEY = "sk-test-SECRET-0123456789abcdef"


@pytest.fixture
def stub():
    with OpenAIStub() as s:
        yield s


@pytest.fixture
def model() -> VirtualDeviceModel:
    return VirtualDeviceModel()


def make_agent(stub: OpenAIStub, **opts: Any) -> tuple[OpenAIAgent, list[float]]:
    slept: list[float] = []
    opts.setdefault("retry_seed", 7)
    agent = OpenAIAgent(base_url=stub.url, api_key=KEY, sleep=slept.append, **opts)
    agent.reset(context(make_task("Open Settings")))
    return agent, slept


def sent_image(body: dict[str, Any]) -> Image.Image:
    url = body["messages"][1]["content"][1]["image_url"]["url"]
    assert url.startswith("data:image/")
    return Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1])))


def settings_icon(obs) -> Any:
    return next(e for e in obs.tree if e.text == "Settings" and e.clickable)


def test_json_format_request_and_result(stub: OpenAIStub, model: VirtualDeviceModel) -> None:
    obs = observe(model)
    icon = settings_icon(obs)
    stub.push(json.dumps({"thought": "open settings", "action": {"type": "CLICK", "element": icon.index}}))
    agent, _ = make_agent(stub)
    step = agent.act(obs, [])
    assert step.action == Click(element=icon.index) and step.thought == "open settings" and not step.invalid
    assert step.usage.total_tokens == 120
    req = stub.requests[0]
    body = req.body
    assert req.path == "/v1/chat/completions" and body["model"] == "gpt-4o"
    assert body["response_format"] == {"type": "json_object"}
    assert body["messages"][0]["role"] == "system" and "JSON" in body["messages"][0]["content"]
    user_text = body["messages"][1]["content"][0]["text"]
    assert "Open Settings" in user_text and f'[{icon.index}] TextView "Settings"' in user_text
    img = sent_image(body)
    assert max(img.size) <= 1344 and list(img.size) == step.meta["screen_mapping"]["image_size"]
    assert step.meta["screen_mapping"]["device_size"] == [1080, 2400]
    assert len(step.meta["prompt_hash"]) == 64
    assert req.headers["authorization"] == f"Bearer {KEY}"  # the stub saw the key ...
    assert KEY not in repr(step)  # ... the step never holds it


def _format_reply(fmt: str, space: str = "image_pixels"):
    """A stub handler answering 'tap the Settings icon' in `fmt`, computed from the image it was sent."""

    def handler(body: dict[str, Any]) -> Any:
        img = sent_image(body)
        text = body["messages"][1]["content"][0]["text"]
        line = next(l for l in text.splitlines() if l.endswith('"Settings" (clickable, long-clickable)'))
        obs = observe(VirtualDeviceModel())
        el = obs.tree[int(line[1 : line.index("]")])]
        mapping = ScreenMapping(obs.size, img.size)
        ix, iy = mapping.device_to_image(el.center)
        rx, ry = round(el.center[0] / obs.size[0] * 1000), round(el.center[1] / obs.size[1] * 1000)
        if fmt == "agentcpm":
            return json.dumps({"thought": "点击设置", "POINT": [rx, ry]}, ensure_ascii=False)
        if fmt == "uitars":
            x, y = (rx, ry) if space == "relative_1000" else (ix, iy)
            return f"Thought: open Settings\nAction: click(start_box='<|box_start|>({x},{y})<|box_end|>')"
        return (
            f'<thinking>open Settings</thinking>\n<tool_call>\n{{"name": "mobile_use", "arguments": '
            f'{{"action": "click", "coordinate": [{ix}, {iy}]}}}}\n</tool_call>'
        )

    return handler


@pytest.mark.parametrize(
    "fmt, space",
    [("agentcpm", "image_pixels"), ("uitars", "image_pixels"), ("uitars", "relative_1000"), ("qwen", "image_pixels")],
)
def test_formats_map_model_coordinates_back_to_the_device(fmt: str, space: str, model: VirtualDeviceModel) -> None:
    with OpenAIStub(handler=_format_reply(fmt, space)) as stub:
        agent, _ = make_agent(stub, output_format=fmt, coordinate_space=space)
        steps = run(agent, model, make_task("Open Settings"), max_steps=1)
    action = steps[0].action
    assert isinstance(action, Click) and action.point is not None, steps[0]
    assert model.foreground.package == "com.android.settings"  # the tap landed on the Settings icon
    img_size = steps[0].meta["screen_mapping"]["image_size"]
    if fmt in ("uitars", "qwen") and space == "image_pixels":
        assert img_size[0] % 28 == 0 and img_size[1] % 28 == 0  # smart-resized: the model's pixel frame


def test_qwen_native_tool_calls(stub: OpenAIStub, model: VirtualDeviceModel) -> None:
    stub.push(reply(content=None, tool_calls=[tool_call({"action": "system_button", "button": "Home"})]))
    agent, _ = make_agent(stub, output_format="qwen")
    assert agent.act(observe(model), []).action == Home()


def test_429_is_retried_then_succeeds(stub: OpenAIStub, model: VirtualDeviceModel) -> None:
    stub.push(fault(429, "slow down", {"retry-after": "0"}), '{"thought":"t","action":{"type":"HOME"}}')
    agent, slept = make_agent(stub, backoff_base=0.5)
    step = agent.act(observe(model), [])
    assert step.action == Home() and step.meta["retries"] == 1
    assert len(stub.requests) == 2 and len(slept) == 1 and 0.25 <= slept[0] <= 0.5


def test_backoff_is_exponential_bounded_and_seeded(stub: OpenAIStub, model: VirtualDeviceModel) -> None:
    stub.push(*[fault(503)] * 4, '{"action":{"type":"HOME"}}')
    agent, slept = make_agent(stub, max_retries=4, backoff_base=1.0, backoff_max=3.0, retry_seed=3)
    agent.act(observe(model), [])
    assert len(slept) == 4
    for n, d in enumerate(slept):
        cap = min(3.0, 2**n)
        assert cap / 2 <= d <= cap
    stub.push(*[fault(503)] * 4, '{"action":{"type":"HOME"}}')
    again, slept2 = make_agent(stub, max_retries=4, backoff_base=1.0, backoff_max=3.0, retry_seed=3)
    again.act(observe(model), [])
    assert slept2 == slept  # same seed, same jitter


def test_5xx_beyond_the_bound_raises_an_endpoint_error(stub: OpenAIStub, model: VirtualDeviceModel) -> None:
    stub.push(fault(500, f"internal error for key {KEY}"), fault(502), fault(500))
    agent, slept = make_agent(stub, max_retries=2)
    with pytest.raises(EndpointError) as err:
        agent.act(observe(model), [HistoryItem(step=1, agent_step=AgentStep(action=Home()), result=None)])
    msg = str(err.value)
    assert stub.url in msg and "step 2" in msg and "3 attempts" in msg
    assert KEY not in msg
    assert len(stub.requests) == 3 and len(slept) == 2


def test_malformed_body_is_retried(stub: OpenAIStub, model: VirtualDeviceModel) -> None:
    stub.push(malformed(b"<html>bad gateway</html>"), {"choices": []}, '{"action":{"type":"HOME"}}')
    agent, _ = make_agent(stub)
    step = agent.act(observe(model), [])
    assert step.action == Home() and step.meta["retries"] == 2


def test_auth_error_is_not_retried_and_the_key_is_redacted(stub: OpenAIStub, model: VirtualDeviceModel) -> None:
    stub.push(fault(401, f"Incorrect API key provided: {KEY}"))
    agent, slept = make_agent(stub)
    with pytest.raises(EndpointError) as err:
        agent.act(observe(model), [])
    assert "401" in str(err.value) and KEY not in str(err.value) and "***" in str(err.value)
    assert len(stub.requests) == 1 and not slept


def test_invalid_output_is_repaired(stub: OpenAIStub, model: VirtualDeviceModel) -> None:
    stub.push("I think I should tap Settings.", '{"thought":"fixed","action":{"type":"HOME"}}')
    agent, _ = make_agent(stub)
    step = agent.act(observe(model), [])
    assert step.action == Home() and step.repair_attempts == 1 and not step.invalid
    assert step.usage.total_tokens == 240  # both calls counted
    msgs = stub.requests[1].body["messages"]
    assert msgs[2] == {"role": "assistant", "content": "I think I should tap Settings."}
    assert msgs[3]["role"] == "user" and "no JSON object found" in msgs[3]["content"]


def test_out_of_range_element_is_repaired(stub: OpenAIStub, model: VirtualDeviceModel) -> None:
    stub.push('{"action":{"type":"CLICK","element":9999}}', '{"action":{"type":"BACK"}}')
    agent, _ = make_agent(stub)
    step = agent.act(observe(model), [])
    assert step.repair_attempts == 1 and step.action.type == "BACK"
    assert "element 9999 does not exist" in stub.requests[1].body["messages"][3]["content"]


def test_invalid_after_max_repairs(stub: OpenAIStub, model: VirtualDeviceModel) -> None:
    stub.push("Action: click(start_box='(1,1)')", "still not json", "never requested")
    agent, _ = make_agent(stub, max_repairs=1)
    step = agent.act(observe(model), [])
    assert step.action is None and step.invalid and step.repair_attempts == 1
    assert "json output" in step.error and step.raw_output == "still not json"
    assert len(stub.requests) == 2 and stub.pending == 1


def test_history_and_set_of_marks(stub: OpenAIStub, model: VirtualDeviceModel) -> None:
    stub.push('{"action":{"type":"HOME"}}', '{"action":{"type":"HOME"}}')
    plain, _ = make_agent(stub)
    first = plain.act(observe(model), [])
    marked, _ = make_agent(stub, set_of_marks=True, image_format="jpeg")
    second = marked.act(observe(model), [HistoryItem(step=1, agent_step=first, result=None)])
    assert first.meta["image_sha256"] != second.meta["image_sha256"]
    assert sent_image(stub.requests[1].body).format == "JPEG"
    assert "Step 1: press home" in stub.requests[1].body["messages"][1]["content"][0]["text"]


def test_cassette_replays_identically_without_the_server(tmp_path: Path) -> None:
    cassette = tmp_path / "run.jsonl"
    task = make_task("Open Settings")
    script = [
        '{"thought":"open it","action":{"type":"CLICK","element":12}}',
        "not json at all",  # invalid -> repaired by the next one
        '{"thought":"scroll","action":{"type":"SCROLL","direction":"down"}}',
        '{"thought":"done","action":{"type":"COMPLETE"}}',
    ]
    with OpenAIStub(script) as stub:
        recorder = OpenAIAgent(base_url=stub.url, api_key=KEY, cassette=str(cassette), cassette_mode="record")
        recorded = run(recorder, VirtualDeviceModel(), task)
        stub_url = stub.url
    # the server is stopped: replay must not need it (a wrong base URL and no key prove it)
    player = OpenAIAgent(base_url=stub_url, cassette=str(cassette), cassette_mode="playback")
    replayed = run(player, VirtualDeviceModel(), task)
    assert [s.action for s in recorded][-1].type == "COMPLETE"
    assert replayed == recorded  # bit for bit: actions, thoughts, raw outputs, usage, meta
    text = cassette.read_text(encoding="utf-8")
    assert KEY not in text and "base64" not in text and len(text.splitlines()) == 4
    # a request that was never recorded
    other = OpenAIAgent(cassette=str(cassette), cassette_mode="playback")
    other.reset(context(make_task("Open Clock")))
    with pytest.raises(CassetteMissError, match=r"step 1 \(key [0-9a-f]{64}\)"):
        other.act(observe(VirtualDeviceModel()), [])


def test_registry_and_configuration_errors(stub: OpenAIStub, monkeypatch: pytest.MonkeyPatch) -> None:
    agent = create_agent("openai", base_url=stub.url, api_key=KEY, output_format="uitars")
    assert agent.name == "openai" and agent.options.output_format == "uitars"
    with pytest.raises(ConfigError, match="output_format"):
        create_agent("openai", api_key=KEY, output_format="xml")
    with pytest.raises(ConfigError, match="max_retires"):
        create_agent("openai", api_key=KEY, max_retires=3)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        create_agent("openai")
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    assert create_agent("openai").options.api_key is None  # taken from the environment, not stored
    assert KEY not in repr(create_agent("openai", api_key=KEY).options)
