"""Files (DocumentsUI)' data: the roots its drawer lists and the documents under each, read from the device's shared
storage (the directories, and MediaProvider's index of them for the media roots and Recent), the file operations
(move, copy, delete, rename, new folder) done on that storage, the texts a list shows for a document (its size as
Android's Formatter gives it, its time as DocumentsUI's `Shared.formatTime`, its type label), and the app's
preferences file (the view mode per root, hidden files).

The roots, as the providers of an Android 14 emulator give them: Recent (DocumentsUI's own), Images, Videos, Audio,
Documents (MediaDocumentsProvider, over MediaStore), Downloads (DownloadStorageProvider: /sdcard/Download) and the
primary storage (ExternalStorageProvider: /storage/emulated/0), titled with the device's name (`settings get global
device_name`, else the model: `sdk_gphone64_x86_64` on an emulator image) and summarised by its free space.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from datetime import datetime

from ..appstorage import SharedPrefs, listing
from ..clock import zone_named
from ..fs import FileSystem, FsError
from ..mediameta import media_type_of
from ..mediameta import mime_of as scanner_mime
from ..mediastore import MediaItem
from ..mediastore import items as media_items
from ..ui.host import Device

PKG = "com.google.android.documentsui"
FILES = "com.android.documentsui.files.FilesActivity"
PICK = "com.android.documentsui.picker.PickActivity"
STORAGE = "/sdcard"  # /storage/emulated/0
DOWNLOAD = "/sdcard/Download"
AVAILABLE_BYTES = 105_727_572 * 1024  # what `df` says is free on /storage/emulated
MODE_LIST, MODE_GRID = 1, 2  # State.MODE_LIST / MODE_GRID
RECENT_LIMIT, RECENT_MAX_AGE = 64, 45 * 86400  # RecentsLoader: at most 64 documents of the last 45 days
PREFS = SharedPrefs(PKG)
BUCKET = "bucket:"  # a media root's folder (its documents' relative path): "bucket:images:DCIM/"


@dataclass(frozen=True)
class Root:
    key: str
    en: str
    zh: str
    icon: str
    authority: str  # the provider's authority and root id, as the view-mode preference key names the root
    root_id: str
    media_type: int | None = None  # a MediaDocumentsProvider root: the media it lists
    create: bool = False  # FLAG_SUPPORTS_CREATE: a copy / move destination, New folder


ROOTS = (
    Root("recent", "Recent", "最近", "clock", "null", "null"),
    Root("images", "Images", "图片", "image", "com.android.providers.media.documents", "images_root", 1),
    Root("videos", "Videos", "视频", "play", "com.android.providers.media.documents", "videos_root", 3),
    Root("audio", "Audio", "音频", "sound", "com.android.providers.media.documents", "audio_root", 2),
    Root("documents", "Documents", "文档", "copy", "com.android.providers.media.documents", "documents_root", 6),
    Root(
        "downloads",
        "Downloads",
        "下载",
        "drop_down",
        "com.android.providers.downloads.documents",
        "downloads",
        None,
        True,
    ),
    Root("primary", "", "", "storage", "com.android.externalstorage.documents", "primary", None, True),
)
ROOT_BY_KEY = {r.key: r for r in ROOTS}
HOME_ROOT = (
    "downloads"  # config.xml default_root_uri: content://com.android.providers.downloads.documents/root/downloads
)


@dataclass(frozen=True)
class Doc:
    """A document of a root: a file or folder of storage (`id` its path), or a media root's folder (a bucket)."""

    id: str
    name: str
    is_dir: bool
    size: int
    mtime: int
    mime: str


def device_name(model: Device) -> str:
    """The primary storage root's title: the device's name (Settings > About phone), else its model."""
    return model.settings.get("global", {}).get("device_name", "") or model.profile.model


def root_title(model: Device, root: Root) -> str:
    if root.key == "primary":
        return device_name(model)
    return root.zh if model.locale == "zh" else root.en


def root_dir(root: Root) -> str | None:
    """The directory a storage-backed root shows at its top."""
    return STORAGE if root.key == "primary" else DOWNLOAD if root.key == "downloads" else None


def mime_of(name: str, is_dir: bool = False) -> str:
    if is_dir:
        return "vnd.android.document/directory"
    return scanner_mime(name) or "application/octet-stream"


def _sorted(docs: list[Doc], by_date: bool) -> list[Doc]:
    """Folders first; then by name (case-insensitive) or, for Downloads and Recent, newest first."""
    if by_date:
        return sorted(docs, key=lambda d: (not d.is_dir, -d.mtime, d.name.casefold()))
    return sorted(docs, key=lambda d: (not d.is_dir, d.name.casefold(), d.name))


def _dir_docs(fs: FileSystem, folder: str, hidden: bool) -> list[Doc]:
    return [
        Doc(e.path, e.name, e.is_dir, e.size, e.mtime, mime_of(e.name, e.is_dir))
        for e in listing(fs, folder)
        if hidden or not e.name.startswith(".")
    ]


def _media_doc(it: MediaItem) -> Doc:
    return Doc(it.path, it.display_name, False, it.size, it.date_modified, it.mime_type or mime_of(it.display_name))


def children(model: Device, root: Root, parent: str | None, hidden: bool = False) -> list[Doc]:
    """The documents of `parent` (None: the root's top) in the order the list shows them."""
    fs = model.fs
    folder = parent or root_dir(root)
    if folder is not None and not folder.startswith(BUCKET):
        return _sorted(_dir_docs(fs, folder, hidden), root.key == "downloads")
    if root.key == "recent":
        now = int(model.now())
        items = [
            it
            for it in media_items(fs)
            if (it.media_type in (1, 2, 3, 6) or it.relative_path.startswith("Download/"))
            and now - it.date_modified <= RECENT_MAX_AGE
        ]
        items.sort(key=lambda it: -it.date_modified)
        return [_media_doc(it) for it in items[:RECENT_LIMIT]]
    items = media_items(fs, root.media_type)
    if root.key in ("images", "videos"):  # the top lists the folders (buckets) the media are in
        if parent is None:
            buckets: dict[str, Doc] = {}
            for it in items:
                key = f"{BUCKET}{root.key}:{it.relative_path}"
                old = buckets.get(key)
                if old is None or it.date_modified > old.mtime:
                    name = it.bucket_display_name or device_name(model)
                    buckets[key] = Doc(key, name, True, 0, it.date_modified, mime_of("", True))
            return _sorted(list(buckets.values()), False)
        rel = parent.split(":", 2)[2]
        items = [it for it in items if it.relative_path == rel]
    return _sorted([_media_doc(it) for it in items], root.key == "recent")


def search(model: Device, root: Root, query: str, hidden: bool = False) -> list[Doc]:
    """The root's documents whose names hold `query` (case-insensitive), folders included, the newest first."""
    q = query.strip().casefold()
    if not q:
        return []
    top = root_dir(root)
    if top is None:
        found = [d for d in _flat(model, root) if q in d.name.casefold()]
    else:
        found = []
        stack = [top]
        while stack:
            for d in _dir_docs(model.fs, stack.pop(), hidden):
                if q in d.name.casefold():
                    found.append(d)
                if d.is_dir:
                    stack.append(d.id)
    return _sorted(found, True)


def _flat(model: Device, root: Root) -> list[Doc]:
    if root.key == "recent":
        return children(model, root, None)
    return [_media_doc(it) for it in media_items(model.fs, root.media_type)]


def stat_doc(fs: FileSystem, path: str) -> Doc | None:
    node = fs.stat(path)
    if node is None:
        return None
    name = posixpath.basename(path)
    return Doc(path, name, node.is_dir, 0 if node.is_dir else node.size, int(node.mtime), mime_of(name, node.is_dir))


# --- operations on storage -------------------------------------------------------------------------------------
def unique_path(fs: FileSystem, folder: str, name: str) -> str:
    """`folder/name`, or `name (1).ext`, `name (2).ext` ... when taken (FileUtils.buildUniqueFile)."""
    path = posixpath.join(folder, name)
    stem, ext = posixpath.splitext(name)
    n = 1
    while fs.exists(path):
        path = posixpath.join(folder, f"{stem} ({n}){ext}")
        n += 1
    return path


def _copy_tree(fs: FileSystem, src: str, dest: str) -> None:
    node = fs.stat(src)
    if node is None:
        raise FsError(2, src)
    if node.is_dir:
        fs.mkdir(dest, parents=True)
        for e in listing(fs, src):
            _copy_tree(fs, e.path, posixpath.join(dest, e.name))
    else:
        fs.write(dest, fs.read(src), mode=node.mode & 0o777, mtime=int(node.mtime), parents=True)


def transfer(fs: FileSystem, paths: list[str], folder: str, move: bool) -> list[str]:
    """Copy or move documents into `folder` (a name taken there gets a unique one); a folder never goes into itself.
    Returns the names that failed."""
    failed = []
    for src in paths:
        name = posixpath.basename(src)
        if move and posixpath.dirname(src) == folder:
            continue
        if folder == src or folder.startswith(src.rstrip("/") + "/"):
            failed.append(name)
            continue
        try:
            _copy_tree(fs, src, unique_path(fs, folder, name))
            if move:
                fs.remove(src, recursive=True)
        except FsError:
            failed.append(name)
    return failed


def delete(fs: FileSystem, paths: list[str]) -> list[str]:
    failed = []
    for p in paths:
        try:
            fs.remove(p, recursive=True)
        except FsError:
            failed.append(posixpath.basename(p))
    return failed


def rename(fs: FileSystem, path: str, name: str) -> bool:
    """False when the name is taken (or empty, or holds a slash)."""
    name = name.strip()
    dest = posixpath.join(posixpath.dirname(path), name)
    if not name or "/" in name or dest == path:
        return bool(name) and dest == path
    if fs.exists(dest):
        return False
    try:
        _copy_tree(fs, path, dest)
        fs.remove(path, recursive=True)
    except FsError:
        return False
    return True


def make_dir(fs: FileSystem, parent: str, name: str) -> bool:
    name = name.strip()
    if not name or "/" in name:
        return False
    try:
        fs.mkdir(unique_path(fs, parent, name))
    except FsError:
        return False
    return True


# --- texts -----------------------------------------------------------------------------------------------------
def format_size(size: int, zh: bool = False) -> str:
    """Formatter.formatFileSize: SI units (1000), two decimals below 100 of a unit, none from 100 or in bytes."""
    units = ("B", "kB", "MB", "GB", "TB", "PB") if not zh else ("字节", "kB", "MB", "GB", "TB", "PB")
    value, i = float(size), 0
    while value > 900 and i < len(units) - 1:
        value /= 1000
        i += 1
    text = f"{value:.0f}" if i == 0 or value >= 100 else f"{value:.2f}"
    return f"{text} {units[i]}"


def format_time(model: Device, mtime: int) -> str:
    """Shared.formatTime: the time of day today, the date this year, the date with its year before."""
    zone = zone_named(model.time_zone)
    then, now = datetime.fromtimestamp(mtime, zone), datetime.fromtimestamp(model.now(), zone)
    zh = model.locale == "zh"
    if then.year != now.year:
        return f"{then.year}年{then.month}月{then.day}日" if zh else f"{then:%b} {then.day}, {then.year}"
    if then.timetuple().tm_yday != now.timetuple().tm_yday:
        return f"{then.month}月{then.day}日" if zh else f"{then:%b} {then.day}"
    hour = then.hour % 12 or 12
    if zh:
        return f"{'上午' if then.hour < 12 else '下午'}{hour}:{then:%M}"
    return f"{hour}:{then:%M} {'AM' if then.hour < 12 else 'PM'}"


def type_label(doc: Doc, zh: bool = False) -> str:
    """ContentResolver.getTypeInfo's label: Folder, `JPG image`, `MP3 audio`, `PDF document`, `ZIP file`."""
    if doc.is_dir:
        return "文件夹" if zh else "Folder"
    ext = doc.name.rsplit(".", 1)[-1].upper() if "." in doc.name else ""
    kind = media_type_of(doc.mime)
    words = {1: ("image", "图片"), 2: ("audio", "音频"), 3: ("video", "视频"), 6: ("document", "文档")}
    en, cn = words.get(kind, ("file", "文件"))
    if not ext:
        return cn if zh else en.capitalize()
    return f"{ext} {cn}" if zh else f"{ext} {en}"


# --- preferences ------------------------------------------------------------------------------------------------
def view_mode(fs: FileSystem, root: Root) -> int:
    value = PREFS.read(fs).get(f"rootViewMode-{root.authority}{root.root_id}", MODE_GRID)
    return MODE_LIST if value == MODE_LIST else MODE_GRID


def set_view_mode(fs: FileSystem, root: Root, mode: int) -> None:
    PREFS.put(fs, f"rootViewMode-{root.authority}{root.root_id}", mode)


def show_hidden(fs: FileSystem) -> bool:
    return PREFS.read(fs).get("showHiddenFiles") is True


def set_show_hidden(fs: FileSystem, on: bool) -> None:
    PREFS.put(fs, "showHiddenFiles", on)
