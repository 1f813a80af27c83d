"""Broccoli (`com.flauschcode.broccoli` 1.2.6, the build AndroidWorld installs): the recipe list (`MainActivity`),
a recipe's details (`RecipeDetailsActivity`, `broccoli_details`) and the recipe form (`CreateAndEditRecipeActivity`,
`broccoli_edit`), over the app's Room database `broccoli` (`broccoli_data`: the file is the app's one truth - what
AndroidWorld pushes is what the list shows next, what the form saves is a row of `recipes`). Resource ids, content
descriptions and strings are the app's (en and zh) and AppCompat's.

- The list: the app bar ("Recipes"), the filter bar (`toolbar_recipes`: the category Spinner `spinner`, "Categories",
  showing "All recipes" - its drop-down: All recipes, Seasonal recipes, Recipes without category, Favorites, then
  the custom categories - and the search action `action_search`, which expands AppCompat's SearchView:
  `search_src_text`, hint "Search in ALL RECIPES", "Collapse", `search_close_btn` "Clear query"; a term matches
  the FTS table's title, description, source and ingredients as a prefix), the cards (`recycler_view`, "Recipes":
  `card_image` "Recipe photo", `card_text_view_title`, `card_text_view_description`, `card_text_view_source`) in
  title order, "No recipes found." (`recipes_empty`) when none, and the FAB `fab_recipes` ("New Recipe").
- A card opens the recipe's details; the FAB the empty form; a new recipe saved opens its details.
Left out: the navigation drawer and its pages (categories, seasonal calendar, backup, settings, about, support),
photos, the seasonal calendar (Seasonal recipes lists none), importing from a website or a file, sharing, the
cooking assistant.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..ui import widgets as w
from ..ui.fonts import wrap
from ..ui.layout import Ctx, Row, V, spacer
from ..ui.view import View
from . import broccoli_details as details
from . import broccoli_edit as edit
from .base import App, page
from .broccoli_data import (
    ALL,
    BUILTIN_CATEGORIES,
    DB,
    DETAILS,
    EDIT,
    MAIN,
    PKG,
    VERSION_CODE,
    VERSION_NAME,
    categories,
    category_name,
    recipes,
    tr,
)
from .broccoli_widgets import GREEN_100, GREEN_800, PHOTO_DARK, app_bar, bar_colors, open_recipe, popup_menu

CARD = "androidx.cardview.widget.CardView"
SPINNER = "android.widget.Spinner"


def _searching(ctx: Ctx) -> bool:
    return bool(ctx.ui.get("searching"))


def _collapse_search(ctx: Ctx) -> None:
    """Toolbar.collapseActionView: the SearchView closes, its query cleared."""
    ctx.ui["searching"] = False
    ctx.set_field("search", "")
    ctx.set_focus(None)


def _category(ctx: Ctx) -> int:
    return int(ctx.ui.get("category", ALL))


class BroccoliApp(App):
    package = PKG
    labels = {"en": "Broccoli", "zh": "Broccoli"}
    activities = {MAIN: "list", DETAILS: "details", EDIT: "edit"}
    launcher = MAIN
    color = GREEN_800
    glyph = ""
    version_name = VERSION_NAME
    version_code = VERSION_CODE
    installed = True  # as AndroidWorld installs it
    databases = (DB,)

    # --- lifecycle -----------------------------------------------------------------------------------
    def on_foreground(self, ctx: Ctx) -> None:
        ex = ctx.extras
        if ex.get("_created"):
            return
        ex["_created"] = True
        if ctx.activity == DETAILS:
            details.opened(ctx)
        elif ctx.activity == EDIT:
            edit.opened(ctx)

    def on_back(self, ctx: Ctx) -> bool:
        if ctx.activity == EDIT:
            edit.leave(ctx)
            return True
        if ctx.activity == MAIN and _searching(ctx):
            _collapse_search(ctx)
            return True
        return False

    # --- screens -------------------------------------------------------------------------------------
    def screen_details(self, ctx: Ctx) -> list[View]:
        return details.screen(ctx)

    def screen_edit(self, ctx: Ctx) -> list[View]:
        return edit.screen(ctx)

    def screen_list(self, ctx: Ctx) -> list[View]:
        fs = ctx.model.fs
        top = app_bar(ctx, tr(ctx, "recipes"))
        filters = self._filter_bar(ctx, top.bounds[3])
        query = ctx.field_value("search") if _searching(ctx) else ""
        found = recipes(fs, _category(ctx), query)
        card_h = ctx.dp(128)
        rows: list[Row] = []
        for r in found:

            def build(x: int, y: int, wd: int, r: dict[str, Any] = r) -> View:
                return self._card(ctx, (x + ctx.dp(8), y + ctx.dp(8), x + wd - ctx.dp(8), y + card_h), r)

            rows.append(Row(card_h, build))
        overlays: list[View] = []
        if not found:
            rows += self._empty(ctx, ctx.area[3] - filters.bounds[3])
        if not ctx.keyboard:
            overlays.append(w.fab(ctx, "add", tr(ctx, "new_recipe"), lambda: edit.open_new(ctx), "fab_recipes"))
        screen = page(
            ctx, [top, filters], rows, key="recipes", rid="recycler_view", overlays=overlays, pad_bottom=ctx.dp(90)
        )
        screen[2].desc = tr(ctx, "recipes")
        return screen

    def _filter_bar(self, ctx: Ctx, top: int) -> View:
        """The fragment's toolbar: the category Spinner and the search action, or the expanded SearchView."""
        l, _, r, _ = ctx.area
        h = ctx.dp(56)
        bg, fg = bar_colors(ctx, secondary=True)
        bar = V(ctx, "android.view.ViewGroup", (l, top, r, top + h), "toolbar_recipes", style={"bg": bg})
        isz = ctx.dp(48)
        y0 = top + (h - isz) // 2
        fs = ctx.model.fs
        if _searching(ctx):
            collapse = w.icon_button(
                ctx,
                (l + ctx.dp(4), y0, l + ctx.dp(4) + isz, y0 + isz),
                "back",
                tr(ctx, "collapse"),
                lambda: _collapse_search(ctx),
            )
            collapse.style["icon_color"] = fg
            bar.children.append(collapse)
            query = ctx.field_value("search")
            frame = V(ctx, w.LINEAR, (l + ctx.dp(60), top, r - ctx.dp(4), top + h), "search_bar")
            right = r - ctx.dp(4) - (isz if query else 0)
            hint = tr(ctx, "search_in").format(category_name(ctx, _category(ctx), fs).upper())
            field = w.edit(
                ctx,
                (l + ctx.dp(60), y0, right, y0 + isz),
                "search",
                query,
                hint,
                lambda v: ctx.set_field("search", v),
                "search_src_text",
                action=ctx.hide_keyboard,
                action_kind="search",
                box="none",
            )
            field.style.update(fg=fg, hint_color=fg if not ctx.theme.dark else ctx.theme.text2)
            frame.children.append(field)
            if query:

                def clear() -> None:
                    ctx.set_field("search", "")
                    ctx.set_focus("search")

                close = w.icon_button(
                    ctx, (right, y0, right + isz, y0 + isz), "close", tr(ctx, "clear_query"), clear, "search_close_btn"
                )
                close.style["icon_color"] = fg
                frame.children.append(close)
            bar.children.append(frame)
            return bar

        def open_search() -> None:
            ctx.ui["searching"] = True
            ctx.set_field("search", "")
            ctx.set_focus("search")

        def open_spinner() -> None:
            ctx.ui.setdefault("scroll", {}).pop("popup_menu", None)
            ctx.show_dialog({"id": "categories_filter", "anchor": [l + ctx.dp(16), top]})

        spinner = V(
            ctx,
            SPINNER,
            (l + ctx.dp(16), top, r - ctx.dp(4) - isz, top + h),
            "spinner",
            desc=tr(ctx, "categories"),
            clickable=True,
            focusable=True,
            on_click=open_spinner,
        )
        name = category_name(ctx, _category(ctx), fs)
        spinner.children.append(
            w.text(
                ctx,
                (l + ctx.dp(24), top, r - ctx.dp(8) - 2 * isz, top + h),
                name,
                "android:id/text1",
                size=20,
                color=fg,
                style={"ellipsize": True},
            )
        )
        arrow = (
            r - ctx.dp(4) - 2 * isz + ctx.dp(8),
            y0 + ctx.dp(12),
            r - ctx.dp(4) - isz - ctx.dp(16),
            y0 + ctx.dp(36),
        )
        spinner.children.append(w.icon(ctx, arrow, "drop_down", fg))
        bar.children.append(spinner)
        search = w.icon_button(
            ctx,
            (r - ctx.dp(4) - isz, y0, r - ctx.dp(4), y0 + isz),
            "search",
            tr(ctx, "search"),
            open_search,
            "action_search",
        )
        search.cls = "android.widget.TextView"  # an ActionMenuItemView
        search.style["icon_color"] = fg
        bar.children.append(search)
        return bar

    def _card(self, ctx: Ctx, box: tuple[int, int, int, int], r: dict[str, Any]) -> View:
        """recipe_item: the photo (the placeholder), the title, the description and the source."""
        x0, y0, x1, y1 = box
        th = ctx.theme
        card = V(
            ctx,
            CARD,
            box,
            clickable=True,
            focusable=True,
            on_click=lambda: open_recipe(ctx, r),
            style={"bg": th.surface if not th.dark else th.surface2, "radius": ctx.dp(4), "shadow": True},
        )
        inner = V(ctx, "android.view.ViewGroup", box)
        card.children.append(inner)
        side = y1 - y0
        inner.children.append(
            V(
                ctx,
                w.IMAGE,
                (x0, y0, x0 + side, y1),
                "card_image",
                desc=tr(ctx, "recipe_photo_accessibility"),
                style={
                    "bg": GREEN_100 if not th.dark else PHOTO_DARK,
                    "icon": "image",
                    "icon_color": GREEN_800,
                },
            )
        )
        tx0, tx1 = x0 + side + ctx.dp(8), x1 - ctx.dp(8)
        title, desc, source = (str(r.get(k) or "") for k in ("title", "description", "source"))
        title_h = ctx.line_h(22, min(2, max(1, len(wrap(title, ctx.sp(22), tx1 - tx0)))))
        desc_h = ctx.line_h(14, 2) if desc else 0
        src_h = ctx.line_h(14)
        y = y0 + max(0, (side - title_h - desc_h - src_h) // 2)
        inner.children.append(
            w.text(
                ctx,
                (tx0, y, tx1, y + title_h),
                title,
                "card_text_view_title",
                size=22,
                lines=2,
                valign="t",
                style={"ellipsize": True},
            )
        )
        y += title_h
        inner.children.append(
            w.text(
                ctx,
                (tx0, y, tx1, y + desc_h),
                desc,
                "card_text_view_description",
                color=th.text2,
                lines=2,
                valign="t",
                style={"ellipsize": True},
            )
        )
        y += desc_h
        inner.children.append(
            w.text(
                ctx,
                (tx0, y, tx1, y + src_h),
                source,
                "card_text_view_source",
                color=GREEN_800,
                style={"ellipsize": True},
            )
        )
        return card

    def _empty(self, ctx: Ctx, view_h: int) -> list[Row]:
        """recipes_empty: "No recipes found." and what to do, centred where the cards would be."""
        width = ctx.area[2] - ctx.area[0] - ctx.dp(100)
        texts = [tr(ctx, k) for k in ("no_recipes_found", "create_a_recipe_prompt", "import_from_the_web_prompt")]
        sizes = [(t, len(wrap(t, ctx.sp(20), width))) for t in texts]
        gap = ctx.dp(16)
        h = sum(ctx.line_h(20, n) for _, n in sizes) + gap

        def build(x: int, y: int, wd: int) -> View:
            box = V(ctx, w.LINEAR, (x + ctx.dp(50), y, x + wd - ctx.dp(50), y + h), "recipes_empty")
            ty = y
            for i, (t, n) in enumerate(sizes):
                lh = ctx.line_h(20, n)
                box.children.append(
                    w.text(ctx, (x + ctx.dp(50), ty, x + wd - ctx.dp(50), ty + lh), t, size=20, lines=n, valign="t")
                )
                ty += lh + (gap if i == 0 else 0)
            return box

        return [spacer(max(0, (view_h - h) // 2)), Row(h, build)]

    # --- dialogs -------------------------------------------------------------------------------------
    def dialog_categories_filter(self, ctx: Ctx, spec: dict[str, Any]) -> View:
        """The Spinner's drop-down (simple_spinner_dropdown_item: CheckedTextViews `android:id/text1`)."""
        current = _category(ctx)
        fs = ctx.model.fs
        ids = [*BUILTIN_CATEGORIES, *(int(c["categoryId"]) for c in categories(fs))]

        def pick(cid: int) -> None:
            ctx.dismiss_dialog()
            ctx.ui["category"] = cid
            ctx.ui.setdefault("scroll", {})["recipes"] = 0

        def chooser(cid: int) -> Callable[[], None]:
            return lambda: pick(cid)

        items = [(category_name(ctx, cid, fs), chooser(cid), cid == current) for cid in ids]
        anchor = spec.get("anchor") or [ctx.area[0], ctx.area[1]]
        return popup_menu(
            ctx,
            items,
            (int(anchor[0]), int(anchor[1])),
            280,
            False,
            "android:id/text1",
            "android.widget.CheckedTextView",
        )

    def dialog_overflow(self, ctx: Ctx, spec: dict[str, Any]) -> View:
        return details.overflow(ctx, spec)

    def dialog_delete(self, ctx: Ctx, spec: dict[str, Any]) -> View:
        return details.delete_dialog(ctx, spec)

    def dialog_discard(self, ctx: Ctx, spec: dict[str, Any]) -> View:
        return edit.discard_dialog(ctx, spec)

    def dialog_pick_categories(self, ctx: Ctx, spec: dict[str, Any]) -> View:
        return edit.categories_dialog(ctx, spec)


__all__ = ["BroccoliApp"]
