"""A task's start state, put on a device by the operations every device has (home, airplane mode, settings, app data
cleared, apps stopped, contacts and provider rows inserted with `content insert`, clipboard, an app opened). Apps
named by role (`@clock`) are resolved on the device first.
"""

from __future__ import annotations

from harness.device.apps import role_packages
from harness.device.controller import Device
from harness.device.prepare import set_airplane
from harness.device.state import DeviceState, StateUnreadable
from harness.errors import DeviceError
from tasks.roles import is_role, role_of
from tasks.schema import StartContact, StartState

RAW_CONTACTS = "content://com.android.contacts/raw_contacts"
DATA = "content://com.android.contacts/data"
NAME_TYPE, PHONE_TYPE, EMAIL_TYPE = (f"vnd.android.cursor.item/{k}" for k in ("name", "phone_v2", "email_v2"))


def resolve_start(device: Device, start: StartState) -> StartState:
    """The start state with its app roles (`@clock`) replaced by the packages this device has."""
    refs = [*start.reset_apps, *start.stop_apps, start.open_app or ""]
    roles = list(dict.fromkeys(role_of(r) for r in refs if is_role(r)))
    if not roles:
        return start
    pkgs = role_packages(device, roles)

    def pkg(ref: str) -> str:
        return pkgs[role_of(ref)] if is_role(ref) else ref

    return start.model_copy(
        update={
            "reset_apps": tuple(map(pkg, start.reset_apps)),
            "stop_apps": tuple(map(pkg, start.stop_apps)),
            "open_app": pkg(start.open_app) if start.open_app else None,
        }
    )


def insert_contact(state: DeviceState, contact: StartContact) -> int:
    """A new raw contact with the contact's name, phone and email rows (as ContactsContract takes them); returns
    its id (the raw contact that appeared: `content insert` prints no URI)."""
    before = {r["_id"] for r in state.query(RAW_CONTACTS, ("_id",))}
    state.insert(RAW_CONTACTS, {"account_type": None, "account_name": None})
    new = sorted(int(i) for i in {r["_id"] for r in state.query(RAW_CONTACTS, ("_id",))} - before if i)
    if not new:
        raise StateUnreadable(f"content insert {RAW_CONTACTS}: no new raw contact appeared")
    rid = new[-1]
    for mimetype, value, kind in (
        (NAME_TYPE, contact.name, None),
        (PHONE_TYPE, contact.phone, 2),  # TYPE_MOBILE
        (EMAIL_TYPE, contact.email, 1),  # TYPE_HOME
    ):
        if value:
            row: dict[str, str | int | float | bool | None] = {
                "raw_contact_id": rid,
                "mimetype": mimetype,
                "data1": value,
            }
            if kind is not None:
                row["data2"] = kind
            state.insert(DATA, row)
    return rid


def prepare_start(device: Device, start: StartState) -> None:
    """Put the device in the task's start state: home, airplane mode, settings, apps reset/stopped, contacts and
    provider rows inserted, clipboard, app opened."""
    start = resolve_start(device, start)
    device.press_home()
    if start.airplane is not None:
        set_airplane(device, start.airplane)
    for name, value in start.settings.items():
        namespace, _, key = name.partition(":")
        device.put_setting(namespace, key, value)
    for pkg in start.reset_apps:
        device.clear_app(pkg)
    for pkg in start.stop_apps:
        device.stop_app(pkg)
    if start.contacts or start.content:
        state = DeviceState(device.shell)
        try:
            for contact in start.contacts:
                insert_contact(state, contact)
            for row in start.content:
                state.insert(row.uri, dict(row.values))
        except StateUnreadable as e:
            raise DeviceError(f"device {device.serial}: start state: {e}") from None
    if start.clipboard is not None:
        device.set_clipboard(start.clipboard)
    if start.open_app:
        device.launch(start.open_app)
