"""AitW TFRecord loader: real feature schema written by the test, actions, boxes, images, splits, corruption,
streaming memory, record round trips."""

from __future__ import annotations

import gzip
import json
import tracemalloc

import pytest

from harness.actions import Back, Click, Complete, Enter, Home, Impossible, Swipe, TypeText
from tasks.datasets import DatasetError, LoadStats, aitw
from tasks.datasets.convert import action_fields, from_unified, to_unified
from tests import dataset_fixtures as F


@pytest.fixture
def shard(tmp_path):
    (tmp_path / "google_apps").mkdir()
    return F.write_aitw_fixture(tmp_path / "google_apps" / "google_apps-00000-of-00001.tfrecord.gz")


def _episodes(path, **kw):
    return list(aitw.iter_episodes(path, **kw))


def test_episodes_steps_and_meta(shard):
    eps = _episodes(shard)
    assert [e.episode_id for e in eps] == ["1001", "1002", "1003"]
    assert [len(e) for e in eps] == [10, 2, 1]
    e = eps[0]
    assert e.dataset == "aitw" and e.instruction == "search for a coffee maker" and e.lang == "en"
    assert e.meta["subset"] == "GoogleApps" and e.meta["device_type"] == "PIXEL_4_XL" and e.meta["complete"]
    assert [s.index for s in e.steps] == list(range(10))
    assert e.steps[0].extras["current_activity"].startswith("com.google.android")
    assert e.to_task() is None


def test_actions_in_the_unified_schema(shard):
    acts = [s.action for s in _episodes(shard)[0].steps]
    # yx_touch (0.5, 0.25) is y first: the unified point is x = 0.25, y = 0.5
    assert acts[0] == Click(point=(0.25, 0.5))
    assert acts[1] == Click(point=(0.25, 0.5))  # lift drift 0.0156 <= 0.04: still a tap
    assert acts[2] == TypeText(text='coffee maker 日本 "quoted"; $(reboot)')
    assert isinstance(acts[3], Swipe) and acts[3].direction == "up"
    assert (acts[3].start.x, acts[3].start.y, acts[3].end.x, acts[3].end.y) == (0.5, 0.75, 0.5, 0.25)
    assert acts[4].direction == "down" and acts[5].direction == "left"
    assert acts[6:] == [Enter(), Back(), Home(), Complete()]
    assert _episodes(shard)[1].steps[1].action == Impossible()
    assert _episodes(shard)[1].steps[0].action == Click(point=(1.0, 0.0))


def test_ui_annotations_become_pixel_boxes(shard):
    step = _episodes(shard)[0].steps[0]
    assert (step.width, step.height) == (24, 40)
    # [y, x, h, w] = [0.1, 0.25, 0.1, 0.5] on 24 x 40: l = 0.25*24 = 6, t = 0.1*40 = 4, r = 0.75*24 = 18, b = 8
    assert step.elements[0].bounds == (6, 4, 18, 8)
    assert step.elements[0].text == "text 0" and step.elements[0].kind == "TEXT"
    # [0.5, 0.0, 0.25, 1.0]: l 0, t 20, r 24, b 30
    assert step.elements[1].bounds == (0, 20, 24, 30) and step.elements[1].kind == "ICON_HOME"


def test_images_are_raw_pixels_decoded_lazily(shard):
    eps = _episodes(shard)
    step = eps[0].steps[3]
    assert step.image_path is None and step.load_image is not None
    img = step.image()
    assert img.size == (24, 40) and img.mode == "RGB"
    for x, y in [(0, 0), (5, 7), (23, 39)]:
        assert img.getpixel((x, y)) == F.expected_pixel(x, y, seed=3)
    rgba = eps[1].steps[1].image()
    assert rgba.mode == "RGBA" and rgba.size == (30, 20) and rgba.getpixel((2, 3))[:3] == F.expected_pixel(2, 3, 21)
    gray = eps[2].steps[0].image()
    assert gray.mode == "L" and gray.getpixel((4, 1)) == F.expected_pixel(4, 1, 30)[0]


def test_keep_images_false_drops_pixels(shard):
    step = _episodes(shard, keep_images=False)[0].steps[0]
    assert step.load_image is None
    with pytest.raises(DatasetError, match="step 0"):
        step.image()


def test_split_filter_and_labels(shard, tmp_path):
    split = {"train": ["1001"], "test": [1002, "1003"]}
    assert [e.episode_id for e in _episodes(shard, split=split, split_label="test")] == ["1002", "1003"]
    f = tmp_path / "standard.json"
    f.write_text(json.dumps(split))
    eps = _episodes(shard, split=f, split_label="train")
    assert [e.episode_id for e in eps] == ["1001"] and eps[0].meta["split"] == "train"
    labels = {e.episode_id: e.meta["split"] for e in _episodes(shard, split={"test": ["1003"]})}
    assert labels == {"1001": None, "1002": None, "1003": "test"}


def test_reading_writing_reading_gives_the_same_records(shard, tmp_path):
    steps = [s for e in _episodes(shard) for s in e.steps]
    copy = tmp_path / "copy.tfrecord.gz"
    aitw.write_tfrecord(copy, ({**s.raw, "image/encoded": s.image().tobytes()} for s in steps))
    again = [s for e in _episodes(copy) for s in e.steps]
    assert [s.raw for s in again] == [s.raw for s in steps]
    assert all(a.image().tobytes() == b.image().tobytes() for a, b in zip(again, steps, strict=True))


def test_fixture_raw_matches_what_was_written(shard):
    written = [dict(r) for r in F.aitw_fixture_steps()]
    read = [s.raw for e in _episodes(shard) for s in e.steps]
    for w, r in zip(written, read, strict=True):
        w.pop("image/encoded")
        assert r == w


def test_round_trip_every_record(shard):
    for e in _episodes(shard):
        for s in e.steps:
            assert to_unified("aitw", s.raw) == s.action
            # with the record as template: exactly the same record
            assert from_unified("aitw", s.action, s.raw) == s.raw
            # canonical (template-free) encoding: same action fields, except the documented tap drift
            canon = from_unified("aitw", s.action)
            expected = action_fields("aitw", s.raw)
            if isinstance(s.action, Click):
                expected["results/yx_lift"] = expected["results/yx_touch"]  # lossy: a tap's lift drift
            assert canon == expected
            assert to_unified("aitw", canon) == s.action


def _corrupt(tmp_path, mutate, steps=None):
    """Write the fixture uncompressed, let `mutate(bytearray, offsets)` damage it, gzip it."""
    plain = tmp_path / "plain.tfrecord"
    aitw.write_tfrecord(plain, steps if steps is not None else F.aitw_fixture_steps(), compress=False)
    data = bytearray(plain.read_bytes())
    offsets, pos = [], 0
    while pos < len(data):
        offsets.append(pos)
        pos += 16 + int.from_bytes(data[pos : pos + 8], "little")
    data = mutate(data, offsets)
    out = tmp_path / "general" / "general-00.tfrecord.gz"
    out.parent.mkdir(exist_ok=True)
    out.write_bytes(gzip.compress(bytes(data)))
    return out


def test_bad_data_crc_names_file_and_record(tmp_path):
    def flip(data, offs):
        data[offs[3] + 12 + 40] ^= 0xFF
        return data

    bad = _corrupt(tmp_path, flip)
    with pytest.raises(DatasetError) as ei:
        _episodes(bad)
    msg = str(ei.value)
    assert str(bad) in msg and "record 3" in msg and "data CRC" in msg
    stats = LoadStats()
    eps = _episodes(bad, skip_bad=True, stats=stats)
    assert [e.episode_id for e in eps] == ["1002", "1003"]  # the episode holding the bad record is dropped
    assert stats.bad_records == 1 and stats.bad_episodes == 1 and stats.records == 3 and stats.episodes == 2
    assert "record 3" in stats.errors[0]


def test_bad_length_crc_abandons_the_rest_of_the_file(tmp_path):
    def flip(data, offs):
        data[offs[11] + 8] ^= 0x01
        return data

    bad = _corrupt(tmp_path, flip)
    with pytest.raises(DatasetError, match=r"record 11.*length CRC"):
        _episodes(bad)
    stats = LoadStats()
    eps = _episodes(bad, skip_bad=True, stats=stats)
    assert [e.episode_id for e in eps] == ["1001"]  # 1002 lost its second step, 1003 is unreachable
    assert stats.bad_files == 1 and stats.bad_records == 1 and stats.bad_episodes == 1


@pytest.mark.parametrize("gz", [True, False])
def test_truncated_shard(tmp_path, gz):
    def cut(data, offs):
        return data[: offs[5] + 30]

    bad = _corrupt(tmp_path, cut)
    if not gz:
        raw = gzip.decompress(bad.read_bytes())
        bad = tmp_path / "cut.tfrecord"
        bad.write_bytes(raw)
    else:
        whole = bad.read_bytes()
        bad.write_bytes(gzip.compress(gzip.decompress(whole))[:-12])  # cut the gzip trailer too
    with pytest.raises(DatasetError, match=r"record 5"):
        _episodes(bad)
    stats = LoadStats()
    assert _episodes(bad, skip_bad=True, stats=stats) == []
    assert stats.bad_files == 1 and stats.bad_episodes == 1


def test_missing_feature_names_field_record_episode_step(tmp_path):
    steps = list(F.aitw_fixture_steps())
    steps[4] = F.aitw_step(
        "1001",
        4,
        10,
        "search for a coffee maker",
        4,
        touch_yx=(0.25, 0.5),
        lift_yx=(0.75, 0.5),
        seed=4,
        drop=("results/action_type",),
    )
    path = tmp_path / "missing.tfrecord.gz"
    aitw.write_tfrecord(path, steps)
    with pytest.raises(DatasetError) as ei:
        _episodes(path)
    msg = str(ei.value)
    for part in (str(path), "record 4", "episode 1001", "step 4", "'results/action_type'", "missing"):
        assert part in msg
    stats = LoadStats()
    assert [e.episode_id for e in _episodes(path, skip_bad=True, stats=stats)] == ["1002", "1003"]
    assert stats.bad_records == 1


def test_wrong_image_size_and_dual_point_without_points(tmp_path):
    bad_img = F.aitw_step("9", 0, 1, "g", 6)
    bad_img["image/encoded"] = b"\x00" * 10
    path = tmp_path / "img.tfrecord.gz"
    aitw.write_tfrecord(path, [bad_img])
    with pytest.raises(DatasetError, match=r"'image/encoded'.*10 bytes"):
        _episodes(path)
    path2 = tmp_path / "pt.tfrecord.gz"
    aitw.write_tfrecord(path2, [F.aitw_step("9", 0, 1, "g", 4, drop=("results/yx_touch",))])
    with pytest.raises(DatasetError, match=r"'results/yx_touch'"):
        _episodes(path2)
    path3 = tmp_path / "code.tfrecord.gz"
    aitw.write_tfrecord(path3, [F.aitw_step("9", 0, 1, "g", 9)])
    with pytest.raises(DatasetError, match=r"'results/action_type'.*unknown action code 9"):
        _episodes(path3)


def test_step_ids_must_be_contiguous(tmp_path):
    steps = [F.aitw_step("7", 0, 2, "g", 6), F.aitw_step("7", 2, 2, "g", 10)]
    path = tmp_path / "gap.tfrecord.gz"
    aitw.write_tfrecord(path, steps)
    with pytest.raises(DatasetError, match=r"record 1 \(episode 7, step 2\).*'step_id'"):
        _episodes(path)


@pytest.mark.slow
def test_streaming_keeps_memory_bounded(tmp_path):
    n, width, height = 2000, 96, 160
    path = tmp_path / "big.tfrecord.gz"
    aitw.write_tfrecord(path, F.aitw_big_steps(n, 10, width, height))
    decoded_total = n * width * height * 3  # ~92 MB of pixels in the shard
    tracemalloc.start()
    try:
        steps = episodes = 0
        for ep in aitw.iter_episodes(path):
            episodes += 1
            for s in ep.steps:
                img = s.image()
                assert img.getpixel((3, 2)) == F.expected_pixel(3, 2, (steps) % 200)
                steps += 1
                del img
            del ep
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert steps == n and episodes == n // 10
    assert peak < decoded_total / 10, f"peak {peak} bytes for a {decoded_total}-byte shard"
