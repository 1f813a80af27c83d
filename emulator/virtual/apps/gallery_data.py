"""Simple Gallery Pro's data: the media it lists (MediaStore's index of shared storage, `mediastore`, as its
MediaFetcher reads it), grouped into folders; what it does to files (copy, move, rename, delete, rotate, on shared
storage, where MediaStore follows); its Room database `gallery.db` (the schema version 10 its 6.28.1 build creates:
`directories`, `media`, `widgets`, `date_takens`, `favorites`, Room's `room_master_table`, `android_metadata`), of
which the twin reads and writes the favourites; its preferences (Simple-Commons' `Prefs` file: `display_file_names`,
`show_all`, `last_copy_path`); its activities and strings (the app's and Simple-Commons' English and zh-CN ones).

Which media: images and videos (MediaStore's media types), not hidden (a name starting with a dot), newest first
(the default sorting: date modified, descending). With all-files access the app walks the folders and lists empty
files too; with media access only it reads MediaStore's cursor, which leaves out files of size 0.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import posixpath
from dataclasses import dataclass
from typing import Any

from ..appstorage import AppDatabase, SharedPrefs
from ..clock import zone_named
from ..fs import FileSystem, FsError
from ..mediameta import MEDIA_TYPE_IMAGE, MEDIA_TYPE_VIDEO
from ..mediastore import ROOT as STORAGE_ROOT
from ..mediastore import SHOWN_ROOT as STORAGE_SHOWN
from ..mediastore import MediaItem, fs_path, rows, shown
from ..mediastore import items as media_items
from ..ui.host import Device

PKG = "com.simplemobiletools.gallery.pro"
_ACT = PKG + ".activities."
MAIN = _ACT + "MainActivity"
MEDIA = _ACT + "MediaActivity"
VIEWER = _ACT + "ViewPagerActivity"
PHOTO = _ACT + "PhotoActivity"  # a picture another app opens (ACTION_VIEW image/*)
VIEW_TYPES = ("image/jpeg", "image/png", "image/gif", "image/webp", "image/bmp", "image/heic")
VERSION_NAME, VERSION_CODE = "6.28.1", 396  # the build AndroidWorld installs (com.simplemobiletools.gallery.pro_396)
ROOT = STORAGE_ROOT  # /sdcard: internal storage as the device's file system names it
SHOWN_ROOT = STORAGE_SHOWN  # /storage/emulated/0: as the app names it
ALL_FILES_OP = "MANAGE_EXTERNAL_STORAGE"
ALL_FILES_ACTION = "android.settings.MANAGE_APP_ALL_FILES_ACCESS_PERMISSION"
SETTINGS_PKG = "com.android.settings"
ALL_FILES_PAGE = "com.android.settings.Settings$AppManageExternalStorageActivity"
PERMISSIONS = (
    "android.permission.WRITE_EXTERNAL_STORAGE",
    "android.permission.SET_WALLPAPER",
    "android.permission.RECEIVE_BOOT_COMPLETED",
    "android.permission.ACCESS_MEDIA_LOCATION",
    "android.permission.READ_MEDIA_IMAGES",
    "android.permission.READ_MEDIA_VIDEO",
    "android.permission.POST_NOTIFICATIONS",
    "android.permission.MANAGE_EXTERNAL_STORAGE",
    "android.permission.MANAGE_MEDIA",
    "android.permission.ACCESS_NETWORK_STATE",
    "android.permission.CAMERA",
)
PREFS = SharedPrefs(PKG, "Prefs")  # Simple-Commons' BaseConfig: getSharedPreferences("Prefs")
DISPLAY_FILE_NAMES = "display_file_names"
SHOW_ALL = "show_all"
LAST_COPY_PATH = "last_copy_path"
IDENTITY_HASH = hashlib.md5(b"gallery.db 10").hexdigest()  # a stand-in: the build's schema JSON is not published

DDL = f"""
CREATE TABLE android_metadata (locale TEXT);
INSERT INTO android_metadata VALUES ('en_US');
CREATE TABLE IF NOT EXISTS `directories` (`id` INTEGER PRIMARY KEY AUTOINCREMENT, `path` TEXT NOT NULL,
  `thumbnail` TEXT NOT NULL, `filename` TEXT NOT NULL, `media_count` INTEGER NOT NULL, `last_modified` INTEGER NOT NULL,
  `date_taken` INTEGER NOT NULL, `size` INTEGER NOT NULL, `location` INTEGER NOT NULL, `media_types` INTEGER NOT NULL,
  `sort_value` TEXT NOT NULL);
CREATE UNIQUE INDEX IF NOT EXISTS `index_directories_path` ON `directories` (`path`);
CREATE TABLE IF NOT EXISTS `media` (`id` INTEGER PRIMARY KEY AUTOINCREMENT, `filename` TEXT NOT NULL,
  `full_path` TEXT NOT NULL, `parent_path` TEXT NOT NULL, `last_modified` INTEGER NOT NULL,
  `date_taken` INTEGER NOT NULL, `size` INTEGER NOT NULL, `type` INTEGER NOT NULL, `video_duration` INTEGER NOT NULL,
  `is_favorite` INTEGER NOT NULL, `deleted_ts` INTEGER NOT NULL, `media_store_id` INTEGER NOT NULL);
CREATE UNIQUE INDEX IF NOT EXISTS `index_media_full_path` ON `media` (`full_path`);
CREATE TABLE IF NOT EXISTS `widgets` (`id` INTEGER PRIMARY KEY AUTOINCREMENT, `widget_id` INTEGER NOT NULL,
  `folder_path` TEXT NOT NULL);
CREATE UNIQUE INDEX IF NOT EXISTS `index_widgets_widget_id` ON `widgets` (`widget_id`);
CREATE TABLE IF NOT EXISTS `date_takens` (`id` INTEGER PRIMARY KEY AUTOINCREMENT, `full_path` TEXT NOT NULL,
  `filename` TEXT NOT NULL, `parent_path` TEXT NOT NULL, `date_taken` INTEGER NOT NULL, `last_fixed` INTEGER NOT NULL,
  `last_modified` INTEGER NOT NULL);
CREATE UNIQUE INDEX IF NOT EXISTS `index_date_takens_full_path` ON `date_takens` (`full_path`);
CREATE TABLE IF NOT EXISTS `favorites` (`id` INTEGER PRIMARY KEY AUTOINCREMENT, `full_path` TEXT NOT NULL,
  `filename` TEXT NOT NULL, `parent_path` TEXT NOT NULL);
CREATE UNIQUE INDEX IF NOT EXISTS `index_favorites_full_path` ON `favorites` (`full_path`);
CREATE TABLE IF NOT EXISTS room_master_table (id INTEGER PRIMARY KEY,identity_hash TEXT);
INSERT OR REPLACE INTO room_master_table (id,identity_hash) VALUES(42, '{IDENTITY_HASH}');
"""
DB = AppDatabase(PKG, "gallery.db", DDL, 10)

STRINGS: dict[str, tuple[str, str]] = {
    "app_launcher_name": ("Gallery", "图库"),
    "all_files": ("All files", "所有文件"),
    "media_only": ("Media only", "仅媒体文件"),
    "media_management_alternative": (
        "If you do not want to do it, you can also go into your device Settings - Apps - Special app access - "
        "Media management apps and allow this app to manage media.",
        "如果你不想进行此操作，你也可以转到设备的 “设置” - “应用” - “特殊应用权限” - “媒体管理应用” "
        "并允许此应用管理媒体文件。",
    ),
    "no_media_with_filters": (
        "No media files have been found with the selected filters.",
        "没有媒体文件匹配选定的筛选条件。",
    ),
    "change_filters_underlined": ("Change filters", "更改筛选条件"),
    "other_folder": ("Other folder", "其他文件夹"),
    "toggle_favorite": ("Toggle favorite", "切换收藏"),
    "rotate_right": ("Rotate right", "向右旋转"),
    "rotate_left": ("Rotate left", "向左旋转"),
    "rotate_one_eighty": ("Rotate by 180º", "旋转 180º"),
    "rotate": ("Rotate", "旋转"),
    "hide": ("Hide", "隐藏"),
    "create_shortcut": ("Create shortcut", "创建快捷方式"),
    "open_with": ("Open with", "打开方式"),
    "set_as": ("Set as", "设置为"),
    "change_orientation": ("Change orientation", "更改屏幕方向"),
    "print": ("Print", "打印"),
    "resize": ("Resize", "调整尺寸"),
    "show_on_map": ("Show on map", "在地图上显示"),
    "slideshow": ("Slideshow", "幻灯片"),
    "folder_view": ("Switch to folder view", "切换至文件夹视图"),
    "open_camera": ("Open camera", "打开相机"),
    "show_all": ("Show all folders content", "文件视图"),
    "save_as": ("Save as", "保存"),
    # Simple-Commons
    "access_storage_prompt": (
        "Please grant our app access to all your files, it might not work well without it.",
        "请允许我们的应用程序访问您的所有文件，没有此权限它可能不能正常工作。",
    ),
    "search": ("Search", "搜索"),
    "back": ("Back", "返回"),
    "search_folders": ("Search folders", "搜索文件夹"),
    "search_files": ("Search files", "搜索文件"),
    "search_in_placeholder": ("Search in %s", "在 %s 中搜索"),
    "no_items_found": ("No items found.", "找不到任何项目。"),
    "toggle_filename": ("Toggle filename visibility", "显示文件名"),
    "more_options": ("More options", "更多选项"),
    "ok": ("OK", "确认"),
    "cancel": ("Cancel", "取消"),
    "yes": ("Yes", "是"),
    "no": ("No", "否"),
    "edit": ("Edit", "编辑"),
    "share": ("Share", "分享"),
    "delete": ("Delete", "删除"),
    "properties": ("Properties", "属性"),
    "rename": ("Rename", "重命名"),
    "copy_to": ("Copy to", "复制到"),
    "move_to": ("Move to", "移动到"),
    "settings": ("Settings", "设置"),
    "select_destination": ("Select destination", "选择目标路径"),
    "select_folder": ("Select a folder", "选择文件夹"),
    "internal": ("Internal", "内部存储器"),
    "copying_success_one": ("File copied successfully", "文件复制成功"),
    "moving_success_one": ("File moved successfully", "文件移动成功"),
    "source_and_destination_same": ("Source and destination cannot be the same", "原始路径和目标路径不能相同"),
    "file_already_exists": ('File "%s" already exists', '文件 "%s" 已存在'),
    "skip": ("Skip", "跳过"),
    "overwrite": ("Overwrite", "覆盖"),
    "keep_both": ("Keep both", "保留两者"),
    "title": ("Title", "标题"),
    "extension": ("Extension", "扩展名"),
    "empty_name": ("Please enter a name", "请输入名称"),
    "invalid_name": ("The name contains invalid characters", "名称包含无效字符"),
    "name_taken": ("A file or folder with that name already exists", "同名文件夹或文件已存在"),
    "deletion_confirmation": ("Are you sure you want to delete %s?", "您确定要删除 %s？"),
    "do_not_ask_again": ("Do not ask again in this session", "重启前不再提醒"),
    "name": ("Name", "名称"),
    "path": ("Path", "路径"),
    "size": ("Size", "大小"),
    "resolution": ("Resolution", "分辨率"),
    "last_modified": ("Last modified", "修改日期"),
    "file_saved": ("File saved successfully", "文件保存成功"),
    "image_editing_failed": ("Image editing failed", "图片编辑失败"),
    "no_app_found": ("No valid app found", "未找到可用应用"),
    "unknown_error_occurred": ("An unknown error occurred", "未知错误"),
    "create_new_folder": ("Create new folder", "新建文件夹"),
    "items": ("%d items", "%d 个项目"),
    "item": ("%d item", "%d 个项目"),
}


def tr(ctx: Any, key: str) -> str:
    en, zh = STRINGS[key]
    return zh if ctx.zh else en


# --- permissions and preferences -------------------------------------------------------------------------------
def all_files_granted(model: Device) -> bool:
    """Settings' All files access for the app (the MANAGE_EXTERNAL_STORAGE app-op)."""
    pkg = model.packages.get(PKG)
    return pkg is not None and pkg.appops.get(ALL_FILES_OP) == "allow"


def pref(fs: FileSystem, key: str, default: Any) -> Any:
    return PREFS.read(fs).get(key, default)


# --- what it lists -----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Folder:
    """A folder holding media, as the folders grid shows it."""

    path: str  # on the device's file system (/sdcard/DCIM)
    name: str
    count: int
    thumbnail: str  # the path of its newest medium
    modified: int


def folder_name(path: str) -> str:
    """A folder's name as the app shows it: the last part of its path, "Internal" for the storage's root."""
    return "Internal" if path.rstrip("/") == ROOT else posixpath.basename(path.rstrip("/"))


def media(model: Device) -> list[MediaItem]:
    """Every image and video the app lists, newest first (ties by name)."""
    walk = all_files_granted(model)
    items = [
        m
        for m in media_items(model.fs)
        if m.media_type in (MEDIA_TYPE_IMAGE, MEDIA_TYPE_VIDEO)
        and not m.display_name.startswith(".")
        and (walk or m.size > 0)
    ]
    items.sort(key=lambda m: (-m.date_modified, m.display_name.lower()))
    return items


def in_folder(items: list[MediaItem], folder: str) -> list[MediaItem]:
    """The media directly in `folder` ("" : all of them, the "Show all folders content" view)."""
    if not folder:
        return items
    return [m for m in items if posixpath.dirname(m.path) == folder]


def folders(items: list[MediaItem]) -> list[Folder]:
    """The folders holding media, the one with the newest medium first (the default sorting)."""
    groups: dict[str, list[MediaItem]] = {}
    for m in items:
        groups.setdefault(posixpath.dirname(m.path), []).append(m)
    out = [Folder(p, folder_name(p), len(ms), ms[0].path, ms[0].date_modified) for p, ms in groups.items()]
    out.sort(key=lambda f: (-f.modified, f.name.lower()))
    return out


def is_video(item: MediaItem) -> bool:
    return item.media_type == MEDIA_TYPE_VIDEO


def subfolders(fs: FileSystem, folder: str) -> list[tuple[str, int]]:
    """The folders inside `folder` (not hidden), by name, with how many visible items each holds (FilePicker)."""
    try:
        entries = fs.listdir(folder)
    except FsError:
        return []
    out = []
    for name, node in entries:
        if not node.is_dir or name.startswith("."):
            continue
        if folder == ROOT and name == "Android":
            count = len(node.children or {})
        else:
            count = len([c for c in (node.children or {}) if not c.startswith(".")])
        out.append((name, count))
    out.sort(key=lambda nc: nc[0].lower())
    return out


# --- what it does to files ----------------------------------------------------------------------------------------
def free_name(fs: FileSystem, folder: str, name: str) -> str:
    """`name`, or `name(1)`, `name(2)`... before its extension, the first not taken in `folder` (Keep both)."""
    stem, ext = posixpath.splitext(name)
    candidate, i = name, 1
    while fs.exists(posixpath.join(folder, candidate)):
        candidate = f"{stem}({i}){ext}"
        i += 1
    return candidate


def copy_file(fs: FileSystem, src: str, dest: str, move: bool = False) -> bool:
    """`src` written at `dest` with its modification time kept (Simple-Commons keeps it), then - moving - removed."""
    node = fs.stat(src)
    if node is None or node.is_dir:
        return False
    try:
        fs.write(dest, fs.read(src), mtime=node.mtime)
        if move and src != dest:
            fs.remove(src)
    except FsError:
        return False
    return True


def delete_file(fs: FileSystem, path: str) -> bool:
    try:
        fs.remove(path)
    except FsError:
        return False
    DB.execute(fs, "DELETE FROM favorites WHERE full_path = ?", (shown(path),))
    return True


def rename_file(fs: FileSystem, path: str, new_path: str) -> bool:
    if not copy_file(fs, path, new_path, move=True):
        return False
    DB.execute(
        fs,
        "UPDATE favorites SET full_path = ?, filename = ? WHERE full_path = ?",
        (shown(new_path), posixpath.basename(new_path), shown(path)),
    )
    return True


def favorite_paths(fs: FileSystem) -> set[str]:
    """The favourites' paths on the device's file system."""
    return {fs_path(str(r["full_path"])) for r in DB.rows(fs, "SELECT full_path FROM favorites")}


def is_favorite(fs: FileSystem, path: str) -> bool:
    return bool(DB.rows(fs, "SELECT id FROM favorites WHERE full_path = ?", (shown(path),)))


def toggle_favorite(fs: FileSystem, path: str) -> None:
    data = shown(path)
    if is_favorite(fs, path):
        DB.execute(fs, "DELETE FROM favorites WHERE full_path = ?", (data,))
        return
    DB.execute(
        fs,
        "INSERT OR REPLACE INTO favorites (full_path, filename, parent_path) VALUES (?, ?, ?)",
        (data, posixpath.basename(path), posixpath.dirname(data)),
    )


# --- how it shows things ------------------------------------------------------------------------------------------
def format_size(size: int) -> str:
    """Simple-Commons' formatSize: `#,##0.#` of the largest unit, kB = 1024 B."""
    if size <= 0:
        return "0 B"
    units = ("B", "kB", "MB", "GB", "TB")
    group = 0
    value = float(size)
    while value >= 1024 and group < len(units) - 1:
        value /= 1024
        group += 1
    text = f"{value:,.1f}".rstrip("0").rstrip(".")
    return f"{text} {units[group]}"


def format_time(model: Device, seconds: int) -> str:
    """A time as the app's default date format (dd.MM.yyyy) and the device's 24-hour clock write it."""
    when = dt.datetime.fromtimestamp(seconds, zone_named(model.time_zone))
    return when.strftime("%d.%m.%Y, %H:%M")


def viewed_path(model: Device, uri: str) -> str | None:
    """The file an ACTION_VIEW's data names: `file:///storage/emulated/0/...`, a path, or a MediaStore row's
    `content://media/external/images/media/ID`."""
    if uri.startswith("content://media/"):
        row_id = uri.rstrip("/").rpartition("/")[2]
        if not row_id.isdigit():
            return None
        found = rows(model.fs, "_id = ?", (int(row_id),))
        return fs_path(str(found[0]["_data"])) if found else None
    path = uri[len("file://") :] if uri.startswith("file://") else uri
    path = fs_path(path)
    return path if path.startswith(ROOT + "/") and model.fs.exists(path) else None


def shown_path(path: str) -> str:
    return shown(path) if path.startswith(ROOT) else path
