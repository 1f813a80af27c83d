"""OsmAnd: a place of the offline map (Liechtenstein's) saved as a favourite under a name of its own, on a fresh
install: the first-usage wizard skipped, the place found with Search, its context menu's Add, the name typed over
the one the editor suggests, Save. Judged by the favourites file of the default group
(`files/favorites/favorites.gpx` in the app's external files dir): a `<wpt>` at the place's coordinates named as
asked, as AndroidWorld's OsmAndFavorite reads the file.

The name is written in the instruction's language and typed as it is written; the place keeps its own name."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .base import Family
from .build import both, milestone, open_app, steps_for_both
from .params import ChoiceParam, Text, TextParam

OSMAND = "net.osmand"
FAVORITES = f"/storage/emulated/0/Android/data/{OSMAND}/files/favorites/favorites.gpx"

# name: (latitude, longitude) as the app writes them in GPX
PLACES = {
    "Vaduz": ("47.1410303", "9.5209277"),
    "Balzers": ("47.0688832", "9.5061564"),
    "Malbun": ("47.1026191", "9.6083057"),
    "Ruggell": ("47.23976", "9.5262837"),
    "Nendeln": ("47.1973857", "9.5430636"),
    "Triesenberg": ("47.1181105", "9.5433095"),
    "Schaan": ("47.1663432", "9.5103085"),
    "Triesen": ("47.106997", "9.5274854"),
    "Eschen": ("47.2107125", "9.5224432"),
    "Mauren": ("47.2196799", "9.5441571"),
    "Gamprin": ("47.2203196", "9.5087413"),
    "Planken": ("47.1858882", "9.5452201"),
}
NAMES = (
    ("Ski weekend", "滑雪周末"),
    ("Grandma's house", "外婆家"),
    ("Lunch spot", "午餐地点"),
    ("Meeting point", "集合地点"),
    ("Hiking start", "徒步起点"),
    ("Best view", "最佳观景点"),
)


def _click(**locate: Any) -> dict[str, Any]:
    return {"type": "CLICK", "locate": locate}


def _wpt(lat: str, lon: str, name: str) -> str:
    """The favourite's `<wpt>` in the file: at the place, with the name (before the next `</wpt>`)."""
    return rf'(?s)<wpt lat="{re.escape(lat)}" lon="{re.escape(lon)}">(?:(?!</wpt>).)*<name>{re.escape(name)}</name>'


def build_favorite(v: Mapping[str, Any]) -> dict[str, Any]:
    place: str = v["place"]
    lat, lon = PLACES[place]
    name: Text = v["name"]
    xml_name = {k: s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;") for k, s in name.loc().items()}
    saved = {
        "file": {
            "path": FAVORITES,
            "content": {"regex": {k: _wpt(lat, lon, s) for k, s in xml_name.items()}, "case_sensitive": True},
        }
    }
    steps: list[dict[str, Any]] = [
        open_app("OsmAnd", "OsmAnd", OSMAND),
        _click(resource_id="skip_button"),  # a fresh install's first-usage wizard
        _click(resource_id="map_search_button"),
        {"type": "TYPE", "text": place, "locate": {"resource_id": "searchEditText"}},
        _click(resource_id="title", text=place),
        _click(text=both("Add", "添加")),
        {"type": "TYPE", "text": name.loc(), "clear": True, "locate": {"resource_id": "name_edit"}},
        _click(resource_id="right_bottom_button"),
        {"type": "COMPLETE"},
    ]
    return {
        "category": "2-1",
        "apps": [OSMAND],
        "instruction": {
            "en": f'In OsmAnd, save {place} as a favorite named "{name.en}".',
            "zh": f"在 OsmAnd 中把 {place} 添加到收藏夹，名称为“{name.zh}”。",
        },
        "start": {"reset_apps": [OSMAND]},
        "max_steps": 16,
        "milestones": {
            "order": "ordered",
            "children": [
                milestone(
                    "place",
                    f"{place} is shown on the map with its context menu",
                    f"地图上显示 {place} 及其菜单",
                    {"package": OSMAND, "element": {"text": place, "resource_id": "context_menu_line1"}},
                ),
                milestone(
                    "saved",
                    "The favorite is saved at the place with the name",
                    "收藏已保存在该地点，名称正确",
                    {"package": OSMAND, "state": saved},
                ),
            ],
        },
        "end_state": [{"check": {"state": saved}}],
        "reference": steps_for_both(steps),
    }


OSMAND_FAVORITE = Family(
    name="osmand",
    description="a place of the offline map saved as a favorite under a given name, on a fresh install (OsmAnd;"
    " judged by its favorites GPX file)",
    params={"place": ChoiceParam(tuple(PLACES)), "name": TextParam(NAMES)},
    build=build_favorite,
)

__all__ = ["OSMAND_FAVORITE"]
