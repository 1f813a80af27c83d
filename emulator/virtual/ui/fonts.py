"""Fonts for the renderer: a Latin face and, when the machine has one, a CJK-capable face; cached by size.

Search order for the CJK face: `DROIDHARNESS_CJK_FONT` (a font file path), fonts shipped in Python packages
(`manimgx_fonts_cjk`: Noto Sans CJK, the face Android itself draws Chinese with, our `cjk` extra;
`paperang_p2_fonts_cjk`: WenQuanYi Micro Hei; `pylopdf_fonts_zh_cn`: Noto Sans SC), common system paths,
then `fc-list :lang=zh`. Without one, CJK text is drawn with the Latin face (missing glyphs become boxes;
nothing crashes). Everything is looked up once per process.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import shutil
import subprocess
from pathlib import Path

from PIL import ImageFont

_LATIN_REGULAR = [
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
    "/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf",
    "/Library/Fonts/Arial.ttf",
    "/System/Library/Fonts/Supplemental/Arial.ttf",
    "C:/Windows/Fonts/arial.ttf",
]
_LATIN_BOLD = [
    "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
    "/usr/share/fonts/TTF/DejaVuSans-Bold.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans-Bold.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Bold.ttf",
    "/usr/share/fonts/truetype/noto/NotoSans-Bold.ttf",
    "/System/Library/Fonts/Supplemental/Arial Bold.ttf",
    "C:/Windows/Fonts/arialbd.ttf",
]
_CJK_SYSTEM = [
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/noto-cjk/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/google-noto-cjk/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",
    "/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc",
    "/usr/share/fonts/wenquanyi/wqy-microhei/wqy-microhei.ttc",
    "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf",
    "/usr/share/fonts/truetype/arphic/uming.ttc",
    "/System/Library/Fonts/PingFang.ttc",
    "/System/Library/Fonts/STHeiti Light.ttc",
    "/System/Library/Fonts/Hiragino Sans GB.ttc",
    "C:/Windows/Fonts/msyh.ttc",
    "C:/Windows/Fonts/simhei.ttf",
]
# (importable package, file inside it)
_CJK_PACKAGES = [
    ("manimgx_fonts_cjk", "NotoSansCJK-VF.otf.ttc"),
    ("paperang_p2_fonts_cjk", "fonts/wqy-microhei.ttc"),
    ("pylopdf_fonts_zh_cn", "NotoSansSC-Regular.otf"),
]


def _first_existing(paths: list[str]) -> str | None:
    for p in paths:
        if p and os.path.isfile(p):
            return p
    return None


def _package_font(package: str, rel: str) -> str | None:
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for loc in spec.submodule_search_locations:
        p = Path(loc) / rel
        if p.is_file():
            return str(p)
    return None


def _fc_list_cjk() -> str | None:
    exe = shutil.which("fc-list")
    if not exe:
        return None
    try:
        out = subprocess.run([exe, ":lang=zh", "file"], capture_output=True, text=True, timeout=5).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    files = sorted(line.split(":", 1)[0].strip() for line in out.splitlines() if line.strip())
    return files[0] if files else None


@functools.lru_cache(maxsize=1)
def cjk_font_path() -> str | None:
    env = os.environ.get("DROIDHARNESS_CJK_FONT", "")
    if env and os.path.isfile(env):
        return env
    for pkg, rel in _CJK_PACKAGES:
        p = _package_font(pkg, rel)
        if p:
            return p
    return _first_existing(_CJK_SYSTEM) or _fc_list_cjk()


@functools.lru_cache(maxsize=2)
def latin_font_path(bold: bool = False) -> str | None:
    return _first_existing(_LATIN_BOLD if bold else _LATIN_REGULAR) or (
        _first_existing(_LATIN_REGULAR) if bold else None
    )


# Faces inside font collections: Noto Sans CJK's collection holds JP, KR, SC, TC, HK; zh-CN uses SC.
_COLLECTION_INDEX = {"NotoSansCJK-VF.otf.ttc": 2, "NotoSansCJK-Regular.ttc": 2}


def _load(path: str | None, size: int, bold: bool = False) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    if path:
        try:
            font = ImageFont.truetype(
                path, size, index=_COLLECTION_INDEX.get(Path(path).name, 0), layout_engine=ImageFont.Layout.BASIC
            )
        except OSError:
            font = None
        if font is not None:
            try:  # a variable font starts at its first instance (Noto CJK VF: Thin): pick the weight
                font.set_variation_by_name("Bold" if bold else "Regular")
            except (OSError, ValueError, AttributeError):
                pass  # not a variable font
            return font
    try:
        return ImageFont.load_default(size)
    except TypeError:  # Pillow < 10.1
        return ImageFont.load_default()


@functools.lru_cache(maxsize=256)
def get_font(size: int, bold: bool = False, cjk: bool = False) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    size = max(4, int(size))
    if cjk:
        path = cjk_font_path()
        if path:
            return _load(path, size, bold)
    return _load(latin_font_path(bold), size)


def needs_cjk(text: str) -> bool:
    """True when `text` has characters outside what the Latin face covers (CJK, fullwidth forms...)."""
    return any(ord(ch) >= 0x2E80 for ch in text)


def font_for(text: str, size: int, bold: bool = False) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return get_font(size, bold, needs_cjk(text) and cjk_font_path() is not None)


@functools.lru_cache(maxsize=8192)
def text_width(text: str, size: int, bold: bool = False) -> float:
    try:
        return float(font_for(text, size, bold).getlength(text))
    except Exception:  # noqa: BLE001 - a face without some glyph machinery: estimate
        return size * 0.6 * len(text)


def ellipsize(text: str, size: int, max_width: float, bold: bool = False) -> str:
    """`text` cut to fit `max_width` with a trailing ellipsis (as TextView's ellipsize="end")."""
    if max_width <= 0:
        return ""
    if text_width(text, size, bold) <= max_width:
        return text
    lo, hi = 0, len(text)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if text_width(text[:mid] + "…", size, bold) <= max_width:
            lo = mid
        else:
            hi = mid - 1
    return text[:lo].rstrip() + "…" if lo else ""


def wrap(text: str, size: int, max_width: float, bold: bool = False) -> list[str]:
    """Greedy line breaking: at spaces for Latin words, anywhere for CJK; explicit newlines kept."""
    lines: list[str] = []
    for para in text.split("\n"):
        if not para:
            lines.append("")
            continue
        line = ""
        tokens = _tokens(para)
        for tok in tokens:
            cand = line + tok
            if text_width(cand.rstrip(), size, bold) <= max_width or not line:  # a space ending a line takes none
                if not line and text_width(tok, size, bold) > max_width:
                    # one word longer than the line: break it by characters
                    for ch in tok:
                        if line and text_width(line + ch, size, bold) > max_width:
                            lines.append(line)
                            line = ""
                        line += ch
                    continue
                line = cand
            else:
                lines.append(line.rstrip())
                line = tok.lstrip()
        lines.append(line.rstrip())
    return lines


def _tokens(s: str) -> list[str]:
    out: list[str] = []
    cur = ""
    for ch in s:
        if ord(ch) >= 0x2E80:
            if cur:
                out.append(cur)
                cur = ""
            out.append(ch)
        elif ch == " ":
            cur += ch
            out.append(cur)
            cur = ""
        else:
            cur += ch
    if cur:
        out.append(cur)
    return out
