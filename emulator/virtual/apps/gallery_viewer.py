"""Simple Gallery Pro's ViewPagerActivity: one medium full screen, on black.

- `view_pager`: the picture (`gestures_view`) scaled to fit the screen, whatever its size (a small receipt is
  scaled up, a photo down), a video as its play glyph; a horizontal swipe goes to the next or the previous medium of
  the folder (in the grid's order), a tap hides or shows the bars.
- `medium_viewer_toolbar` (white on the picture): the navigation arrow (back to the grid), the medium's name as the
  title, Rotate (its submenu: Rotate right / left / by 180º - the picture turns, and "Save as" writes it turned) and
  Properties; "More options" opens the rest as the default bottom actions leave them (menu_viewpager): Rename,
  Hide, Copy to, Move to, Create shortcut, Open with, Set as, Change orientation, Print, Resize, Show on map,
  Slideshow, Settings.
- `bottom_actions`, the default four: Toggle favorite (`bottom_favorite`, kept in gallery.db's `favorites`), Edit,
  Share, Delete (`bottom_delete`: "Are you sure you want to delete "NAME" (SIZE)?", Yes / No, "Do not ask again in
  this session").
- Rename (RenameItemDialog: `rename_item_name`, `rename_item_extension`, OK / Cancel), Properties (Name, Path, Size,
  Resolution, Last modified), Copy to / Move to (`gallery_pickers`).
Left out (listed, they close the menu): Hide, Create shortcut, Open with, Set as, Change orientation, Print,
Resize, Show on map, Slideshow, Settings; Edit and Share do nothing; no zooming.
"""

from __future__ import annotations

import io
import posixpath
from collections.abc import Callable
from typing import Any

from PIL import Image

from ..mediastore import MediaItem
from ..ui import dialogs
from ..ui import widgets as w
from ..ui.fonts import wrap
from ..ui.layout import Ctx, Row, V
from ..ui.picture import picture_view
from ..ui.theme import Color
from ..ui.view import View
from .gallery_data import (
    delete_file,
    format_size,
    format_time,
    in_folder,
    is_favorite,
    is_video,
    media,
    rename_file,
    shown_path,
    toggle_favorite,
    tr,
)
from .gallery_widgets import WHITE, top_menu

BLACK: Color = (0, 0, 0)
BAR: Color = (24, 24, 24)  # the gradients under the bars, at their darkest
Spec = dict[str, Any]
INVALID_CHARS = set('/\\:*?"<>|\n\r\t\0')


# --- which medium -------------------------------------------------------------------------------------------------
def _media(ctx: Ctx) -> list[MediaItem]:
    return in_folder(media(ctx.model), str(ctx.extras.get("folder", "")))


def current(ctx: Ctx) -> tuple[list[MediaItem], int]:
    """The folder's media and the position of the one shown: its path, or - gone (moved, deleted, renamed by
    someone else) - the one now at its place."""
    items = _media(ctx)
    path = str(ctx.extras.get("path", ""))
    for i, m in enumerate(items):
        if m.path == path:
            ctx.extras["pos"] = i
            return items, i
    if not items:
        return items, -1
    pos = min(int(ctx.extras.get("pos", 0)), len(items) - 1)
    ctx.extras["path"] = items[pos].path
    return items, pos


def _go(ctx: Ctx, items: list[MediaItem], pos: int) -> None:
    if 0 <= pos < len(items):
        ctx.extras["path"], ctx.extras["pos"] = items[pos].path, pos


def _rotation(ctx: Ctx, path: str) -> int:
    rot: dict[str, int] = ctx.ui.setdefault("rotation", {})
    return rot.get(path, 0)


def viewer_back(ctx: Ctx) -> bool:
    ctx.ui.pop("rotation", None)
    return False


# --- the screen ---------------------------------------------------------------------------------------------------
def viewer_screen(ctx: Ctx) -> list[View]:
    items, pos = current(ctx)
    l, t, r, b = ctx.area
    root = V(ctx, "android.widget.RelativeLayout", (l, t, r, b), "fragment_holder", style={"bg": BLACK})
    if pos < 0:  # nothing left to show (the grid comes back at the next action)
        return [root]
    item = items[pos]
    full = bool(ctx.ui.get("viewer_full"))

    def swipe(dx: int, dy: int) -> bool:
        if abs(dx) <= abs(dy) or abs(dx) < (r - l) // 6:
            return False
        _go(ctx, items, pos + (1 if dx < 0 else -1))
        return True

    pager = V(ctx, "androidx.viewpager.widget.ViewPager", (l, t, r, b), "view_pager", scrollable=len(items) > 1)
    pager.on_scroll = swipe
    holder = V(ctx, "android.widget.RelativeLayout", (l, t, r, b), "photo_holder")
    toggle = lambda: ctx.ui.__setitem__("viewer_full", not full)  # noqa: E731
    if is_video(item):
        isz = ctx.dp(72)
        cx, cy = (l + r) // 2, (t + b) // 2
        holder.children.append(
            w.icon(
                ctx, (cx - isz // 2, cy - isz // 2, cx + isz // 2, cy + isz // 2), "play", WHITE, "video_play_outline"
            )
        )
    else:
        holder.children.append(
            picture_view(
                ctx,
                (l, t, r, b),
                item.path,
                "fit",
                rid="gestures_view",
                rotation=_rotation(ctx, item.path),
                clickable=True,
                focusable=True,
                on_click=toggle,
            )
        )
    pager.children.append(holder)
    root.children.append(pager)
    if not full:
        root.children.append(_bottom_actions(ctx, item))
        root.children.append(_toolbar(ctx, item))
    return [root]


def _toolbar(ctx: Ctx, item: MediaItem) -> View:
    l, t, r, _ = ctx.area
    h = ctx.dp(56)
    bar = V(ctx, "android.widget.LinearLayout", (l, t, r, t + h), "medium_viewer_appbar", style={"bg": BAR})
    tb = V(ctx, "android.view.ViewGroup", (l, t, r, t + h), "medium_viewer_toolbar")
    isz = ctx.dp(48)
    y0 = t + (h - isz) // 2
    tb.children.append(
        w.icon_button(ctx, (l + ctx.dp(4), y0, l + ctx.dp(4) + isz, y0 + isz), "back", "", ctx.finish, color=WHITE)
    )
    actions: list[tuple[str, str, Callable[[], Any]]] = []
    if _rotation(ctx, item.path):
        actions.append(("check", tr(ctx, "save_as"), lambda: _save_rotated(ctx, item)))
    if not is_video(item):
        actions.append(("sync", tr(ctx, "rotate"), lambda: ctx.show_dialog({"id": "rotate_menu"})))
    actions.append(("info", tr(ctx, "properties"), lambda: ctx.show_dialog({"id": "properties"})))
    actions.append(("more", tr(ctx, "more_options"), lambda: ctx.show_dialog({"id": "viewer_menu"})))
    ax = r - ctx.dp(4)
    icons: list[View] = []
    for name, desc, cb in reversed(actions):
        icons.insert(0, w.icon_button(ctx, (ax - isz, y0, ax, y0 + isz), name, desc, cb, color=WHITE))
        ax -= isz
    title_box = (l + ctx.dp(72), t, ax - ctx.dp(4), t + h)
    tb.children.append(w.text(ctx, title_box, item.display_name, size=20, color=WHITE, style={"ellipsize": True}))
    tb.children.extend(icons)
    bar.children.append(tb)
    return bar


def _bottom_actions(ctx: Ctx, item: MediaItem) -> View:
    l, _, r, b = ctx.area
    h = ctx.dp(72)
    wrap = V(ctx, "android.view.ViewGroup", (l, b - h, r, b), "bottom_actions_wrapper", style={"bg": BAR})
    fs = ctx.model.fs
    fav = is_favorite(fs, item.path)
    acts = (
        ("star", "toggle_favorite", "bottom_favorite", lambda: toggle_favorite(fs, item.path)),
        ("edit", "edit", "bottom_edit", None),
        ("send", "share", "bottom_share", None),
        ("delete", "delete", "bottom_delete", lambda: _ask_delete(ctx, item)),
    )
    cw = (r - l) // len(acts)
    isz = ctx.dp(48)
    y0 = b - h + ctx.dp(8)
    for i, (icon, desc, rid, cb) in enumerate(acts):
        cx = l + i * cw + cw // 2
        color = ORANGE_STAR if icon == "star" and fav else WHITE
        v = w.icon(
            ctx,
            (cx - isz // 2, y0, cx + isz // 2, y0 + isz),
            icon,
            color,
            rid,
            tr(ctx, desc),
            on_click=cb or (lambda: None),
        )
        v.style["inset"] = ctx.dp(12)
        wrap.children.append(v)
    return wrap


ORANGE_STAR: Color = (255, 193, 7)


# --- actions ------------------------------------------------------------------------------------------------------
def _ask_delete(ctx: Ctx, item: MediaItem) -> None:
    if ctx.ui.get("skip_delete_confirmation"):
        _delete(ctx, item.path)
        return
    ctx.show_dialog({"id": "delete", "path": item.path, "size": item.size, "remember": False})


def _delete(ctx: Ctx, path: str) -> None:
    ctx.dismiss_dialog()
    delete_file(ctx.model.fs, path)
    leave_if_empty(ctx)


def leave_if_empty(ctx: Ctx) -> None:
    """The folder has no media left: the viewer closes (back to the grid)."""
    if not _media(ctx):
        ctx.finish()


def _save_rotated(ctx: Ctx, item: MediaItem) -> None:
    """Save as: the picture written turned as shown (in its own format), replacing the file."""
    fs = ctx.model.fs
    turns = _rotation(ctx, item.path)
    try:
        img = Image.open(io.BytesIO(fs.read(item.path)))
        fmt = img.format or "JPEG"
        out = img.rotate(-turns, expand=True)
        buf = io.BytesIO()
        (out.convert("RGB") if fmt == "JPEG" and out.mode != "RGB" else out).save(buf, format=fmt)
        fs.write(item.path, buf.getvalue())
    except (OSError, ValueError):
        ctx.toast(tr(ctx, "image_editing_failed"))
        return
    ctx.ui.setdefault("rotation", {}).pop(item.path, None)
    ctx.toast(tr(ctx, "file_saved"))


def _rotate(ctx: Ctx, degrees: int) -> None:
    ctx.dismiss_dialog()
    path = str(ctx.extras.get("path", ""))
    rot: dict[str, int] = ctx.ui.setdefault("rotation", {})
    rot[path] = (rot.get(path, 0) + degrees) % 360
    if not rot[path]:
        rot.pop(path)


def viewer_menu(ctx: Ctx, spec: Spec) -> View:
    path = str(ctx.extras.get("path", ""))
    image = not path.lower().endswith((".mp4", ".3gp", ".webm", ".mkv", ".avi", ".mov"))

    def dialog(kind: str, **extra: Any) -> Callable[[], None]:
        return lambda: ctx.show_dialog({"id": kind, **extra})

    def rename() -> None:
        stem, ext = posixpath.splitext(posixpath.basename(path))
        ctx.set_field("rename_name", stem)
        ctx.set_field("rename_ext", ext.lstrip("."))
        ctx.show_dialog({"id": "rename", "path": path})
        ctx.set_focus("rename_name")

    close = ctx.dismiss_dialog
    items: list[tuple[str, Callable[[], Any]]] = [(tr(ctx, "rename"), rename), (tr(ctx, "hide"), close)]
    items += [
        (tr(ctx, "copy_to"), dialog("pick_dir", src=path, move=False)),
        (tr(ctx, "move_to"), dialog("pick_dir", src=path, move=True)),
        (tr(ctx, "create_shortcut"), close),
        (tr(ctx, "open_with"), close),
        (tr(ctx, "set_as"), close),
        (tr(ctx, "change_orientation"), close),
    ]
    if image:
        items += [(tr(ctx, "print"), close), (tr(ctx, "resize"), close)]
    items += [(tr(ctx, "show_on_map"), close), (tr(ctx, "slideshow"), close), (tr(ctx, "settings"), close)]
    return top_menu(ctx, items)


def rotate_menu(ctx: Ctx, spec: Spec) -> View:
    items: list[tuple[str, Callable[[], Any]]] = [
        (tr(ctx, "rotate_right"), lambda: _rotate(ctx, 90)),
        (tr(ctx, "rotate_left"), lambda: _rotate(ctx, 270)),
        (tr(ctx, "rotate_one_eighty"), lambda: _rotate(ctx, 180)),
    ]
    return top_menu(ctx, items)


def delete_dialog(ctx: Ctx, spec: Spec) -> View:
    path = str(spec.get("path", ""))
    remember = bool(spec.get("remember"))
    what = f'"{posixpath.basename(path)}" ({format_size(int(spec.get("size", 0)))})'

    def yes() -> None:
        if remember:
            ctx.ui["skip_delete_confirmation"] = True
        _delete(ctx, path)

    def box(x: int, y: int, wd: int) -> View:
        flip = lambda: ctx.show_dialog({**spec, "remember": not remember})  # noqa: E731
        bounds = (x + ctx.dp(20), y, x + wd - ctx.dp(24), y + ctx.dp(64))
        v = w.checkbox(ctx, bounds, remember, "delete_remember_checkbox", flip, tr(ctx, "do_not_ask_again"))
        v.style["lines"] = 2
        return v

    return dialogs.dialog(
        ctx,
        "",
        tr(ctx, "deletion_confirmation") % what,
        dialogs.confirm_buttons(ctx, tr(ctx, "yes"), yes, ctx.dismiss_dialog, tr(ctx, "no")),
        rows=[Row(ctx.dp(64), box)],
        on_cancel=ctx.dismiss_dialog,
        message_rid="delete_remember_title",
    )


def rename_dialog(ctx: Ctx, spec: Spec) -> View:
    path = str(spec.get("path", ""))
    fs = ctx.model.fs

    def close() -> None:
        ctx.dismiss_dialog()
        ctx.set_focus(None)

    def ok() -> None:
        name, ext = ctx.field_value("rename_name").strip(), ctx.field_value("rename_ext").strip()
        if not name:
            ctx.toast(tr(ctx, "empty_name"))
            return
        if any(c in INVALID_CHARS for c in name + ext):
            ctx.toast(tr(ctx, "invalid_name"))
            return
        new = posixpath.join(posixpath.dirname(path), name + ("." + ext if ext else ""))
        if new == path or (new.lower() != path.lower() and fs.exists(new)):
            ctx.toast(tr(ctx, "name_taken"))
            return
        if rename_file(fs, path, new):
            if ctx.extras.get("path") == path:
                ctx.extras["path"] = new
            close()

    def field(key: str, hint: str, rid: str) -> Row:
        def build(x: int, y: int, wd: int) -> View:
            box = (x + ctx.dp(24), y + ctx.dp(4), x + wd - ctx.dp(24), y + ctx.dp(60))
            return w.edit(ctx, box, key, ctx.field_value(key), hint, lambda v: ctx.set_field(key, v), rid)

        return Row(ctx.dp(68), build, (key,))

    rows = [
        field("rename_name", tr(ctx, "title"), "rename_item_name"),
        field("rename_ext", tr(ctx, "extension"), "rename_item_extension"),
    ]
    return dialogs.dialog(
        ctx,
        tr(ctx, "rename"),
        "",
        dialogs.confirm_buttons(ctx, tr(ctx, "ok"), ok, close, tr(ctx, "cancel")),
        rows=rows,
        on_cancel=close,
    )


def properties_dialog(ctx: Ctx, spec: Spec) -> View:
    items, pos = current(ctx)
    props: list[tuple[str, str]] = []
    if pos >= 0:
        m = items[pos]
        props = [
            (tr(ctx, "name"), m.display_name),
            (tr(ctx, "path"), shown_path(posixpath.dirname(m.path))),
            (tr(ctx, "size"), format_size(m.size)),
        ]
        if m.width and m.height:
            props.append((tr(ctx, "resolution"), f"{m.width} x {m.height}"))
        props.append((tr(ctx, "last_modified"), format_time(ctx.model, m.date_modified)))
    sl, _, sr, _ = ctx.mgr.dialog_area()
    inner = min(ctx.dp(312), sr - sl - ctx.dp(32)) - 2 * ctx.dp(24)  # the dialog's text width
    rows = []
    for label, value in props:
        n = max(1, len(wrap(value, ctx.sp(14), inner)))
        label_h, value_h = ctx.line_h(14) + ctx.dp(4), n * ctx.line_h(14) + ctx.dp(4)
        h = ctx.dp(8) + label_h + value_h

        def build(
            x: int, y: int, wd: int, label: str = label, value: str = value, n: int = n, h: int = h, lh: int = label_h
        ) -> View:
            label_h, value_h = lh, h - ctx.dp(8) - lh
            holder = V(ctx, w.LINEAR, (x, y, x + wd, y + h), "property_holder")
            pad = ctx.dp(24)
            top = y + ctx.dp(4)
            holder.children.append(
                w.text(ctx, (x + pad, top, x + wd - pad, top + label_h), label, "property_label", bold=True)
            )
            value_box = (x + pad, top + label_h, x + wd - pad, top + label_h + value_h)
            holder.children.append(w.text(ctx, value_box, value, "property_value", lines=n, style={"ellipsize": True}))
            return holder

        rows.append(Row(h, build))
    return dialogs.dialog(
        ctx,
        tr(ctx, "properties"),
        "",
        [(tr(ctx, "ok"), "android:id/button1", ctx.dismiss_dialog)],
        rows=rows,
        on_cancel=ctx.dismiss_dialog,
    )


VIEWER_DIALOGS: dict[str, Callable[[Ctx, Spec], View]] = {
    "viewer_menu": viewer_menu,
    "rotate_menu": rotate_menu,
    "delete": delete_dialog,
    "rename": rename_dialog,
    "properties": properties_dialog,
}
