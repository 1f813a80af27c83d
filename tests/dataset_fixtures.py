"""Writers of real-format dataset files for the dataset tests (AitW TFRecord shards, GUI Odyssey JSON in both
vocabularies, AndroidLens folders with screenshots, ScreenQA answers_and_bboxes), plus the copied real samples.

Every generated value that goes through a float32 feature is float32-representable, so "written" and "read" can
be compared exactly.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from tasks.datasets import aitw

FIXTURES = Path(__file__).resolve().parent / "fixtures"
AITZ_DIR = FIXTURES / "aitz"
AITZ_JSON = AITZ_DIR / "GOOGLE_APPS-523638528775825151.json"
SCREENQA_DIR = FIXTURES / "screenqa"
SCREENQA_SHORT = SCREENQA_DIR / "short_answers_test.first300.json"
SCREENQA_NO_ANSWER = SCREENQA_DIR / "short_answers_validation.no_answer50.json"


def f32(v: float) -> float:
    return float(np.float32(v))


def pixels(width: int, height: int, channels: int = 3, seed: int = 0) -> np.ndarray:
    """H x W x C uint8 with pixel (x, y) = (7x + seed, 5y + seed, 11 seed) mod 256: orientation-checkable."""
    ys, xs = np.mgrid[0:height, 0:width]
    img = np.zeros((height, width, channels), dtype=np.uint8)
    img[..., 0] = (xs * 7 + seed) % 256
    if channels > 1:
        img[..., 1] = (ys * 5 + seed) % 256
    if channels > 2:
        img[..., 2] = (seed * 11) % 256
    if channels > 3:
        img[..., 3] = 255
    return img


def expected_pixel(x: int, y: int, seed: int) -> tuple[int, int, int]:
    return ((x * 7 + seed) % 256, (y * 5 + seed) % 256, (seed * 11) % 256)


# --- AitW ------------------------------------------------------------------------------------------------
def aitw_step(
    episode_id: str,
    step_id: int,
    episode_length: int,
    goal: str,
    action_type: int,
    *,
    touch_yx: tuple[float, float] = (-1.0, -1.0),
    lift_yx: tuple[float, float] | None = None,
    text: str = "",
    width: int = 24,
    height: int = 40,
    channels: int = 3,
    seed: int = 0,
    boxes: list[tuple[float, float, float, float]] | None = None,
    with_image: bool = True,
    drop: tuple[str, ...] = (),
) -> dict[str, Any]:
    """One AitW step as a raw dict (+ `image/encoded` pixels) in the real feature schema."""
    lift_yx = touch_yx if lift_yx is None else lift_yx
    boxes = [(0.1, 0.25, 0.1, 0.5), (0.5, 0.0, 0.25, 1.0)] if boxes is None else boxes
    raw: dict[str, Any] = {
        "android_api_level": 30,
        "current_activity": "com.google.android.apps.nexuslauncher/.NexusLauncherActivity",
        "device_type": "PIXEL_4_XL",
        "episode_id": episode_id,
        "episode_length": episode_length,
        "step_id": step_id,
        "goal_info": goal,
        "image/height": height,
        "image/width": width,
        "image/channels": channels,
        "image/ui_annotations_positions": [f32(v) for b in boxes for v in b],
        "image/ui_annotations_text": [f"text {i}" for i in range(len(boxes))],
        "image/ui_annotations_ui_types": ["TEXT" if i % 2 == 0 else "ICON_HOME" for i in range(len(boxes))],
        "results/action_type": action_type,
        "results/type_action": text,
        "results/yx_touch": [f32(v) for v in touch_yx],
        "results/yx_lift": [f32(v) for v in lift_yx],
    }
    if with_image:
        raw["image/encoded"] = pixels(width, height, channels, seed)
    for name in drop:
        raw.pop(name, None)
    return raw


# (action_type, touch_yx, lift_yx, text) per step: every AitW action code, taps with and without drift, swipes
AITW_ACTIONS: list[tuple[int, tuple[float, float], tuple[float, float] | None, str]] = [
    (4, (0.5, 0.25), None, ""),  # tap
    (4, (0.5, 0.25), (0.515625, 0.25), ""),  # tap with lift drift 0.0156 (<= 0.04)
    (3, (-1.0, -1.0), None, 'coffee maker 日本 "quoted"; $(reboot)'),  # type
    (4, (0.75, 0.5), (0.25, 0.5), ""),  # swipe: finger up
    (4, (0.25, 0.5), (0.75, 0.5), ""),  # swipe: finger down
    (4, (0.5, 0.875), (0.5, 0.125), ""),  # swipe: finger left
    (7, (-1.0, -1.0), None, ""),  # enter
    (5, (-1.0, -1.0), None, ""),  # back
    (6, (-1.0, -1.0), None, ""),  # home
    (10, (-1.0, -1.0), None, ""),  # complete
]


def aitw_fixture_steps() -> Iterator[dict[str, Any]]:
    """Three episodes: every action code (10 steps), a short one ending IMPOSSIBLE, a single-step one."""
    n = len(AITW_ACTIONS)
    for k, (code, touch, lift, text) in enumerate(AITW_ACTIONS):
        yield aitw_step(
            "1001", k, n, "search for a coffee maker", code, touch_yx=touch, lift_yx=lift, text=text, seed=k
        )
    yield aitw_step("1002", 0, 2, "turn off wifi", 4, touch_yx=(0.0, 1.0), seed=20, width=30, height=20)
    yield aitw_step("1002", 1, 2, "turn off wifi", 11, seed=21, width=30, height=20, channels=4)
    yield aitw_step("1003", 0, 1, "open gmail", 6, seed=30, channels=1)


def write_aitw_fixture(path: Path) -> Path:
    aitw.write_tfrecord(path, aitw_fixture_steps())
    return path


def aitw_big_steps(
    n_steps: int, steps_per_episode: int = 10, width: int = 96, height: int = 160
) -> Iterator[dict[str, Any]]:
    """`n_steps` generated steps (for the streaming test), `steps_per_episode` per episode."""
    for i in range(n_steps):
        ep, k = divmod(i, steps_per_episode)
        yield aitw_step(
            str(5000 + ep),
            k,
            steps_per_episode,
            f"goal {ep}",
            4,
            touch_yx=(0.5, 0.5),
            seed=i % 200,
            width=width,
            height=height,
        )


# --- GUI Odyssey -----------------------------------------------------------------------------------------
def _png(path: Path, width: int, height: int, seed: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(pixels(width, height, 3, seed), "RGB").save(path)


def odyssey_steps(vocab: str) -> list[dict[str, Any]]:
    v2 = vocab == "v2"
    typ, imp, recent = ("TEXT", "INCOMPLETE", "KEY_APPSELECT") if v2 else ("TYPE", "IMPOSSIBLE", "KEY_RECENT")
    steps: list[dict[str, Any]] = [
        {"action": "CLICK", "info": [[540, 1000], [540, 1000]], "ps": ""},
        {"action": "CLICK", "info": [[120, 333]], "ps": ""},  # a single point
        {"action": "CLICK", "info": [[10, 20], [12, 22]], "ps": ""},  # second point differs (lossy canonical)
        {"action": "LONG_PRESS", "info": [[0, 999], [0, 999]], "ps": ""},
        {"action": "SCROLL", "info": [[500, 800], [500, 200]], "ps": "[[500, 800], [500, 500], [500, 200]]"},
        {"action": "SCROLL", "info": [[900, 400], [100, 420]], "ps": ""},
        {"action": typ, "info": "New York Fashion Week 日程", "ps": ""},
        {"action": "CLICK", "info": "KEY_HOME", "ps": ""},
        {"action": "CLICK", "info": "KEY_BACK", "ps": ""},
        {"action": "CLICK", "info": recent, "ps": ""},
        {"action": "HOME", "info": "", "ps": ""},  # action-name spelling of a key
        {"action": imp, "info": "", "ps": "the app needs a login"},
        {"action": "COMPLETE", "info": "", "ps": "done"},
    ]
    eid = f"odyssey_{vocab}_ep"
    for k, s in enumerate(steps):
        s["step"] = k
        s["screenshot"] = f"{eid}_{k}.png"
        if v2:
            s.update(
                {
                    "description": f"screen {k}",
                    "intention": f"intent {k}",
                    "context": "ctx",
                    "low_level_instruction": f"do step {k}",
                }
            )
            if s["action"] in ("CLICK", "LONG_PRESS") and isinstance(s["info"], list):
                x, y = s["info"][0]
                s["sam2_bbox"] = [max(x - 50, 0), max(y - 40, 0), min(x + 50, 1000), min(y + 40, 1000)]
    return steps


def write_odyssey(root: Path, vocab: str, *, width: int = 27, height: int = 60) -> Path:
    """`root/annotations/<id>.json` + `root/screenshots/<id>_<k>.png` + `root/splits/random_split.json`."""
    eid = f"odyssey_{vocab}_ep"
    steps = odyssey_steps(vocab)
    episode = {
        "episode_id": eid,
        "device_info": {
            "product": "sdk_gphone64_x86_64",
            "release_version": "14",
            "sdk_version": "34",
            "h": height,
            "w": width,
            "device_name": "Pixel 8 Pro",
        },
        "task_info": {
            "category": "Multi_Apps",
            "app": ["DuckDuckGo", "TickTick"],
            "meta_task": "Search for the next {} and set a reminder.",
            "task": "Search for the next New York Fashion Week and set a reminder.",
            "instruction": "Use DuckDuckGo to find the next New York Fashion Week, then set a reminder in TickTick.",
        },
        "step_length": len(steps),
        "steps": steps,
    }
    ann = root / "annotations"
    ann.mkdir(parents=True, exist_ok=True)
    (ann / f"{eid}.json").write_text(json.dumps(episode, ensure_ascii=False, indent=1), encoding="utf-8")
    other = dict(
        episode, episode_id=f"{eid}_train", steps=[dict(steps[0], screenshot=f"{eid}_train_0.png")], step_length=1
    )
    (ann / f"{eid}_train.json").write_text(json.dumps(other), encoding="utf-8")
    for k in range(len(steps)):
        _png(root / "screenshots" / f"{eid}_{k}.png", width, height, k)
    (root / "splits").mkdir(exist_ok=True)
    (root / "splits" / "random_split.json").write_text(
        json.dumps({"train": [f"{eid}_train.json"], "test": [f"{eid}.json"]}), encoding="utf-8"
    )
    return root


# --- AndroidLens -----------------------------------------------------------------------------------------
def _lens_step(
    eid: str,
    lang: str,
    k: int,
    n: int,
    instruction: str,
    code: int,
    touch: str = "[-1.0, -1.0]",
    lift: str | None = None,
    text: str = "",
    duration: float | None = None,
    milestone: Any = None,
    listed: bool = True,
    types: list[str] | None = None,
    width: int = 36,
    height: int = 80,
) -> dict[str, Any]:
    lift = touch if lift is None else lift

    def L(v: Any) -> Any:
        return [v] if listed else v

    return {
        "episode_id": eid,
        "language": lang,
        "app": ["Google Chrome", "Google Drive"],
        "episode_length": n,
        "step_id": k,
        "instruction": instruction,
        "image_path": f"{lang}/{eid}/{eid}_{k}.png",
        "image_width": width,
        "image_height": height,
        "result_action_type": L(code),
        "result_touch_yx": L(touch),
        "result_lift_yx": L(lift),
        "result_action_text": L(text),
        "duration": L(duration),
        "low_instruction": f"step {k} of {instruction}",
        "milestone": milestone if milestone is not None else {},
        "types": types or ["1-4"],
    }


def lens_episode_en(eid: str = "en-0001") -> list[dict[str, Any]]:
    ins = "Open Google Chrome, search for 'panda' and save the first image to Google Drive"
    rows: list[tuple[Any, ...]] = [
        # code, touch, lift, text, duration, milestone
        (6, "[-1.0, -1.0]", None, "", None, None),
        (
            4,
            "[0.52, 0.31]",
            None,
            "",
            None,
            {
                "sub-target": "Open Google Chrome",
                "idx": 1,
                "bbox": [0.25, 0.45, 0.375, 0.6],
                "text": "Chrome",
                "state": [],
            },
        ),
        (
            3,
            "[-1.0, -1.0]",
            None,
            "panda",
            None,
            {
                "sub-target": "Search for 'panda'",
                "idx": 2,
                "bbox": [0.023, 0.121, 0.976, 0.189],
                "text": "panda",
                "state": ["selected"],
            },
        ),
        (7, "[-1.0, -1.0]", None, "", None, None),
        (4, "[0.75, 0.5]", "[0.25, 0.5]", "", 400, None),  # swipe with duration
        (
            4,
            "[0.6, 0.4]",
            None,
            "",
            1500,  # long press with duration
            [
                {"sub-target": "Image menu open", "idx": 3, "bbox": None, "text": "Download image", "state": []},
                {"sub-target": "Share sheet ready", "idx": 3, "text": "Share", "state": ["enabled", "sparkly"]},
            ],
        ),
        (1, "[-1.0, -1.0]", None, "", 2000, None),  # wait with duration
        (4, "[0.1, 0.9]", "[0.1, 0.3]", "", None, None),  # swipe without duration
        (5, "[-1.0, -1.0]", None, "", None, None),
        (
            4,
            "[0.125, 0.5]",
            None,
            "",
            None,
            {"sub-target": "Saved in Drive", "idx": 4, "bbox": [0.0, 0.0, 1.0, 0.5], "text": "", "state": ["off"]},
        ),
        (10, "[-1.0, -1.0]", None, "", None, None),
    ]
    n = len(rows)
    return [_lens_step(eid, "en", k, n, ins, c, t, li, tx, d, m) for k, (c, t, li, tx, d, m) in enumerate(rows)]


def lens_episode_zh(eid: str = "zh-0001") -> list[dict[str, Any]]:
    ins = "打开淘宝，搜索“耳机”，并按销量排序"
    rows: list[tuple[Any, ...]] = [
        (0, "[0.4, 0.5]", None, "", None, None),  # AgentCPM long press code
        (
            4,
            "[0.30000001192092896, 0.7]",
            None,
            "",
            None,
            {"sub-target": "打开淘宝", "idx": 1, "bbox": [0.6, 0.25, 0.8, 0.35], "text": "淘宝", "state": []},
        ),
        (
            3,
            "[-1.0, -1.0]",
            None,
            "耳机",
            None,
            {"sub-target": "搜索耳机", "idx": 2, "bbox": [0.1, 0.05, 0.9, 0.1], "text": "耳机", "state": ["选中"]},
        ),
        (1, "[-1.0, -1.0]", None, "", None, None),  # wait without duration
        (11, "[-1.0, -1.0]", None, "需要登录", None, None),
        (10, "[-1.0, -1.0]", None, "销量最高的是 X", None, None),
    ]
    n = len(rows)
    return [
        _lens_step(eid, "zh", k, n, ins, c, t, li, tx, d, m, listed=False, types=["2-2"])
        for k, (c, t, li, tx, d, m) in enumerate(rows)
    ]


def write_androidlens(root: Path) -> Path:
    """`root/test/{en,zh}/<id>/<id>.json` + `<id>_<k>.png`."""
    for lang, steps in (("en", lens_episode_en()), ("zh", lens_episode_zh())):
        eid = steps[0]["episode_id"]
        d = root / "test" / lang / eid
        d.mkdir(parents=True, exist_ok=True)
        (d / f"{eid}.json").write_text(json.dumps(steps, ensure_ascii=False, indent=1), encoding="utf-8")
        for k, s in enumerate(steps):
            _png(d / f"{eid}_{k}.png", s["image_width"], s["image_height"], k)
    return root


# --- ScreenQA answers_and_bboxes -------------------------------------------------------------------------
def screenqa_bboxes_records() -> list[dict[str, Any]]:
    return [
        {
            "image_id": 5,
            "image_width": 1080,
            "image_height": 1920,
            "question": "How many exercises in total?",
            "ground_truth": [
                {
                    "full_answer": "There are 12 exercises.",
                    "ui_elements": [{"text": "12 exercises", "bounds": [40, 300, 520, 360], "vh_index": 17}],
                },
                {"full_answer": "12", "ui_elements": [{"text": "12", "bounds": [40, 300, 120, 360], "vh_index": -1}]},
                {"full_answer": "", "ui_elements": []},
            ],
        },
        {
            "image_id": 10,
            "image_width": 1440,
            "image_height": 2560,
            "question": "What is the app name?",
            "ground_truth": [{"full_answer": "", "ui_elements": []}],
        },
    ]


def write_screenqa_bboxes(path: Path) -> Path:
    path.write_text(json.dumps(screenqa_bboxes_records(), indent=1), encoding="utf-8")
    return path
