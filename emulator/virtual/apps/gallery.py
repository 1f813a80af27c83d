"""Simple Gallery Pro (`com.simplemobiletools.gallery.pro` 6.28.1, version code 396: the build AndroidWorld installs;
launcher label "Gallery"), over the media of shared storage as MediaStore indexes them (`gallery_data`). Resource
ids, content descriptions and strings are the app's (and its Simple-Commons').

- MainActivity: MySearchMenu (`main_menu`: "Search folders" filters the folders by name; Open camera; Show all
  folders content) over the folders grid (`directories_grid`, two columns): each folder's `dir_holder` shows its
  newest medium's picture (`dir_thumbnail`), its name (`dir_name`, "Internal" for the storage's root) and how many
  media it holds (`photo_cnt`), the folder with the newest medium first. No media: the "No media files have been
  found" placeholder. While the app lacks all-files access its creation asks for it (AllFilesPermissionDialog:
  "All files" opens Settings' "All files access" page for the app, "Media only" closes the dialog), as
  AndroidWorld's one-time set-up of the app clicks through it.
- MediaActivity: a folder's media (`media_grid`, three columns of `media_item_holder` / `medium_thumbnail`, a
  video's `video_duration`), newest first; MySearchMenu (`media_menu`: Back, "Search in FOLDER" filters by name,
  "Toggle filename visibility" shows each name in `medium_name`, remembered in the app's preferences). With Show all
  folders content it lists every medium ("Switch to folder view" goes back to the folders).
- ViewPagerActivity (`gallery_viewer`): the medium full screen, swiped left and right through its folder, its
  toolbar and bottom actions; the copy / move destination pickers (`gallery_pickers`). PhotoActivity shows it for
  a picture another app opens (ACTION_VIEW of image/jpeg, png, gif, webp, bmp, heic: a `file://` path or a
  MediaStore `content://media/...` row), among the media of its folder.

Left out: selection with a long press and its actions, sorting, filters, grouping, column counts, the settings,
about, hidden and excluded folders, the recycle bin (deleting deletes), the editor, sharing, slideshows, video
playback, widgets and the runtime permission prompt (AndroidWorld grants the app's media permissions).
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from typing import Any

from ..mediastore import MediaItem
from ..records import INTENT_DATA
from ..ui import dialogs
from ..ui import widgets as w
from ..ui.layout import Ctx, Row, V, grid_rows
from ..ui.picture import picture_view
from ..ui.theme import Color
from ..ui.view import View
from .base import App, page
from .gallery_data import (
    ALL_FILES_ACTION,
    ALL_FILES_PAGE,
    DB,
    DISPLAY_FILE_NAMES,
    MAIN,
    MEDIA,
    PERMISSIONS,
    PHOTO,
    PKG,
    PREFS,
    SETTINGS_PKG,
    SHOW_ALL,
    VERSION_CODE,
    VERSION_NAME,
    VIEW_TYPES,
    VIEWER,
    all_files_granted,
    favorite_paths,
    folder_name,
    folders,
    in_folder,
    is_video,
    media,
    pref,
    tr,
    viewed_path,
)
from .gallery_pickers import PICKER_DIALOGS
from .gallery_viewer import VIEWER_DIALOGS, viewer_back, viewer_screen
from .gallery_widgets import RELATIVE, SCRIM, WHITE, folder_cell
from .simplecommons import search_bar

ORANGE: Color = (245, 124, 0)  # the default launcher icon's colour
CAMERA = "com.android.camera2"


def _replace_top(ctx: Ctx, activity: str, extras: dict[str, Any]) -> None:
    """The activity on top starts `activity` and finishes."""
    with ctx.model.lock:
        task = ctx.model.tasks[-1]
        if task.package == PKG and task.stack and task.stack[-1] is ctx.record:
            task.stack.pop()
    ctx.push(activity, extras)


def _searching(ctx: Ctx, key: str) -> bool:
    return bool(ctx.field_value(key)) or ctx.focus == key


def open_viewer(ctx: Ctx, item: MediaItem, folder: str) -> None:
    ctx.hide_keyboard()
    ctx.push(VIEWER, {"path": item.path, "folder": folder})


class GalleryApp(App):
    package = PKG
    labels = {"en": "Gallery", "zh": "图库"}
    activities = {MAIN: "main", MEDIA: "media", VIEWER: "viewer", PHOTO: "viewer"}
    launcher = MAIN
    intent_filters = [("android.intent.action.VIEW", f"mime:{t}", PHOTO) for t in VIEW_TYPES]
    color = ORANGE
    glyph = "image"
    version_name = VERSION_NAME
    version_code = VERSION_CODE
    installed = True  # as AndroidWorld installs it
    permissions = PERMISSIONS
    databases = (DB,)

    # --- lifecycle -----------------------------------------------------------------------------------
    def on_foreground(self, ctx: Ctx) -> None:
        ex = ctx.extras
        folder = str(ex.get("folder", ""))
        if ctx.activity == MEDIA and folder and not in_folder(media(ctx.model), folder):
            ctx.finish()  # its last medium gone (deleted, moved from the viewer): back to the folders
            return
        if ex.get("_created"):
            return
        ex["_created"] = True
        if ctx.activity == MAIN:
            ctx.set_field("main_search", "")
            if pref(ctx.model.fs, SHOW_ALL, False):  # the media of every folder instead of the folders
                _replace_top(ctx, MEDIA, {"folder": ""})
            if not all_files_granted(ctx.model):  # handleMediaManagementPrompt
                ctx.show_dialog({"id": "all_files"})
        elif ctx.activity == MEDIA:
            ctx.set_field("media_search", "")
            ctx.ui.setdefault("scroll", {}).pop("media", None)

    def on_intent(self, ctx: Ctx, action: str, extras: dict[str, Any]) -> None:
        """PhotoActivity: the picture ACTION_VIEW names, shown as the viewer shows it, among its folder's media."""
        path = viewed_path(ctx.model, str(extras.get(INTENT_DATA) or ""))
        if ctx.activity == PHOTO and path is not None:
            extras["path"], extras["folder"] = path, posixpath.dirname(path)

    def on_back(self, ctx: Ctx) -> bool:
        if ctx.activity in (VIEWER, PHOTO):
            return viewer_back(ctx)
        key = "main_search" if ctx.activity == MAIN else "media_search"
        if ctx.activity in (MAIN, MEDIA) and _searching(ctx, key):  # MySearchMenu.closeSearch
            ctx.set_field(key, "")
            ctx.set_focus(None)
            return True
        return False

    def dialog(self, ctx: Ctx) -> View | None:
        spec = ctx.ui.get("dialog")
        if not spec:
            return None
        kind = str(spec.get("id", ""))
        if kind == "all_files":
            return self._all_files_dialog(ctx)
        fn = VIEWER_DIALOGS.get(kind) or PICKER_DIALOGS.get(kind)
        return fn(ctx, spec) if fn else None

    # --- the all-files prompt --------------------------------------------------------------------------
    def _all_files_dialog(self, ctx: Ctx) -> View:
        def grant() -> None:
            ctx.dismiss_dialog()
            ctx.start(
                SETTINGS_PKG, ALL_FILES_PAGE, {"android.intent.action": ALL_FILES_ACTION, INTENT_DATA: f"package:{PKG}"}
            )

        message = tr(ctx, "access_storage_prompt") + "\n\n" + tr(ctx, "media_management_alternative")
        sl, _, sr, _ = ctx.mgr.dialog_area()
        width = min(ctx.dp(312), sr - sl - ctx.dp(32))  # the dialog's, as dialogs.dialog sizes it
        text = w.text_row(ctx, message, "android:id/message", color=ctx.theme.text2, pad_dp=24, lines=30, width=width)
        return dialogs.dialog(
            ctx,
            "",
            "",
            [
                (tr(ctx, "all_files"), "android:id/button1", grant),
                (tr(ctx, "media_only"), "android:id/button3", ctx.dismiss_dialog),
            ],
            rows=[text],
            on_cancel=ctx.dismiss_dialog,
        )

    # --- the folders ---------------------------------------------------------------------------------
    def screen_main(self, ctx: Ctx) -> list[View]:
        def changed(v: str) -> None:
            ctx.set_field("main_search", v)

        searching = _searching(ctx, "main_search")
        icon = (
            ("back", tr(ctx, "back"), lambda: self.on_back(ctx))
            if searching
            else ("search", tr(ctx, "search"), lambda: ctx.set_focus("main_search"))
        )
        actions = [
            ("camera", tr(ctx, "open_camera"), lambda: self._camera(ctx), "open_camera"),
            ("apps", tr(ctx, "show_all"), lambda: self._show_all(ctx, True), "show_all"),
        ]
        bar = search_bar(ctx, "main_search", tr(ctx, "search_folders"), icon, changed, actions)
        bar.resource_id = ctx.rid("main_menu")
        query = ctx.field_value("main_search").strip().lower()
        dirs = [f for f in folders(media(ctx.model)) if query in f.name.lower()]
        l, _, r, _ = ctx.area
        cell = (r - l) // 2
        rows: list[Row] = grid_rows(
            len(dirs),
            2,
            cell,
            lambda i, x, y, cw, ch: folder_cell(ctx, dirs[i], x, y, cw, self._opener(ctx, dirs[i].path)),
        )
        if not dirs:
            key = "no_items_found" if query else "no_media_with_filters"
            rows = [w.text_row(ctx, tr(ctx, key), "directories_empty_placeholder", size=18, align="c", lines=3)]
        return page(ctx, [bar], rows, key="directories", rid="directories_grid")

    def _opener(self, ctx: Ctx, path: str) -> Callable[[], None]:
        def open_folder() -> None:
            ctx.set_focus(None, keyboard=False)
            ctx.push(MEDIA, {"folder": path})

        return open_folder

    def _camera(self, ctx: Ctx) -> None:
        if CAMERA in ctx.model.packages:
            ctx.start(CAMERA)
        else:
            ctx.toast(tr(ctx, "no_app_found"))

    def _show_all(self, ctx: Ctx, on: bool) -> None:
        PREFS.put(ctx.model.fs, SHOW_ALL, on)
        _replace_top(ctx, MEDIA if on else MAIN, {"folder": ""} if on else {})

    # --- a folder's media ----------------------------------------------------------------------------
    def screen_media(self, ctx: Ctx) -> list[View]:
        folder = str(ctx.extras.get("folder", ""))
        fs = ctx.model.fs
        names = bool(pref(fs, DISPLAY_FILE_NAMES, False))

        def changed(v: str) -> None:
            ctx.set_field("media_search", v)

        def toggle_names() -> None:
            PREFS.put(fs, DISPLAY_FILE_NAMES, not names)

        if folder:
            icon = ("back", tr(ctx, "back"), lambda: self._leave_media(ctx))
            hint = tr(ctx, "search_in_placeholder") % folder_name(folder)
            actions = [("edit", tr(ctx, "toggle_filename"), toggle_names, "toggle_filename")]
        else:
            icon = ("search", tr(ctx, "search"), lambda: ctx.set_focus("media_search"))
            hint = tr(ctx, "search_files")
            actions = [
                ("edit", tr(ctx, "toggle_filename"), toggle_names, "toggle_filename"),
                ("apps", tr(ctx, "folder_view"), lambda: self._show_all(ctx, False), "folder_view"),
            ]
        bar = search_bar(ctx, "media_search", hint, icon, changed, actions)
        bar.resource_id = ctx.rid("media_menu")
        query = ctx.field_value("media_search").strip().lower()
        items = in_folder(media(ctx.model), folder)
        favs = favorite_paths(fs)
        if query:  # the names holding the text, those starting with it first
            items = [m for m in items if query in m.display_name.lower()]
            items.sort(key=lambda m: not m.display_name.lower().startswith(query))
        l, _, r, _ = ctx.area
        cell = (r - l) // 3
        rows: list[Row] = grid_rows(
            len(items),
            3,
            cell,
            lambda i, x, y, cw, ch: self._media_cell(ctx, items[i], folder, names, items[i].path in favs, x, y, cw),
        )
        if not items:
            key = "no_items_found" if query else "no_media_with_filters"
            rows = [w.text_row(ctx, tr(ctx, key), "media_empty_text_placeholder", size=18, align="c", lines=3)]
        return page(ctx, [bar], rows, key="media", rid="media_grid")

    def _leave_media(self, ctx: Ctx) -> None:
        ctx.hide_keyboard()
        ctx.finish()

    def _media_cell(
        self, ctx: Ctx, item: MediaItem, folder: str, names: bool, fav: bool, x: int, y: int, size: int
    ) -> View:
        box = (x + 1, y + 1, x + size - 1, y + size - 1)
        holder = V(
            ctx,
            RELATIVE,
            (x, y, x + size, y + size),
            "media_item_holder",
            clickable=True,
            focusable=True,
            long_clickable=True,
            on_click=lambda: open_viewer(ctx, item, folder),
        )
        holder.children.append(picture_view(ctx, box, item.path, "crop", rid="medium_thumbnail"))
        pad = ctx.dp(4)
        if fav:  # markFavoriteItems: a star at the top right
            side = ctx.dp(28)
            star = (box[2] - side - pad, box[1] + pad, box[2] - pad, box[1] + pad + side)
            holder.children.append(w.icon(ctx, star, "star", WHITE, "favorite", bg=(0, 0, 0)))
        if is_video(item):
            isz = ctx.dp(32)
            cx, cy = (box[0] + box[2]) // 2, (box[1] + box[3]) // 2
            holder.children.append(
                w.icon(ctx, (cx - isz // 2, cy - isz // 2, cx + isz // 2, cy + isz // 2), "play", WHITE)
            )
            secs = (item.duration_ms or 0) // 1000
            dur_box = (box[2] - ctx.dp(64), box[3] - ctx.line_h(14) - pad, box[2] - pad, box[3] - pad)
            holder.children.append(
                w.text(ctx, dur_box, f"{secs // 60:02d}:{secs % 60:02d}", "video_duration", color=WHITE, align="r")
            )
        if names:  # medium_name over the picture's bottom, on its gradient
            line = ctx.line_h(12)
            n = 3 if len(item.display_name) > 14 else 1
            name_box = (box[0], box[3] - n * line - 2 * pad, box[2], box[3])
            band = V(ctx, w.FRAME, name_box, style={"bg": SCRIM})
            band.children.append(
                w.text(
                    ctx,
                    name_box,
                    item.display_name,
                    "medium_name",
                    size=12,
                    color=WHITE,
                    lines=n,
                    style={"pad": pad, "ellipsize": True},
                )
            )
            holder.children.append(band)
        return holder

    # --- the viewer ------------------------------------------------------------------------------------
    def screen_viewer(self, ctx: Ctx) -> list[View]:
        return viewer_screen(ctx)

    def window_bg(self, ctx: Ctx) -> Color:
        return (0, 0, 0) if ctx.activity in (VIEWER, PHOTO) else ctx.theme.bg
