"""What the media scanner reads from a file of shared storage (Android's MediaScanner / ModernMediaScanner facts):
its MIME type from the name (Android's MimeMap for the types phones carry), the media type that MIME type gives,
and from the content an audio file's tags and duration, a video's duration and frame size, an image's size.

Tags and durations are read with mutagen (ID3 / MP4 / Ogg / FLAC / WAVE), image sizes with Pillow from the header
(no decode), a video's frame size from its MP4 track header (`tkhd`). A file that cannot be read gets what its name
tells (title = the name without its extension), as MediaProvider leaves unreadable files.
"""

from __future__ import annotations

import functools
import io
import mimetypes
import posixpath
import struct
from dataclasses import dataclass

# MediaStore.Files.FileColumns.MEDIA_TYPE_*
MEDIA_TYPE_NONE, MEDIA_TYPE_IMAGE, MEDIA_TYPE_AUDIO, MEDIA_TYPE_VIDEO = 0, 1, 2, 3
MEDIA_TYPE_PLAYLIST, MEDIA_TYPE_SUBTITLE, MEDIA_TYPE_DOCUMENT = 4, 5, 6
FORMAT_DIRECTORY = 0x3001  # MtpConstants.FORMAT_ASSOCIATION: a folder's row

# Android's MimeMap where it differs from (or is missing in) Python's built-in table
_ANDROID_MIME = {
    "mp3": "audio/mpeg",
    "m4a": "audio/mp4",
    "aac": "audio/aac",
    "wav": "audio/x-wav",
    "amr": "audio/amr",
    "ogg": "audio/ogg",
    "opus": "audio/ogg",
    "flac": "audio/flac",
    "m3u": "audio/x-mpegurl",
    "m3u8": "application/vnd.apple.mpegurl",
    "pls": "audio/x-scpls",
    "3gp": "video/3gpp",
    "mp4": "video/mp4",
    "mkv": "video/x-matroska",
    "webm": "video/webm",
    "jpg": "image/jpeg",
    "jpeg": "image/jpeg",
    "png": "image/png",
    "webp": "image/webp",
    "heic": "image/heic",
    "gif": "image/gif",
    "bmp": "image/x-ms-bmp",
    "svg": "image/svg+xml",
    "txt": "text/plain",
    "md": "text/markdown",
    "csv": "text/comma-separated-values",
    "srt": "application/x-subrip",
    "vtt": "text/vtt",
    "pdf": "application/pdf",
    "json": "application/json",
    "gpx": "application/gpx+xml",
    "kml": "application/vnd.google-earth.kml+xml",
}


@functools.cache
def _builtin() -> mimetypes.MimeTypes:
    """Python's own table only (no host /etc/mime.types), made when a name is not in Android's list above."""
    return mimetypes.MimeTypes()


_PLAYLISTS = {"audio/x-mpegurl", "audio/mpegurl", "application/vnd.apple.mpegurl", "audio/x-scpls"}
_SUBTITLES = {"application/x-subrip", "text/vtt", "application/x-subtitle"}
_DOCUMENTS = ("text/", "application/pdf", "application/msword", "application/vnd.", "application/json")


def mime_of(name: str) -> str | None:
    ext = name.rsplit(".", 1)[-1].lower() if "." in name else ""
    if not ext:
        return None
    return _ANDROID_MIME.get(ext) or _builtin().guess_type("x." + ext)[0]


def media_type_of(mime: str | None) -> int:
    if not mime:
        return MEDIA_TYPE_NONE
    if mime in _PLAYLISTS:
        return MEDIA_TYPE_PLAYLIST
    if mime in _SUBTITLES:
        return MEDIA_TYPE_SUBTITLE
    top = mime.split("/", 1)[0]
    kinds = {"image": MEDIA_TYPE_IMAGE, "audio": MEDIA_TYPE_AUDIO, "video": MEDIA_TYPE_VIDEO}
    if top in kinds:
        return kinds[top]
    return MEDIA_TYPE_DOCUMENT if mime.startswith(_DOCUMENTS) else MEDIA_TYPE_NONE


@dataclass
class Probe:
    """What the scanner read from one file (None: not in the file / not for its kind)."""

    title: str
    artist: str | None = None
    album: str | None = None
    album_artist: str | None = None
    duration_ms: int | None = None
    width: int | None = None
    height: int | None = None


def _tag(tags: object, *keys: str) -> str | None:
    for key in keys:
        try:
            value = tags[key]  # type: ignore[index]
        except (KeyError, TypeError, ValueError, IndexError):
            continue
        text = value[0] if isinstance(value, list) and value else value
        if text is not None and str(text).strip():
            return str(text)
    return None


def _audio(data: bytes, probe: Probe) -> None:
    import mutagen  # the scanner's tag reader, loaded only when an audio or video file is scanned

    try:
        f = mutagen.File(io.BytesIO(data), easy=True)
    except Exception:  # noqa: BLE001 - a broken file is scanned by its name, as MediaProvider does
        return
    if f is None:
        return
    length = getattr(f.info, "length", None)
    if length:
        probe.duration_ms = int(round(float(length) * 1000))
    tags = f.tags
    if tags is not None:
        probe.title = _tag(tags, "title") or probe.title
        probe.artist = _tag(tags, "artist")
        probe.album = _tag(tags, "album")
        probe.album_artist = _tag(tags, "albumartist")


def _video_size(data: bytes) -> tuple[int, int] | None:
    """The first video track's presentation size from its `tkhd` (ISO BMFF 8.3.2: 16.16 fixed width, height)."""
    from .media import parse_boxes

    try:
        boxes = parse_boxes(data)
    except ValueError:
        return None
    for kind, start, end in boxes:
        if kind != b"tkhd" or end - start < 84:
            continue
        version = data[start]
        at = start + (88 if version == 1 else 76)
        if at + 8 > end:
            continue
        w, h = struct.unpack(">II", data[at : at + 8])
        if w and h:
            return w >> 16, h >> 16
    return None


def probe(name: str, mime: str | None, data: bytes) -> Probe:
    out = Probe(title=posixpath.splitext(name)[0])
    kind = media_type_of(mime)
    if kind == MEDIA_TYPE_IMAGE:
        from PIL import Image, UnidentifiedImageError

        try:
            with Image.open(io.BytesIO(data)) as im:
                out.width, out.height = im.size
        except (UnidentifiedImageError, OSError, ValueError):
            pass
    elif kind in (MEDIA_TYPE_AUDIO, MEDIA_TYPE_VIDEO):
        _audio(data, out)
        if kind == MEDIA_TYPE_VIDEO:
            size = _video_size(data)
            if size:
                out.width, out.height = size
    return out


def java_hash(s: str) -> int:
    """Java's String.hashCode (what MediaProvider's bucket_id is of the lowercased folder path)."""
    h = 0
    units = s.encode("utf-16-be")
    for i in range(0, len(units), 2):
        h = (31 * h + int.from_bytes(units[i : i + 2], "big")) & 0xFFFFFFFF
    return h - (1 << 32) if h >= 1 << 31 else h


__all__ = [
    "FORMAT_DIRECTORY",
    "MEDIA_TYPE_AUDIO",
    "MEDIA_TYPE_DOCUMENT",
    "MEDIA_TYPE_IMAGE",
    "MEDIA_TYPE_NONE",
    "MEDIA_TYPE_PLAYLIST",
    "MEDIA_TYPE_SUBTITLE",
    "MEDIA_TYPE_VIDEO",
    "Probe",
    "java_hash",
    "media_type_of",
    "mime_of",
    "probe",
]
