"""The HTML report: numbers, escaping of hostile run data, overlays, and (when a browser exists) real rendering."""

from __future__ import annotations

import base64
import io
import os
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import lxml.html
import pytest
from PIL import Image

from harness.actions import parse_action
from harness.report import draw, summary
from harness.report import page as report_page
from harness.report.render import finish_run
from harness.trajectory.reader import load_run
from harness.trajectory.result import EpisodeResult
from harness.trajectory.writer import RunWriter
from tests.trajectory_fixtures import HOSTILE, build_run, write_episode

EVIL_ID = "evil\"><script>document.title='PWNED3'</script>"


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    from emulator.virtual.model import VirtualDeviceModel

    path = build_run(tmp_path_factory.mktemp("runs"), episodes=4, steps=5)
    run = RunWriter.resume(path)
    model = VirtualDeviceModel()
    ep = write_episode(run, model, EVIL_ID, "en", 2, finish=False, hostile=True, category=HOSTILE)
    ep.finish(EpisodeResult(ep.task_id, ep.lang, status=HOSTILE, category=HOSTILE, error=HOSTILE))  # hostile too
    write_episode(run, model, "killed", "zh", 2, finish=False)  # unfinished
    manifest = load_run(path).manifest.model_dump(mode="json", by_alias=True)
    manifest["agent"].update(name=HOSTILE, model=HOSTILE)
    run.write_manifest(manifest)
    finish_run(run)
    return path


@pytest.fixture(scope="module")
def page(run_dir: Path) -> str:
    return (run_dir / "report.html").read_text(encoding="utf-8")


def test_summary_numbers(run_dir: Path) -> None:
    s = summary.summarize(load_run(run_dir))
    o = s["overall"]
    # build_run: 4 episodes, task-1 failed (2/3 milestones), the rest succeeded; plus the hostile-status one
    # (finished, progress 0) and one unfinished episode
    assert o["episodes"] == 6 and o["unfinished"] == 1 and o["scored"] == 5
    assert o["sr"] == pytest.approx(3 / 5)
    assert o["atp"] == pytest.approx((1 + 2 / 3 + 1 + 1 + 0) / 5)
    assert o["mean_steps"] == pytest.approx((4 * 5 + 2) / 5)
    assert o["invalid_steps"] == 1  # task-0 step 5 (the hostile episode has 2 steps, the invalid one is 5th)
    assert o["tokens"] == (4 * 5 + 2 + 2) * 1280
    assert o["timings"]["capture"]["p50"] == pytest.approx(0.09)
    assert o["timings"]["agent"]["p95"] is not None
    assert s["by_language"]["en"]["episodes"] == 3 and s["by_language"]["zh"]["episodes"] == 3
    assert s["by_category"]["1-3"]["sr"] == 0.0  # task-1 (failed)
    assert s["by_category"]["?"]["unfinished"] == 1
    assert s["statuses"]["unfinished"] == 1 and s["statuses"]["success"] == 3
    assert load_run(run_dir).summary["overall"]["episodes"] == 6  # summary.json


def test_percentile() -> None:
    assert summary.percentile([], 50) is None
    assert summary.percentile([3.0], 95) == 3.0
    assert summary.percentile([1, 2, 3, 4], 50) == pytest.approx(2.5)
    assert summary.percentile([None, 1.0, 2.0], 100) == 2.0


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.starts: list[str] = []
        self.attrs: list[tuple[str, str | None]] = []

    def handle_starttag(self, tag, attrs):
        self.starts.append(tag)
        self.attrs += attrs


def test_hostile_strings_are_only_text(page: str) -> None:
    doc = lxml.html.document_fromstring(page)
    scripts = doc.xpath("//script")
    assert len(scripts) == 1 and scripts[0].text == report_page.JS  # ours only
    assert not doc.xpath("//textarea|//iframe|//object|//embed|//link|//base|//form")
    for el in doc.iter():
        for name, value in el.attrib.items():
            assert not name.lower().startswith("on"), (el.tag, name)
            assert "javascript:" not in value.lower()
    for img in doc.xpath("//img"):
        assert img.get("src").startswith("data:image/jpeg;base64,")
    assert doc.xpath("//title")[0].text.startswith("DroidHarness report")
    # the hostile text is there, verbatim, as text
    thoughts = [d.text_content() for d in doc.xpath("//div[@class='thought']")]
    assert HOSTILE in thoughts
    assert HOSTILE in [p.text_content() for p in doc.xpath("//pre")]  # raw output
    assert any(EVIL_ID == b.text_content() for b in doc.xpath("//summary/b"))
    instr = [s.text_content() for s in doc.xpath("//p[b='Instruction:']/span")]
    assert HOSTILE in instr
    # the hostile </details> did not close anything early: every episode has its body
    episodes = doc.xpath("//details[contains(concat(' ', @class, ' '), ' episode ')]")
    assert len(episodes) == 6 and all(ep.xpath("./div[@class='body']") for ep in episodes)
    # a second, independent tokenizer agrees
    tags = _Tags()
    tags.feed(page)
    assert tags.starts.count("script") == 1 and "textarea" not in tags.starts
    assert not [n for n, _ in tags.attrs if n.startswith("on")]


def test_no_external_resources_and_csp(page: str) -> None:
    doc = lxml.html.document_fromstring(page)
    for el in doc.iter():
        for name in ("src", "href", "action", "data"):
            v = el.get(name)
            assert v is None or v.startswith("data:") or v.startswith("#"), (el.tag, name, v[:40])
    csp = doc.xpath("//meta[@http-equiv='Content-Security-Policy']/@content")[0]
    assert "default-src 'none'" in csp and "script-src 'sha256-" in csp
    assert "http://" not in page.replace("http://localhost:8000/v1", "")
    assert "https://" not in page


def test_unfinished_and_secrets(page: str) -> None:
    assert "Unfinished: no episode.json" in page
    assert "SECRET" not in page


def test_thumbnail_overlay(run_dir: Path) -> None:
    ep = load_run(run_dir).episode("task-2", "en")
    click = ep.steps[0]  # CLICK at (0.5, 0.3)
    url = draw.thumbnail(ep, click.step, click)
    img = Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1])))
    assert img.format == "JPEG" and max(img.size) == draw.THUMB_LONG_SIDE
    w, h = img.size
    r, g, b = img.convert("RGB").getpixel((int(0.5 * w), int(0.3 * h)))
    assert r > 150 and g < 120 and b < 140, (r, g, b)  # the red tap dot
    plain = Image.open(io.BytesIO(base64.b64decode(draw.thumbnail(ep, click.step).split(",", 1)[1])))
    assert plain.convert("RGB").getpixel((int(0.5 * w), int(0.3 * h))) != (r, g, b)
    swipe = ep.steps[1]
    assert swipe.agent.action["type"] == "SWIPE"
    assert draw.norm_points(swipe, ep) == [(0.5, 0.8), (0.5, 0.3)]
    assert draw.norm_points(ep.steps[4], ep) == []  # BACK: a badge, no point
    assert draw.thumbnail(ep, 99) is None


def test_report_size_is_reasonable(run_dir: Path) -> None:
    size = (run_dir / "report.html").stat().st_size
    images = sum(1 for ep in load_run(run_dir).episodes.values() for _ in ep.steps) + 5
    assert size < 20_000 + images * 15_000, size


# --- a real browser, when one is installed (CI may skip) ---------------------------------------------------
def _browser() -> str | None:
    if Path("/usr/bin/chromium").exists():
        return "/usr/bin/chromium"
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        if shutil.which(name):
            return shutil.which(name)
    return None


BROWSER = _browser()
# outside CI a missing browser skips; in CI (.ci/run installs Debian's chromium) it is a failure, not a skip
needs_browser = pytest.mark.skipif(
    BROWSER is None and not os.environ.get("CI"),
    reason="no chromium/google-chrome installed (the test installs nothing; apt-get install chromium to run it)",
)


def _chromium(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    cmd = [
        BROWSER,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={tmp_path / 'profile'}",
        *args,
    ]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


@needs_browser
def test_renders_in_headless_chromium(run_dir: Path, tmp_path: Path) -> None:
    shot = tmp_path / "r.png"
    _chromium(tmp_path, f"--screenshot={shot}", "--window-size=1280,2000", (run_dir / "report.html").as_uri())
    assert shot.is_file() and shot.stat().st_size > 20_000
    img = Image.open(shot).convert("RGB")
    assert img.size == (1280, 2000)
    colors = img.getcolors(maxcolors=1 << 16)
    assert colors is None or len(colors) > 50  # text, tables, badges: not a blank page


@needs_browser
def test_hostile_script_does_not_run_in_chromium(run_dir: Path, tmp_path: Path) -> None:
    control = tmp_path / "control.html"  # proves scripts do run in this headless mode
    control.write_text(
        "<html><head><title>before</title></head><body><script>document.title='RAN'</script></body></html>"
    )
    out = _chromium(tmp_path, "--dump-dom", control.as_uri()).stdout
    assert lxml.html.document_fromstring(out).xpath("//title")[0].text == "RAN"
    out = _chromium(tmp_path, "--dump-dom", (run_dir / "report.html").as_uri()).stdout
    doc = lxml.html.document_fromstring(out)
    title = doc.xpath("//title")[0].text
    assert title.startswith("DroidHarness report") and "PWNED" not in title
    assert len(doc.xpath("//script")) == 1
    assert len(doc.xpath("//details[contains(@class, 'episode')]")) == 6


def test_edge_cases_render(tmp_path: Path) -> None:
    from harness.trajectory.sink import Frame
    from tests.trajectory_fixtures import agent_step, record

    empty = RunWriter.create(tmp_path, "empty")
    finish_run(empty)
    page = (empty.path / "report.html").read_text()
    assert "Episodes (0)" in page and summary.summarize(load_run(empty.path))["overall"]["sr"] is None
    run = RunWriter.create(tmp_path, "noshots")
    ep = run.episode("t", "en")

    blank = Frame(None, None)  # no screenshot, no hierarchy, nothing else either
    record(ep, blank, agent_step(parse_action({"type": "WAIT"})))
    record(ep, blank, agent_step(None))
    ep.finish(EpisodeResult(ep.task_id, ep.lang, status="agent_error", error="model endpoint returned 500"))
    finish_run(run)
    page = (run.path / "report.html").read_text()
    assert page.count("no screenshot") == 2 and "model endpoint returned 500" in page
    assert not list((run.path / "episodes" / "t__en").glob("*.png")) and not (run.path / "frames").exists()
