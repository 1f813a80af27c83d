"""Secrets never reach an artifact: the API key (flag or environment), the endpoint URL's user, password and
query values, an `Authorization` value, even when the model echoes them into its thoughts and raw output. A run
with the real `openai` client against a local stub server; every file of the run directory is searched."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from harness.plugins import create_agent
from harness.run.fleet.pool import DevicePool
from harness.run.loop.episode import Limits
from harness.run.orchestration.suite import SuiteOptions, run_suite
from harness.scrub import REDACTED, redact
from tests.openai_stub import OpenAIStub
from tests.run_util import FAST_WRITER

KEY = "sk-live-DO-NOT-WRITE-0123456789abcdef"
PASSWORD = "hunter2-url-password"
QUERY_SECRET = "azure-query-key-987654321"
TASK = "settings-dark-theme"


def _everything(root: Path) -> str:
    """Every file below `root`, as text (gzip'd hierarchies unpacked)."""
    out = []
    for f in sorted(root.rglob("*")):
        if f.is_file():
            data = f.read_bytes()
            if f.suffix == ".gz":
                data = gzip.decompress(data)
            out.append(f"== {f}\n" + data.decode("utf-8", "replace"))
    return "\n".join(out)


def test_keys_and_url_credentials_are_in_no_artifact_even_when_the_model_echoes_them(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)  # from the environment, as users set it
    echo = (
        f"My key is {KEY}; I call http://bob:{PASSWORD}@127.0.0.1/v1?api-key={QUERY_SECRET} with "
        f"Authorization: Bearer {KEY}"
    )
    answer = json.dumps({"thought": echo, "action": {"type": "HOME"}}) + f"\n(raw note: {KEY} {PASSWORD})"
    with OpenAIStub(handler=lambda body: answer) as stub:
        base = f"http://bob:{PASSWORD}@127.0.0.1:{stub.port}/v1?api-version=2024-06-01&api-key={QUERY_SECRET}"
        with DevicePool(1, in_process=True) as pool:
            res = run_suite(
                SuiteOptions(
                    writer=FAST_WRITER,
                    task_ids=(TASK,),
                    langs=("en",),
                    out=tmp_path,
                    run_id="s",
                    agent="openai",
                    agent_options={"model": "stub", "base_url": base},
                    limits=Limits(max_steps=2),
                ),
                pool=pool,
                agent_factory=lambda: create_agent("openai", model="stub", base_url=base, max_repairs=0),
            )
        sent = stub.requests
    (r,) = res.results
    assert r.steps == 2 and r.status == "failed", r  # HOME twice: scored, nothing leaked on the way
    assert sent and all("api-key=" + QUERY_SECRET in q.path for q in sent), "the query still reaches the endpoint"
    # the URL's user:password is the endpoint's basic auth (httpx sends it); the key rides along as api-key too
    assert all(q.headers.get("authorization", "").startswith(("Bearer ", "Basic ")) for q in sent)
    text = _everything(tmp_path / "s")
    for secret in (KEY, PASSWORD, QUERY_SECRET):
        assert secret not in text, f"{secret!r} leaked"
    assert "bob:" not in text
    assert "***" in text and "My key is ***" in text, "the echo is recorded, redacted, not dropped"
    manifest = json.loads((tmp_path / "s" / "manifest.json").read_text())
    assert "127.0.0.1" in manifest["agent"]["base_url"]  # where it ran stays visible


# Each key shape `redact` masks, one per pattern branch, inside hierarchy-like text (the skip of a text holding
# none of the shapes' starts must never skip one of them).
KEY_SHAPES = [
    "sk-proj-abcdefghijklmnop",
    "sk_live0123456789abcdef",
    "hf_abcdefghijklmnopqrst",
    *(f"gh{c}_abcdefghijklmnopqrstuvwx" for c in "pousr"),
    "github_pat_abcdefghijklmnopqrstuv",
    *(f"xox{c}-0123456789-abc" for c in "abpr"),
    "AIza" + "B" * 35,
    "AKIAABCDEFGHIJKLMNOP",
    "eyJhbGciOiJIUzI1.eyJzdWIiOiIxMjM0.c2lnbmF0dXJl",
]


@pytest.mark.parametrize("shape", KEY_SHAPES)
def test_every_key_shape_is_masked_in_a_hierarchy(shape: str) -> None:
    xml = f'<node text="token {shape} here" resource-id="a:id/b" bounds="[0,0][1,1]" />'
    assert redact(xml) == f'<node text="token {REDACTED} here" resource-id="a:id/b" bounds="[0,0][1,1]" />'


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Authorization: Bearer abcdefgh12345", f"Authorization: Bearer {REDACTED}"),
        ("BEARER abcdefgh12345", f"BEARER {REDACTED}"),
        ("header basic dXNlcjpwYXNz", f"header basic {REDACTED}"),
        # Python's IGNORECASE matches the long s to s and the dotless i to i: so does the skip's folding
        ("Baſic dXNlcjpwYXNz", f"Baſic {REDACTED}"),
        ("basıc dXNlcjpwYXNz", f"basıc {REDACTED}"),
        ("Bearer short", "Bearer short"),  # under 8 characters: not a credential
        ("a sky-blue sketch of 中文 basics", "a sky-blue sketch of 中文 basics"),
    ],
)
def test_authorization_values_are_masked_in_any_case(text: str, expected: str) -> None:
    assert redact(text) == expected
