"""A family over VLC: a playlist of given videos, in a given order, made on a fresh install (its first start's
onboarding and all-files access first). The videos are put in /storage/emulated/0/VLCVideos at the start (MediaStore
inserts, which make the files), beside others the playlist must leave out; the verdict is the app's media library
(app_db/vlc_media.db): a `Playlist` row of that name whose `PlaylistMediaRelation` rows hold exactly those files'
media at positions 0, 1, ... - what AndroidWorld's VlcCreatePlaylist reads."""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .base import Family
from .build import both, click, milestone, open_app, steps_for_both, type_into
from .params import Text, TextParam

VLC = "org.videolan.vlc"
DB_PATH = f"/data/data/{VLC}/app_db/vlc_media.db"
FOLDER = "VLCVideos"
VIDEOS = ("beach_day.mp4", "city_walk.mp4", "birthday_party.mp4", "mountain_hike.mp4", "pasta_lesson.mp4")
NAMES = (
    ("Road Trip Mix", "公路旅行合集"),
    ("Family Moments", "家庭时光"),
    ("Weekend Favorites", "周末最爱"),
    ("Summer Highlights", "夏日精选"),
)
FIRST_START = [
    click("skip_button", text=both("Skip", "跳过")),
    click("grantPermissionButton"),
    click("android:id/button1", text=both("OK", "确定")),
    click("android:id/title", text=both("Allow access to manage all files", "授予管理所有文件的权限")),
    {"type": "BACK"},
]


@dataclass(frozen=True)
class OrderParam:
    """`low`..`high` distinct items of `items`, in a drawn order."""

    items: tuple[str, ...]
    low: int
    high: int
    kind: str = "choice"

    def draw(self, rng: random.Random) -> tuple[str, ...]:
        return tuple(rng.sample(self.items, self.low + rng.randrange(self.high - self.low + 1)))


def _has(files: tuple[str, ...]) -> str:
    """An SQL condition on a Playlist row: its entries are exactly `files`' media, in that order."""
    parts = [
        f"id_playlist IN (SELECT r.playlist_id FROM PlaylistMediaRelation r JOIN Media m ON m.id_media = r.media_id"
        f" WHERE r.position = {i} AND m.filename = '{name}')"
        for i, name in enumerate(files)
    ]
    parts.append(f"(SELECT COUNT(*) FROM PlaylistMediaRelation r WHERE r.playlist_id = id_playlist) = {len(files)}")
    return " AND ".join(parts)


def build_playlist(v: Mapping[str, Any]) -> dict[str, Any]:
    name: Text = v["name"]
    files: tuple[str, ...] = v["files"]
    exact = {"case_sensitive": True}
    made = {"sqlite": {"path": DB_PATH, "table": "Playlist", "row": {"name": {"equals": name.loc(), **exact}}}}
    right = {
        "sqlite": {
            "path": DB_PATH,
            "table": "Playlist",
            "where": _has(files),
            "row": {"name": {"equals": name.loc(), **exact}},
        }
    }
    listed_en, listed_zh = ", ".join(files[:-1]) + f" and {files[-1]}", "、".join(files)
    steps: list[dict[str, Any]] = [
        open_app("VLC", "VLC", VLC),
        *FIRST_START,
        click("nav_directories"),
        click("title", text=both("Internal memory", "内部存储")),
        click("title", text=FOLDER),
        {"type": "LONG_PRESS", "locate": {"resource_id": "title", "text": files[0]}},
        *(click("title", text=f) for f in files[1:]),
        click("action_mode_file_add_playlist"),
        type_into(name.loc(), "dialog_playlist_name"),
        click("dialog_playlist_save"),
        {"type": "COMPLETE"},
    ]
    return {
        "category": "2-1",
        "apps": [VLC],
        "instruction": {
            "en": f'In VLC, create a playlist named "{name.en}" with the videos {listed_en} from the {FOLDER} folder '
            "of the internal memory, in that order.",
            "zh": f"在 VLC 里新建一个名为“{name.zh}”的播放列表，按顺序加入内部存储 {FOLDER} 文件夹中的视频"
            f"{listed_zh}。",
        },
        "start": {
            "reset_apps": [VLC],
            "content": [
                {
                    "uri": "content://media/external/video/media",
                    "values": {"relative_path": f"{FOLDER}/", "_display_name": f},
                }
                for f in VIDEOS
            ],
        },
        "max_steps": 30,
        "milestones": {
            "order": "ordered",
            "children": [
                milestone(
                    "sheet",
                    "Open Add to playlist with the videos selected",
                    "选中视频后打开“添加到播放列表”",
                    {"package": VLC, "element": {"resource_id": "dialog_playlist_save"}},
                ),
                milestone(
                    "saved",
                    f'The playlist "{name.en}" holds the videos in order',
                    f"播放列表“{name.zh}”按顺序包含这些视频",
                    {"package": VLC, "state": right},
                ),
            ],
        },
        "end_state": [{"check": {"state": made}}, {"check": {"state": right}}],
        "reference": steps_for_both(steps),
    }


VLC_PLAYLIST = Family(
    name="vlc",
    description="a playlist of 2-3 given videos in a given order, made on a fresh install (VLC; judged by its media"
    " library's Playlist and PlaylistMediaRelation rows)",
    params={"name": TextParam(NAMES), "files": OrderParam(VIDEOS, 2, 3)},
    build=build_playlist,
)

__all__ = ["VLC_PLAYLIST"]
