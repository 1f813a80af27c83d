"""The providers' database files of a device: where each lives and the `Database` that keeps it one truth with
the provider's data (`store`). Settings are not here: since Android 12 the settings provider keeps
/data/system/users/0/settings_{system,secure,global}.xml in binary XML, not SQLite, and the virtual device keeps
settings in its model as before."""

from __future__ import annotations

from ..ui.host import Device
from .schema_clock import ALARMS
from .schema_contacts import CALLLOG, CONTACTS
from .schema_sms import SMS
from .store import Database, Schema

SCHEMAS: tuple[Schema, ...] = (CONTACTS, CALLLOG, SMS, ALARMS)
# Files the shell user may write (`adb push`, `sqlite3`), as on an emulator image after `adb root`.
DATABASE_PATHS = frozenset(s.path for s in SCHEMAS)


def attach_databases(model: Device) -> None:
    """Watch each database file of the model's file system (its directory made now, the file written when first
    read, so the apps' data is seeded as late as before)."""
    for schema in SCHEMAS:
        model.fs.mkdir(schema.path.rsplit("/", 1)[0], parents=True)
        model.fs.watch(schema.path, Database(model, schema))
