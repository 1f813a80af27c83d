"""Broccoli: a recipe with a title, its servings, its time, an ingredient and a step of directions, added on a fresh
install (the list's New Recipe button, the form - each field typed, the keyboard then put away so the next one
shows -, SAVE). Judged by the app's database: the `recipes` table of
`broccoli` holds a row with those texts, as AndroidWorld's recipe classes judge it; the saved recipe's details open.

The recipe is written in the instruction's language and typed as it is written."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .base import Family
from .build import click, milestone, open_app, steps_for_both, type_into
from .params import Text, TextParam

BROCCOLI = "com.flauschcode.broccoli"
DB_PATH = f"/data/data/{BROCCOLI}/databases/broccoli"
DETAILS = f"{BROCCOLI}.recipe.details.RecipeDetailsActivity"

TITLES = (
    ("Lentil Soup", "扁豆汤"),
    ("Tomato Egg Stir Fry", "番茄炒蛋"),
    ("Garlic Butter Shrimp", "蒜香黄油虾"),
    ("Greek Salad", "希腊沙拉"),
    ("Banana Pancakes", "香蕉松饼"),
    ("Mushroom Risotto", "蘑菇烩饭"),
)
SERVINGS = (("2 servings", "2人份"), ("4 servings", "4人份"), ("6 servings", "6人份"))
TIMES = (("15 mins", "15分钟"), ("30 mins", "30分钟"), ("1 hrs", "1小时"))
INGREDIENTS = (
    ("200 g flour", "200克面粉"),
    ("3 eggs", "3个鸡蛋"),
    ("1 onion", "1个洋葱"),
    ("2 cloves garlic", "2瓣大蒜"),
)
DIRECTIONS = (
    ("Mix everything and cook for ten minutes.", "把所有材料混合，煮十分钟。"),
    ("Fry gently, then season to taste.", "小火煎，再按口味调味。"),
    ("Bake until golden.", "烤至金黄。"),
)
# the form's fields: (parameter, the EditText's id, the row's column)
FIELDS = (
    ("title", "new_title", "title"),
    ("servings", "new_servings", "servings"),
    ("time", "new_preparation_time", "preparationTime"),
    ("ingredient", "new_ingredients", "ingredients"),
    ("direction", "new_directions", "directions"),
)


def build_recipe(v: Mapping[str, Any]) -> dict[str, Any]:
    texts: dict[str, Text] = {k: v[k] for k, _, _ in FIELDS}
    title = texts["title"]
    row = {col: {"equals": texts[k].loc(), "case_sensitive": True} for k, _, col in FIELDS}
    saved = {"sqlite": {"path": DB_PATH, "table": "recipes", "row": row}}
    steps: list[dict[str, Any]] = [open_app("Broccoli", "Broccoli", BROCCOLI), click("fab_recipes")]
    for k, rid, _ in FIELDS:  # each field typed, then the keyboard put away: the next field shows again
        steps += [type_into(texts[k].loc(), rid), {"type": "BACK"}]
    steps += [click("button_save_recipe"), {"type": "COMPLETE"}]
    s, t, i, d = (texts[k] for k in ("servings", "time", "ingredient", "direction"))
    return {
        "category": "2-1",
        "apps": [BROCCOLI],
        "instruction": {
            "en": f'In Broccoli, add a recipe "{title.en}" for {s.en} that takes {t.en}, with the ingredient '
            f'"{i.en}" and the directions "{d.en}".',
            "zh": f"在 Broccoli 里新建食谱“{title.zh}”：份量“{s.zh}”，耗时“{t.zh}”，食材“{i.zh}”，步骤“{d.zh}”。",
        },
        "start": {"reset_apps": [BROCCOLI]},
        "max_steps": 20,
        "milestones": {
            "order": "ordered",
            "children": [
                milestone(
                    "form",
                    "Open the new recipe form",
                    "打开新建食谱的表单",
                    {"package": BROCCOLI, "element": {"resource_id": "new_title"}},
                ),
                milestone(
                    "saved",
                    "The recipe is saved with its servings, time, ingredient and directions",
                    "食谱已保存，份量、耗时、食材和步骤都正确",
                    {
                        "activity": DETAILS,
                        "element": {"resource_id": "details_title", "text": title.loc(), "case_sensitive": True},
                        "state": saved,
                    },
                ),
            ],
        },
        "end_state": [{"check": {"state": saved}}],
        "reference": steps_for_both(steps),
    }


RECIPE = Family(
    name="recipe",
    description="a recipe with its servings, time, an ingredient and directions, added on a fresh install (Broccoli;"
    " judged by its database's recipes row)",
    params={
        "title": TextParam(TITLES),
        "servings": TextParam(SERVINGS),
        "time": TextParam(TIMES),
        "ingredient": TextParam(INGREDIENTS),
        "direction": TextParam(DIRECTIONS),
    },
    build=build_recipe,
)

__all__ = ["RECIPE"]
