"""Retro Music on a fresh install (its first start shows What's New, put away with BACK): a playlist made from the
Playlists tab (More options > New playlist, its name, Create), then left as it is, renamed (its card's menu >
Rename), or exported to the Downloads folder (the playlist opened, More options > Save as file, the system
picker's Save). No music is needed: the playlist stays empty. Judged as AndroidWorld's Retro classes judge: by the
app's Room database (`PlaylistEntity` rows through `sqlite3`), and for the export by the file `Download/<name>.m3u`
(MediaStore's row of it).

The names are written in the instruction's language and typed as they are written."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .base import Family
from .build import both, click, milestone, open_app, steps_for_both, type_into
from .params import ChoiceParam, Text, TextParam

RETRO = "code.name.monkey.retromusic"
RID = RETRO + ":id/"
DB_PATH = f"/data/data/{RETRO}/databases/playlist.db"
DOWNLOADS = "content://media/external/downloads"  # MediaStore's index of Download/
NAMES = (
    ("Road Trip", "公路旅行"),
    ("Study Mix", "学习歌单"),
    ("Weekend Picks", "周末精选"),
    ("Evening Calm", "傍晚时光"),
    ("Morning Run", "晨跑"),
)
RENAMED = (
    ("Car Songs", "车载歌曲"),
    ("Focus", "专注"),
    ("Sunday Morning", "周日早晨"),
    ("Old Favorites", "老歌最爱"),
)
KINDS = ("create", "rename", "export")
EXACT = {"case_sensitive": True}


def _playlist(name: Text, exists: bool = True) -> dict[str, Any]:
    row = {"playlist_name": {"equals": name.loc(), **EXACT}}
    return {"sqlite": {"path": DB_PATH, "table": "PlaylistEntity", "row": row, "exists": exists}}


def _more() -> dict[str, Any]:
    return {"type": "CLICK", "locate": {"desc": both("More options", "更多选项")}}


def build_retro(v: Mapping[str, Any]) -> dict[str, Any]:
    name: Text = v["name"]
    renamed: Text = v["renamed"]
    kind = v["kind"]
    steps: list[dict[str, Any]] = [
        open_app("Retro Music", "Retro Music", RETRO),
        {"type": "BACK"},  # What's New, on the first start
        click(RID + "action_playlist"),
        _more(),
        click(RID + "title", text=both("New playlist", "新建播放列表")),
        type_into(name.loc(), RID + "actionNewPlaylist"),
        click("android:id/button1", text=both("Create", "创建")),
    ]
    made = _playlist(name)
    first = milestone(
        "made", f'The playlist "{name.en}" is made', f"已新建播放列表“{name.zh}”", {"package": RETRO, "state": made}
    )
    if kind == "create":
        en = f'In Retro Music, create an empty playlist named "{name.en}".'
        zh = f"在 Retro Music 中新建一个名为“{name.zh}”的空播放列表。"
        checks = [made]
        children = [first]
    elif kind == "rename":
        en = f'In Retro Music, create a playlist named "{name.en}", then rename it to "{renamed.en}".'
        zh = f"在 Retro Music 中新建一个名为“{name.zh}”的播放列表，然后把它重命名为“{renamed.zh}”。"
        steps += [
            click(RID + "menu"),
            click(RID + "title", text=both("Rename", "重命名")),
            {**type_into(renamed.loc(), RID + "actionNewPlaylist"), "clear": True},
            click("android:id/button1", text=both("Rename", "重命名")),
        ]
        checks = [_playlist(renamed), _playlist(name, exists=False)]
        children = [
            first,
            milestone(
                "renamed",
                f'It is renamed "{renamed.en}"',
                f"已重命名为“{renamed.zh}”",
                {"package": RETRO, "state": checks[0]},
            ),
        ]
    else:
        en = f'In Retro Music, create a playlist named "{name.en}" and save it as a file in the Downloads folder.'
        zh = f"在 Retro Music 中新建一个名为“{name.zh}”的播放列表，并把它保存为文件，放到“下载”文件夹。"
        steps += [
            click(RID + "title", text=name.loc()),
            _more(),
            click(RID + "title", text=both("Save as file", "保存为文件")),
            click("android:id/button1", text=both("Save", "保存")),
        ]
        file = {"equals": {"en": f"{name.en}.m3u", "zh": f"{name.zh}.m3u"}, **EXACT}
        exported = {"content": {"uri": DOWNLOADS, "row": {"_display_name": file, "relative_path": "Download/"}}}
        checks = [made, exported]
        children = [
            first,
            milestone(
                "exported",
                f'"{name.en}.m3u" is in Downloads',
                f"“下载”中有“{name.zh}.m3u”",
                {"state": exported},
            ),
        ]
    steps.append({"type": "COMPLETE"})
    return {
        "category": "2-1",
        "apps": [RETRO],
        "instruction": both(en, zh),
        "start": {"reset_apps": [RETRO]},
        "max_steps": 16,
        "milestones": {"order": "ordered", "children": children},
        "end_state": [{"check": {"state": c}} for c in checks],
        "reference": steps_for_both(steps),
    }


RETRO_PLAYLIST = Family(
    name="retro",
    description="a playlist made in Retro Music on a fresh install - left empty, renamed, or exported to Downloads"
    " as an .m3u (judged by the app's playlist.db rows through sqlite3, and by the file)",
    params={
        "kind": ChoiceParam(KINDS),
        "name": TextParam(NAMES),
        "renamed": TextParam(RENAMED),
    },
    build=build_retro,
)

__all__ = ["RETRO_PLAYLIST"]
