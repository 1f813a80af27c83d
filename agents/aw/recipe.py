"""Broccoli: AndroidWorld's recipe classes solved through the app's list, search, details and recipe form, from the
instance's parameters (the rows its set-up inserted and the rows its goal names).

Adding: the FAB, each field the recipe has typed into the form, SAVE; the new recipe's details then open, and
"Navigate up" goes back to the list for the next one. Deleting: the list's search narrowed to the recipe's title
and ingredients (the words the app's full-text search matches), then the recipe found among the cards with its
title by opening each and comparing its details with the row (rows may share a title and differ in their
servings, time or directions; an exact duplicate is either of the two), and deleted from More options > Delete >
DELETE. Which card to open next is chosen on the screen met (`Decide` steps sharing a `_Search` state).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from harness.actions import Action, Complete
from tasks.schema import ReferenceStep

from .steps import Step, click, open_app, type_into

BROCCOLI = ("Broccoli", "com.flauschcode.broccoli")
RID = BROCCOLI[1] + ":id/"
CARD_TITLE = "card_text_view_title"
# the form's fields: (the row's column, the EditText's id), in the form's order
FORM = (
    ("title", "new_title"),
    ("description", "new_description"),
    ("source", "new_source"),
    ("servings", "new_servings"),
    ("preparationTime", "new_preparation_time"),
    ("ingredients", "new_ingredients"),
    ("directions", "new_directions"),
)
UP = click(desc="Navigate up")


def _text(row: Mapping[str, Any], key: str) -> str:
    v = row.get(key)
    return "" if v is None else str(v)


def row_fields(value: Any) -> Mapping[str, Any] | None:
    """A row of the parameters as its fields: a mapping as it is, or the text a dataclass row arrives as through
    JSON (its repr, `Recipe(title='...', servings='...', ...)`) read back field by field (literals only)."""
    if isinstance(value, Mapping):
        return value
    if not isinstance(value, str):
        return None
    try:
        node = ast.parse(value.strip(), mode="eval").body
    except SyntaxError:
        return None
    if not isinstance(node, ast.Call):
        return None
    fields: dict[str, Any] = {}
    for kw in node.keywords:
        if kw.arg is None:
            continue
        try:
            fields[kw.arg] = ast.literal_eval(kw.value)
        except ValueError:
            return None
    return fields


def _rows(p: Mapping[str, Any], key: str) -> list[Mapping[str, Any]]:
    return [r for r in (row_fields(v) for v in p.get(key) or []) if r is not None]


# --- adding ---------------------------------------------------------------------------------------------------
def new_recipe(row: Mapping[str, Any]) -> list[Step]:
    """The form filled with the row's texts (an empty one left alone) and saved; back from its details."""
    fields = [type_into(_text(row, col), resource_id=rid) for col, rid in FORM if _text(row, col)]
    return [click(resource_id="fab_recipes"), *fields, click(resource_id="button_save_recipe"), UP]


def add_recipes(p: Mapping[str, Any]) -> list[Step]:
    """RecipeAddSingleRecipe, RecipeAddMultipleRecipes, and the Markor ones: recipes.txt holds the rows of the
    parameters (FromMarkor2: among others, the ones that take its prep_time), so they are typed from there."""
    steps: list[Step] = [open_app(BROCCOLI)]
    for row in _rows(p, "row_objects"):
        steps += new_recipe(row)
    return [*steps, Complete()]


# --- deleting ---------------------------------------------------------------------------------------------------
def _words(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())


def _lines(text: str, lead: str) -> list[str]:
    """The words of a text as the details list it: per non-blank line, the leading `lead` (a dash, a number) off."""
    out: list[str] = []
    for line in text.split("\n"):
        out += _words(re.sub(lead, "", line, count=1))
    return out


def search_term(row: Mapping[str, Any]) -> str:
    """The title's and the ingredients' words: the full-text search (title, description, source, ingredients)
    finds the rows holding all of them."""
    return " ".join(_words(_text(row, "title")) + _words(_text(row, "ingredients")))


def _visible(screen: Any) -> list[Any]:
    return [e for e in screen.tree.reading_order() if e.is_visible]


def _texts(screen: Any, rid: str) -> list[str]:
    return [e.text for e in _visible(screen) if e.resource_id == RID + rid]


def shows(screen: Any, row: Mapping[str, Any]) -> bool:
    """The details on the screen are the row's: its title, servings, time, description, source, ingredients and
    directions (a part the row leaves empty is not shown)."""
    single = (
        ("details_title", _text(row, "title").strip()),
        ("details_servings", _text(row, "servings")),
        ("details_preparation_time", _text(row, "preparationTime")),
        ("details_description", _text(row, "description")),
        ("details_source", _text(row, "source")),
    )
    for rid, want in single:
        if _texts(screen, rid) != ([want] if want else []):
            return False
    shown = [
        e.text for e in _visible(screen) if e.resource_id in (RID + "ingredient_quantity", RID + "ingredient_text")
    ]
    if _words(" ".join(shown)) != _lines(_text(row, "ingredients"), r"^\s*[-\u2013]"):
        return False
    return _words(" ".join(_texts(screen, "direction_text"))) == _lines(_text(row, "directions"), r"^\s*\d+\.")


@dataclass
class _Search:
    """One recipe being looked for: the cards tried, whether its details are up."""

    row: Mapping[str, Any]
    tried: int = 0
    found: bool = False


@dataclass
class _Memo:
    """A Decide that decides once: the reference agent may ask again on the same step (an interruption dismissed,
    an element sought), and the answer - and what it changed in the shared state - must stay the same."""

    decided: bool = field(default=False, init=False)
    step: ReferenceStep | Action | None = field(default=None, init=False)
    type: str = field(default="DECIDE", init=False)

    def choose(self, screen: Any, lang: str) -> ReferenceStep | Action | None:
        if not self.decided:
            self.decided, self.step = True, self.decide(screen)
        return self.step

    def decide(self, screen: Any) -> ReferenceStep | Action | None:
        raise NotImplementedError


@dataclass
class OpenNext(_Memo):
    """On the search results: open the next card with the recipe's title not tried yet (none: nothing to do)."""

    search: _Search = field(default_factory=lambda: _Search({}))

    def decide(self, screen: Any) -> ReferenceStep | Action | None:
        s = self.search
        title = _text(s.row, "title")
        if s.found or s.tried >= len([t for t in _texts(screen, CARD_TITLE) if t == title]):
            return None
        step = ReferenceStep(type="CLICK", locate={"resource_id": CARD_TITLE, "text": title, "nth": s.tried})
        s.tried += 1
        return step


@dataclass
class CheckDetails(_Memo):
    """On a recipe's details: the one looked for opens the menu; another goes back to the results."""

    search: _Search = field(default_factory=lambda: _Search({}))

    def decide(self, screen: Any) -> ReferenceStep | Action | None:
        s = self.search
        if s.found or not _texts(screen, "details_title"):
            return None
        if shows(screen, s.row):
            s.found = True
            return click(desc="More options")
        return UP


@dataclass
class IfFound(_Memo):
    """A step played only once the recipe's details are up."""

    search: _Search = field(default_factory=lambda: _Search({}))
    then: ReferenceStep | None = None

    def decide(self, screen: Any) -> ReferenceStep | Action | None:
        return self.then if self.search.found else None


def delete_recipe(row: Mapping[str, Any], candidates: int) -> list[Step]:
    """Search for the row, open the cards with its title until its details are up (at most `candidates`: the rows
    with that title the list may show), then More options > Delete > DELETE."""
    s = _Search(row)
    steps: list[Step] = [
        ReferenceStep(
            type="TYPE", text=search_term(row), clear=True, submit=True, locate={"resource_id": "search_src_text"}
        )
    ]
    for _ in range(max(1, candidates)):
        steps += [OpenNext(search=s), CheckDetails(search=s)]
    steps += [
        IfFound(search=s, then=click(resource_id="title", text="Delete")),
        IfFound(search=s, then=click(resource_id="android:id/button1")),
    ]
    return steps


def delete_rows(rows: Sequence[Mapping[str, Any]], present: Sequence[Mapping[str, Any]]) -> list[Step]:
    """Each of `rows` deleted from the list of `present` ones (all the rows the set-up inserted)."""
    left = list(present)
    steps: list[Step] = [open_app(BROCCOLI), click(resource_id="action_search")]
    for row in rows:
        title = _text(row, "title").lower()
        same = [r for r in left if _text(r, "title").lower() == title]
        steps += delete_recipe(row, len(same))
        if row in left:
            left.remove(row)
    return [*steps, Complete()]


def delete_recipes(p: Mapping[str, Any]) -> list[Step]:
    """RecipeDeleteSingleRecipe, ...WithNoise, RecipeDeleteMultipleRecipes, ...WithNoise, ...WithConstraint (its
    targets are the rows whose directions use the ingredient): every row of the goal deleted."""
    targets = _rows(p, "row_objects")
    return delete_rows(targets, [*_rows(p, "noise_row_objects"), *targets])


def delete_duplicate(p: Mapping[str, Any]) -> list[Step]:
    """RecipeDeleteDuplicateRecipes (1, 2, 3): one of the two copies of the duplicated row deleted."""
    targets = _rows(p, "row_objects")
    return delete_rows(targets[:1], [*_rows(p, "noise_row_objects"), *targets])


SOLVERS: dict[str, Callable[[Mapping[str, Any]], list[Step]]] = {
    "RecipeAddSingleRecipe": add_recipes,
    "RecipeAddMultipleRecipes": add_recipes,
    "RecipeAddMultipleRecipesFromMarkor": add_recipes,  # the note's recipes are the parameters' rows
    "RecipeAddMultipleRecipesFromMarkor2": add_recipes,  # the rows that take the prep_time: the parameters' rows
    "RecipeDeleteSingleRecipe": delete_recipes,
    "RecipeDeleteSingleWithRecipeWithNoise": delete_recipes,
    "RecipeDeleteMultipleRecipes": delete_recipes,
    "RecipeDeleteMultipleRecipesWithNoise": delete_recipes,
    "RecipeDeleteMultipleRecipesWithConstraint": delete_recipes,
    "RecipeDeleteDuplicateRecipes": delete_duplicate,
    "RecipeDeleteDuplicateRecipes2": delete_duplicate,
    "RecipeDeleteDuplicateRecipes3": delete_duplicate,
}
