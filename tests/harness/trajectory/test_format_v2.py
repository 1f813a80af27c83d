"""Trajectory format 2 (content-addressed frames/, lossless WebP, gzip'd hierarchies) and reading format 1
(NNN.png / NNN.xml per episode directory), written here by hand as old droidharness wrote it."""

from __future__ import annotations

import gzip
import io
import json
import threading
from pathlib import Path

import lxml.html
import pytest
from PIL import Image, ImageDraw

from harness.actions import Click, parse_action
from harness.report import draw, render
from harness.report.render import finish_run
from harness.trajectory.frames import FrameStore, WriterOptions
from harness.trajectory.reader import load_run
from harness.trajectory.records import pixel_digest
from harness.trajectory.result import EpisodeResult
from harness.trajectory.sink import Frame
from harness.trajectory.writer import RunWriter
from tests.trajectory_fixtures import action_result, agent_step, make_frame, observe, record

XML = (
    "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"
    '<node index="0" text="中文 &lt;b&gt;" class="android.widget.Button" package="p" '
    'bounds="[0,0][90,100]" clickable="true" enabled="true" /></hierarchy>'
)


def screen(seed: int, size: tuple[int, int] = (90, 200), mode: str = "RGB") -> Image.Image:
    img = Image.new("RGB", size, (seed * 40 % 256, 90, 160))
    d = ImageDraw.Draw(img)
    d.rectangle([5 + seed, 10, 60, 40 + seed], fill=(250, 250, 250))
    d.text((8, 120), f"screen {seed}", fill=(0, 0, 0))
    return img.convert(mode) if mode != "RGB" else img


def fake_obs(img: Image.Image, xml: str = XML) -> Frame:
    return make_frame(img, xml, "com.droidharness.notes", "Main", img.size)


# --- reading version 1 ----------------------------------------------------------------------------------------
def write_v1_run(root: Path) -> tuple[Path, list[Image.Image]]:
    """A run directory exactly as droidharness.step/1 writers left it."""
    run = root / "old"
    ep = run / "episodes" / "notes-create__en"
    ep.mkdir(parents=True)
    (run / "manifest.json").write_text(
        json.dumps(
            {
                "schema": "droidharness.manifest/1",
                "run_id": "old",
                "created": "2026-11-01T10:00:00.000Z",
                "agent": {"name": "heuristic"},
                "suite": {"name": "virtual", "task_ids": ["notes-create"], "languages": ["en"]},
                "tasks": [{"id": "notes-create", "category": "1-1", "instruction": {"en": "Create a note"}}],
            }
        )
    )
    imgs = [screen(1), screen(2), screen(1)]  # the final screen equals the first (v1 stored it twice)
    for n, img in enumerate(imgs, 1):
        img.save(ep / f"{n:03d}.png", "PNG", compress_level=1)
        (ep / f"{n:03d}.xml").write_text(XML.replace("screen", f"s{n}"), encoding="utf-8")
    lines = []
    for n, action in ((1, {"type": "CLICK", "point": {"x": 0.5, "y": 0.25}}), (2, {"type": "BACK"})):
        lines.append(
            {
                "schema": "droidharness.step/1",
                "step": n,
                "time": "2026-11-01T10:00:01.000Z",
                "observation": {
                    "screenshot": f"{n:03d}.png",
                    "xml": f"{n:03d}.xml",
                    "package": "com.droidharness.notes",
                    "activity": "Main",
                    "size": [90, 200],
                    "rotation": 0,
                    "paths": {},
                    "timings": {},
                },
                "agent": {"thought": f"t{n}", "action": action, "action_text": action["type"].lower()},
                "result": {"ok": True, "pixels": [[45, 50]]},
                "milestones": None,
                "timings": {"agent": 0.1, "total": 0.2},
            }
        )
    (ep / "steps.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    (ep / "episode.json").write_text(
        json.dumps(
            {
                "schema": "droidharness.episode/1",
                "task_id": "notes-create",
                "lang": "en",
                "category": "1-1",
                "status": "success",
                "success": True,
                "progress": 1.0,
                "steps": 2,
                "final_observation": {
                    "screenshot": "003.png",
                    "xml": "003.xml",
                    "package": "com.droidharness.notes",
                    "size": [90, 200],
                },
            }
        )
    )
    return run, imgs


def test_reads_a_v1_run(tmp_path: Path) -> None:
    path, imgs = write_v1_run(tmp_path)
    run = load_run(path)
    ep = run.episode("notes-create", "en")
    assert [s.schema_ for s in ep.steps] == ["droidharness.step/1"] * 2
    assert ep.final_step == 3
    for n in (1, 2, 3):
        assert ep.frame_path(n) == ep.path / f"{n:03d}.png" == ep.frame_path(n, "png")
        assert ep.image(n).tobytes() == imgs[n - 1].tobytes()
        assert ep.xml(n) == XML.replace("screen", f"s{n}")
    assert ep.frame_path(2, "xml") == ep.path / "002.xml"
    assert ep.image(4) is None and ep.xml(4) is None and ep.frame_path(4) is None
    with pytest.raises(ValueError):
        ep.frame_path(1, "jpeg")


def test_reads_an_unfinished_v1_episode(tmp_path: Path) -> None:
    """v1 readers found a frame by its number even when no line names it yet (a killed run)."""
    path, imgs = write_v1_run(tmp_path)
    ep_dir = path / "episodes" / "notes-create__en"
    (ep_dir / "episode.json").unlink()
    ep = load_run(path).episode("notes-create", "en")
    assert not ep.finished and ep.final_step is None
    assert ep.image(3).tobytes() == imgs[2].tobytes()


def test_report_of_a_v1_run_shows_every_step(tmp_path: Path) -> None:
    path, _ = write_v1_run(tmp_path)
    page = render.write_report(path).read_text(encoding="utf-8")
    doc = lxml.html.document_fromstring(page)
    srcs = [img.get("src") for img in doc.xpath("//img")]
    assert len(srcs) == 3 and all(s.startswith("data:image/jpeg;base64,") for s in srcs)  # 2 steps + final
    assert "no screenshot" not in page
    ep = load_run(path).episode("notes-create", "en")
    url = draw.thumbnail(ep, 1, ep.steps[0])
    thumb = Image.open(io.BytesIO(__import__("base64").b64decode(url.split(",", 1)[1]))).convert("RGB")
    w, h = thumb.size
    r, g, b = thumb.getpixel((int(0.5 * w), int(0.25 * h)))
    assert r > 150 and g < 120, (r, g, b)  # the tap dot is drawn on the old PNG too


# --- writing and reading version 2 ------------------------------------------------------------------------------
def test_identical_screens_are_stored_once_per_run(tmp_path: Path) -> None:
    run = RunWriter.create(tmp_path, "dedupe")
    a, b = screen(1), screen(2)
    a_again = Image.frombytes("RGB", a.size, a.tobytes())  # another object, the same pixels
    click = Click(point=(0.5, 0.25))
    for task, shots in (("one", [a, b, a_again, a]), ("two", [b, a])):
        ep = run.episode(task, "en")
        for img in shots:
            record(ep, fake_obs(img), agent_step(click), action_result(click))
        ep.finish(EpisodeResult(ep.task_id, ep.lang, status="success", success=True), final=fake_obs(b))
    finish_run(run)
    frames = sorted(p.name for p in (run.path / "frames").iterdir())
    webps = [n for n in frames if n.endswith(".webp")]
    assert sorted(webps) == sorted({f"{pixel_digest(a)}.webp", f"{pixel_digest(b)}.webp"})
    assert [n for n in frames if n.endswith(".xml.gz")] == [
        f"{__import__('hashlib').sha256(XML.encode()).hexdigest()}.xml.gz"
    ]
    assert run.frames.stats.screenshots == 8 and run.frames.stats.encoded == 2
    assert not list(run.path.rglob("*.tmp")) and not list((run.path / "episodes").rglob("*.png"))
    loaded = load_run(run.path)
    one = loaded.episode("one", "en")
    assert [s.observation.screenshot for s in one.steps] == [f"{pixel_digest(x)}.webp" for x in (a, b, a, a)]
    for n, img in enumerate([a, b, a, a, b], 1):  # steps 1-4 and the final frame 5
        got = one.image(n)
        assert got.mode == "RGB" and got.size == img.size and got.tobytes() == img.tobytes()  # lossless
        assert one.xml(n) == XML
    assert one.final_step == 5 and one.meta.final_observation.screenshot == f"{pixel_digest(b)}.webp"
    with Image.open(one.frame_path(1)) as im:
        assert im.format == "WEBP"
    assert gzip.decompress(one.frame_path(1, "xml").read_bytes()).decode() == XML
    # the report still shows every step's screen: 6 steps + 2 final screens
    doc = lxml.html.document_fromstring((run.path / "report.html").read_text(encoding="utf-8"))
    assert len(doc.xpath("//img")) == 8 and "no screenshot" not in (run.path / "report.html").read_text()


def test_name_is_the_hash_of_pixels_not_of_the_encoding(tmp_path: Path) -> None:
    store = FrameStore(tmp_path, WriterOptions(fsync=False))
    img = screen(3)
    encodings = []
    for kw in ({"compress_level": 1}, {"compress_level": 9}):
        buf = io.BytesIO()
        img.save(buf, "PNG", **kw)
        encodings.append(buf.getvalue())
    assert encodings[0] != encodings[1]
    names = {store.put_image(img), store.put_image(encodings[0]), store.put_image(encodings[1])}
    assert names == {f"{pixel_digest(img)}.webp"} and store.stats.encoded == 1
    assert pixel_digest(screen(3)) != pixel_digest(screen(4))
    assert pixel_digest(img) != pixel_digest(img.convert("RGBA"))  # the mode is part of the name


@pytest.mark.parametrize("mode", ["RGBA", "L", "P", "I;16"])
def test_other_modes_round_trip_exactly(tmp_path: Path, mode: str) -> None:
    img = screen(5, mode="RGBA" if mode == "RGBA" else "RGB")
    if mode == "RGBA":  # transparent pixels keep their colour too
        img.putpixel((0, 0), (12, 34, 56, 0))
        img.putpixel((1, 0), (200, 100, 50, 128))
    elif mode == "P":
        img = img.quantize(16)
    elif mode == "I;16":
        img = Image.frombytes("I;16", (4, 3), bytes(range(24)))
    else:
        img = img.convert(mode)
    run = RunWriter.create(tmp_path, "modes", options=WriterOptions(fsync=False))
    ep = run.episode("t", "en")
    record(ep, fake_obs(img), agent_step(None))
    ep.finish(EpisodeResult(ep.task_id, ep.lang))
    loaded = load_run(run.path).episode("t", "en")
    name = loaded.steps[0].observation.screenshot
    assert name.endswith(".webp" if mode == "RGBA" else ".png")
    got = loaded.image(1)
    assert (got.mode, got.size, got.tobytes()) == (img.mode, img.size, img.tobytes())
    if mode == "P":
        assert got.getpalette() == img.getpalette()


def test_concurrent_writers_of_the_same_frame(tmp_path: Path) -> None:
    """Two stores (as two processes would be) write the same screens at the same moment: every file decodes to
    the right pixels, nothing half-written or temporary is left."""
    imgs = [screen(i, size=(200, 400)) for i in range(4)]
    stores = [FrameStore(tmp_path, WriterOptions(fsync=False)) for _ in range(4)]
    barrier = threading.Barrier(len(stores))
    names: list[list[str]] = [[] for _ in stores]
    errors: list[BaseException] = []

    def work(k: int) -> None:
        try:
            for img in imgs:
                barrier.wait(timeout=30)
                names[k].append(stores[k].put_image(img))
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(len(stores))]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors
    assert all(n == names[0] for n in names) and len(set(names[0])) == 4
    assert sorted(p.name for p in (tmp_path / "frames").iterdir()) == sorted(names[0])
    for img, name in zip(imgs, names[0], strict=True):
        with Image.open(tmp_path / "frames" / name) as got:
            assert got.tobytes() == img.tobytes()


def test_episodes_in_parallel_share_frames(tmp_path: Path) -> None:
    run = RunWriter.create(tmp_path, "par", options=WriterOptions(fsync=False))
    imgs = [screen(i) for i in range(3)]

    def episode(task: str) -> None:
        ep = run.episode(task, "en")
        for img in imgs * 2:
            record(ep, fake_obs(img), agent_step(None))
        ep.finish(EpisodeResult(ep.task_id, ep.lang), final=fake_obs(imgs[0]))

    threads = [threading.Thread(target=episode, args=(f"t{k}",)) for k in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    loaded = load_run(run.path)
    assert len(list((run.path / "frames").glob("*.webp"))) == 3
    for ep in loaded.episodes.values():
        assert len(ep.steps) == 6
        for s in ep.steps:
            assert ep.image(s.step).tobytes() == imgs[(s.step - 1) % 3].tobytes()


def test_resume_reuses_frames_on_disk(tmp_path: Path) -> None:
    run = RunWriter.create(tmp_path, "res", options=WriterOptions(fsync=False))
    ep = run.episode("a", "en")
    record(ep, fake_obs(screen(1)), agent_step(None))
    ep.finish(EpisodeResult(ep.task_id, ep.lang))
    resumed = RunWriter.resume(run.path, WriterOptions(fsync=False))
    ep = resumed.episode("b", "en")
    record(ep, fake_obs(screen(1)), agent_step(None))
    record(ep, fake_obs(screen(2)), agent_step(None))
    ep.finish(EpisodeResult(ep.task_id, ep.lang))
    assert resumed.frames.stats.screenshots == 2 and resumed.frames.stats.encoded == 1
    b = load_run(run.path).episode("b", "en")
    assert b.image(1).tobytes() == screen(1).tobytes() and b.image(2).tobytes() == screen(2).tobytes()


def test_a_step_line_never_names_a_missing_frame(tmp_path: Path, monkeypatch) -> None:
    """The frame is written before its line: when writing the frame fails, the line is not written."""
    import harness.trajectory.frames

    run = RunWriter.create(tmp_path, "order", options=WriterOptions(fsync=False))
    ep = run.episode("t", "en")
    record(ep, fake_obs(screen(1)), agent_step(None))
    ep.flush()
    real = harness.trajectory.frames.atomic_write_bytes

    def failing(path: Path, data: bytes, fsync: bool = True) -> None:
        if path.name.endswith(".webp"):
            raise OSError("disk full")
        real(path, data, fsync)

    monkeypatch.setattr(harness.trajectory.frames, "atomic_write_bytes", failing)
    record(ep, fake_obs(screen(2)), agent_step(None))
    with pytest.raises(Exception, match="disk full"):
        ep.flush()
    monkeypatch.undo()
    ep.close()
    loaded = load_run(run.path).episode("t", "en")
    assert [s.step for s in loaded.steps] == [1]
    assert all((run.path / "frames" / s.observation.screenshot).is_file() for s in loaded.steps)


def test_layout_1_on_request(tmp_path: Path) -> None:
    """`WriterOptions(layout=1)` (bench/trajectory.py's "before") writes the old layout, which reads back."""
    from emulator.virtual.model import VirtualDeviceModel

    model = VirtualDeviceModel()
    run = RunWriter.create(tmp_path, "v1", options=WriterOptions(layout=1, fsync=False))
    ep = run.episode("t", "en")
    obs = observe(model, "com.droidharness.notes")
    record(ep, obs, agent_step(parse_action({"type": "BACK"})))
    ep.finish(EpisodeResult(ep.task_id, ep.lang), final=obs)
    finish_run(run)
    assert sorted(p.name for p in ep.path.iterdir()) == [
        "001.png",
        "001.xml",
        "002.png",
        "002.xml",
        "episode.json",
        "steps.jsonl",
    ]
    assert not (run.path / "frames").exists()
    loaded = load_run(run.path).episode("t", "en")
    assert loaded.steps[0].schema_ == "droidharness.step/1" and loaded.meta.schema_ == "droidharness.episode/1"
    assert loaded.image(2).tobytes() == obs.screenshot.tobytes() and loaded.xml(1) == obs.xml
    assert loaded.final_step == 2
    with pytest.raises(ValueError):
        WriterOptions(layout=3)


def test_png_frames_are_content_addressed_too_and_read_back(tmp_path: Path) -> None:
    """`--frames png`: the cheaper encoder, the same layout (a screen stored once, named by its pixels)."""
    run = RunWriter.create(tmp_path, "png", options=WriterOptions(fsync=False, frames="png"))
    a, b = screen(1), screen(2)
    ep = run.episode("t", "en")
    for img in (a, b, a):
        record(ep, fake_obs(img), agent_step(None))
    ep.finish(EpisodeResult(ep.task_id, ep.lang))
    names = sorted(p.name for p in (run.path / "frames").glob("*.png"))
    assert names == sorted({f"{pixel_digest(a)}.png", f"{pixel_digest(b)}.png"})
    loaded = load_run(run.path).episode("t", "en")
    assert loaded.image(1).tobytes() == a.tobytes() and loaded.image(3).tobytes() == a.tobytes()
    with pytest.raises(ValueError, match="frame format"):
        WriterOptions(frames="jpeg")


def test_the_devices_own_encoding_is_stored_byte_for_byte(adb_server, vdevice, tmp_path: Path) -> None:
    """A screenshot that came encoded (uiautomator2's JPEG) is kept as the device sent it, named by the hash of
    its bytes: the very pixels the harness decoded, with no re-encoding; one that did not is encoded as before."""
    import hashlib

    from tests.device_util import open_device

    with open_device(adb_server, vdevice) as dev:
        obs = dev.observe()
    assert obs.paths["screenshot"] == "u2" and obs.screenshot_bytes is not None
    assert obs.screenshot_bytes[:2] == b"\xff\xd8", "uiautomator2's JPEG"
    writer = RunWriter.create(tmp_path, "enc", options=WriterOptions(fsync=False))
    ep = writer.episode("t", "en")
    record(ep, Frame.of(obs), agent_step(None), step=1)
    bare = make_frame(obs.screenshot.convert("RGB"), obs.xml, obs.package, obs.activity, obs.size)  # pixels only
    record(ep, bare, agent_step(None), step=2)
    ep.finish(EpisodeResult("t", "en"))
    steps = load_run(tmp_path / "enc").episode("t", "en").steps
    first, second = steps[0].observation.screenshot, steps[1].observation.screenshot
    assert first == hashlib.sha256(obs.screenshot_bytes).hexdigest() + ".jpg"
    assert (tmp_path / "enc" / "frames" / first).read_bytes() == obs.screenshot_bytes
    with Image.open(tmp_path / "enc" / "frames" / first) as stored:
        assert stored.tobytes() == obs.screenshot.tobytes(), "decodes to what the agent saw"
    assert second == f"{pixel_digest(obs.screenshot.convert('RGB'))}.webp"


def test_the_final_screen_told_before_the_judging_is_stored_then_and_recorded_by_finish(tmp_path: Path) -> None:
    run = RunWriter.create(tmp_path, "final")
    a, b = screen(1), screen(2)
    click = Click(point=(0.5, 0.25))
    ep = run.episode("one", "en")
    record(ep, fake_obs(a), agent_step(click), action_result(click))
    final = fake_obs(b)
    ep.final_screen(final)
    ep.flush()  # the writer thread stored it before the episode is finished
    assert (run.path / "frames" / f"{pixel_digest(b)}.webp").exists()
    assert not (ep.path / "episode.json").exists()
    stored = run.frames.stats.screenshots
    meta = ep.finish(EpisodeResult(ep.task_id, ep.lang), final=final)
    assert run.frames.stats.screenshots == stored, "finish does not store it again"
    assert meta.final_observation is not None and meta.final_observation.screenshot == f"{pixel_digest(b)}.webp"
    loaded = load_run(run.path).episode("one", "en")
    assert loaded.final_step == 2 and loaded.image(2).tobytes() == b.tobytes()
