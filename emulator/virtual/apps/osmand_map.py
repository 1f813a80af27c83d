"""OsmAnd's map surface: the small offline map of the area the app carries, drawn on demand.

The map is Web Mercator at the zoom the UI state holds (`ui["map"]`: centre and zoom), panned by dragging it and
zoomed by the zoom buttons. Its picture - land, the mountains, the Rhine, the main roads, the places' dots and a
computed route - is one bitmap at a third of the view's size, built when the centre, zoom, size or route change
(the last one kept). Over it lie the places' names (tapping one opens its context menu), the favourites (stars),
the active map markers (flags) and the selected point's pin, as small views.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from PIL import Image, ImageDraw

from ..ui import widgets as w
from ..ui.fonts import text_width
from ..ui.layout import Ctx, V
from ..ui.view import Bounds, View
from .osmand_data import CENTER, PLACES

MIN_ZOOM, MAX_ZOOM, START_ZOOM = 8, 17, 11
DOWNSCALE = 3  # the bitmap's pixels per view pixel, inverted
# the map style's colours by day and by night (the device's dark theme): land, hills, water, road, road edge, place
# dot, place name
DAY = ((242, 239, 233), (214, 230, 200), (170, 211, 223), (255, 255, 255), (196, 190, 180), (70, 70, 70), (50, 50, 60))
NIGHT = ((40, 43, 48), (38, 56, 44), (40, 70, 96), (96, 96, 104), (64, 64, 70), (200, 200, 205), (222, 222, 228))
LAND = DAY[0]
ROUTE = (58, 103, 214)
FAV = (238, 204, 34)
MARKER = (235, 87, 59)

_P = {name: (lat, lon) for name, _k, lat, lon in PLACES}
RHINE = [
    (47.048, 9.474),
    (47.07, 9.487),
    (47.10, 9.496),
    (47.14, 9.505),
    (47.17, 9.497),
    (47.2, 9.49),
    (47.225, 9.5),
    (47.245, 9.512),
    (47.275, 9.53),
]
HILL_AREA = [(47.05, 9.545), (47.05, 9.66), (47.19, 9.66), (47.2, 9.6), (47.17, 9.56), (47.12, 9.545)]
ROADS = [
    ["Balzers", "Triesen", "Vaduz", "Schaan", "Nendeln", "Schaanwald"],
    ["Schaan", "Bendern", "Gamprin", "Eschen", "Mauren", "Schellenberg"],
    ["Bendern", "Ruggell"],
    ["Vaduz", "Triesenberg", "Rotenboden", "Steg", "Malbun"],
    ["Schaan", "Oberplanken", "Planken"],
    ["Steg", "Schönberg"],
]


def state(ctx: Ctx) -> dict[str, Any]:
    """The map's centre and zoom (the app's process keeps them; a new start opens on the country)."""
    st: dict[str, Any] = ctx.ui.setdefault("map", {"lat": CENTER[0], "lon": CENTER[1], "zoom": START_ZOOM})
    return st


def world_size(ctx: Ctx, zoom: float) -> float:
    """The width in px of the whole world at `zoom` (256 dp tiles)."""
    return 256 * ctx.scale * 2**zoom


def project(lat: float, lon: float, world: float) -> tuple[float, float]:
    lat = max(-85.0, min(85.0, lat))
    s = math.sin(math.radians(lat))
    return (lon + 180) / 360 * world, (0.5 - math.log((1 + s) / (1 - s)) / (4 * math.pi)) * world


def unproject(x: float, y: float, world: float) -> tuple[float, float]:
    lon = x / world * 360 - 180
    n = math.pi - 2 * math.pi * y / world
    return math.degrees(math.atan(math.sinh(n))), lon


def move_to(ctx: Ctx, lat: float, lon: float, zoom: int | None = None) -> None:
    st = state(ctx)
    st.update(lat=lat, lon=lon)
    if zoom is not None:
        st["zoom"] = max(MIN_ZOOM, min(MAX_ZOOM, zoom))


def zoom_by(ctx: Ctx, step: int) -> None:
    st = state(ctx)
    st["zoom"] = max(MIN_ZOOM, min(MAX_ZOOM, int(st["zoom"]) + step))


def fit(ctx: Ctx, pts: list[tuple[float, float]], box: Bounds, shown_h: int) -> None:
    """Centre and zoom so that `pts` are all in view in the top `shown_h` px of the map view `box` (a route shown
    whole above the route menu)."""
    if not pts:
        return
    lats, lons = [p[0] for p in pts], [p[1] for p in pts]
    zoom = MAX_ZOOM
    while zoom > MIN_ZOOM:
        world = world_size(ctx, zoom)
        (x0, y0), (x1, y1) = project(max(lats), min(lons), world), project(min(lats), max(lons), world)
        if x1 - x0 < (box[2] - box[0]) * 0.8 and y1 - y0 < shown_h * 0.8:
            break
        zoom -= 1
    world = world_size(ctx, zoom)
    cx, cy = project((max(lats) + min(lats)) / 2, (max(lons) + min(lons)) / 2, world)
    lat, lon = unproject(cx, cy + ((box[3] - box[1]) - shown_h) / 2, world)  # the route's middle above the menu
    move_to(ctx, lat, lon, zoom)


class Projection:
    """Screen pixels of the map view `box` for the map's current centre and zoom."""

    def __init__(self, ctx: Ctx, box: Bounds) -> None:
        st = state(ctx)
        self.box = box
        self.zoom = int(st["zoom"])
        self.world = world_size(ctx, self.zoom)
        self.cx, self.cy = project(float(st["lat"]), float(st["lon"]), self.world)
        self.mx, self.my = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2

    def xy(self, lat: float, lon: float) -> tuple[float, float]:
        x, y = project(lat, lon, self.world)
        return x - self.cx + self.mx, y - self.cy + self.my

    def visible(self, x: float, y: float, margin: float = 0) -> bool:
        l, t, r, b = self.box
        return l - margin <= x <= r + margin and t - margin <= y <= b + margin


Pins = tuple[tuple[float, float], ...]
_cache: list[Any] = [None, None]  # the last bitmap: [its key, the image]


def _pin(d: ImageDraw.ImageDraw, x: float, y: float, r: float, color: tuple[int, int, int]) -> None:
    """A map pin standing on (x, y): a disc on a point."""
    d.polygon([(x - r * 0.7, y - r * 1.4), (x + r * 0.7, y - r * 1.4), (x, y)], fill=color)
    d.ellipse((x - r, y - 2.6 * r, x + r, y - 0.6 * r), fill=color, outline=(255, 255, 255))


def _bitmap(
    proj: Projection, route: list[tuple[float, float]], favs: Pins, marks: Pins, sel: Pins, night: bool
) -> Image.Image:
    l, t, r, b = proj.box
    size = (max(1, (r - l) // DOWNSCALE), max(1, (b - t) // DOWNSCALE))
    key = (size, round(proj.cx, 1), round(proj.cy, 1), proj.zoom, tuple(route), favs, marks, sel, night)
    land, hills, water, road, edge, dot, _name = NIGHT if night else DAY
    last = _cache
    if last[0] == key:
        img: Image.Image = last[1]
        return img
    img = Image.new("RGB", size, land)
    d = ImageDraw.Draw(img)

    def pts(coords: Sequence[tuple[float, float]]) -> list[tuple[float, float]]:
        out = []
        for la, lo in coords:
            x, y = proj.xy(la, lo)
            out.append(((x - l) / DOWNSCALE, (y - t) / DOWNSCALE))
        return out

    k = min(2.0, max(1.0, 2 ** (proj.zoom - 12)))  # lines thicken a little as the map zooms in
    d.polygon(pts(HILL_AREA), fill=hills)
    d.line(pts(RHINE), fill=water, width=int(4 * k), joint="curve")
    for way in ROADS:
        line = pts([_P[n] for n in way])
        d.line(line, fill=edge, width=int(2 * k) + 2, joint="curve")
        d.line(line, fill=road, width=int(2 * k), joint="curve")
    if len(route) > 1:
        d.line(pts(route), fill=ROUTE, width=int(3 * k), joint="curve")
    for x, y in pts([(la, lo) for _n, _k, la, lo in PLACES]):
        d.ellipse((x - 2, y - 2, x + 2, y + 2), fill=dot)
    for pins, radius, color in ((favs, 4, FAV), (marks, 4, MARKER), (sel, 6, MARKER)):
        for x, y in pts(pins):
            _pin(d, x, y, radius, color)
    _cache[:] = [key, img]
    return img


def view(
    ctx: Ctx,
    box: Bounds,
    on_place: Callable[[dict[str, Any]], None] | None,
    selected: dict[str, Any] | None = None,
    route: list[tuple[float, float]] | None = None,
    favorites: Pins = (),
    markers: Pins = (),
    covered: Sequence[Bounds] = (),
) -> View:
    """The map view over `box`: the bitmap (with the favourites, the markers and the selected point's pins) and the
    names of the places not `covered` by what lies over the map."""
    proj = Projection(ctx, box)
    sel: Pins = ((float(selected["lat"]), float(selected["lon"])),) if selected is not None else ()
    night = ctx.theme.dark
    palette = NIGHT if night else DAY
    surface = V(
        ctx,
        "android.view.View",
        box,
        "map_view_with_layers",
        clickable=True,
        style={
            "bg": palette[0],
            "image": _bitmap(proj, list(route or []), favorites, markers, sel, night),
            "clip": True,
        },
    )

    def pan(dx: int, dy: int) -> bool:
        lat, lon = unproject(proj.cx - dx, proj.cy - dy, proj.world)
        move_to(ctx, lat, lon)
        return True

    surface.on_scroll = pan
    placed: list[Bounds] = list(covered)
    size = 13
    lh = ctx.line_h(size)
    for name, kind, lat, lon in PLACES:
        if kind == "Hamlet" and proj.zoom < 11:
            continue
        x, y = proj.xy(lat, lon)
        tw = int(text_width(name, ctx.sp(size), True)) + ctx.dp(4)
        rect = (int(x - tw / 2), int(y + ctx.dp(3)), int(x + tw / 2), int(y + ctx.dp(3) + lh))
        if not _inside(rect, box) or any(_overlap(rect, o) for o in placed):
            continue
        placed.append(rect)
        p = {"name": name, "kind": kind, "lat": lat, "lon": lon}
        surface.children.append(
            w.text(
                ctx,
                rect,
                name,
                size=size,
                bold=True,
                align="c",
                color=palette[6],
                clickable=on_place is not None,
                on_click=(lambda p=p: on_place(p)) if on_place is not None else None,
            )
        )
    return surface


def _overlap(a: Bounds, b: Bounds) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _inside(a: Bounds, b: Bounds) -> bool:
    return a[0] >= b[0] and a[1] >= b[1] and a[2] <= b[2] and a[3] <= b[3]
