"""Simple Draw Pro (`com.simplemobiletools.draw.pro` 6.9.3, version code 79: the build AndroidWorld installs; launcher
label "Draw"), Simple Mobile Tools' drawing app.

- MainActivity (`activity_main`): `main_toolbar` with Save (`menu_save`), Clear (`clear`), Share (`menu_share`) and
  More options (Open file, Change background color, Print, Settings, About, More apps from us); the canvas
  (`my_canvas`, MyCanvas) where a swipe draws a stroke from where the finger went down to where it left (the twin
  gets a swipe's two ends), in the brush's colour and width; over it Redo (`redo`, shown once something is undone),
  Bucket fill, Eraser (a toggle: strokes in the canvas's colour), Eyedropper (a toggle: the next swipe's end picks
  the colour under it), Change color (`color_picker`), Undo (`undo`, shown once there is something to undo); the brush
  size preview and bar (`stroke_width_preview`, `stroke_width_bar`, 5-100). Strokes live in the app's process, as
  MyCanvas keeps them (a force-stop loses an unsaved drawing). BACK with unsaved changes asks "You have unsaved
  changes. Save before exit?" (Save / Discard).
- Saving (`simpledraw_save`): the Save as dialog with its path, the folder picker, the file written with Pillow (PNG,
  JPG) or as SVG where the dialog says; the image is then on shared storage for the media index to find.
- The colour dialog (ColorPickerDialog, simplified): its swatches and the hex field `color_picker_new_hex`, OK / Cancel;
  for the brush and, from More options, for the canvas's background (Prefs' `brush_color`, `canvas_background_color`).
- SettingsActivity: "Show brush size tool" and the other switches of its General section, kept in Prefs.
Left out: drawing dots by a tap and curved strokes, the bucket fill's filling, zooming and moving the canvas, Open
file, Share, Print, About, the colour customization screen, the brush size across restarts.
"""

from __future__ import annotations

from typing import Any

from ..ui import dialogs
from ..ui import widgets as w
from ..ui.fonts import text_width, wrap
from ..ui.layout import Ctx, Row, V
from ..ui.theme import Color
from ..ui.view import View
from . import simpledraw_data as data
from .base import App, page
from .simpledraw_data import MAIN, PKG, SETTINGS, SPLASH, Stroke
from .simpledraw_save import DIALOGS, open_save

MENU = (
    ("open_file", "Open file"),
    ("change_background", "Change background color"),
    ("menu_print", "Print"),
    ("settings", "Settings"),
    ("about", "About"),
    ("more_apps_from_us", "More apps from us"),
)
SWATCHES = (
    (0, 0, 0),
    (255, 255, 255),
    (244, 67, 54),
    (233, 30, 99),
    (156, 39, 176),
    (63, 81, 181),
    (33, 150, 243),
    (0, 150, 136),
    (76, 175, 80),
    (255, 235, 59),
    (245, 124, 0),
    (121, 85, 72),
)
SETTINGS_SWITCHES = (
    (
        "settings_prevent_phone_from_sleeping",
        "Prevent phone from sleeping",
        "prevent_phone_from_sleeping",
        True,
    ),
    ("settings_show_brush_size", "Show brush size tool", "show_brush_size", True),
    (
        "settings_allow_zooming_canvas",
        "Allow zooming",
        "allow_zooming_canvas",
        True,
    ),
    ("settings_force_portrait", "Force portrait mode", "force_portrait_mode", False),
)


def _replace_top(ctx: Ctx, activity: str) -> None:
    """The activity on top starts `activity` and finishes (SplashActivity opening MainActivity)."""
    with ctx.model.lock:
        task = ctx.model.tasks[-1]
        if task.package == PKG and task.stack and task.stack[-1] is ctx.record:
            task.stack.pop()
    ctx.push(activity)


def _pref(ctx: Ctx, key: str, default: bool) -> bool:
    v = data.PREFS.read(ctx.model.fs).get(key, default)
    return bool(v) if isinstance(v, bool) else default


class SimpleDrawApp(App):
    package = PKG
    labels = {"en": "Draw", "zh": "绘图"}
    activities = {SPLASH: "splash", MAIN: "main", SETTINGS: "settings"}
    launcher = SPLASH
    color = data.ORANGE
    glyph = "edit"
    version_name = data.VERSION_NAME
    version_code = data.VERSION_CODE
    installed = True  # as AndroidWorld installs it

    # --- lifecycle -----------------------------------------------------------------------------------
    def on_foreground(self, ctx: Ctx) -> None:
        if ctx.activity == SPLASH:  # SplashActivity starts MainActivity and finishes
            _replace_top(ctx, MAIN)

    def on_back(self, ctx: Ctx) -> bool:
        if ctx.activity == MAIN and data.strokes(ctx) and data.drawing_hash(ctx) != ctx.ui.get("saved_hash"):
            if not ctx.ui.get("asked_unsaved"):
                ctx.ui["asked_unsaved"] = True
                ctx.show_dialog({"id": "unsaved"})
                return True
        return False

    # --- the canvas ----------------------------------------------------------------------------------
    def _brush(self, ctx: Ctx) -> Color:
        c = ctx.ui.get("color")
        return (int(c[0]), int(c[1]), int(c[2])) if c else data.brush_color(ctx.model.fs)

    def _set_brush(self, ctx: Ctx, c: Color) -> None:
        """MainActivity.setColor: the brush's colour, the eraser and the eyedropper off."""
        ctx.ui["color"] = list(c)
        ctx.ui.pop("eraser", None)
        ctx.ui.pop("eyedropper", None)
        data.put_color(ctx.model.fs, "brush_color", c)

    def _drag(self, ctx: Ctx, origin: tuple[int, int], x1: float, y1: float, x2: float, y2: float) -> None:
        ox, oy = origin
        a, b = [round(x1 - ox, 1), round(y1 - oy, 1)], [round(x2 - ox, 1), round(y2 - oy, 1)]
        if ctx.ui.get("eyedropper"):  # EyeDropper: the colour under the finger
            img = data.bitmap(data.strokes(ctx), data.canvas_size(ctx), data.canvas_color(ctx.model.fs))
            x = min(max(0, int(b[0])), img.width - 1)
            y = min(max(0, int(b[1])), img.height - 1)
            px = img.getpixel((x, y))
            assert isinstance(px, tuple)
            self._set_brush(ctx, (int(px[0]), int(px[1]), int(px[2])))
            return
        if ctx.ui.get("bucket"):
            return
        size = int(ctx.ui.get("brush", data.DEFAULT_BRUSH))
        stroke: Stroke = {
            "points": [a, b],
            "color": list(self._brush(ctx)),
            "width": ctx.dp(data.FULL_BRUSH_DP) * size / 100,
            "eraser": bool(ctx.ui.get("eraser")),
        }
        data.strokes(ctx).append(stroke)
        data.undone(ctx).clear()
        ctx.ui.pop("asked_unsaved", None)

    def _undo(self, ctx: Ctx) -> None:
        ops = data.strokes(ctx)
        if ops:
            data.undone(ctx).append(ops.pop())

    def _redo(self, ctx: Ctx) -> None:
        gone = data.undone(ctx)
        if gone:
            data.strokes(ctx).append(gone.pop())

    def _toggle(self, ctx: Ctx, tool: str) -> None:
        """Eraser, eyedropper and bucket fill exclude one another."""
        on = not ctx.ui.get(tool)
        for t in ("eraser", "eyedropper", "bucket"):
            ctx.ui.pop(t, None)
        if on:
            ctx.ui[tool] = True

    def _clear(self, ctx: Ctx) -> None:
        data.strokes(ctx).clear()
        data.undone(ctx).clear()

    def _canvas_view(self, ctx: Ctx, box: tuple[int, int, int, int], shown: tuple[int, int, int, int]) -> View:
        """MyCanvas at `box`, as far as `shown` lets it show (its strokes kept in its own coordinates)."""
        l, t, r, b = box
        fs = ctx.model.fs
        bg = data.canvas_color(fs)
        vis = (l, t, min(r, shown[2]), min(b, shown[3]))
        canvas = V(ctx, "com.simplemobiletools.draw.pro.views.MyCanvas", vis, "my_canvas", style={"bg": bg})
        canvas.style["on_drag"] = lambda x1, y1, x2, y2: self._drag(ctx, (l, t), x1, y1, x2, y2)
        ops = data.strokes(ctx)
        area = data.bounds_of(ops, (vis[2] - l, vis[3] - t))
        if area is not None:  # the strokes, drawn on the part of the canvas they cover when a frame is rendered
            layer = data.StrokeLayer([dict(o) for o in ops], area, bg)
            canvas.children.append(
                V(
                    ctx,
                    "android.view.View",
                    (l + area[0], t + area[1], l + area[2], t + area[3]),
                    style={"image": layer},
                )
            )
        return canvas

    # --- screens -------------------------------------------------------------------------------------
    def screen_splash(self, ctx: Ctx) -> list[View]:
        return []

    def screen_main(self, ctx: Ctx) -> list[View]:
        l, t, r, b = ctx.area
        th = ctx.theme
        bar_h = ctx.dp(56)
        if not ctx.keyboard:
            ctx.ui["canvas"] = [r - l, b - t - bar_h]
        cw, ch = data.canvas_size(ctx)
        bar = V(
            ctx,
            "com.google.android.material.appbar.MaterialToolbar",
            (l, t, r, t + bar_h),
            "main_toolbar",
            style={"bg": th.bg},
        )
        isz = ctx.dp(48)
        y0 = t + (bar_h - isz) // 2
        actions = [
            ("check", data.tr(ctx, "Save"), lambda: open_save(ctx), "menu_save"),
            ("delete", data.tr(ctx, "Clear"), lambda: self._clear(ctx), "clear"),
            ("send", data.tr(ctx, "Share"), lambda: ctx.toast("Share is left out in this twin"), "menu_share"),
            ("more", data.tr(ctx, "More options"), lambda: ctx.show_dialog({"id": "menu"}), ""),
        ]
        x = r - ctx.dp(4) - isz * len(actions)
        for name, desc, cb, rid in actions:
            bar.children.append(w.icon_button(ctx, (x, y0, x + isz, y0 + isz), name, desc, cb, rid))
            x += isz
        # the canvas keeps its size under a keyboard (the window shows what is above it)
        shown = (l, t + bar_h, r, min(b, t + bar_h + ch))
        holder = V(ctx, "android.widget.RelativeLayout", shown, "main_holder")
        canvas = self._canvas_view(ctx, (l, t + bar_h, l + cw, t + bar_h + ch), shown)
        holder.children.append(canvas)
        holder.children.extend(self._tools(ctx, shown))
        scroll = V(ctx, "android.widget.ScrollView", holder.bounds, "main_scrollview")
        scroll.children.append(holder)
        return [bar, scroll]

    def _tools(self, ctx: Ctx, box: tuple[int, int, int, int]) -> list[View]:
        l, t, r, b = box
        th = ctx.theme
        bg = data.canvas_color(ctx.model.fs)
        contrast = (0, 0, 0) if sum(bg) > 382 else (255, 255, 255)
        isz = ctx.dp(48)
        out: list[View] = []
        x = r - isz
        color = self._brush(ctx)
        picker = V(
            ctx,
            w.IMAGE,
            (x, t, x + isz, t + isz),
            "color_picker",
            desc=data.tr(ctx, "Change color"),
            clickable=True,
            focusable=True,
            on_click=lambda: self._color_dialog(ctx, "brush"),
        )
        q = ctx.dp(12)
        picker.children.append(
            V(
                ctx,
                "android.view.View",
                (x + q, t + q, x + isz - q, t + isz - q),
                style={"bg": color, "radius": isz, "border": contrast},
            )
        )
        tools = [
            ("eye_dropper", data.tr(ctx, "Eyedropper"), "eyedropper", "image"),
            ("eraser", data.tr(ctx, "Eraser"), "eraser", "minus"),
            ("bucket_fill", data.tr(ctx, "Bucket fill"), "bucket", "storage"),
        ]
        row: list[View] = [picker]
        for rid, desc, key, icon in tools:
            x -= isz
            on = bool(ctx.ui.get(key))

            def toggle(key: str = key) -> None:
                self._toggle(ctx, key)

            row.append(
                w.icon_button(
                    ctx,
                    (x, t, x + isz, t + isz),
                    icon,
                    desc,
                    toggle,
                    rid,
                    th.primary if on else contrast,
                )
            )
        if data.undone(ctx):
            x -= isz
            row.append(
                w.icon_button(
                    ctx,
                    (x, t, x + isz, t + isz),
                    "forward",
                    data.tr(ctx, "Redo"),
                    lambda: self._redo(ctx),
                    "redo",
                    contrast,
                )
            )
        out.extend(reversed(row))
        if data.strokes(ctx):
            out.append(
                w.icon_button(
                    ctx,
                    (r - isz, t + isz, r, t + 2 * isz),
                    "back",
                    data.tr(ctx, "Undo"),
                    lambda: self._undo(ctx),
                    "undo",
                    contrast,
                )
            )
        if _pref(ctx, "show_brush_size", True) and not ctx.ui.get("eyedropper") and not ctx.ui.get("bucket"):
            size = int(ctx.ui.get("brush", data.DEFAULT_BRUSH))
            bw, bh = ctx.dp(150), ctx.dp(40)
            cx = (l + r) // 2
            bar_t = b - ctx.dp(12) - bh
            full = ctx.dp(data.FULL_BRUSH_DP)
            dot = max(ctx.dp(2), full * size // 100)
            py = bar_t - ctx.dp(8) - full // 2
            out.append(
                V(
                    ctx,
                    w.IMAGE,
                    (cx - dot // 2, py - dot // 2, cx + dot // 2, py + dot // 2),
                    "stroke_width_preview",
                    style={"bg": color, "radius": dot, "border": contrast},
                )
            )

            def seek(v: int) -> None:
                ctx.ui["brush"] = max(5, v)

            out.append(
                w.seekbar(ctx, (cx - bw // 2, bar_t, cx + bw // 2, bar_t + bh), size, 100, seek, "stroke_width_bar")
            )
        return out

    def screen_settings(self, ctx: Ctx) -> list[View]:
        bar = w.toolbar(
            ctx, data.tr(ctx, "Settings"), ("back", data.tr(ctx, "Navigate up"), ctx.finish), rid="settings_toolbar"
        )
        rows: list[Row] = [
            w.text_row(
                ctx,
                data.tr(ctx, "Color customization"),
                "settings_color_customization_section_label",
                size=14,
                color=ctx.theme.primary,
                bold=True,
            ),
            Row(
                ctx.dp(56),
                lambda x, y, wd: w.list_item(
                    ctx,
                    (x, y, x + wd, y + ctx.dp(56)),
                    data.tr(ctx, "Customize colors"),
                    "",
                    on_click=lambda: ctx.toast("Left out in this twin"),
                ),
            ),
            w.text_row(
                ctx,
                data.tr(ctx, "General"),
                "settings_general_settings_label",
                size=14,
                color=ctx.theme.primary,
                bold=True,
            ),
        ]
        for rid, string, key, default in SETTINGS_SWITCHES:
            on = _pref(ctx, key, default)
            label = data.tr(ctx, string)
            # the label wraps beside the box (drawn at the start, centred in the row's height)
            box_px, h, n = max(12, int(ctx.sp(15) * 1.1)), ctx.dp(64), 1
            for _ in range(3):
                avail = ctx.area[2] - ctx.area[0] - ctx.dp(32) - (h - box_px) // 2 - box_px - box_px // 2
                n = max(1, len(wrap(label, ctx.sp(15), avail)))
                h = max(ctx.dp(64), ctx.line_h(15, n) + ctx.dp(24))

            def build(
                x: int,
                y: int,
                wd: int,
                rid: str = rid,
                label: str = label,
                key: str = key,
                on: bool = on,
                h: int = h,
                n: int = n,
            ) -> View:
                def flip() -> None:
                    data.PREFS.put(ctx.model.fs, key, not on)

                holder = V(ctx, w.FRAME, (x, y, x + wd, y + h), f"{rid}_holder", clickable=True, on_click=flip)
                holder.children.append(
                    V(
                        ctx,
                        "com.simplemobiletools.commons.views.MyAppCompatCheckbox",
                        (x + ctx.dp(16), y, x + wd - ctx.dp(16), y + h),
                        rid,
                        text=label,
                        checkable=True,
                        checked=on,
                        clickable=True,
                        on_click=flip,
                        style={"kind": "checkbox", "size": ctx.sp(15), "fg": ctx.theme.text, "lines": n},
                    )
                )
                return holder

            rows.append(Row(h, build))
        return page(ctx, [bar], rows, key="settings", rid="settings_nested_scrollview")

    # --- dialogs -------------------------------------------------------------------------------------
    def _menu_pick(self, ctx: Ctx, item: str) -> None:
        ctx.dismiss_dialog()
        if item == "change_background":
            self._color_dialog(ctx, "background")
        elif item == "settings":
            ctx.push(SETTINGS)
        else:
            ctx.toast("Left out in this twin")

    def _color_dialog(self, ctx: Ctx, target: str) -> None:
        old = self._brush(ctx) if target == "brush" else data.canvas_color(ctx.model.fs)
        ctx.set_field("hex", data.hex_color(old)[1:].upper())
        ctx.show_dialog({"id": "color", "target": target, "old": list(old)})

    def _pick_color(self, ctx: Ctx, spec: dict[str, Any]) -> None:
        c = data.parse_hex(ctx.field_value("hex"))
        ctx.dismiss_dialog()
        ctx.set_focus(None)
        if c is None:
            return
        if spec["target"] == "brush":
            self._set_brush(ctx, c)
        else:
            data.put_color(ctx.model.fs, "canvas_background_color", c)

    def dialog(self, ctx: Ctx) -> View | None:
        spec = ctx.ui.get("dialog")
        if not spec:
            return None
        kind = str(spec.get("id", ""))
        if kind in DIALOGS:
            return DIALOGS[kind](ctx, spec)
        if kind == "menu":
            return self._menu(ctx)
        if kind == "color":
            return self._color(ctx, spec)
        if kind == "unsaved":
            return dialogs.dialog(
                ctx,
                "",
                data.tr(ctx, "unsaved"),
                [
                    (data.tr(ctx, "Save"), "android:id/button1", lambda: open_save(ctx)),
                    (data.tr(ctx, "Discard"), "android:id/button2", ctx.finish),
                ],
                on_cancel=ctx.dismiss_dialog,
                message_rid="message",
            )
        return None

    def _menu(self, ctx: Ctx) -> View:
        l, t, r, b = ctx.mgr.dialog_area()
        item_h = ctx.dp(48)
        widest = max(int(text_width(data.tr(ctx, label), ctx.sp(16))) for _, label in MENU)
        wd = min(r - l - ctx.dp(16), max(ctx.dp(180), widest + ctx.dp(40)))
        box = (r - wd - ctx.dp(8), t + ctx.dp(8), r - ctx.dp(8), t + ctx.dp(16) + len(MENU) * item_h)
        root = dialogs.popup_window(ctx, box)
        lst = V(ctx, "android.widget.ListView", box)
        y = box[1] + ctx.dp(8)
        for rid, string in MENU:
            label = data.tr(ctx, string)
            item = V(
                ctx,
                w.LINEAR,
                (box[0], y, box[2], y + item_h),
                rid,
                clickable=True,
                focusable=True,
                on_click=lambda rid=rid: self._menu_pick(ctx, rid),
            )
            item.children.append(
                w.text(
                    ctx, (box[0] + ctx.dp(16), y, box[2] - ctx.dp(16), y + item_h), label, "android:id/title", size=16
                )
            )
            lst.children.append(item)
            y += item_h
        root.children.append(lst)
        return root

    def _color(self, ctx: Ctx, spec: dict[str, Any]) -> View:
        cols = 6
        sw = ctx.dp(40)

        def swatches(x: int, y: int, wd: int) -> View:
            grid = V(
                ctx,
                w.FRAME,
                (x + ctx.dp(24), y, x + wd - ctx.dp(24), y + 2 * (sw + ctx.dp(8))),
                "color_picker_top_holder",
            )
            gap = max(0, (wd - ctx.dp(48) - cols * sw) // (cols - 1))
            for i, c in enumerate(SWATCHES):
                cx = x + ctx.dp(24) + (i % cols) * (sw + gap)
                cy = y + (i // cols) * (sw + ctx.dp(8))
                grid.children.append(
                    V(
                        ctx,
                        w.IMAGE,
                        (cx, cy, cx + sw, cy + sw),
                        desc=data.hex_color(c),
                        clickable=True,
                        on_click=lambda c=c: ctx.set_field("hex", data.hex_color(c)[1:].upper()),
                        style={"bg": c, "radius": sw // 2, "border": ctx.theme.divider},
                    )
                )
            return grid

        def hex_row(x: int, y: int, wd: int) -> View:
            o = spec["old"]
            old = data.hex_color((int(o[0]), int(o[1]), int(o[2])))[1:].upper()
            holder = V(
                ctx, w.LINEAR, (x + ctx.dp(24), y, x + wd - ctx.dp(24), y + ctx.dp(56)), "color_picker_hex_codes_holder"
            )
            mid = x + wd // 2
            holder.children.append(
                w.text(ctx, (x + ctx.dp(24), y, mid - ctx.dp(24), y + ctx.dp(56)), old, "color_picker_old_hex", size=16)
            )
            holder.children.append(
                w.edit(
                    ctx,
                    (mid, y + ctx.dp(4), x + wd - ctx.dp(24), y + ctx.dp(52)),
                    "hex",
                    ctx.field_value("hex"),
                    "",
                    lambda v: ctx.set_field("hex", v[:6]),
                    "color_picker_new_hex",
                    box="underline",
                )
            )
            return holder

        rows = [Row(2 * (sw + ctx.dp(8)), swatches), Row(ctx.dp(60), hex_row, ("hex",))]
        return dialogs.dialog(
            ctx,
            "",
            "",
            [
                (data.tr(ctx, "OK"), "android:id/button1", lambda: self._pick_color(ctx, spec)),
                (data.tr(ctx, "Cancel"), "android:id/button2", ctx.dismiss_dialog),
            ],
            rows=rows,
            on_cancel=ctx.dismiss_dialog,
        )
