"""Simple Draw Pro's data: its preferences (Simple-Commons' `shared_prefs/Prefs.xml`: the brush colour, the canvas
colour, the last folder and extension saved to), the drawing (the canvas's operations, kept in the app's process as
MyCanvas keeps them: a stroke is its points, colour, width and whether it erases) and the image files a drawing is
saved as: PNG and JPG rendered with Pillow at the canvas's size (white under the background colour, as
MyCanvas.getBitmap draws it), SVG written as Svg.writeSvg writes it (a background `rect`, one `path` a stroke).
"""

from __future__ import annotations

import posixpath
from io import BytesIO
from typing import Any

from PIL import Image, ImageDraw

from ..appstorage import SharedPrefs
from ..fs import FileSystem
from ..ui.layout import Ctx
from ..ui.theme import Color

PKG = "com.simplemobiletools.draw.pro"
VERSION_NAME, VERSION_CODE = "6.9.3", 79  # com.simplemobiletools.draw.pro_79.apk
_ACT = f"{PKG}.activities."
SPLASH = _ACT + "SplashActivity.Orange"  # the launcher's alias (the orange icon, the default one)
MAIN = _ACT + "MainActivity"
SETTINGS = _ACT + "SettingsActivity"
INTERNAL = "/storage/emulated/0"
DEFAULT_FOLDER = f"{INTERNAL}/Simple Draw"  # SaveImageDialog's folder before any save
PREFS = SharedPrefs(PKG, "Prefs")

ORANGE: Color = (245, 124, 0)  # Simple apps' default primary colour: the default brush colour
WHITE: Color = (255, 255, 255)
FULL_BRUSH_DP = 40  # R.dimen.full_brush_size: a brush size of 100 strokes this wide
DEFAULT_BRUSH = 40  # Config.brushSize's default (the stroke width bar's progress, 5..100)
EXTENSIONS = ("png", "svg", "jpg")
INVALID_CHARS = set('/\\:*?"<>|\x00')  # String.isAValidFilename

# the app's strings (its own and Simple-Commons'), English and its values-zh-rCN
STRINGS: dict[str, tuple[str, str]] = {
    "Save": ("Save", "保存"),
    "Save as": ("Save as", "保存"),
    "Clear": ("Clear", "清除"),
    "Share": ("Share", "分享"),
    "More options": ("More options", "更多选项"),
    "Open file": ("Open file", "打开文件"),
    "Change background color": ("Change background color", "改变背景颜色"),
    "Print": ("Print", "打印"),
    "Settings": ("Settings", "设置"),
    "About": ("About", "关于"),
    "More apps from us": ("More apps from us", "我们的其他应用"),
    "Change color": ("Change color", "修改颜色"),
    "Eyedropper": ("Eyedropper", "吸管"),
    "Eraser": ("Eraser", "橡皮"),
    "Bucket fill": ("Bucket fill", "装填油漆桶"),
    "Undo": ("Undo", "撤销"),
    "Redo": ("Redo", "重做"),
    "OK": ("OK", "确认"),
    "Cancel": ("Cancel", "取消"),
    "Yes": ("Yes", "是"),
    "No": ("No", "否"),
    "Discard": ("Discard", "丢弃"),
    "Path": ("Path", "路径"),
    "Filename": ("Filename", "文件名"),
    "Title": ("Title", "标题"),
    "Internal": ("Internal", "内部存储器"),
    "Select a folder": ("Select a folder", "选择文件夹"),
    "Create new folder": ("Create new folder", "新建文件夹"),
    "File saved successfully": ("File saved successfully", "文件保存成功"),
    "Filename cannot be empty": ("Filename cannot be empty", "文件名不能为空"),
    "Filename contains invalid characters": ("Filename contains invalid characters", "文件名包含无效字符"),
    "An unknown error occurred": ("An unknown error occurred", "未知错误"),
    "Please enter a name": ("Please enter a name", "请输入名称"),
    "The name contains invalid characters": ("The name contains invalid characters", "名称包含无效字符"),
    "A file or folder with that name already exists": (
        "A file or folder with that name already exists",
        "同名文件夹或文件已存在",
    ),
    "overwrite": ('File "{}" already exists. Overwrite?', '文件 "{}" 已存在。是否覆盖？'),
    "items": ("{} items", "{} 个项目"),
    "item": ("{} item", "{} 个项目"),
    "unsaved": ("You have unsaved changes. Save before exit?", "您尚未保存更改，是否保存？"),
    "Color customization": ("Color customization", "颜色定制"),
    "Customize colors": ("Customize colors", "自定义颜色"),
    "General": ("General", "通用"),
    "Prevent phone from sleeping": ("Prevent phone from sleeping while the app is in foreground", "阻止设备自动休眠"),
    "Show brush size tool": ("Show brush size tool", "显示笔刷尺寸工具"),
    "Allow zooming": ("Allow zooming and moving the canvas with gestures", "允许使用手势缩放和移动画布"),
    "Force portrait mode": ("Force portrait mode", "固定竖屏使用"),
    "Navigate up": ("Navigate up", "向上导航"),
}


def tr(ctx: Ctx, key: str, *args: Any) -> str:
    """The string `key` in the device's language (`args` formatted into it)."""
    en, zh = STRINGS.get(key, (key, key))
    return (zh if ctx.zh else en).format(*args)


Stroke = dict[str, Any]  # {"points": [[x, y], ...] (canvas px), "color": [r, g, b], "width": px, "eraser": bool}


def _rgb(value: int) -> Color:
    return ((value >> 16) & 0xFF, (value >> 8) & 0xFF, value & 0xFF)


def _argb(c: Color) -> int:
    """An opaque colour as Android stores it in an int preference (0xFFRRGGBB, signed)."""
    v = 0xFF000000 | (c[0] << 16) | (c[1] << 8) | c[2]
    return v - (1 << 32)


def brush_color(fs: FileSystem) -> Color:
    v = PREFS.read(fs).get("brush_color")
    return _rgb(v) if isinstance(v, int) and not isinstance(v, bool) else ORANGE


def canvas_color(fs: FileSystem) -> Color:
    v = PREFS.read(fs).get("canvas_background_color")
    return _rgb(v) if isinstance(v, int) and not isinstance(v, bool) else WHITE


def put_color(fs: FileSystem, key: str, c: Color) -> None:
    PREFS.put(fs, key, _argb(c))


def last_folder(fs: FileSystem) -> str:
    return str(PREFS.read(fs).get("last_save_folder") or "")


def last_extension(fs: FileSystem) -> str:
    return str(PREFS.read(fs).get("last_save_extension") or "")


def hex_color(c: Color) -> str:
    return "#{:02x}{:02x}{:02x}".format(*c)


def parse_hex(text: str) -> Color | None:
    s = text.strip().lstrip("#")
    if len(s) != 6 or any(ch not in "0123456789abcdefABCDEF" for ch in s):
        return None
    return (int(s[0:2], 16), int(s[2:4], 16), int(s[4:6], 16))


def humanize(ctx: Ctx, path: str) -> str:
    """Context.humanizePath: the internal storage's path shown as "Internal"."""
    path = path.rstrip("/") or "/"
    return tr(ctx, "Internal") + path[len(INTERNAL) :] if path.startswith(INTERNAL) else path


def valid_name(name: str) -> bool:
    return bool(name) and not (set(name) & INVALID_CHARS)


# --- the drawing (MyCanvas's state, in the app's process) ---------------------------------------------------------
def strokes(ctx: Ctx) -> list[Stroke]:
    """The canvas's operations, oldest first."""
    ops: list[Stroke] = ctx.ui.setdefault("ops", [])
    return ops


def undone(ctx: Ctx) -> list[Stroke]:
    ops: list[Stroke] = ctx.ui.setdefault("undone", [])
    return ops


def drawing_hash(ctx: Ctx) -> str:
    """MyCanvas.getDrawingHashCode: what the drawing is, to tell unsaved changes."""
    return repr(strokes(ctx))


def canvas_size(ctx: Ctx) -> tuple[int, int]:
    """The canvas's size in px: as the main screen last laid it out (a keyboard over it does not shrink it)."""
    size = ctx.ui.get("canvas")
    if isinstance(size, (list, tuple)) and len(size) == 2:
        return (int(size[0]), int(size[1]))
    l, t, r, b = ctx.area
    return (r - l, b - t - ctx.dp(56))


# --- drawing it -------------------------------------------------------------------------------------------------
def stroke_color(s: Stroke, background: Color) -> Color:
    c = s.get("color") or (0, 0, 0)
    return background if s.get("eraser") else (int(c[0]), int(c[1]), int(c[2]))


def draw_strokes(img: Image.Image, strokes: list[Stroke], background: Color, dx: int = 0, dy: int = 0) -> None:
    """The strokes drawn as MyCanvas draws them (round caps and joins), shifted by (dx, dy)."""
    d = ImageDraw.Draw(img)
    for s in strokes:
        pts = [(float(x) - dx, float(y) - dy) for x, y in s["points"]]
        width = max(1, round(float(s["width"])))
        color = stroke_color(s, background)
        if len(pts) > 1:
            d.line(pts, fill=color, width=width, joint="curve")
        r = width / 2
        for x, y in (pts[0], pts[-1]):  # Paint.Cap.ROUND
            d.ellipse((x - r, y - r, x + r, y + r), fill=color)


def bounds_of(strokes: list[Stroke], size: tuple[int, int]) -> tuple[int, int, int, int] | None:
    """The part of a `size` canvas the strokes cover (their widths included), None when none shows."""
    xs: list[float] = []
    ys: list[float] = []
    for s in strokes:
        r = float(s["width"]) / 2 + 2
        for x, y in s["points"]:
            xs += [x - r, x + r]
            ys += [y - r, y + r]
    if not xs:
        return None
    l, t = max(0, int(min(xs))), max(0, int(min(ys)))
    r_, b = min(size[0], int(max(xs)) + 1), min(size[1], int(max(ys)) + 1)
    return (l, t, r_, b) if r_ > l and b > t else None


class StrokeLayer:
    """The strokes over the part of the canvas they cover, as a view's image that is drawn only when a frame is
    rendered (the renderer converts a non-RGB image to RGB): no bitmap is kept between frames."""

    mode = "strokes"

    def __init__(self, strokes: list[Stroke], area: tuple[int, int, int, int], background: Color) -> None:
        self.strokes, self.area, self.background = strokes, area, background
        self.size = (area[2] - area[0], area[3] - area[1])

    def convert(self, mode: str) -> Image.Image:
        img = Image.new(mode, self.size, self.background)
        draw_strokes(img, self.strokes, self.background, self.area[0], self.area[1])
        return img


def bitmap(strokes: list[Stroke], size: tuple[int, int], background: Color) -> Image.Image:
    """MyCanvas.getBitmap: the canvas at its size, its background, the strokes."""
    img = Image.new("RGB", size, background)
    draw_strokes(img, strokes, background)
    return img


def svg(strokes: list[Stroke], size: tuple[int, int], background: Color) -> bytes:
    """Svg.writeSvg: the background rect, then a path a stroke ("M x,y L x,y ..."; an eraser's stroke "none")."""
    w, h = size
    out = [f'<svg width="{w}" height="{h}" xmlns="http://www.w3.org/2000/svg">']
    out.append(f'<rect width="{w}" height="{h}" fill="{hex_color(background)}"/>')
    for s in strokes:
        pts = s["points"]
        d = " ".join(f"{'M' if i == 0 else 'L'}{float(x)},{float(y)}" for i, (x, y) in enumerate(pts))
        color = "none" if s.get("eraser") else hex_color(stroke_color(s, background))
        out.append(
            f'<path d="{d} " fill="none" stroke="{color}" stroke-width="{float(s["width"])}" stroke-linecap="round"/>'
        )
    out.append("</svg>")
    return "".join(out).encode()


def image_file(ext: str, strokes: list[Stroke], size: tuple[int, int], background: Color) -> bytes:
    """The file a drawing is saved as: PNG, JPG (quality 70, as writeToOutputStream compresses) or SVG."""
    if ext == "svg":
        return svg(strokes, size, background)
    buf = BytesIO()
    img = bitmap(strokes, size, background)
    if ext == "jpg":
        img.save(buf, "JPEG", quality=70)
    else:
        img.save(buf, "PNG")
    return buf.getvalue()


def save_drawing(fs: FileSystem, path: str, strokes: list[Stroke], size: tuple[int, int], background: Color) -> None:
    """The drawing written to `path` (its folder made if need be), as the extension says."""
    ext = posixpath.splitext(path)[1].lstrip(".").lower()
    folder = posixpath.dirname(path)
    if not fs.is_dir(folder):
        fs.mkdir(folder, parents=True)
    fs.write(path, image_file(ext, strokes, size, background))
