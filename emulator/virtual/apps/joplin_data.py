"""Joplin (net.cozic.joplin)'s data: its SQLite database `joplin.sqlite` with the schema the 3.0.1 build's migrations
leave (version 46: `notes`, `folders`, `notes_normalized` and its full-text index `notes_fts`, `settings`, ...), its
strings (the app's English and zh-CN ones), and the reads and writes of its screens.

The database is the app's one truth. A note is a `notes` row (a 32-hex `id`, `parent_id` its notebook's id,
`is_todo`, `todo_completed` the time it was checked or 0, times in ms, `deleted_time` set when it went to the trash);
a notebook is a `folders` row; the search index `notes_normalized` (lower-case title) is written with each note, as
the app's search engine keeps it. The notebook shown at start is the `activeFolderId` setting (the `settings`
table), else the most recently created notebook, as the app's start does.
"""

from __future__ import annotations

import uuid
from typing import Any

from ..appstorage import AppDatabase

PKG = "net.cozic.joplin"
MAIN = "net.cozic.joplin.MainActivity"
VERSION_NAME, VERSION_CODE = "3.0.1", 2097740  # the build AndroidWorld installs (net.cozic.joplin_2097740.apk)

# the schema the app's migrations 1-46 build (JoplinDatabase.ts and services/database/migrations; version 34's
# spellfix table is left out as on Android, whose SQLite has no spellfix1), and Android's android_metadata
DDL = """
CREATE TABLE android_metadata (locale TEXT);
INSERT INTO android_metadata VALUES ('en_US');
CREATE TABLE folders (id TEXT PRIMARY KEY, title TEXT NOT NULL DEFAULT "", created_time INT NOT NULL, updated_time INT NOT NULL, user_created_time INT NOT NULL DEFAULT 0, user_updated_time INT NOT NULL DEFAULT 0, encryption_cipher_text TEXT NOT NULL DEFAULT "", encryption_applied INT NOT NULL DEFAULT 0, parent_id TEXT NOT NULL DEFAULT "", is_shared INT NOT NULL DEFAULT 0, share_id TEXT NOT NULL DEFAULT "", master_key_id TEXT NOT NULL DEFAULT "", icon TEXT NOT NULL DEFAULT "", `user_data` TEXT NOT NULL DEFAULT "", `deleted_time` INT NOT NULL DEFAULT 0);
CREATE INDEX folders_title ON folders (title);
CREATE INDEX folders_updated_time ON folders (updated_time);
CREATE TABLE tags (id TEXT PRIMARY KEY, title TEXT NOT NULL DEFAULT "", created_time INT NOT NULL, updated_time INT NOT NULL, user_created_time INT NOT NULL DEFAULT 0, user_updated_time INT NOT NULL DEFAULT 0, encryption_cipher_text TEXT NOT NULL DEFAULT "", encryption_applied INT NOT NULL DEFAULT 0, is_shared INT NOT NULL DEFAULT 0, parent_id TEXT NOT NULL DEFAULT "", `user_data` TEXT NOT NULL DEFAULT "");
CREATE INDEX tags_title ON tags (title);
CREATE INDEX tags_updated_time ON tags (updated_time);
CREATE TABLE note_tags (id TEXT PRIMARY KEY, note_id TEXT NOT NULL, tag_id TEXT NOT NULL, created_time INT NOT NULL, updated_time INT NOT NULL, user_created_time INT NOT NULL DEFAULT 0, user_updated_time INT NOT NULL DEFAULT 0, encryption_cipher_text TEXT NOT NULL DEFAULT "", encryption_applied INT NOT NULL DEFAULT 0, is_shared INT NOT NULL DEFAULT 0);
CREATE INDEX note_tags_note_id ON note_tags (note_id);
CREATE INDEX note_tags_tag_id ON note_tags (tag_id);
CREATE INDEX note_tags_updated_time ON note_tags (updated_time);
CREATE TABLE table_fields (id INTEGER PRIMARY KEY, table_name TEXT NOT NULL, field_name TEXT NOT NULL, field_type INT NOT NULL, field_default TEXT);
CREATE TABLE sync_items (id INTEGER PRIMARY KEY, sync_target INT NOT NULL, sync_time INT NOT NULL DEFAULT 0, item_type INT NOT NULL, item_id TEXT NOT NULL, sync_disabled INT NOT NULL DEFAULT "0", sync_disabled_reason TEXT NOT NULL DEFAULT "", force_sync INT NOT NULL DEFAULT 0, item_location INT NOT NULL DEFAULT 1);
CREATE INDEX sync_items_sync_time ON sync_items (sync_time);
CREATE INDEX sync_items_sync_target ON sync_items (sync_target);
CREATE INDEX sync_items_item_type ON sync_items (item_type);
CREATE INDEX sync_items_item_id ON sync_items (item_id);
CREATE TABLE version (version INT NOT NULL, table_fields_version INT NOT NULL DEFAULT 0);
CREATE TABLE deleted_items (id INTEGER PRIMARY KEY, item_type INT NOT NULL, item_id TEXT NOT NULL, deleted_time INT NOT NULL, sync_target INT NOT NULL);
CREATE INDEX deleted_items_sync_target ON deleted_items (sync_target);
CREATE TABLE `settings`(`key` TEXT PRIMARY KEY,`value` TEXT);
CREATE INDEX folders_user_updated_time ON folders (user_updated_time);
CREATE INDEX tags_user_updated_time ON tags (user_updated_time);
CREATE INDEX note_tags_user_updated_time ON note_tags (user_updated_time);
CREATE TABLE alarms (id INTEGER PRIMARY KEY AUTOINCREMENT, note_id TEXT NOT NULL, trigger_time INT NOT NULL);
CREATE INDEX alarm_note_id ON alarms (note_id);
CREATE TABLE master_keys (id TEXT PRIMARY KEY, created_time INT NOT NULL, updated_time INT NOT NULL, source_application TEXT NOT NULL, encryption_method INT NOT NULL, checksum TEXT NOT NULL, content TEXT NOT NULL);
CREATE INDEX folders_encryption_applied ON folders (encryption_applied);
CREATE INDEX tags_encryption_applied ON tags (encryption_applied);
CREATE INDEX note_tags_encryption_applied ON note_tags (encryption_applied);
CREATE TABLE item_changes (id INTEGER PRIMARY KEY AUTOINCREMENT, item_type INT NOT NULL, item_id TEXT NOT NULL, type INT NOT NULL, created_time INT NOT NULL, source INT NOT NULL DEFAULT 1, before_change_item TEXT NOT NULL DEFAULT "");
CREATE INDEX item_changes_item_id ON item_changes (item_id);
CREATE INDEX item_changes_created_time ON item_changes (created_time);
CREATE INDEX item_changes_item_type ON item_changes (item_type);
CREATE TABLE note_resources (id INTEGER PRIMARY KEY, note_id TEXT NOT NULL, resource_id TEXT NOT NULL, is_associated INT NOT NULL, last_seen_time INT NOT NULL);
CREATE INDEX note_resources_note_id ON note_resources (note_id);
CREATE INDEX note_resources_resource_id ON note_resources (resource_id);
CREATE TABLE resource_local_states (id INTEGER PRIMARY KEY, resource_id TEXT NOT NULL, fetch_status INT NOT NULL DEFAULT "2", fetch_error TEXT NOT NULL DEFAULT "");
CREATE INDEX resource_local_states_resource_id ON resource_local_states (resource_id);
CREATE INDEX resource_local_states_resource_fetch_status ON resource_local_states (fetch_status);
CREATE TABLE `resources`(`id` TEXT PRIMARY KEY,`title` TEXT NOT NULL DEFAULT "",`mime` TEXT NOT NULL,`filename` TEXT NOT NULL DEFAULT "",`created_time` INT NOT NULL,`updated_time` INT NOT NULL,`user_created_time` INT NOT NULL DEFAULT 0,`user_updated_time` INT NOT NULL DEFAULT 0,`file_extension` TEXT NOT NULL DEFAULT "",`encryption_cipher_text` TEXT NOT NULL DEFAULT "",`encryption_applied` INT NOT NULL DEFAULT 0,`encryption_blob_encrypted` INT NOT NULL DEFAULT 0, `size` INT NOT NULL DEFAULT -1, is_shared INT NOT NULL DEFAULT 0, share_id TEXT NOT NULL DEFAULT "", master_key_id TEXT NOT NULL DEFAULT "", `user_data` TEXT NOT NULL DEFAULT "", blob_updated_time INT NOT NULL DEFAULT 0, `ocr_text` TEXT NOT NULL DEFAULT "", `ocr_details` TEXT NOT NULL DEFAULT "", `ocr_status` INT NOT NULL DEFAULT 0, `ocr_error` TEXT NOT NULL DEFAULT "");
CREATE TABLE revisions (id TEXT PRIMARY KEY, parent_id TEXT NOT NULL DEFAULT "", item_type INT NOT NULL, item_id TEXT NOT NULL, item_updated_time INT NOT NULL, title_diff TEXT NOT NULL DEFAULT "", body_diff TEXT NOT NULL DEFAULT "", metadata_diff TEXT NOT NULL DEFAULT "", encryption_cipher_text TEXT NOT NULL DEFAULT "", encryption_applied INT NOT NULL DEFAULT 0, updated_time INT NOT NULL, created_time INT NOT NULL);
CREATE INDEX revisions_parent_id ON revisions (parent_id);
CREATE INDEX revisions_item_type ON revisions (item_type);
CREATE INDEX revisions_item_id ON revisions (item_id);
CREATE INDEX revisions_item_updated_time ON revisions (item_updated_time);
CREATE INDEX revisions_updated_time ON revisions (updated_time);
CREATE TABLE migrations (id INTEGER PRIMARY KEY, number INTEGER NOT NULL, updated_time INT NOT NULL, created_time INT NOT NULL);
CREATE TABLE resources_to_download (id INTEGER PRIMARY KEY, resource_id TEXT NOT NULL, updated_time INT NOT NULL, created_time INT NOT NULL);
CREATE INDEX resources_to_download_resource_id ON resources_to_download (resource_id);
CREATE INDEX resources_to_download_updated_time ON resources_to_download (updated_time);
CREATE TABLE key_values (id INTEGER PRIMARY KEY, `key` TEXT NOT NULL, `value` TEXT NOT NULL, `type` INT NOT NULL, updated_time INT NOT NULL);
CREATE UNIQUE INDEX key_values_key ON key_values (key);
CREATE INDEX resources_size ON resources(size);
CREATE TABLE `notes`(`id` TEXT PRIMARY KEY,`parent_id` TEXT NOT NULL DEFAULT "",`title` TEXT NOT NULL DEFAULT "",`body` TEXT NOT NULL DEFAULT "",`created_time` INT NOT NULL,`updated_time` INT NOT NULL,`is_conflict` INT NOT NULL DEFAULT 0,`latitude` NUMERIC NOT NULL DEFAULT 0,`longitude` NUMERIC NOT NULL DEFAULT 0,`altitude` NUMERIC NOT NULL DEFAULT 0,`author` TEXT NOT NULL DEFAULT "",`source_url` TEXT NOT NULL DEFAULT "",`is_todo` INT NOT NULL DEFAULT 0,`todo_due` INT NOT NULL DEFAULT 0,`todo_completed` INT NOT NULL DEFAULT 0,`source` TEXT NOT NULL DEFAULT "",`source_application` TEXT NOT NULL DEFAULT "",`application_data` TEXT NOT NULL DEFAULT "",`order` NUMERIC NOT NULL DEFAULT 0,`user_created_time` INT NOT NULL DEFAULT 0,`user_updated_time` INT NOT NULL DEFAULT 0,`encryption_cipher_text` TEXT NOT NULL DEFAULT "",`encryption_applied` INT NOT NULL DEFAULT 0,`markup_language` INT NOT NULL DEFAULT 1,`is_shared` INT NOT NULL DEFAULT 0, share_id TEXT NOT NULL DEFAULT "", conflict_original_id TEXT NOT NULL DEFAULT "", master_key_id TEXT NOT NULL DEFAULT "", `user_data` TEXT NOT NULL DEFAULT "", `deleted_time` INT NOT NULL DEFAULT 0);
CREATE TABLE notes_normalized (id TEXT NOT NULL, title TEXT NOT NULL DEFAULT "", body TEXT NOT NULL DEFAULT "", user_created_time INT NOT NULL DEFAULT 0, user_updated_time INT NOT NULL DEFAULT 0, is_todo INT NOT NULL DEFAULT 0, todo_completed INT NOT NULL DEFAULT 0, parent_id TEXT NOT NULL DEFAULT "", latitude NUMERIC NOT NULL DEFAULT 0, longitude NUMERIC NOT NULL DEFAULT 0, altitude NUMERIC NOT NULL DEFAULT 0, source_url TEXT NOT NULL DEFAULT "", todo_due INT NOT NULL DEFAULT 0);
CREATE INDEX notes_normalized_id ON notes_normalized (id);
CREATE INDEX notes_normalized_user_created_time ON notes_normalized (user_created_time);
CREATE INDEX notes_normalized_user_updated_time ON notes_normalized (user_updated_time);
CREATE INDEX notes_normalized_is_todo ON notes_normalized (is_todo);
CREATE INDEX notes_normalized_todo_completed ON notes_normalized (todo_completed);
CREATE INDEX notes_normalized_parent_id ON notes_normalized (parent_id);
CREATE INDEX notes_normalized_latitude ON notes_normalized (latitude);
CREATE INDEX notes_normalized_longitude ON notes_normalized (longitude);
CREATE INDEX notes_normalized_altitude ON notes_normalized (altitude);
CREATE INDEX notes_normalized_source_url ON notes_normalized (source_url);
CREATE VIRTUAL TABLE notes_fts USING fts4(content="notes_normalized", notindexed="id", notindexed="user_created_time", notindexed="user_updated_time", notindexed="is_todo", notindexed="todo_completed", notindexed="parent_id", notindexed="latitude", notindexed="longitude", notindexed="altitude", notindexed="source_url", id, title, body, user_created_time, user_updated_time, is_todo, todo_completed, parent_id, latitude, longitude, altitude, source_url);
CREATE TRIGGER notes_fts_before_update BEFORE UPDATE ON notes_normalized BEGIN DELETE FROM notes_fts WHERE docid=old.rowid; END;
CREATE TRIGGER notes_fts_before_delete BEFORE DELETE ON notes_normalized BEGIN DELETE FROM notes_fts WHERE docid=old.rowid; END;
CREATE TRIGGER notes_after_update AFTER UPDATE ON notes_normalized BEGIN INSERT INTO notes_fts(docid, id, title, body, user_created_time, user_updated_time, is_todo, todo_completed, parent_id, latitude, longitude, altitude, source_url) SELECT rowid, id, title, body, user_created_time, user_updated_time, is_todo, todo_completed, parent_id, latitude, longitude, altitude, source_url FROM notes_normalized WHERE new.rowid = notes_normalized.rowid; END;
CREATE TRIGGER notes_after_insert AFTER INSERT ON notes_normalized BEGIN INSERT INTO notes_fts(docid, id, title, body, user_created_time, user_updated_time, is_todo, todo_completed, parent_id, latitude, longitude, altitude, source_url) SELECT rowid, id, title, body, user_created_time, user_updated_time, is_todo, todo_completed, parent_id, latitude, longitude, altitude, source_url FROM notes_normalized WHERE new.rowid = notes_normalized.rowid; END;
CREATE INDEX notes_normalized_todo_due ON notes_normalized (todo_due);
CREATE TABLE items_normalized (id INTEGER PRIMARY KEY AUTOINCREMENT,title TEXT NOT NULL DEFAULT "", body TEXT NOT NULL DEFAULT "", item_id TEXT NOT NULL, item_type INT NOT NULL, user_updated_time INT NOT NULL DEFAULT 0, reserved1 INT NULL, reserved2 INT NULL, reserved3 INT NULL, reserved4 INT NULL, reserved5 INT NULL, reserved6 INT NULL);
CREATE INDEX items_normalized_id ON items_normalized (id);
CREATE INDEX items_normalized_item_id ON items_normalized (item_id);
CREATE INDEX items_normalized_item_type ON items_normalized (item_type);
CREATE VIRTUAL TABLE items_fts USING fts4(content="items_normalized", notindexed="id", notindexed="item_id", notindexed="item_type", notindexed="user_updated_time", notindexed="reserved1", notindexed="reserved2", notindexed="reserved3", notindexed="reserved4", notindexed="reserved5", notindexed="reserved6", id, title, body, item_id, item_type, user_updated_time, reserved1, reserved2, reserved3, reserved4, reserved5, reserved6);
CREATE TRIGGER items_fts_before_update BEFORE UPDATE ON items_normalized BEGIN DELETE FROM items_fts WHERE docid=old.rowid; END;
CREATE TRIGGER items_fts_before_delete BEFORE DELETE ON items_normalized BEGIN DELETE FROM items_fts WHERE docid=old.rowid; END;
CREATE TRIGGER items_after_update AFTER UPDATE ON items_normalized BEGIN INSERT INTO items_fts(docid, id, title, body, item_id, item_type, user_updated_time, reserved1, reserved2, reserved3, reserved4, reserved5, reserved6) SELECT rowid, id, title, body, item_id, item_type, user_updated_time, reserved1, reserved2, reserved3, reserved4, reserved5, reserved6 FROM items_normalized WHERE new.rowid = items_normalized.rowid; END;
CREATE TRIGGER items_after_insert AFTER INSERT ON items_normalized BEGIN INSERT INTO items_fts(docid, id, title, body, item_id, item_type, user_updated_time, reserved1, reserved2, reserved3, reserved4, reserved5, reserved6) SELECT rowid, id, title, body, item_id, item_type, user_updated_time, reserved1, reserved2, reserved3, reserved4, reserved5, reserved6 FROM items_normalized WHERE new.rowid = items_normalized.rowid; END;
CREATE VIEW tags_with_note_count AS SELECT tags.id as id, tags.title as title, tags.created_time as created_time, tags.updated_time as updated_time, COUNT(notes.id) as note_count, SUM(CASE WHEN notes.todo_completed > 0 THEN 1 ELSE 0 END) AS todo_completed_count FROM tags LEFT JOIN note_tags nt on nt.tag_id = tags.id LEFT JOIN notes on notes.id = nt.note_id WHERE notes.id IS NOT NULL AND notes.deleted_time = 0 GROUP BY tags.id;
INSERT INTO version (version, table_fields_version) VALUES (46, 46);
"""  # noqa: E501 - the statements as the app writes them
DB = AppDatabase(PKG, "joplin.sqlite", DDL, 0)

STRINGS: dict[str, tuple[str, str]] = {
    "All notes": ("All notes", "全部笔记"),
    "Notebooks": ("Notebooks", "笔记本"),
    "Sidebar": ("Sidebar", "边栏"),
    "Search": ("Search", "搜索"),
    "Search...": ("Search...", "搜索..."),
    "Back": ("Back", "返回"),
    "Add title": ("Add title", "添加标题"),
    "Add body": ("Add body", "添加内容"),
    "Edit": ("Edit", "编辑"),
    "New to-do": ("New to-do", "新建待办事项"),
    "New note": ("New note", "新建笔记"),
    "Add new": ("Add new", "新增"),
    "no_notes": (
        "There are currently no notes. Create one by clicking on the (+) button.",
        "当前没有任何笔记。点击 (+) 按钮创建。",
    ),
    "no_notebooks": ("You currently have no notebooks.", "您当前没有笔记本。"),
    "Create a notebook": ("Create a notebook", "新建一个笔记本"),
    "to-do: %s": ("to-do: %s", "待办事项：%s"),
    "New Notebook": ("New Notebook", "新建笔记本"),
    "Tags": ("Tags", "标签"),
    "Configuration": ("Configuration", "设置"),
    "Synchronise": ("Synchronise", "同步"),
    "Actions": ("Actions", "操作"),
    "Convert to note": ("Convert to note", "转换为笔记"),
    "Convert to todo": ("Convert to todo", "转换为待办事项"),
    "Delete": ("Delete", "删除"),
    "Untitled": ("Untitled", "无标题"),
    "Edit notebook": ("Edit notebook", "编辑笔记本"),
    "Enter notebook title": ("Enter notebook title", "输入笔记本标题"),
    "Save changes": ("Save changes", "保存更改"),
}


def tr(ctx: Any, key: str) -> str:
    en, zh = STRINGS[key]
    return zh if ctx.zh else en


def now_ms(ctx: Any) -> int:
    """Date.now(): the device's wall clock."""
    return int(ctx.model.now() * 1000)


def new_id() -> str:
    return uuid.uuid4().hex


# --- notebooks ------------------------------------------------------------------------------------------------------
def folders(ctx: Any) -> list[dict[str, Any]]:
    """The notebooks not in the trash, as the side menu lists them: by title, each followed by its sub-notebooks."""
    rows = DB.rows(ctx.model.fs, "SELECT id, title, parent_id FROM folders WHERE deleted_time = 0")
    by_parent: dict[str, list[dict[str, Any]]] = {}
    ids = {r["id"] for r in rows}
    for r in rows:
        parent = r["parent_id"] if r["parent_id"] in ids else ""
        by_parent.setdefault(parent, []).append(r)
    out: list[dict[str, Any]] = []

    def walk(parent: str, depth: int) -> None:
        for r in sorted(by_parent.get(parent, []), key=lambda f: (str(f["title"]).lower(), f["id"])):
            out.append({**r, "depth": depth})
            walk(r["id"], depth + 1)

    walk("", 0)
    return out


def folder(ctx: Any, folder_id: str | None) -> dict[str, Any] | None:
    if not folder_id:
        return None
    rows = DB.rows(ctx.model.fs, "SELECT * FROM folders WHERE id = ? AND deleted_time = 0", (folder_id,))
    return rows[0] if rows else None


def setting(ctx: Any, key: str) -> str:
    value = DB.scalar(ctx.model.fs, "SELECT value FROM settings WHERE key = ?", (key,))
    return "" if value is None else str(value)


def set_setting(ctx: Any, key: str, value: str) -> None:
    DB.execute(ctx.model.fs, "INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)", (key, value))


def start_folder(ctx: Any) -> str | None:
    """The notebook the app opens on: the active one, else the most recently created (Folder.defaultFolder)."""
    active = folder(ctx, setting(ctx, "activeFolderId"))
    if active is not None:
        return str(active["id"])
    latest = DB.rows(ctx.model.fs, "SELECT id FROM folders WHERE deleted_time = 0 ORDER BY created_time DESC LIMIT 1")
    return str(latest[0]["id"]) if latest else None


def add_folder(ctx: Any, title: str) -> str:
    fid, t = new_id(), now_ms(ctx)
    DB.execute(
        ctx.model.fs,
        "INSERT INTO folders (id, title, created_time, updated_time, user_created_time, user_updated_time)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        (fid, title, t, t, t, t),
    )
    return fid


# --- notes ---------------------------------------------------------------------------------------------------------
ORDER = (
    "ORDER BY (is_todo = 1 AND todo_completed = 0) DESC, user_updated_time DESC, user_created_time ASC,"
    " LOWER(title) ASC, id ASC"
)


def notes(ctx: Any, folder_id: str | None, query: str = "") -> list[dict[str, Any]]:
    """A notebook's notes (all notes without one), not in the trash: uncompleted to-dos on top, then the most
    recently updated first (the app's default order); with `query`, those whose title or body hold it."""
    where, params = ["deleted_time = 0", "is_conflict = 0"], []
    if folder_id:
        where.append("parent_id = ?")
        params.append(folder_id)
    if query.strip():
        where.append("(title LIKE ? OR body LIKE ?)")
        params += [f"%{query.strip()}%"] * 2
    return DB.rows(ctx.model.fs, f"SELECT * FROM notes WHERE {' AND '.join(where)} {ORDER}", params)


def note(ctx: Any, note_id: str | None) -> dict[str, Any] | None:
    if not note_id:
        return None
    rows = DB.rows(ctx.model.fs, "SELECT * FROM notes WHERE id = ?", (note_id,))
    return rows[0] if rows else None


def display_title(ctx: Any, n: dict[str, Any]) -> str:
    """Note.displayTitle: the title, or Untitled."""
    return str(n.get("title") or "") or tr(ctx, "Untitled")


def _normalize(conn: Any, note_id: str) -> None:
    """The search engine's row of the note (notes_normalized, title lower-cased), written again."""
    conn.execute("DELETE FROM notes_normalized WHERE id = ?", (note_id,))
    conn.execute(
        "INSERT INTO notes_normalized (id, title, body, user_created_time, user_updated_time, is_todo,"
        " todo_completed, parent_id, latitude, longitude, altitude, source_url, todo_due)"
        " SELECT id, LOWER(title), body, user_created_time, user_updated_time, is_todo, todo_completed, parent_id,"
        " latitude, longitude, altitude, source_url, todo_due FROM notes WHERE id = ? AND deleted_time = 0",
        (note_id,),
    )


def save_note(ctx: Any, note_id: str | None, **values: Any) -> str:
    """Note.save: a new note (in `parent_id`) or the changed fields of one, its times now."""
    t = now_ms(ctx)
    with DB.change(ctx.model.fs) as conn:
        if note_id is None or conn.execute("SELECT 1 FROM notes WHERE id = ?", (note_id,)).fetchone() is None:
            note_id = note_id or new_id()
            row = {"id": note_id, "title": "", "body": "", "parent_id": "", "is_todo": 0, **values}
            row.update(created_time=t, updated_time=t, user_created_time=t, user_updated_time=t)
            cols = ", ".join(f'"{k}"' for k in row)
            conn.execute(f"INSERT INTO notes ({cols}) VALUES ({', '.join('?' * len(row))})", tuple(row.values()))
        else:
            row = {**values, "updated_time": t, "user_updated_time": t}
            sets = ", ".join(f'"{k}" = ?' for k in row)
            conn.execute(f"UPDATE notes SET {sets} WHERE id = ?", (*row.values(), note_id))
        _normalize(conn, note_id)
    return note_id


def set_todo_completed(ctx: Any, note_id: str, done: bool) -> None:
    save_note(ctx, note_id, todo_completed=now_ms(ctx) if done else 0)


def trash_note(ctx: Any, note_id: str) -> None:
    """Note.delete(toTrash): deleted_time now; out of the search index."""
    t = now_ms(ctx)
    with DB.change(ctx.model.fs) as conn:
        conn.execute("UPDATE notes SET deleted_time = ?, updated_time = ? WHERE id = ?", (t, t, note_id))
        conn.execute("DELETE FROM notes_normalized WHERE id = ?", (note_id,))
