"""OsmAnd: AndroidWorld's favourite, marker and track classes over the app's offline map of Liechtenstein.

A location the parameters name ("Balzers, Liechtenstein", or "47.0688832, 9.5061564") is found with the map's
Search: typed as given, then its result tapped (a place's by its name, a location's - the only result - as the
first). Its context menu then adds it: Add (the favourite editor, saved as named) for OsmAndFavorite, Marker for
OsmAndMarker. OsmAndTrack's waypoints make a route: the first one's Actions > Directions from, the last one as the
destination, the others added as intermediate points in their order (each through the Add point sheet's Search),
then the route's Details > Save as new track under the name it suggests.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from harness.actions import Complete

from .steps import Step, click, open_app, type_into, when_shown

OSMAND = ("OsmAnd", "net.osmand")
_COORDS = re.compile(r"^\s*-?\d+(?:\.\d+)?\s*,\s*-?\d+(?:\.\d+)?\s*$")


def start() -> list[Step]:
    """The app opened, its first-usage wizard (a fresh install's) skipped when it shows."""
    return [open_app(OSMAND), when_shown(text="SKIP DOWNLOAD")]


def pick_result(location: str) -> list[Step]:
    """The search field filled with the location, its result tapped."""
    typed = location.strip()
    if _COORDS.match(typed):
        result = click(resource_id="title")
    else:
        result = click(resource_id="title", text=typed.split(",")[0].strip())
    return [type_into(typed, resource_id="searchEditText"), result]


def show(location: str) -> list[Step]:
    """The location's context menu on the map, through Search."""
    return [click(desc="Search"), *pick_result(location)]


def favorite(p: Mapping[str, Any]) -> list[Step]:
    return [
        *start(),
        *show(str(p["location"])),
        click(text="Add"),
        click(resource_id="right_bottom_button"),
        Complete(),
    ]


def marker(p: Mapping[str, Any]) -> list[Step]:
    return [*start(), *show(str(p["location"])), click(text="Marker"), Complete()]


def track(p: Mapping[str, Any]) -> list[Step]:
    points = [str(x) for x in p["waypoints"]]
    steps: list[Step] = [*start(), *show(points[0]), click(text="Actions"), click(text="Directions from")]
    steps += [click(resource_id="ToLayout"), click(resource_id="first_item"), *pick_result(points[-1])]
    for via in points[1:-1]:
        steps += [click(desc="Add intermediate point"), click(resource_id="first_item"), *pick_result(via)]
    steps += [
        click(resource_id="details_button"),
        click(resource_id="save_as_gpx"),
        click(resource_id="right_bottom_button"),
    ]
    return [*steps, Complete()]


SOLVERS: dict[str, Callable[[Mapping[str, Any]], list[Step]]] = {
    "OsmAndFavorite": favorite,
    "OsmAndMarker": marker,
    "OsmAndTrack": track,
}
