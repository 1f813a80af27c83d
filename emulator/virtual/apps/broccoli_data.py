"""Broccoli's data: its Room database `broccoli` (/data/data/com.flauschcode.broccoli/databases/broccoli), the one
truth every screen reads and every change writes, its activities and its strings (the app's English and zh ones).

The schema is the one Room 2.5 creates for the app's BroccoliDatabase version 1 (identity hash 1548e88f...):
`recipes` (recipeId, title, imageName, description, servings, preparationTime, source, ingredients, directions,
favorite), `categories`, the join table `recipes_with_categories` (cascading deletes, its two indices), the FTS4
table `recipes_fts` over title / description / source / ingredients (content=`recipes`, kept in step by Room's
four triggers), `room_master_table` and Android's `android_metadata`.

Reading as the app's RecipeDAO does: the list ordered by title (COLLATE NOCASE), filtered by the chosen category
(all, favorites, without category, a custom one); a search term matches the FTS table as `term*`, titles first.
Writing as RecipeRepository does: a new recipe inserted with every text column set ("" for an empty field) and
favorite 0, an edit updating its row and its categories, a delete removing the row (and its categories).
"""

from __future__ import annotations

import re
from typing import Any

from ..appstorage import AppDatabase
from ..fs import FileSystem

PKG = "com.flauschcode.broccoli"
MAIN = f"{PKG}.MainActivity"
DETAILS = f"{PKG}.recipe.details.RecipeDetailsActivity"
EDIT = f"{PKG}.recipe.crud.CreateAndEditRecipeActivity"
VERSION_NAME, VERSION_CODE = "1.2.6", 1020600  # the build AndroidWorld installs (com.flauschcode.broccoli_1020600)
DB_NAME = "broccoli"
IDENTITY_HASH = "1548e88f42d976a4b4915ca1cfa71e00"

# the columns a recipe has, in the table's order (recipeId first)
COLUMNS = (
    "recipeId",
    "title",
    "imageName",
    "description",
    "servings",
    "preparationTime",
    "source",
    "ingredients",
    "directions",
    "favorite",
)
TEXT_FIELDS = ("title", "description", "source", "servings", "preparationTime", "ingredients", "directions")

_FTS_COLUMNS = "`title`, `description`, `source`, `ingredients`"
_FTS_NEW = "NEW.`title`, NEW.`description`, NEW.`source`, NEW.`ingredients`"
DDL = f"""
CREATE TABLE android_metadata (locale TEXT);
INSERT INTO android_metadata VALUES ('en_US');
CREATE TABLE IF NOT EXISTS `recipes` (`recipeId` INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, `title` TEXT,
 `imageName` TEXT, `description` TEXT, `servings` TEXT, `preparationTime` TEXT, `source` TEXT, `ingredients` TEXT,
 `directions` TEXT, `favorite` INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS `categories` (`categoryId` INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, `name` TEXT);
CREATE TABLE IF NOT EXISTS `recipes_with_categories` (`recipeId` INTEGER NOT NULL, `categoryId` INTEGER NOT NULL,
 PRIMARY KEY(`recipeId`, `categoryId`),
 FOREIGN KEY(`recipeId`) REFERENCES `recipes`(`recipeId`) ON UPDATE NO ACTION ON DELETE CASCADE ,
 FOREIGN KEY(`categoryId`) REFERENCES `categories`(`categoryId`) ON UPDATE NO ACTION ON DELETE CASCADE );
CREATE INDEX IF NOT EXISTS `index_recipes_with_categories_recipeId` ON `recipes_with_categories` (`recipeId`);
CREATE INDEX IF NOT EXISTS `index_recipes_with_categories_categoryId` ON `recipes_with_categories` (`categoryId`);
CREATE VIRTUAL TABLE IF NOT EXISTS `recipes_fts` USING FTS4(`title` TEXT, `description` TEXT, `source` TEXT,
 `ingredients` TEXT, tokenize=unicode61 `tokenchars=#`, content=`recipes`);
CREATE TRIGGER IF NOT EXISTS room_fts_content_sync_recipes_fts_BEFORE_UPDATE BEFORE UPDATE ON `recipes`
 BEGIN DELETE FROM `recipes_fts` WHERE `docid`=OLD.`rowid`; END;
CREATE TRIGGER IF NOT EXISTS room_fts_content_sync_recipes_fts_BEFORE_DELETE BEFORE DELETE ON `recipes`
 BEGIN DELETE FROM `recipes_fts` WHERE `docid`=OLD.`rowid`; END;
CREATE TRIGGER IF NOT EXISTS room_fts_content_sync_recipes_fts_AFTER_UPDATE AFTER UPDATE ON `recipes`
 BEGIN INSERT INTO `recipes_fts`(`docid`, {_FTS_COLUMNS}) VALUES (NEW.`rowid`, {_FTS_NEW}); END;
CREATE TRIGGER IF NOT EXISTS room_fts_content_sync_recipes_fts_AFTER_INSERT AFTER INSERT ON `recipes`
 BEGIN INSERT INTO `recipes_fts`(`docid`, {_FTS_COLUMNS}) VALUES (NEW.`rowid`, {_FTS_NEW}); END;
CREATE TABLE IF NOT EXISTS room_master_table (id INTEGER PRIMARY KEY,identity_hash TEXT);
INSERT OR REPLACE INTO room_master_table (id,identity_hash) VALUES(42, '{IDENTITY_HASH}');
"""
DB = AppDatabase(PKG, DB_NAME, DDL, 1)

# the spinner's built-in categories (CategoryRepository's ids), before the custom ones
ALL, FAVORITES, UNASSIGNED, SEASONAL = -1, -2, -3, -4
BUILTIN_CATEGORIES = (ALL, SEASONAL, UNASSIGNED, FAVORITES)  # RecipeFragment.setUpSpinner's order

STRINGS: dict[str, tuple[str, str]] = {
    "app_name": ("Broccoli", "Broccoli"),
    "recipes": ("Recipes", "食谱"),
    "no_recipes_found": ("No recipes found.", "未找到食谱"),
    "create_a_recipe_prompt": ("create a new recipe", "创建新食谱"),
    "import_from_the_web_prompt": ("import a recipe from a website", "从网站导入食谱"),
    "new_recipe": ("New Recipe", "新食谱"),
    "edit_action": ("Edit", "编辑"),
    "save_action": ("Save", "保存"),
    "title_should_not_be_empty_message": ("Please add a title.", "请输入标题。"),
    "recipe_saved_message": ("The recipe has been saved.", "食谱已被保存."),
    "delete_action": ("Delete", "删除"),
    "delete_recipe_question": ("Delete this recipe?", "删除此食谱？"),
    "recipe_deleted_message": ("The recipe has been deleted.", "该食谱已被删除"),
    "discard_action": ("Discard", "丢弃"),
    "discard_changes_question": ("Discard changes?", "放弃修改？"),
    "title": ("Title", "标题"),
    "description": ("Description", "描述"),
    "source": ("Source", "来源"),
    "servings": ("Servings", "份量"),
    "preparation_time": ("Time", "耗时"),
    "ingredients": ("Ingredients", "食材"),
    "directions": ("Directions", "指示"),
    "recipe_photo_accessibility": ("Recipe photo", "食谱照片"),
    "change_photo": ("Change photo", "更改照片"),
    "categories": ("Categories", "食谱分类"),
    "no_categories_message": ("No categories have been created yet.", "尚未创建类别"),
    "all_recipes": ("All recipes", "全部食谱"),
    "mark_as_favorite_action": ("Mark as favorite", "加入收藏"),
    "remove_from_favorite_action": ("Remove from favorites", "从收藏中删除"),
    "favorites": ("Favorites", "收藏"),
    "unassigned": ("Recipes without category", "无分类食谱"),
    "seasonal_recipes": ("Seasonal recipes", "季节性食谱"),
    "search": ("Search", "搜索"),
    "search_in": ("Search in {}", "在 {} 中搜索"),
    # AppCompat's and the framework's
    "navigate_up": ("Navigate up", "向上导航"),
    "more_options": ("More options", "更多选项"),
    "collapse": ("Collapse", "收起"),
    "clear_query": ("Clear query", "清除查询"),
    "cancel": ("Cancel", "取消"),
    "ok": ("OK", "确定"),
}


def tr(ctx: Any, key: str) -> str:
    en, zh = STRINGS[key]
    return zh if ctx.zh else en


def caps(text: str) -> str:
    """A Material button's label as it shows (textAllCaps)."""
    return text.upper()


def category_name(ctx: Any, category_id: int, fs: FileSystem) -> str:
    builtin = {ALL: "all_recipes", FAVORITES: "favorites", UNASSIGNED: "unassigned", SEASONAL: "seasonal_recipes"}
    if category_id in builtin:
        return tr(ctx, builtin[category_id])
    row = DB.rows(fs, "SELECT name FROM categories WHERE categoryId = ?", (category_id,))
    return str(row[0]["name"] or "") if row else tr(ctx, "all_recipes")


# --- reading ---------------------------------------------------------------------------------------------------
def _select(fts: bool) -> str:
    cols = ", ".join(f"recipes.{c}" for c in COLUMNS)
    join = " JOIN recipes_fts ON (recipes.recipeId = recipes_fts.docid)" if fts else ""
    return f"SELECT {cols} FROM recipes{join}"


def recipes(fs: FileSystem, category: int = ALL, term: str = "") -> list[dict[str, Any]]:
    """The recipes the list shows for a category and a search term (RecipeRepository.find)."""
    where: list[str] = []
    params: list[Any] = []
    term = term.strip()
    if term:
        where.append("recipes_fts MATCH ?")
        params.append(f"{term}*")
    if category == FAVORITES:
        where.append("recipes.favorite = 1")
    elif category == UNASSIGNED:
        where.append("NOT EXISTS (SELECT * FROM recipes_with_categories c WHERE c.recipeId = recipes.recipeId)")
    elif category == SEASONAL:
        return []  # the seasonal calendar is not configured: no seasonal terms to match
    elif category != ALL:
        where.append(
            "EXISTS (SELECT * FROM recipes_with_categories c WHERE c.recipeId = recipes.recipeId AND c.categoryId = ?)"
        )
        params.append(category)
    order = "recipes.title COLLATE NOCASE, recipes.recipeId"
    if term:
        order = "SUBSTR(OFFSETS(recipes_fts), 1, 1), " + order
    sql = _select(bool(term)) + (" WHERE " + " AND ".join(where) if where else "") + " ORDER BY " + order
    return DB.rows(fs, sql, params)


def recipe(fs: FileSystem, recipe_id: Any) -> dict[str, Any] | None:
    rows = DB.rows(fs, _select(False) + " WHERE recipes.recipeId = ?", (recipe_id,))
    return rows[0] if rows else None


def categories(fs: FileSystem) -> list[dict[str, Any]]:
    """The custom categories by name (CategoryDAO.findAll)."""
    return DB.rows(fs, "SELECT categoryId, name FROM categories ORDER BY name")


def recipe_categories(fs: FileSystem, recipe_id: Any) -> list[dict[str, Any]]:
    sql = (
        "SELECT c.categoryId, c.name FROM categories c JOIN recipes_with_categories r"
        " ON r.categoryId = c.categoryId WHERE r.recipeId = ? ORDER BY c.name"
    )
    return DB.rows(fs, sql, (recipe_id,))


# --- writing ---------------------------------------------------------------------------------------------------
def save(fs: FileSystem, recipe_id: int | None, values: dict[str, str], category_ids: list[int]) -> int:
    """Insert a new recipe (recipe_id None) or update one, and set its categories; its id."""
    fields = {k: values.get(k, "") for k in TEXT_FIELDS}
    with DB.change(fs) as conn:
        if recipe_id is None:
            cols = ("title", "imageName", *TEXT_FIELDS[1:], "favorite")
            vals = (fields["title"], "", *(fields[k] for k in TEXT_FIELDS[1:]), 0)
            marks = ", ".join("?" * len(cols))
            cur = conn.execute(f"INSERT INTO recipes ({', '.join(cols)}) VALUES ({marks})", vals)
            recipe_id = int(cur.lastrowid or 0)
        else:
            sets = ", ".join(f"{k} = ?" for k in TEXT_FIELDS)
            conn.execute(f"UPDATE recipes SET {sets} WHERE recipeId = ?", (*fields.values(), recipe_id))
            conn.execute("DELETE FROM recipes_with_categories WHERE recipeId = ?", (recipe_id,))
        for cid in category_ids:
            conn.execute(
                "INSERT OR IGNORE INTO recipes_with_categories (recipeId, categoryId) VALUES (?, ?)", (recipe_id, cid)
            )
    return recipe_id


def set_favorite(fs: FileSystem, recipe_id: int, favorite: bool) -> None:
    DB.execute(fs, "UPDATE recipes SET favorite = ? WHERE recipeId = ?", (1 if favorite else 0, recipe_id))


def delete(fs: FileSystem, recipe_id: int) -> None:
    """RecipeDAO.delete (the foreign key cascades to the recipe's categories)."""
    with DB.change(fs) as conn:
        conn.execute("DELETE FROM recipes_with_categories WHERE recipeId = ?", (recipe_id,))
        conn.execute("DELETE FROM recipes WHERE recipeId = ?", (recipe_id,))


# --- how the details show ingredients and directions ------------------------------------------------------------
_FRACTIONS = "¼½¾⅐⅑⅒⅓⅔⅕⅖⅗⅘⅙⅚⅛⅜⅝⅞"
_AMOUNT = rf"(?:[{_FRACTIONS}]|\d+[,/.-]*\d*)"
_QUANTITY = re.compile(rf"^\s*{_AMOUNT}(?:\s*-\s*{_AMOUNT})?(?!$)")


def ingredient_lines(text: str | None) -> list[tuple[str, str]]:
    """One (quantity, text) per non-blank line, a leading dash dropped, a leading amount (or range) apart."""
    out: list[tuple[str, str]] = []
    for line in (text or "").split("\n"):
        line = re.sub(r"^\s*[-\u2013](?!$)", "", line).strip()
        if not line:
            continue
        m = _QUANTITY.match(line)
        quantity = m.group(0).strip() if m else ""
        out.append((quantity, line[m.end() :].strip() if m else line))
    return out


def direction_lines(text: str | None) -> list[str]:
    """One step per non-blank line, a leading "N." numbering dropped (the details number them again)."""
    out = []
    for line in (text or "").split("\n"):
        line = re.sub(r"^\s*\d+\.(?!$)", "", line).strip()
        if line:
            out.append(line)
    return out
