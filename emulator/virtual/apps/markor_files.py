"""Markor's storage: notes are plain files of shared storage under the notebook folder
(/storage/emulated/0/Documents/Markor), read and written through the device's file system - the one truth that
`adb shell ls/cat/echo >`, `adb pull`/`push` and the app all see. Names, paths and the file-browser's order and
descriptions as Markor 2.11.1 gives them."""

from __future__ import annotations

import posixpath
import re
from datetime import datetime

from ..appstorage import FileEntry, listing
from ..clock import zone_named
from ..fs import FileSystem, FsError
from ..ui.host import Device

PKG = "net.gsantner.markor"
MAIN = f"{PKG}.activity.MainActivity"
DOCUMENT = f"{PKG}.activity.DocumentActivity"
NOTEBOOK = "/sdcard/Documents/Markor"  # /storage/emulated/0/Documents/Markor (the same directory)
STORAGE_ROOT = "/sdcard"
VERSION_NAME, VERSION_CODE = "2.11.1", 146
# the New file dialog's Type spinner, and the extension each type gives (arrays.xml new_file_types*)
TYPES: tuple[tuple[str, str], ...] = (
    ("Markdown", ".md"),
    ("Plain Text", ".txt"),
    ("todo.txt", ".todo.txt"),
    ("Wikitext", ".txt"),
    ("AsciiDoc", ".adoc"),
    ("CSV", ".csv"),
    ("OrgMode", ".org"),
    ("None", ""),
)
_ILLEGAL = re.compile(r'[\\/:*?"<>|\x00-\x1f]')


def normalize_name(name: str) -> str:
    """A typed file name as Markor writes it: characters a file name cannot hold become underscores."""
    return _ILLEGAL.sub("_", name.strip())


def entries(fs: FileSystem, folder: str) -> list[FileEntry]:
    """A folder's files and folders in Markor's default order: folders first, then by name (case-insensitive);
    dotfiles hidden."""
    items = [e for e in listing(fs, folder) if not e.name.startswith(".")]
    return sorted(items, key=lambda e: (not e.is_dir, e.name.lower(), e.name))


def folders(fs: FileSystem, folder: str) -> list[FileEntry]:
    return [e for e in entries(fs, folder) if e.is_dir]


def read_text(fs: FileSystem, path: str) -> str:
    data = fs.peek(path)
    return "" if data is None else data.decode("utf-8", "replace")


def write_text(fs: FileSystem, path: str, text: str) -> None:
    fs.write(path, text.encode("utf-8"), parents=True)


def move(fs: FileSystem, src: str, folder: str) -> str | None:
    """Move a file or folder into `folder` (its new path), or None when something of that name is there already
    or the folder is the item itself or inside it."""
    dest = posixpath.join(folder, posixpath.basename(src))
    if dest == src:
        return dest
    if fs.exists(dest) or folder == src or folder.startswith(src.rstrip("/") + "/"):
        return None
    return rename(fs, src, dest)


def rename(fs: FileSystem, src: str, dest: str) -> str | None:
    """`src` renamed to `dest` (a folder with everything in it), or None when `dest` exists."""
    if fs.exists(dest):
        return None
    node = fs.stat(src)
    if node is None:
        return None
    if node.is_dir:
        fs.mkdir(dest, parents=True)
        for e in listing(fs, src):
            rename(fs, e.path, posixpath.join(dest, e.name))
    else:
        data = fs.peek(src) or b""
        fs.write(dest, data, mode=node.mode & 0o777, mtime=node.mtime, parents=True)
    try:
        fs.remove(src, recursive=True)
    except FsError:
        return None
    return dest


def remove(fs: FileSystem, path: str) -> None:
    try:
        fs.remove(path, recursive=True)
    except FsError:
        pass


def modified(model: Device, mtime: int) -> str:
    """A file's modification time as the list shows it (DateUtils numeric date, year and time: 11/29/2026, 5:56 AM;
    in Chinese 2026/11/29 05:56), in the device's time zone."""
    t = datetime.fromtimestamp(mtime, zone_named(model.time_zone))
    if model.locale == "zh":
        return f"{t.year}/{t.month}/{t.day} {t:%H:%M}"
    hour = t.hour % 12 or 12
    return f"{t.month}/{t.day}/{t.year}, {hour}:{t:%M} {'AM' if t.hour < 12 else 'PM'}"


def display_path(path: str) -> str:
    """A path as Markor shows it: shared storage under /storage/emulated/0."""
    if path == STORAGE_ROOT or path.startswith(STORAGE_ROOT + "/"):
        return "/storage/emulated/0" + path[len(STORAGE_ROOT) :]
    return path
