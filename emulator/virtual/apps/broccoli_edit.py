"""Broccoli's CreateAndEditRecipeActivity: the recipe form, for a new recipe (the list's FAB) or one to edit (the
details' Edit).

The app bar: "Navigate up" (the close icon), "New Recipe", SAVE (`button_save_recipe`). The form, outlined
TextInputLayouts whose hints are the app's strings: the photo placeholder (`new_image`, "Recipe photo"; "Change
photo"), Title (`new_title`), Categories (`new_categories`: not typed into - a tap opens the categories to check, or
"No categories have been created yet."), Description (`new_description`), Source (`new_source`), Servings
(`new_servings`), Time (`new_preparation_time`), Ingredients (`new_ingredients`) and Directions (`new_directions`),
the last three multi-line. No field is focused when it opens (stateAlwaysHidden).

SAVE with a blank title says "Please add a title."; else it writes the recipe (a new row, or the edited one and its
categories), says "The recipe has been saved." and closes - a new recipe's details then open from the list.
Leaving with changes (BACK, the close icon) asks "Discard changes?" (DISCARD / CANCEL); without, it just closes.
Left out: taking or picking a photo, importing a recipe shared from a website or a file.
"""

from __future__ import annotations

from typing import Any

from ..ui import dialogs
from ..ui import widgets as w
from ..ui.fonts import text_width, wrap
from ..ui.layout import Ctx, Row, V
from ..ui.view import View
from . import broccoli_data as data
from .base import page
from .broccoli_data import ALL, EDIT, caps, tr
from .broccoli_widgets import CHECKED_TEXT, GREEN_100, GREEN_800, PHOTO_DARK, app_bar, bar_colors, open_recipe

# (column, field key, resource id, hint string, start icon, multi-line)
FIELDS = (
    ("title", "e_title", "new_title", "title", "edit", False),
    ("description", "e_description", "new_description", "description", "info", True),
    ("source", "e_source", "new_source", "source", "forward", False),
    ("servings", "e_servings", "new_servings", "servings", "person", False),
    ("preparationTime", "e_time", "new_preparation_time", "preparation_time", "timer", False),
    ("ingredients", "e_ingredients", "new_ingredients", "ingredients", "menu", True),
    ("directions", "e_directions", "new_directions", "directions", "menu", True),
)
MAX_LINES = 8  # a multi-line field grows with its text up to this many lines, then scrolls inside


def _open(ctx: Ctx, r: dict[str, Any] | None, cats: list[int]) -> None:
    initial = {col: str((r or {}).get(col) or "") for col, *_ in FIELDS}
    for col, key, *_ in FIELDS:
        ctx.set_field(key, initial[col])
    recipe_id = int(r["recipeId"]) if r else None
    ctx.push(EDIT, {"recipe_id": recipe_id, "initial": initial, "cats": list(cats), "initial_cats": list(cats)})


def open_new(ctx: Ctx) -> None:
    """The list's FAB: the empty form."""
    _open(ctx, None, [])


def open_existing(ctx: Ctx, r: dict[str, Any]) -> None:
    """The details' Edit: the form on the recipe (and its categories)."""
    cats = [int(c["categoryId"]) for c in data.recipe_categories(ctx.model.fs, r.get("recipeId"))]
    _open(ctx, r, cats)


def opened(ctx: Ctx) -> None:
    ctx.ui.setdefault("scroll", {}).pop("edit", None)
    ctx.set_focus(None)


def _values(ctx: Ctx) -> dict[str, str]:
    return {col: ctx.field_value(key) for col, key, *_ in FIELDS}


def dirty(ctx: Ctx) -> bool:
    ex = ctx.extras
    return _values(ctx) != ex.get("initial", {}) or sorted(ex.get("cats", [])) != sorted(ex.get("initial_cats", []))


def leave(ctx: Ctx) -> None:
    """BACK / the close icon: straight out without changes, else "Discard changes?"."""
    if dirty(ctx):
        ctx.show_dialog({"id": "discard"})
    else:
        ctx.finish()


def save(ctx: Ctx) -> None:
    """onSaveClick: a title is needed; the recipe written, the form closed; a new one's details opened."""
    values = _values(ctx)
    if not values["title"].strip():
        ctx.toast(tr(ctx, "title_should_not_be_empty_message"))
        return
    ex = ctx.extras
    recipe_id = ex.get("recipe_id")
    new_id = data.save(ctx.model.fs, recipe_id, values, [int(c) for c in ex.get("cats", [])])
    ctx.set_focus(None)
    ctx.toast(tr(ctx, "recipe_saved_message"))
    ctx.finish()
    if recipe_id is None:  # RecipeFragment's crudResultLauncher: the category reset, the new recipe's details
        ctx.ui["category"] = ALL
        saved = data.recipe(ctx.model.fs, new_id)
        if saved is not None:
            open_recipe(ctx, saved)


def _field_row(ctx: Ctx, key: str, rid: str, hint: str, icon: str, multiline: bool, after: str | None) -> Row:
    value = ctx.field_value(key)
    inner_w = ctx.area[2] - ctx.area[0] - ctx.dp(32) - ctx.dp(56)
    n = min(MAX_LINES, max(1, len(wrap(value, ctx.sp(16), inner_w)))) if multiline else 1
    box_h = max(ctx.dp(56), ctx.line_h(16, n) + ctx.dp(32))

    def build(x: int, y: int, wd: int) -> View:
        outer = V(ctx, w.LINEAR, (x + ctx.dp(16), y, x + wd - ctx.dp(16), y + box_h))
        field = w.edit(
            ctx,
            (x + ctx.dp(16), y, x + wd - ctx.dp(16), y + box_h),
            key,
            value,
            hint,
            lambda v: ctx.set_field(key, v),
            rid,
            multiline=multiline,
            action=(lambda: ctx.set_focus(after)) if after else ctx.hide_keyboard,
            action_kind="next" if after else "done",
            lines=n,
        )
        field.style["pad"] = ctx.dp(52)
        if multiline:
            field.style["pad_top"] = ctx.dp(16)
        outer.children.append(field)
        iy = y + (min(box_h, ctx.dp(56)) - ctx.dp(24)) // 2
        outer.children.append(w.icon(ctx, (x + ctx.dp(28), iy, x + ctx.dp(52), iy + ctx.dp(24)), icon, ctx.theme.text2))
        return outer

    return Row(box_h + ctx.dp(16), build, (key,))


def _categories_row(ctx: Ctx) -> Row:
    """new_categories: the recipe's categories (a tap opens the choice), never focused."""
    fs = ctx.model.fs
    chosen = set(int(c) for c in ctx.extras.get("cats", []))
    names = ", ".join(str(c["name"] or "") for c in data.categories(fs) if int(c["categoryId"]) in chosen)
    h = ctx.dp(56)

    def build(x: int, y: int, wd: int) -> View:
        box = (x + ctx.dp(16), y, x + wd - ctx.dp(16), y + h)
        field = w.text(
            ctx,
            box,
            names or tr(ctx, "categories"),
            "new_categories",
            size=16,
            cls=w.EDIT,
            color=ctx.theme.text if names else ctx.theme.text2,
            clickable=True,
            on_click=lambda: ctx.show_dialog({"id": "pick_categories"}),
            style={"border": ctx.theme.text2, "radius": ctx.dp(4), "pad": ctx.dp(52), "ellipsize": True},
        )
        field.hint = tr(ctx, "categories")
        iy = y + (h - ctx.dp(24)) // 2
        field.children.append(
            w.icon(ctx, (x + ctx.dp(28), iy, x + ctx.dp(52), iy + ctx.dp(24)), "menu", ctx.theme.text2)
        )
        field.children.append(
            w.icon(ctx, (box[2] - ctx.dp(40), iy, box[2] - ctx.dp(16), iy + ctx.dp(24)), "drop_down", ctx.theme.text2)
        )
        return field

    return Row(h + ctx.dp(16), build)


def _photo_row(ctx: Ctx) -> Row:
    h = ctx.dp(180)

    def build(x: int, y: int, wd: int) -> View:
        box = (x + ctx.dp(16), y + ctx.dp(16), x + wd - ctx.dp(16), y + ctx.dp(16) + h)
        frame = V(
            ctx,
            "android.view.ViewGroup",
            box,
            style={"bg": GREEN_100 if not ctx.theme.dark else PHOTO_DARK, "radius": ctx.dp(4)},
        )
        frame.children.append(
            V(
                ctx,
                w.IMAGE,
                box,
                "new_image",
                desc=tr(ctx, "recipe_photo_accessibility"),
                style={"icon": "image", "icon_color": GREEN_800, "inset": ctx.dp(60)},
            )
        )
        cam = (box[2] - ctx.dp(44), box[3] - ctx.dp(44), box[2] - ctx.dp(10), box[3] - ctx.dp(10))
        frame.children.append(w.icon(ctx, cam, "image", ctx.theme.text2, desc=tr(ctx, "change_photo")))
        return frame

    return Row(h + ctx.dp(32), build)


def screen(ctx: Ctx) -> list[View]:
    bar = app_bar(ctx, tr(ctx, "new_recipe"), ("close", tr(ctx, "navigate_up"), lambda: leave(ctx)))
    _, fg = bar_colors(ctx)
    label = caps(tr(ctx, "save_action"))
    bw = int(text_width(label, ctx.sp(14), True)) + ctx.dp(24)
    l, t, r, _ = bar.bounds
    save_btn = w.button(
        ctx,
        (r - ctx.dp(4) - bw, t + ctx.dp(4), r - ctx.dp(4), t + ctx.dp(52)),
        label,
        lambda: save(ctx),
        "button_save_recipe",
        kind="text",
    )
    save_btn.style["fg"] = fg
    bar.children.append(save_btn)
    for v in bar.children:  # the title keeps clear of the button
        if v.cls == w.TEXT and v.bounds[2] > r - bw - ctx.dp(8):
            v.bounds = (v.bounds[0], v.bounds[1], r - bw - ctx.dp(8), v.bounds[3])
    keys = [key for _, key, *_ in FIELDS]
    rows = [_photo_row(ctx)]
    for i, (_, key, rid, hint, icon, multiline) in enumerate(FIELDS):
        after = keys[i + 1] if i + 1 < len(keys) else None
        rows.append(_field_row(ctx, key, rid, tr(ctx, hint), icon, multiline, after))
        if key == "e_title":
            rows.append(_categories_row(ctx))
    return page(ctx, [bar], rows, key="edit", rid="", cls="android.widget.ScrollView", pad_bottom=ctx.dp(20))


# --- dialogs ----------------------------------------------------------------------------------------------------
def discard_dialog(ctx: Ctx, spec: dict[str, Any]) -> View:
    def discard() -> None:
        ctx.dismiss_dialog()
        ctx.set_focus(None)
        ctx.finish()

    buttons: list[tuple[str, str, w.Click]] = [
        (caps(tr(ctx, "discard_action")), "android:id/button1", discard),
        (caps(tr(ctx, "cancel")), "android:id/button2", ctx.dismiss_dialog),
    ]
    return dialogs.dialog(ctx, "", tr(ctx, "discard_changes_question"), buttons, on_cancel=ctx.dismiss_dialog)


def categories_dialog(ctx: Ctx, spec: dict[str, Any]) -> View:
    """onCategoryClick: the custom categories to check (a multi-choice list), or a message that there are none."""
    cats = data.categories(ctx.model.fs)
    chosen: list[int] = ctx.extras.setdefault("cats", [])
    rows: list[Row] = []
    for c in cats:
        cid = int(c["categoryId"])

        def toggle(cid: int = cid) -> None:
            if cid in chosen:
                chosen.remove(cid)
            else:
                chosen.append(cid)

        def build(x: int, y: int, wd: int, c: dict[str, Any] = c, cid: int = cid, toggle: Any = toggle) -> View:
            box = (x + ctx.dp(24), y, x + wd - ctx.dp(24), y + ctx.dp(48))
            return w.checkbox(ctx, box, cid in chosen, "android:id/text1", toggle, str(c["name"] or ""))

        rows.append(Row(ctx.dp(48), build))
    message = "" if cats else tr(ctx, "no_categories_message")
    buttons: list[tuple[str, str, w.Click]] = [(caps(tr(ctx, "ok")), "android:id/button1", ctx.dismiss_dialog)]
    dlg = dialogs.dialog(ctx, tr(ctx, "categories"), message, buttons, rows=rows, on_cancel=ctx.dismiss_dialog)
    for v in dlg.walk():
        if v.resource_id == "android:id/text1":
            v.cls = CHECKED_TEXT
    return dlg
