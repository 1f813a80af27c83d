"""Joplin (`net.cozic.joplin` 3.0.1, versionCode 2097740 - the build AndroidWorld installs), launcher label
"Joplin", its one activity `net.cozic.joplin.MainActivity` (a React Native app: views without resource ids, named by
their text and content descriptions), over its SQLite database /data/data/net.cozic.joplin/databases/joplin.sqlite
(`joplin_data`: the schema of its migrations, read and written through the file).

Modeled:
- the Notes screen: the header (Sidebar, the notebook's title or All notes, Search), the notes of the notebook -
  uncompleted to-dos on top, then the most recently updated -, a to-do's checkbox ("to-do: <title>", checked when
  completed; a tap completes it), the "Add new" button opening New to-do / New note; "There are currently no
  notes..." / "You currently have no notebooks." with Create a notebook;
- the side menu: All notes, Notebooks (by title, sub-notebooks under theirs), New Notebook, Tags, Configuration,
  Synchronise - a notebook opens its notes and becomes the active one (`activeFolderId`), the one shown at the next
  start;
- the notebook editor (Edit notebook: Enter notebook title, Save changes);
- the Note screen (`joplin_note`): the title field, a to-do's checkbox, the body as rendered Markdown, Edit for the
  Markdown field, the Actions menu (Convert to todo / note, Delete: to the trash); changes saved as typed;
- Search: notes whose title or body hold the text.
Left out: the welcome notebook of a first start, tags, sorting options, multi-selection, attachments, alarms,
sync, settings, plugins, the trash's own notebook, sub-notebook creation.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..ui import widgets as w
from ..ui.fonts import text_width, wrap
from ..ui.layout import Ctx, Row, V, vlist
from ..ui.view import View
from . import joplin_note as note_screen
from .base import App, page
from .joplin_data import (
    DB,
    MAIN,
    PKG,
    VERSION_CODE,
    VERSION_NAME,
    add_folder,
    display_title,
    folder,
    folders,
    notes,
    set_setting,
    set_todo_completed,
    start_folder,
    tr,
)
from .joplin_widgets import GROUP, header

# the merged manifest's <uses-permission>s (the app's own, and ACCESS_COARSE_LOCATION its geolocation library adds)
PERMISSIONS = (
    "android.permission.INTERNET",
    "android.permission.ACCESS_COARSE_LOCATION",
    "android.permission.ACCESS_FINE_LOCATION",
    "android.permission.CAMERA",
    "android.permission.WRITE_EXTERNAL_STORAGE",
    "android.permission.ACCESS_NETWORK_STATE",
    "android.permission.USE_BIOMETRIC",
    "android.permission.POST_NOTIFICATIONS",
    "android.permission.READ_EXTERNAL_STORAGE",
    "android.permission.READ_MEDIA_IMAGES",
)
BLUE = (46, 125, 204)


class JoplinApp(App):
    package = PKG
    labels = {"en": "Joplin", "zh": "Joplin"}
    activities = {MAIN: "main"}
    launcher = MAIN
    color = BLUE
    glyph = "edit"
    version_name = VERSION_NAME
    version_code = VERSION_CODE
    installed = True  # as AndroidWorld installs it
    permissions = PERMISSIONS
    databases = (DB,)

    # --- navigation (the app's routes, in its process) ------------------------------------------------------
    def route(self, ctx: Ctx) -> dict[str, Any]:
        r: dict[str, Any] | None = ctx.ui.get("route")
        if r is None:  # the start: the active notebook, else the newest, else All notes
            r = {"name": "Notes", "folder": start_folder(ctx)}
            ctx.ui["route"] = r
        return r

    def go(self, ctx: Ctx, **route: Any) -> None:
        ctx.ui["route"] = route
        ctx.ui["fab_open"] = False
        ctx.dismiss_dialog()
        ctx.set_focus(route.pop("focus", None))

    def open_folder(self, ctx: Ctx, folder_id: str | None) -> None:
        set_setting(ctx, "activeFolderId", folder_id or "")
        ctx.ui.setdefault("scroll", {}).pop("notes", None)
        self.go(ctx, name="Notes", folder=folder_id)

    def on_back(self, ctx: Ctx) -> bool:
        r = self.route(ctx)
        if ctx.ui.get("fab_open"):
            ctx.ui["fab_open"] = False
            return True
        if r["name"] == "Note":
            return note_screen.back(ctx, self)
        if r["name"] in ("Search", "Folder"):
            self.go(ctx, name="Notes", folder=r.get("folder"))
            return True
        return False

    def screen_main(self, ctx: Ctx) -> list[View]:
        r = self.route(ctx)
        if r["name"] == "Note":
            return note_screen.screen(ctx, self)
        if r["name"] == "Folder":
            return self._folder_screen(ctx, r)
        if r["name"] == "Search":
            return self._search_screen(ctx, r)
        return self._notes_screen(ctx, r)

    # --- the notes list ----------------------------------------------------------------------------------------
    def _note_rows(self, ctx: Ctx, items: list[dict[str, Any]], back_to: dict[str, Any]) -> list[Row]:
        th = ctx.theme
        rows: list[Row] = []
        width = ctx.area[2] - ctx.area[0]
        for n in items:
            title = display_title(ctx, n)
            todo = int(n["is_todo"] or 0) == 1
            done = todo and int(n["todo_completed"] or 0) > 0
            left = ctx.dp(52 if todo else 16)
            lines = min(3, max(1, len(wrap(title, ctx.sp(16), width - left - ctx.dp(16)))))
            h = ctx.line_h(16, lines) + 2 * ctx.dp(12)

            def build(
                x: int,
                y: int,
                wd: int,
                n: dict[str, Any] = n,
                title: str = title,
                todo: bool = todo,
                done: bool = done,
                h: int = h,
                lines: int = lines,
                left: int = left,
            ) -> View:
                row = V(
                    ctx,
                    GROUP,
                    (x, y, x + wd, y + h),
                    clickable=True,
                    focusable=True,
                    long_clickable=True,
                    on_click=lambda: self.go(ctx, name="Note", note=n["id"], back=back_to),
                    on_long_click=lambda: None,
                )
                if todo:
                    row.children.append(
                        V(
                            ctx,
                            "android.widget.CheckBox",
                            (x + ctx.dp(8), y, x + ctx.dp(48), y + h),
                            clickable=True,
                            focusable=True,
                            checkable=True,
                            checked=done,
                            desc=tr(ctx, "to-do: %s").replace("%s", title),
                            on_click=lambda n=n, done=done: set_todo_completed(ctx, n["id"], not done),
                            style={"kind": "checkbox"},
                        )
                    )
                row.children.append(
                    w.text(
                        ctx,
                        (x + left, y + ctx.dp(12), x + wd - ctx.dp(16), y + ctx.dp(12) + ctx.line_h(16, lines)),
                        title,
                        size=16,
                        color=th.text2 if done else th.text,
                        lines=lines,
                        valign="t",
                    )
                )
                row.children.append(
                    V(ctx, "android.view.View", (x, y + h - 1, x + wd, y + h), style={"bg": th.divider})
                )
                return row

            rows.append(Row(h, build))
        return rows

    def _notes_screen(self, ctx: Ctx, r: dict[str, Any]) -> list[View]:
        fid = r.get("folder")
        f = folder(ctx, fid)
        if fid and f is None:  # the notebook went: All notes
            fid = r["folder"] = None
        title = str(f["title"]) if f else tr(ctx, "All notes")
        bar = header(
            ctx,
            title,
            ("menu", tr(ctx, "Sidebar"), lambda: ctx.show_dialog({"id": "side_menu"})),
            [("search", tr(ctx, "Search"), lambda: self.go(ctx, name="Search", folder=fid, focus="search"))],
        )
        have_folders = bool(folders(ctx))
        rows = self._note_rows(ctx, notes(ctx, fid), {"name": "Notes", "folder": fid})
        if not have_folders:
            rows = [w.text_row(ctx, tr(ctx, "no_notebooks"), size=16, align="c", lines=2, height_dp=96)]

            def create(x: int, y: int, wd: int) -> View:
                label = tr(ctx, "Create a notebook").upper()  # the Android Button's caps
                bw = min(wd - ctx.dp(32), int(text_width(label, ctx.sp(14), True)) + ctx.dp(48))
                b = w.button(
                    ctx,
                    (x + (wd - bw) // 2, y, x + (wd + bw) // 2, y + max(ctx.dp(44), ctx.text_h(14) + ctx.dp(16))),
                    label,
                    lambda: self.go(ctx, name="Folder", folder=None, focus="folder_title"),
                )
                return b

            rows.append(Row(ctx.dp(60), create))
        elif not rows:
            rows = [w.text_row(ctx, tr(ctx, "no_notes"), size=16, align="c", lines=3, height_dp=120)]
        overlays = [] if ctx.keyboard or not have_folders else self._fab(ctx, fid)
        return page(
            ctx, [bar], rows, key="notes", cls="android.widget.ScrollView", overlays=overlays, pad_bottom=ctx.dp(96)
        )

    def _fab(self, ctx: Ctx, fid: str | None) -> list[View]:
        """ActionButton: "Add new"; open, New to-do and New note above it (a new note goes to the notebook shown,
        from All notes to the newest notebook)."""
        l, t, r, b = ctx.area
        sz = ctx.dp(56)
        x1, y1 = r - ctx.dp(16), b - ctx.dp(16)
        is_open = bool(ctx.ui.get("fab_open"))
        out: list[View] = []
        if is_open:
            out.append(V(ctx, GROUP, (l, t, r, b), clickable=True, on_click=lambda: ctx.ui.update(fab_open=False)))
            target = fid or start_folder(ctx)
            for i, (key, icon, todo) in enumerate((("New to-do", "check", True), ("New note", "edit", False))):
                cy = y1 - sz - ctx.dp(24) - i * ctx.dp(64) - ctx.dp(20)

                def create(todo: bool = todo) -> None:
                    self.go(
                        ctx,
                        name="Note",
                        note=None,
                        todo=todo,
                        folder=target,
                        mode="edit",
                        focus="note_title",
                        back={"name": "Notes", "folder": fid},
                    )

                label = tr(ctx, key)
                out.append(
                    w.text(
                        ctx,
                        (l + ctx.dp(16), cy - ctx.dp(16), x1 - ctx.dp(56), cy + ctx.dp(16)),
                        label,
                        size=16,
                        align="r",
                        clickable=True,
                        focusable=True,
                        on_click=create,
                    )
                )
                out.append(
                    V(
                        ctx,
                        w.BUTTON,
                        (x1 - ctx.dp(48), cy - ctx.dp(20), x1 - ctx.dp(8), cy + ctx.dp(20)),
                        desc=label,
                        clickable=True,
                        focusable=True,
                        on_click=create,
                        style={
                            "bg": (155, 89, 182),
                            "radius": ctx.dp(20),
                            "icon": icon,
                            "icon_color": (255, 255, 255),
                            "inset": ctx.dp(10),
                        },
                    )
                )
        out.append(
            V(
                ctx,
                w.BUTTON,
                (x1 - sz, y1 - sz, x1, y1),
                desc=tr(ctx, "Add new"),
                clickable=True,
                focusable=True,
                on_click=lambda: ctx.ui.update(fab_open=not is_open),
                style={
                    "bg": BLUE,
                    "radius": sz // 2,
                    "icon": "close" if is_open else "add",
                    "icon_color": (255, 255, 255),
                    "inset": ctx.dp(16),
                    "shadow": True,
                },
            )
        )
        return out

    # --- the side menu -----------------------------------------------------------------------------------------
    def dialog_side_menu(self, ctx: Ctx, spec: dict[str, Any]) -> View:
        l, t, r, b = ctx.mgr.dialog_area()
        wd = min(r - l - ctx.dp(56), ctx.dp(300))
        th = ctx.theme
        root = V(
            ctx,
            GROUP,
            (l, t, l + wd, b),
            style={"bg": th.bg, "modal": True, "dim": True, "on_cancel": ctx.dismiss_dialog},
        )
        current = self.route(ctx)
        item_h = ctx.dp(48)

        def button(
            y: int, label: str, icon: str, cb: Callable[[], None] | None, selected: bool = False, indent: int = 0
        ) -> View:
            v = V(
                ctx,
                GROUP,
                (l, y, l + wd, y + item_h),
                clickable=cb is not None,
                focusable=cb is not None,
                on_click=cb,
                style={"bg": th.surface2 if selected else None},
            )
            x = l + ctx.dp(16 + indent)
            if icon:
                v.children.append(w.icon(ctx, (x, y + ctx.dp(12), x + ctx.dp(24), y + ctx.dp(36)), icon, th.text2))
                x += ctx.dp(40)
            v.children.append(
                w.text(ctx, (x, y, l + wd - ctx.dp(16), y + item_h), label, size=16, style={"ellipsize": True})
            )
            return v

        rows: list[Row] = [
            Row(
                item_h,
                lambda x, y, _w: button(
                    y,
                    tr(ctx, "All notes"),
                    "home",
                    lambda: self.open_folder(ctx, None),
                    current["name"] == "Notes" and not current.get("folder"),
                ),
            ),
            Row(ctx.dp(16), lambda x, y, _w: None),
            Row(item_h, lambda x, y, _w: button(y, tr(ctx, "Notebooks"), "storage", None)),
        ]
        for f in folders(ctx):

            def build(x: int, y: int, _w: int, f: dict[str, Any] = f) -> View:
                return button(
                    y,
                    str(f["title"]),
                    "",
                    lambda: self.open_folder(ctx, f["id"]),
                    current.get("folder") == f["id"],
                    indent=12 * int(f["depth"]),
                )

            rows.append(Row(item_h, build))
        bottom = [
            (tr(ctx, "New Notebook"), "add", lambda: self.go(ctx, name="Folder", folder=None, focus="folder_title")),
            (tr(ctx, "Tags"), "star", ctx.dismiss_dialog),
            (tr(ctx, "Configuration"), "settings", ctx.dismiss_dialog),
            (tr(ctx, "Synchronise"), "cloud", ctx.dismiss_dialog),
        ]
        panel_h = item_h * len(bottom) + ctx.dp(32)
        root.children.append(
            vlist(ctx, "side_menu", (l, t, l + wd, b - panel_h), rows, cls="android.widget.ScrollView")
        )
        y = b - panel_h + ctx.dp(16)
        for label, icon, cb in bottom:
            root.children.append(button(y, label, icon, cb))
            y += item_h
        return root

    # --- the notebook editor and search ------------------------------------------------------------------------
    def _folder_screen(self, ctx: Ctx, r: dict[str, Any]) -> list[View]:
        name = ctx.field_value("folder_title")

        def save() -> None:
            if name.strip():
                self.open_folder(ctx, add_folder(ctx, name))
                ctx.set_field("folder_title", "")

        bar = header(
            ctx,
            tr(ctx, "Edit notebook"),
            ("back", tr(ctx, "Back"), lambda: self.on_back(ctx)),
            [("check", tr(ctx, "Save changes"), save)],
        )
        bar.children[-1].enabled = bool(name.strip())

        def field(x: int, y: int, wd: int) -> View:
            return w.edit(
                ctx,
                (x + ctx.dp(16), y + ctx.dp(8), x + wd - ctx.dp(16), y + ctx.dp(56)),
                "folder_title",
                name,
                tr(ctx, "Enter notebook title"),
                lambda v: ctx.set_field("folder_title", v),
                action=save,
                box="underline",
            )

        return page(ctx, [bar], [Row(ctx.dp(72), field, ("folder_title",))], key="folder")

    def _search_screen(self, ctx: Ctx, r: dict[str, Any]) -> list[View]:
        query = ctx.field_value("search")
        bar = header(ctx, tr(ctx, "Search"), ("back", tr(ctx, "Back"), lambda: self.on_back(ctx)))

        def field(x: int, y: int, wd: int) -> View:
            return w.edit(
                ctx,
                (x + ctx.dp(16), y + ctx.dp(8), x + wd - ctx.dp(16), y + ctx.dp(56)),
                "search",
                query,
                tr(ctx, "Search..."),
                lambda v: ctx.set_field("search", v),
                action=ctx.hide_keyboard,
                action_kind="search",
                box="underline",
            )

        rows = [Row(ctx.dp(72), field, ("search",))]
        if query.strip():
            rows += self._note_rows(ctx, notes(ctx, None, query), {"name": "Search", "folder": r.get("folder")})
        return page(ctx, [bar], rows, key="search", cls="android.widget.ScrollView")

    def dialog_note_menu(self, ctx: Ctx, spec: dict[str, Any]) -> View:
        return note_screen.menu(ctx, self, spec)
