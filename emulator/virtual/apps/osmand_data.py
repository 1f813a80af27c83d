"""OsmAnd (net.osmand)'s data: the small offline "map" it carries (a gazetteer of the places of Liechtenstein that
AndroidWorld's OsmAnd classes name, with their public coordinates), and the files it keeps, in the formats the real
app writes them:

- favourites: GPX 1.1 files under the app's external files dir (`/sdcard/Android/data/net.osmand/files/favorites/`):
  `favorites.gpx` for the default group, `favorites-<group>.gpx` for each other group, each `<wpt>` with its `name`,
  `desc`, `type` (the group) and OsmAnd's extensions (address, icon, background, color) and the file's
  `osmand:points_groups`; every save writes all groups to the internal `files/favourites_bak.gpx` too, as the real
  app's SaveFavoritesTask does. The files are the one truth: a file AndroidWorld rewrote (its ElementTree writes
  `ns0:` prefixes) is read back as any GPX is.
- map markers: the SQLite database `databases/map_markers_db` with the schema MapMarkersDbHelper (version 13) makes:
  `map_markers` (a linked list through `marker_next_key`, `tail_next` at its end) and `map_markers_groups`.
- tracks: GPX files under `files/tracks/` (a route saved as a track: one `<trk>` with one `<trkseg>` of points).
- first start: the global preferences (`shared_prefs/net.osmand.settings.xml`) remember that the first-usage wizard
  was passed.
"""

from __future__ import annotations

import contextlib
import math
import posixpath
import re
import time
import unicodedata
import uuid
from dataclasses import dataclass, field
from typing import Any
from xml.etree import ElementTree
from xml.sax.saxutils import escape, quoteattr

from ..appstorage import DB_MODE, DIR_MODE, AppDatabase, SharedPrefs, data_dir
from ..fs import FileSystem, FsError
from ..procs import app_uid

PKG = "net.osmand"
MAIN = "net.osmand.plus.activities.MapActivity"
VERSION_NAME, VERSION_CODE = "4.6.13", 4613  # net.osmand-4.6.13.apk, the build AndroidWorld installs
CREATOR = f"OsmAnd Maps {VERSION_NAME}"

FILES = f"/sdcard/Android/data/{PKG}/files"  # app.getAppPath(null): the external files dir
FAVORITES_DIR = f"{FILES}/favorites"
TRACKS_DIR = f"{FILES}/tracks"
INTERNAL_FAVORITES = f"{data_dir(PKG)}/files/favourites_bak.gpx"
PREFS = SharedPrefs(PKG, "net.osmand.settings")
FIRST_RUN_KEY = "FIRST_TIME_APP_RUN"

GPX_NS = "http://www.topografix.com/GPX/1/1"
OSMAND_NS = "https://osmand.net"
DEFAULT_COLOR = "#eecc22"  # a favourite's default colour (the default group's)
DEFAULT_ICON = "special_star"

# --- the gazetteer: (name, kind, lat, lon); AndroidWorld's twelve places at the coordinates it judges by ------------
PLACES: tuple[tuple[str, str, float, float], ...] = (
    ("Vaduz", "Town", 47.1410303, 9.5209277),
    ("Schaan", "Town", 47.1663432, 9.5103085),
    ("Triesen", "Village", 47.106997, 9.5274854),
    ("Balzers", "Village", 47.0688832, 9.5061564),
    ("Triesenberg", "Village", 47.1181105, 9.5433095),
    ("Eschen", "Village", 47.2107125, 9.5224432),
    ("Mauren", "Village", 47.2196799, 9.5441571),
    ("Gamprin", "Village", 47.2203196, 9.5087413),
    ("Bendern", "Village", 47.2122151, 9.5062101),
    ("Ruggell", "Village", 47.23976, 9.5262837),
    ("Schellenberg", "Village", 47.2304722, 9.5465374),
    ("Nendeln", "Village", 47.1973857, 9.5430636),
    ("Schaanwald", "Village", 47.2165476, 9.5699984),
    ("Planken", "Village", 47.1858882, 9.5452201),
    ("Oberplanken", "Hamlet", 47.1784977, 9.5450163),
    ("Rotenboden", "Hamlet", 47.1275785, 9.5387131),
    ("Malbun", "Village", 47.1026191, 9.6083057),
    ("Steg", "Hamlet", 47.1145911, 9.5707014),
    ("Schönberg", "Hamlet", 47.1303814, 9.5930117),
)
COUNTRY = "Liechtenstein"
CENTER = (47.158, 9.545)  # where the map opens: the country in view

ZH = {
    "Search": "搜索",
    "Configure map": "配置地图",
    "Compass": "指南针",
    "Menu": "菜单",
    "Navigation": "导航",
    "Zoom in": "放大",
    "Zoom out": "缩小",
    "Back to location": "回到位置",
    "Back": "返回",
    "Close": "关闭",
    "Add": "添加",
    "Edit": "编辑",
    "Marker": "标记",
    "Share": "分享",
    "Actions": "操作",
    "DETAILS": "详情",
    "NAVIGATION": "导航",
    "Directions from": "从此出发",
    "Search nearby": "在附近搜索",
    "Plan a route": "规划路线",
    "Avoid road": "避开道路",
    "Add favorite": "添加收藏",
    "Edit favorite": "编辑收藏",
    "Name": "名称",
    "Address": "地址",
    "Description": "描述",
    "Select group": "选择组",
    "Favorites": "收藏夹",
    "Cancel": "取消",
    "Save": "保存",
    "Delete": "删除",
    "Map markers": "地图标记",
    "My places": "我的地点",
    "Settings": "设置",
    "Help": "帮助",
    "Location": "位置",
    "Starting point": "起点",
    "Destination": "目的地",
    "My position": "我的位置",
    "Choose destination": "选择目的地",
    "Intermediate point": "中途点",
    "Add intermediate point": "添加中途点",
    "Add starting point": "添加起点",
    "Add destination": "添加目的地",
    "Select on map": "在地图上选择",
    "Swap": "交换",
    "Details": "详情",
    "Start": "开始",
    "Save as new track": "另存为新轨迹",
    "File name": "文件名",
    "Track %s is saved": "轨迹 %s 已保存",
    "Position not yet known": "位置尚未确定",
    "No results": "无结果",
    "Clear": "清除",
    "Active": "活动",
    "History": "历史",
    "Passed": "已通过",
    "Tracks": "轨迹",
    "Marker added": "已添加标记",
    "Favorite saved": "收藏已保存",
    "SKIP DOWNLOAD": "跳过下载",
    "TRY AGAIN": "重试",
    "Location not found": "找不到位置",
    "first_usage_desc": "让 OsmAnd 确定您的位置，并推荐该地区的地图供下载。",
    "Route": "路线",
    "Go to %s": "前往 %s",
    "Arrive at %s": "到达 %s",
}
EN = {
    "first_usage_desc": "Let OsmAnd determine your location and suggest maps to download for that region.",
}


def tr(ctx: Any, s: str) -> str:
    """The app's string `s` (its English text, or a key of EN) in the device's language."""
    if ctx.zh and s in ZH:
        return ZH[s]
    return EN.get(s, s)


# --- places and search --------------------------------------------------------------------------------------------
def point(name: str, kind: str, lat: float, lon: float) -> dict[str, Any]:
    """A point the map shows a context menu for (a place, a location, a favourite): plain data, kept in the UI
    state."""
    return {"name": name, "kind": kind, "lat": lat, "lon": lon}


def places() -> list[dict[str, Any]]:
    return [point(n, k, la, lo) for n, k, la, lo in PLACES]


def format_coords(lat: float, lon: float) -> str:
    """A location's title as the app shows it (decimal degrees, five places)."""
    return f"{lat:.5f}, {lon:.5f}"


def fold(s: str) -> str:
    """Lower case without accents: what the search compares (Schönberg is found as "schonberg" too)."""
    return "".join(c for c in unicodedata.normalize("NFKD", s.lower()) if not unicodedata.combining(c))


_COORDS = re.compile(r"^\s*(-?\d{1,3}(?:\.\d+)?)\s*[,;\s]\s*(-?\d{1,3}(?:\.\d+)?)\s*$")


def parse_coords(q: str) -> tuple[float, float] | None:
    m = _COORDS.match(q)
    if not m:
        return None
    lat, lon = float(m.group(1)), float(m.group(2))
    return (lat, lon) if abs(lat) <= 90 and abs(lon) <= 180 else None


def search(query: str) -> list[dict[str, Any]]:
    """The quick search's results for `query`: a typed "lat, lon" is a location; otherwise the places whose name
    (with its country and kind) has a word starting with each word of the query, the closest names first."""
    q = query.strip()
    if not q:
        return []
    coords = parse_coords(q)
    if coords is not None:
        return [point(format_coords(*coords), "Location", *coords)]
    words = [w for w in re.split(r"[\s,]+", fold(q)) if w]
    out: list[tuple[int, dict[str, Any]]] = []
    for p in places():
        hay = fold(f"{p['name']} {COUNTRY} {p['kind']}").split()
        if all(any(h.startswith(w) for h in hay) for w in words):
            name = fold(p["name"])
            rank = 0 if name == words[0] else 1 if name.startswith(words[0]) else 2
            out.append((rank, p))
    out.sort(key=lambda rp: (rp[0], rp[1]["name"]))
    return [p for _, p in out]


def distance_m(a: tuple[float, float], b: tuple[float, float]) -> float:
    """The great-circle distance in metres (MapUtils.getDistance)."""
    la1, lo1, la2, lo2 = map(math.radians, (a[0], a[1], b[0], b[1]))
    h = math.sin((la2 - la1) / 2) ** 2 + math.cos(la1) * math.cos(la2) * math.sin((lo2 - lo1) / 2) ** 2
    return 2 * 6371000 * math.asin(min(1.0, math.sqrt(h)))


def format_distance(m: float) -> str:
    return f"{m / 1000:.1f} km" if m >= 1000 else f"{int(round(m))} m"


def route_points(stops: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """The route the app computes through `stops` in order: each leg a line of points some 250 m apart, every stop
    one of the points."""
    out: list[tuple[float, float]] = []
    for a, b in zip(stops, stops[1:], strict=False):
        n = max(1, min(40, int(distance_m(a, b) // 250)))
        start = 0 if not out else 1
        out.extend((a[0] + (b[0] - a[0]) * i / n, a[1] + (b[1] - a[1]) * i / n) for i in range(start, n + 1))
    return out


# --- GPX ----------------------------------------------------------------------------------------------------------
def format_latlon(v: float) -> str:
    """GpxUtilities.formatLatLon: seven places at most, two at least."""
    s = f"{round(v, 7):.7f}".rstrip("0")
    whole, _, frac = s.partition(".")
    return f"{whole}.{frac.ljust(2, '0')}"


def gpx_time(t: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


def gpx_document(body: list[str], name: str = "") -> bytes:
    """A GPX file as GpxUtilities.writeGpx writes it: the header, the metadata, `body`."""
    head = [
        "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>",
        f'<gpx version="1.1" creator={quoteattr(CREATOR)} xmlns="{GPX_NS}" xmlns:osmand="{OSMAND_NS}" '
        'xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v1" '
        'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
        'xsi:schemaLocation="http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd">',
    ]
    meta = [f"  <metadata>\n    <name>{escape(name)}</name>\n  </metadata>"] if name else []
    return ("\n".join([*head, *meta, *body, "</gpx>"]) + "\n").encode()


def _local(tag: str) -> str:
    """An element's name without its namespace (a file AndroidWorld wrote back has `ns0:` prefixes)."""
    return tag.rsplit("}", 1)[-1]


def _child_text(el: ElementTree.Element, name: str) -> str:
    for c in el:
        if _local(c.tag) == name:
            return (c.text or "").strip()
    return ""


def _parse(data: bytes | None) -> ElementTree.Element | None:
    if not data:
        return None
    try:
        return ElementTree.fromstring(data)
    except ElementTree.ParseError:
        return None


# --- favourites ---------------------------------------------------------------------------------------------------
@dataclass
class Favorite:
    name: str
    lat: float
    lon: float
    group: str = ""  # "" = the default group, "Favorites" on screen
    description: str = ""
    address: str = ""
    time: float = 0.0
    color: str = DEFAULT_COLOR
    icon: str = DEFAULT_ICON
    background: str = "circle"


@dataclass
class Favorites:
    points: list[Favorite] = field(default_factory=list)
    groups: list[str] = field(default_factory=list)  # every group, in file order, the default one first


def _group_of_file(name: str) -> str | None:
    if name in ("favorites.gpx", "favourites.gpx"):
        return ""
    if name.startswith("favorites-") and name.endswith(".gpx"):
        return name[len("favorites-") : -len(".gpx")]
    return None


def read_favorites(fs: FileSystem) -> Favorites:
    """Every favourite of every group file (FavouritesFileHelper.loadExternalGroups)."""
    out = Favorites()
    try:
        names = sorted(n for n, node in fs.listdir(FAVORITES_DIR) if not node.is_dir)
    except FsError:
        names = []
    for fname in names:
        file_group = _group_of_file(fname)
        root = _parse(fs.peek(posixpath.join(FAVORITES_DIR, fname))) if file_group is not None else None
        if root is None or file_group is None:
            continue
        for el in root.iter():
            if _local(el.tag) == "group" and el.get("name") is not None and el.get("name") not in out.groups:
                out.groups.append(el.get("name") or "")
        for wpt in (e for e in root if _local(e.tag) == "wpt"):
            try:
                lat, lon = float(wpt.get("lat", "")), float(wpt.get("lon", ""))
            except ValueError:
                continue
            fav = Favorite(
                _child_text(wpt, "name"),
                lat,
                lon,
                _child_text(wpt, "type") or file_group,
                _child_text(wpt, "desc"),
            )
            for ext in (e for e in wpt.iter() if _local(e.tag) in ("address", "color", "icon", "background")):
                setattr(fav, _local(ext.tag), (ext.text or "").strip() or getattr(fav, _local(ext.tag)))
            out.points.append(fav)
            if fav.group not in out.groups:
                out.groups.append(fav.group)
    if "" not in out.groups:
        out.groups.insert(0, "")
    return out


def _wpt(f: Favorite) -> str:
    lines = [f'  <wpt lat="{format_latlon(f.lat)}" lon="{format_latlon(f.lon)}">']
    if f.time:
        lines.append(f"    <time>{gpx_time(f.time)}</time>")
    lines.append(f"    <name>{escape(f.name)}</name>")
    if f.description:
        lines.append(f"    <desc>{escape(f.description)}</desc>")
    if f.group:
        lines.append(f"    <type>{escape(f.group)}</type>")
    lines.append("    <extensions>")
    if f.address:
        lines.append(f"      <osmand:address>{escape(f.address)}</osmand:address>")
    lines.append(f"      <osmand:icon>{escape(f.icon)}</osmand:icon>")
    lines.append(f"      <osmand:background>{escape(f.background)}</osmand:background>")
    lines.append(f"      <osmand:color>{escape(f.color)}</osmand:color>")
    lines.append("    </extensions>")
    lines.append("  </wpt>")
    return "\n".join(lines)


def _groups_ext(groups: list[str]) -> str:
    rows = [
        f'      <group name={quoteattr(g)} color="{DEFAULT_COLOR}" icon="{DEFAULT_ICON}" background="circle" />'
        for g in groups
    ]
    return "\n".join(
        ["  <extensions>", "    <osmand:points_groups>", *rows, "    </osmand:points_groups>", "  </extensions>"]
    )


def group_file(group: str) -> str:
    return posixpath.join(FAVORITES_DIR, "favorites.gpx" if not group else f"favorites-{group}.gpx")


def write_favorites(fs: FileSystem, favs: Favorites) -> None:
    """SaveFavoritesTask: the internal file with every group, then each group's external file; a group file whose
    group is gone is deleted."""
    groups = list(dict.fromkeys(["", *favs.groups, *(f.group for f in favs.points)]))
    body = [_wpt(f) for g in groups for f in favs.points if f.group == g]
    uid = app_uid(PKG)
    folder = posixpath.dirname(INTERNAL_FAVORITES)
    if not fs.is_dir(folder):
        fs.mkdir(folder, parents=True, owner=(uid, uid))
        fs.chmod(folder, DIR_MODE)
    fs.write(INTERNAL_FAVORITES, gpx_document([*body, _groups_ext(groups)]), mode=DB_MODE, owner=(uid, uid))
    keep = set()
    for g in groups:
        path = group_file(g)
        keep.add(posixpath.basename(path))
        points = [_wpt(f) for f in favs.points if f.group == g]
        fs.write(path, gpx_document([*points, _groups_ext([g])], "favorites"), parents=True)
    with contextlib.suppress(FsError):
        for n, _node in fs.listdir(FAVORITES_DIR):
            if _group_of_file(n) is not None and n not in keep:
                fs.remove(posixpath.join(FAVORITES_DIR, n))


def add_favorite(fs: FileSystem, fav: Favorite, replace: Favorite | None = None) -> None:
    """A new favourite saved (or `replace` edited into `fav`)."""
    favs = read_favorites(fs)
    if replace is not None:
        favs.points = [p for p in favs.points if (p.name, p.lat, p.lon) != (replace.name, replace.lat, replace.lon)]
    favs.points.append(fav)
    if fav.group not in favs.groups:
        favs.groups.append(fav.group)
    write_favorites(fs, favs)


def delete_favorite(fs: FileSystem, fav: Favorite) -> None:
    favs = read_favorites(fs)
    favs.points = [p for p in favs.points if (p.name, p.lat, p.lon) != (fav.name, fav.lat, fav.lon)]
    write_favorites(fs, favs)


def favorite_at(fs: FileSystem, lat: float, lon: float) -> Favorite | None:
    return next((f for f in read_favorites(fs).points if abs(f.lat - lat) < 1e-6 and abs(f.lon - lon) < 1e-6), None)


# --- map markers --------------------------------------------------------------------------------------------------
MARKERS_DDL = """
CREATE TABLE android_metadata (locale TEXT);
INSERT INTO android_metadata VALUES ('en_US');
CREATE TABLE IF NOT EXISTS map_markers (marker_id TEXT PRIMARY KEY, marker_lat double, marker_lon double, marker_description TEXT, marker_active int, marker_added long, marker_visited long, group_name TEXT, group_key TEXT, marker_color int, marker_next_key TEXT, marker_disabled int, marker_selected int, marker_map_object_name TEXT);
CREATE TABLE IF NOT EXISTS map_markers_groups (group_id TEXT PRIMARY KEY, group_name TEXT, group_type int, group_disabled int, group_categories TEXT);
"""  # noqa: E501 - MapMarkersDbHelper's statements
MARKERS_DB = AppDatabase(PKG, "map_markers_db", MARKERS_DDL, 13)
TAIL_NEXT, HISTORY_NEXT = "tail_next", "history_next"


def active_markers(fs: FileSystem) -> list[dict[str, Any]]:
    """The active markers in their order (getActiveMarkers: the list linked by marker_next_key)."""
    rows = MARKERS_DB.rows(fs, "SELECT * FROM map_markers WHERE marker_active = 1 ORDER BY marker_added")
    by_id = {r["marker_id"]: r for r in rows}
    nexts = {r["marker_next_key"] for r in rows}
    out: list[dict[str, Any]] = []
    head: dict[str, Any] | None
    while by_id:
        head = next((r for r in by_id.values() if r["marker_id"] not in nexts), next(iter(by_id.values())))
        while head is not None and head["marker_id"] in by_id:
            out.append(by_id.pop(head["marker_id"]))
            head = by_id.get(head["marker_next_key"])
    return out


def marker_name(row: dict[str, Any]) -> str:
    """A marker's name: its map object's, else its point description's (`type#name`)."""
    name = row.get("marker_map_object_name") or ""
    if name:
        return str(name)
    desc = str(row.get("marker_description") or "")
    parts = desc.split("#")
    return parts[1] if len(parts) > 1 and parts[1] else format_coords(row["marker_lat"], row["marker_lon"])


def add_marker(fs: FileSystem, p: dict[str, Any], now_ms: int) -> str:
    """MapMarkersDbHelper.insertLast: the new marker at the tail of the active list."""
    mid = str(uuid.uuid4())
    kind = "location" if p["kind"] == "Location" else "address"
    desc = f"{kind}#{'' if kind == 'location' else p['name']}"
    with MARKERS_DB.change(fs) as conn:
        count = conn.execute("SELECT COUNT(*) FROM map_markers WHERE marker_active = 1").fetchone()[0]
        conn.execute("UPDATE map_markers SET marker_next_key = ? WHERE marker_next_key = ?", (mid, TAIL_NEXT))
        conn.execute(
            "INSERT INTO map_markers (marker_id, marker_lat, marker_lon, marker_description, marker_active, "
            "marker_added, marker_visited, group_name, group_key, marker_color, marker_next_key, marker_disabled, "
            "marker_selected, marker_map_object_name) VALUES (?, ?, ?, ?, 1, ?, 0, NULL, NULL, ?, ?, 0, 0, ?)",
            (
                mid,
                p["lat"],
                p["lon"],
                desc,
                now_ms,
                int(count) % 10,
                TAIL_NEXT,
                None if kind == "location" else p["name"],
            ),
        )
    return mid


def marker_to_history(fs: FileSystem, marker_id: str, now_ms: int) -> None:
    """moveMarkerToHistory (the marker "passed"): out of the active list, which closes around it."""
    with MARKERS_DB.change(fs) as conn:
        row = conn.execute("SELECT marker_next_key FROM map_markers WHERE marker_id = ?", (marker_id,)).fetchone()
        if row is None:
            return
        conn.execute("UPDATE map_markers SET marker_next_key = ? WHERE marker_next_key = ?", (row[0], marker_id))
        conn.execute(
            "UPDATE map_markers SET marker_active = 0, marker_visited = ?, marker_next_key = ? WHERE marker_id = ?",
            (now_ms, HISTORY_NEXT, marker_id),
        )


# --- tracks and the app's folders ---------------------------------------------------------------------------------
def ensure_folders(fs: FileSystem) -> None:
    """ResourceManager.resetStoreDirectory at the app's start: tiles/, tracks/ and .nomedia in its files dir."""
    for d in ("tiles", "tracks"):
        if not fs.is_dir(f"{FILES}/{d}"):
            fs.mkdir(f"{FILES}/{d}", parents=True)
    if not fs.exists(f"{FILES}/.nomedia"):
        fs.write(f"{FILES}/.nomedia", b"")


def track_path(name: str) -> str:
    return posixpath.join(TRACKS_DIR, f"{name}.gpx")


def save_track(fs: FileSystem, name: str, pts: list[tuple[float, float]], t: float) -> str:
    """A route saved as a track: one trk, one trkseg of its points."""
    seg = [f'      <trkpt lat="{format_latlon(la)}" lon="{format_latlon(lo)}" />' for la, lo in pts]
    body = ["  <trk>", f"    <name>{escape(name)}</name>", "    <trkseg>", *seg, "    </trkseg>", "  </trk>"]
    path = track_path(name)
    fs.write(path, gpx_document(body, name), mtime=int(t), parents=True)
    return path


def track_names(fs: FileSystem) -> list[str]:
    try:
        items = fs.listdir(TRACKS_DIR)
    except FsError:
        return []
    return sorted(n[:-4] for n, node in items if not node.is_dir and n.endswith(".gpx"))


def first_run_done(fs: FileSystem) -> bool:
    return bool(PREFS.read(fs).get(FIRST_RUN_KEY))


def set_first_run_done(fs: FileSystem) -> None:
    PREFS.put(fs, FIRST_RUN_KEY, True)
