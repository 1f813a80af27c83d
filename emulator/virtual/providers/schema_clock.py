"""DeskClock's `alarms.db` as its ClockDatabaseHelper keeps it: `alarm_templates` (the alarms: _id, hour, minutes,
daysofweek, enabled, vibrate, label, ringtone, delete_after_use) and `alarm_instances` (the next ring of each
alarm; left empty here: nothing rings). DeskClock opens it in device-protected storage (it runs before the
first unlock), so the file is /data/user_de/0/PKG/databases/alarms.db of the installed clock package."""

from __future__ import annotations

import sqlite3

from ..apps.clock import PKG
from ..ui.host import Device
from .base import app_data
from .clock import COLUMNS, alarm_row, days_of
from .store import Rows, Schema, query

PATH = f"/data/user_de/0/{PKG}/databases/alarms.db"

DDL = """
CREATE TABLE android_metadata (locale TEXT);
CREATE TABLE alarm_templates (_id INTEGER PRIMARY KEY, hour INTEGER NOT NULL, minutes INTEGER NOT NULL,
 daysofweek INTEGER NOT NULL, enabled INTEGER NOT NULL, vibrate INTEGER NOT NULL, label TEXT NOT NULL,
 ringtone TEXT, delete_after_use INTEGER NOT NULL DEFAULT 0);
CREATE TABLE alarm_instances (_id INTEGER PRIMARY KEY, year INTEGER NOT NULL, month INTEGER NOT NULL,
 day INTEGER NOT NULL, hour INTEGER NOT NULL, minutes INTEGER NOT NULL, vibrate INTEGER NOT NULL,
 label TEXT NOT NULL, ringtone TEXT, alarm_state INTEGER NOT NULL, alarm_id INTEGER REFERENCES
 alarm_templates(_id) ON UPDATE CASCADE ON DELETE CASCADE);
"""


def dump(model: Device) -> Rows:
    alarms = sorted(app_data(model, PKG).get("alarms", []), key=lambda a: a["id"])
    return {"android_metadata": [{"locale": "en_US"}], "alarm_templates": [alarm_row(a) for a in alarms]}


def load(model: Device, conn: sqlite3.Connection) -> None:
    rows = query(conn, f"SELECT {', '.join(COLUMNS)} FROM alarm_templates ORDER BY _id")
    data = app_data(model, PKG)
    old = {a["id"]: a for a in data.get("alarms", [])}
    alarms = [
        {
            **old.get(int(r["_id"]), {}),
            "id": int(r["_id"]),
            "hour": int(r["hour"] or 0) % 24,
            "minute": int(r["minutes"] or 0) % 60,
            "label": str(r["label"] or ""),
            "enabled": bool(r["enabled"]),
            "days": days_of(int(r["daysofweek"] or 0)),
        }
        for r in rows
    ]
    data["alarms"] = sorted(alarms, key=lambda a: (a["hour"], a["minute"], a["id"]))
    data["next_id"] = max([int(data.get("next_id", 1))] + [a["id"] + 1 for a in alarms])
    model.events.log("alarms", action="load", rows=len(alarms))


ALARMS = Schema(PATH, DDL, ("alarm_templates",), dump, load)
