"""The reference agent on AndroidWorld's Broccoli classes, without AndroidWorld: each solver played on the virtual
device from an instance's parameters - its rows as they arrive through JSON (a dataclass row as its repr) - over a
database holding the rows AndroidWorld's set-up inserts, and the rows read back as its judge reads them."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from agents import androidworld_reference as awr
from agents.aw import recipe
from emulator.virtual.apps.broccoli_data import DB, MAIN, PKG
from emulator.virtual.model import VirtualDeviceModel
from harness.plugins import create_agent
from tests.agents_helpers import make_task, run

FIELDS = ("title", "description", "servings", "preparationTime", "source", "ingredients", "directions", "favorite")
CLASSES = {
    "RecipeAddSingleRecipe",
    "RecipeAddMultipleRecipes",
    "RecipeAddMultipleRecipesFromMarkor",
    "RecipeAddMultipleRecipesFromMarkor2",
    "RecipeDeleteSingleRecipe",
    "RecipeDeleteSingleWithRecipeWithNoise",
    "RecipeDeleteMultipleRecipes",
    "RecipeDeleteMultipleRecipesWithNoise",
    "RecipeDeleteMultipleRecipesWithConstraint",
    "RecipeDeleteDuplicateRecipes",
    "RecipeDeleteDuplicateRecipes2",
    "RecipeDeleteDuplicateRecipes3",
}


@dataclasses.dataclass(frozen=True)
class Recipe:
    """AndroidWorld's row type (sqlite_schema_utils.Recipe): its fields, its repr."""

    title: str
    description: str = ""
    servings: str = ""
    preparationTime: str = ""  # noqa: N815 - the column's name
    source: str = ""
    ingredients: str = ""
    directions: str = ""
    favorite: int = 0
    imageName: str = ""  # noqa: N815
    recipeId: int = -1  # noqa: N815


SOUP = Recipe("Lentil Soup", "A hearty meal.", "2 servings", "45 mins", "", "as needed", "Cook lentils. Serve hot.")
TOAST = Recipe('Avocado "Toast"', "Quick.", "1 serving", "10 mins", "", "see directions", "Toast bread, add avocado.")
CURRY = Recipe("Mango Chicken Curry", "Rich, fruity.", "3-4 servings", "1 hrs", "", "n/a", "Simmer chicken in mango.")


def _rows(m: VirtualDeviceModel) -> list[tuple[Any, ...]]:
    return [tuple(r[f] for f in FIELDS) for r in DB.rows(m.fs, "SELECT * FROM recipes ORDER BY recipeId")]


def _as_row(r: Recipe) -> tuple[Any, ...]:
    return tuple(getattr(r, f) for f in FIELDS)


def _device(*rows: Recipe) -> VirtualDeviceModel:
    """A device whose database holds `rows`, inserted as AndroidWorld inserts them, the app then stopped."""
    m = VirtualDeviceModel()
    m.start_activity(PKG, MAIN)  # the first start makes the database
    with DB.change(m.fs) as conn:
        for r in rows:
            values = {k: v for k, v in dataclasses.asdict(r).items() if k != "recipeId"}
            marks = ", ".join("?" * len(values))
            conn.execute(f"INSERT INTO recipes ({', '.join(values)}) VALUES ({marks})", tuple(values.values()))
    m.force_stop(PKG)
    m.go_home()
    return m


def play(m: VirtualDeviceModel, cls: str, max_steps: int, **params: Any) -> list[Any]:
    task = make_task(f"AndroidWorld {cls}", outside={"suite": "androidworld", "class": cls, "params": params})
    steps = run(create_agent("reference"), m, task, max_steps=max_steps)
    last = steps[-1].action
    assert last is not None and last.type == "COMPLETE", [s.action for s in steps]
    assert not any(s.invalid for s in steps), [s.error for s in steps if s.invalid]
    return steps


def test_the_solved_classes_are_registered_and_rows_read_back_from_their_repr() -> None:
    assert set(recipe.SOLVERS) == CLASSES and CLASSES <= set(awr.SOLVERS)
    fields = recipe.row_fields(repr(TOAST))
    assert fields is not None and fields["title"] == 'Avocado "Toast"' and fields["favorite"] == 0
    assert recipe.row_fields({"title": "x"}) == {"title": "x"}
    assert recipe.row_fields("Recipe(title=open('x'))") is None and recipe.row_fields(3) is None
    assert recipe.search_term(TOAST.__dict__) == "avocado toast see directions"


def test_recipes_are_added_with_every_field() -> None:
    m = _device(CURRY)
    play(m, "RecipeAddMultipleRecipes", 40, row_objects=[repr(SOUP), dataclasses.asdict(TOAST)])
    assert _rows(m) == [_as_row(CURRY), _as_row(SOUP), _as_row(TOAST)]


def test_the_named_recipes_are_deleted_and_no_other() -> None:
    m = _device(CURRY, SOUP, TOAST)
    play(m, "RecipeDeleteMultipleRecipes", 30, row_objects=[repr(SOUP), repr(TOAST)], noise_row_objects=[repr(CURRY)])
    assert _rows(m) == [_as_row(CURRY)]


@pytest.mark.parametrize("differs", [{"directions": "Cook lentils with cumin."}, {"servings": "8 servings"}])
def test_one_of_two_exact_duplicates_is_deleted_past_a_variant(differs: dict[str, Any]) -> None:
    """A variant of the duplicated row (the same title, description and ingredients: the same card; other
    directions or servings) comes first in the list: it is opened, found not to be the row, and left; one copy of
    the duplicated row goes."""
    variant = dataclasses.replace(SOUP, **differs)
    noise = [CURRY, variant]
    m = _device(*noise, SOUP, SOUP)
    rows = [repr(r) for r in noise]
    play(m, "RecipeDeleteDuplicateRecipes2", 30, row_objects=[repr(SOUP)] * 2, noise_row_objects=rows)
    assert _rows(m) == [_as_row(CURRY), _as_row(variant), _as_row(SOUP)]
