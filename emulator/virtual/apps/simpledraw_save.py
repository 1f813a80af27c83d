"""Simple Draw Pro's saving: SaveImageDialog ("Save as": the Path `folder_value` - a tap opens Simple-Commons'
FilePickerDialog -, the Filename `save_image_filename` ("image_" and the date and time at first, then the last name
saved), the extension radios `save_image_radio_png` / `_svg` / `_jpg` (the last one saved, PNG at first), OK /
Cancel), the overwrite question ('File "NAME" already exists. Overwrite?', Yes / No), FilePickerDialog ("Select a
folder": the breadcrumbs `filepicker_breadcrumbs` from "Internal", the folder's items in `filepicker_list` - folders
first, a tap opens one -, the `filepicker_fab` for a new folder, OK / Cancel) and CreateNewFolderDialog (`folder_path`,
`folder_name`). OK writes the drawing at FOLDER/NAME.EXT and says "File saved successfully"; the folder and extension
are remembered (`last_save_folder`, `last_save_extension`) and the name until the app's process ends.

This is the dialog as the app shows it where it writes files itself (SaveImageDialog with its path, before Android
10); on Android 10 and later the real app hides the path and hands the saving to the system's document picker
(ACTION_CREATE_DOCUMENT), which this device's apps do not offer yet."""

from __future__ import annotations

import datetime as dt
import posixpath
from collections.abc import Callable
from typing import Any

from ..clock import zone_named
from ..fs import FsError
from ..ui import dialogs
from ..ui import widgets as w
from ..ui.fonts import text_width
from ..ui.layout import Ctx, Row, V
from ..ui.view import View
from . import simpledraw_data as data

Spec = dict[str, Any]
OK, CANCEL = "android:id/button1", "android:id/button2"


def open_save(ctx: Ctx, on_saved: Callable[[str], None] | None = None) -> None:
    """trySaveImage: the dialog with the last folder (or "Simple Draw" in the internal storage), name and extension."""
    fs = ctx.model.fs
    name = str(ctx.ui.get("last_name") or "")
    if not name:
        now = dt.datetime.fromtimestamp(ctx.model.now(), zone_named(ctx.model.time_zone))
        name = "image_" + now.strftime("%Y_%m_%d_%H_%M_%S")
    ext = data.last_extension(fs)
    ctx.set_field("save_name", name)
    ctx.show_dialog(
        {
            "id": "save",
            "folder": data.last_folder(fs) or data.DEFAULT_FOLDER,
            "ext": ext if ext in data.EXTENSIONS else "png",
        }
    )
    ctx.set_focus("save_name")


def _save(ctx: Ctx, spec: Spec, confirmed: bool = False) -> None:
    name = ctx.field_value("save_name").strip()
    if not name:
        ctx.toast(data.tr(ctx, "Filename cannot be empty"))
        return
    ext = str(spec.get("ext", "png"))
    path = f"{str(spec['folder']).rstrip('/')}/{name}.{ext}"
    if not data.valid_name(posixpath.basename(path)):
        ctx.toast(data.tr(ctx, "Filename contains invalid characters"))
        return
    if not confirmed and ctx.model.fs.exists(path):
        ctx.show_dialog({"id": "overwrite", "path": path, "back": spec})
        return
    _write(ctx, path, name, ext)


def _write(ctx: Ctx, path: str, name: str, ext: str) -> None:
    fs = ctx.model.fs
    ctx.dismiss_dialog()
    ctx.set_focus(None)
    try:
        data.save_drawing(fs, path, data.strokes(ctx), data.canvas_size(ctx), data.canvas_color(fs))
    except FsError:
        ctx.toast(data.tr(ctx, "An unknown error occurred"))
        return
    ctx.ui["saved_hash"] = data.drawing_hash(ctx)
    ctx.ui["last_name"] = name
    data.PREFS.put(fs, "last_save_folder", posixpath.dirname(path))
    data.PREFS.put(fs, "last_save_extension", ext)
    ctx.toast(data.tr(ctx, "File saved successfully"))


def _cancel(ctx: Ctx) -> None:
    ctx.dismiss_dialog()
    ctx.set_focus(None)


def save_dialog(ctx: Ctx, spec: Spec) -> View:
    folder = str(spec["folder"])
    ext = str(spec.get("ext", "png"))

    def path_row(x: int, y: int, wd: int) -> View:
        box = V(ctx, w.FRAME, (x + ctx.dp(24), y, x + wd - ctx.dp(24), y + ctx.dp(64)), "folder_hint")
        box.children.append(
            w.text(
                ctx,
                (box.bounds[0] + ctx.dp(12), y, box.bounds[2], y + ctx.dp(18)),
                data.tr(ctx, "Path"),
                size=12,
                color=ctx.theme.text2,
            )
        )
        field = w.edit(
            ctx,
            (box.bounds[0], y + ctx.dp(16), box.bounds[2], y + ctx.dp(64)),
            "folder_value",
            data.humanize(ctx, folder),
            "",
            lambda v: None,
            "folder_value",
        )
        # UnclickableEditText: a tap opens the folder picker instead of the keyboard
        field.style.pop("field", None)
        field.focusable, field.long_clickable = False, False
        field.on_click = lambda: ctx.show_dialog({"id": "folder_picker", "path": folder, "back": spec})
        box.children.append(field)
        return box

    def name_row(x: int, y: int, wd: int) -> View:
        box = V(ctx, w.FRAME, (x + ctx.dp(24), y, x + wd - ctx.dp(24), y + ctx.dp(64)), "save_image_filename_hint")
        box.children.append(
            w.text(
                ctx,
                (box.bounds[0] + ctx.dp(12), y, box.bounds[2], y + ctx.dp(18)),
                data.tr(ctx, "Filename"),
                size=12,
                color=ctx.theme.text2,
            )
        )
        box.children.append(
            w.edit(
                ctx,
                (box.bounds[0], y + ctx.dp(16), box.bounds[2], y + ctx.dp(64)),
                "save_name",
                ctx.field_value("save_name"),
                "",
                lambda v: ctx.set_field("save_name", v),
                "save_image_filename",
                action=lambda: _save(ctx, spec),
            )
        )
        return box

    radio_h = max(ctx.dp(48), ctx.line_h(15) + ctx.dp(16))

    def radios(x: int, y: int, wd: int) -> View:
        """The RadioGroup: one radio button a line."""
        group = V(
            ctx,
            "android.widget.RadioGroup",
            (x + ctx.dp(24), y, x + wd - ctx.dp(24), y + 3 * radio_h),
            "save_image_radio_group",
        )
        for i, e in enumerate(data.EXTENSIONS):

            def pick(e: str = e) -> None:
                spec["ext"] = e

            y0 = y + i * radio_h
            group.children.append(
                w.checkbox(
                    ctx,
                    (x + ctx.dp(24), y0, x + wd - ctx.dp(24), y0 + radio_h),
                    e == ext,
                    f"save_image_radio_{e}",
                    pick,
                    f".{e}",
                    radio=True,
                )
            )
        return group

    rows = [Row(ctx.dp(72), path_row), Row(ctx.dp(72), name_row, ("save_name",)), Row(3 * radio_h, radios)]
    return dialogs.dialog(
        ctx,
        data.tr(ctx, "Save as"),
        "",
        [(data.tr(ctx, "OK"), OK, lambda: _save(ctx, spec)), (data.tr(ctx, "Cancel"), CANCEL, lambda: _cancel(ctx))],
        rows=rows,
        on_cancel=lambda: _cancel(ctx),
    )


def overwrite_dialog(ctx: Ctx, spec: Spec) -> View:
    path = str(spec["path"])
    back = spec["back"]

    def yes() -> None:
        name, ext = posixpath.splitext(posixpath.basename(path))
        _write(ctx, path, name, ext.lstrip("."))

    return dialogs.dialog(
        ctx,
        "",
        data.tr(ctx, "overwrite", posixpath.basename(path)),
        [(data.tr(ctx, "Yes"), OK, yes), (data.tr(ctx, "No"), CANCEL, lambda: ctx.show_dialog(back))],
        on_cancel=lambda: ctx.show_dialog(back),
        message_rid="message",
    )


# --- FilePickerDialog --------------------------------------------------------------------------------------------
def _items(ctx: Ctx, folder: str) -> list[tuple[str, bool, str]]:
    """The folder's items (hidden ones left out): folders first, by name -> (name, is a folder, details)."""
    fs = ctx.model.fs
    try:
        listed = fs.listdir(folder)
    except FsError:
        return []
    out = []
    for name, node in listed:
        if name.startswith("."):
            continue
        if node.is_dir:
            try:
                n = len([c for c, _ in fs.listdir(posixpath.join(folder, name)) if not c.startswith(".")])
            except FsError:
                n = 0
            out.append((name, True, data.tr(ctx, "item" if n == 1 else "items", n)))
        else:
            out.append((name, False, _size(node.size)))
    return sorted(out, key=lambda t: (not t[1], t[0].lower()))


def _size(n: int) -> str:
    """Long.formatSize: B, kB, MB with one decimal."""
    if n < 1024:
        return f"{n} B"
    units = ["kB", "MB", "GB"]
    v = float(n)
    for u in units:
        v /= 1024
        if v < 1024:
            return f"{v:.1f} {u}".replace(".0 ", " ")
    return f"{v:.1f} TB"


def picker_back(ctx: Ctx, spec: Spec) -> None:
    """BACK in the picker: the breadcrumb before (the dialog closes at "Internal")."""
    path = str(spec["path"]).rstrip("/")
    if path != data.INTERNAL and path.startswith(data.INTERNAL):
        spec["path"] = posixpath.dirname(path)
    else:
        ctx.show_dialog(spec["back"])


def folder_picker(ctx: Ctx, spec: Spec) -> View:
    path = str(spec["path"]).rstrip("/") or data.INTERNAL
    if not ctx.model.fs.is_dir(path):
        path = data.INTERNAL
    back: Spec = spec["back"]

    def go(p: str) -> None:
        spec["path"] = p

    def choose() -> None:
        back["folder"] = path
        ctx.show_dialog(back)

    def crumbs(x: int, y: int, wd: int) -> View:
        bar = V(
            ctx,
            "com.simplemobiletools.commons.views.Breadcrumbs",
            (x + ctx.dp(16), y, x + wd - ctx.dp(16), y + ctx.dp(40)),
            "filepicker_breadcrumbs",
        )
        parts = [(data.tr(ctx, "Internal"), data.INTERNAL)]
        rest = path[len(data.INTERNAL) :].strip("/")
        acc = data.INTERNAL
        for part in rest.split("/") if rest else []:
            acc = f"{acc}/{part}"
            parts.append((part, acc))
        cx = bar.bounds[0]
        for i, (label, p) in enumerate(parts):
            text = label if i == 0 else f"> {label}"
            tw = int(text_width(text, ctx.sp(15), i == len(parts) - 1)) + ctx.dp(8)
            tw = min(tw, max(ctx.dp(24), bar.bounds[2] - cx))
            bar.children.append(
                w.text(
                    ctx,
                    (cx, y, cx + tw, y + ctx.dp(40)),
                    text,
                    "breadcrumb_text",
                    size=15,
                    bold=i == len(parts) - 1,
                    clickable=True,
                    on_click=lambda p=p: go(p),
                )
            )
            cx += tw
        return bar

    rows = [Row(ctx.dp(44), crumbs)]
    item_h = max(ctx.dp(56), ctx.line_h(16) + ctx.line_h(12) + ctx.dp(12))
    for name, is_dir, details in _items(ctx, path):

        def build(x: int, y: int, wd: int, name: str = name, is_dir: bool = is_dir, details: str = details) -> View:
            child = posixpath.join(path, name)
            item = V(
                ctx,
                "android.widget.RelativeLayout",
                (x, y, x + wd, y + item_h),
                "list_item_holder",
                clickable=True,
                focusable=True,
                on_click=(lambda: go(child)) if is_dir else None,
            )
            isz = ctx.dp(36)
            item.children.append(
                w.icon(
                    ctx,
                    (x + ctx.dp(16), y + (item_h - isz) // 2, x + ctx.dp(16) + isz, y + (item_h + isz) // 2),
                    "storage" if is_dir else "image",
                    ctx.theme.text2,
                    "list_item_icon",
                )
            )
            ty = y + (item_h - ctx.line_h(16) - ctx.line_h(12)) // 2
            item.children.append(
                w.text(
                    ctx,
                    (x + ctx.dp(68), ty, x + wd - ctx.dp(16), ty + ctx.line_h(16)),
                    name,
                    "list_item_name",
                    size=16,
                    style={"ellipsize": True},
                )
            )
            ty += ctx.line_h(16)
            item.children.append(
                w.text(
                    ctx,
                    (x + ctx.dp(68), ty, x + wd - ctx.dp(16), ty + ctx.line_h(12)),
                    details,
                    "list_item_details",
                    size=12,
                    color=ctx.theme.text2,
                )
            )
            return item

        rows.append(Row(item_h, build))
    root = dialogs.dialog(
        ctx,
        data.tr(ctx, "Select a folder"),
        "",
        [(data.tr(ctx, "OK"), OK, choose), (data.tr(ctx, "Cancel"), CANCEL, lambda: ctx.show_dialog(back))],
        rows=rows,
        on_cancel=lambda: picker_back(ctx, spec),
        width_dp=340,
    )
    l, t, r, b = root.bounds
    fsz = ctx.dp(56)
    fab = w.icon_button(
        ctx,
        (r - fsz - ctx.dp(16), b - fsz - ctx.dp(72), r - ctx.dp(16), b - ctx.dp(72)),
        "add",
        data.tr(ctx, "Create new folder"),
        lambda: _new_folder(ctx, path, spec),
        "filepicker_fab",
        ctx.theme.on_primary,
    )
    fab.style.update(bg=ctx.theme.primary, radius=fsz // 2)
    root.children.append(fab)
    return root


def _new_folder(ctx: Ctx, path: str, picker: Spec) -> None:
    ctx.set_field("folder_name", "")
    ctx.show_dialog({"id": "new_folder", "path": path, "back": picker})
    ctx.set_focus("folder_name")


def _make_folder(ctx: Ctx, spec: Spec) -> None:
    name = ctx.field_value("folder_name").strip()
    path = posixpath.join(str(spec["path"]), name)
    fs = ctx.model.fs
    if not name:
        ctx.toast(data.tr(ctx, "Please enter a name"))
    elif not data.valid_name(name):
        ctx.toast(data.tr(ctx, "The name contains invalid characters"))
    elif fs.exists(path):
        ctx.toast(data.tr(ctx, "A file or folder with that name already exists"))
    else:
        fs.mkdir(path, parents=True)
        back = spec["back"]
        back["path"] = path  # the picker opens the new folder
        ctx.set_focus(None)
        ctx.show_dialog(back)


def new_folder_dialog(ctx: Ctx, spec: Spec) -> View:
    def rows(x: int, y: int, wd: int) -> View:
        box = V(ctx, w.LINEAR, (x + ctx.dp(24), y, x + wd - ctx.dp(24), y + ctx.dp(132)), "dialog_holder")
        box.children.append(
            w.text(
                ctx,
                (box.bounds[0], y, box.bounds[2], y + ctx.dp(56)),
                f"{data.humanize(ctx, str(spec['path']))}/",
                "folder_path",
                size=16,
                color=ctx.theme.text2,
                style={"ellipsize": True},
            )
        )
        box.children.append(
            w.edit(
                ctx,
                (box.bounds[0], y + ctx.dp(68), box.bounds[2], y + ctx.dp(124)),
                "folder_name",
                ctx.field_value("folder_name"),
                data.tr(ctx, "Title"),
                lambda v: ctx.set_field("folder_name", v),
                "folder_name",
                action=lambda: _make_folder(ctx, spec),
            )
        )
        return box

    def cancel() -> None:
        ctx.set_focus(None)
        ctx.show_dialog(spec["back"])

    return dialogs.dialog(
        ctx,
        data.tr(ctx, "Create new folder"),
        "",
        [(data.tr(ctx, "OK"), OK, lambda: _make_folder(ctx, spec)), (data.tr(ctx, "Cancel"), CANCEL, cancel)],
        rows=[Row(ctx.dp(136), rows, ("folder_name",))],
        on_cancel=cancel,
    )


DIALOGS: dict[str, Callable[[Ctx, Spec], View]] = {
    "save": save_dialog,
    "overwrite": overwrite_dialog,
    "folder_picker": folder_picker,
    "new_folder": new_folder_dialog,
}
