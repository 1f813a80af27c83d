"""The content providers of the virtual device, as `content query / insert / update / delete` reach them: the
settings store (content://settings), contacts (content://com.android.contacts, legacy content://contacts), the
call log (content://call_log/calls), SMS (content://sms), the clock's alarms
(content://com.android.deskclock/alarms) and MediaStore over shared storage (content://media). Each serves the
data the matching app's UI shows and changes, so a change through either side shows on the other
(docs/virtual-device.md, "Content providers")."""

from __future__ import annotations

from ..ui.host import Device
from .base import Provider, ProviderError, Table, UnknownUri, Values
from .calllog import PROVIDER_PKG as CONTACTS_PROVIDER_PKG
from .calllog import CallLogProvider
from .clock import ClockProvider
from .contacts import ContactsProvider
from .media import MediaProvider
from .settings import SettingsProvider
from .sms import SmsProvider
from .where import Predicate, SelectionError, selection

_CONTACTS, _CALLS, _SMS = ContactsProvider(), CallLogProvider(), SmsProvider()
PROVIDERS: tuple[Provider, ...] = (SettingsProvider(), _CONTACTS, _SMS, ClockProvider(), _CALLS, MediaProvider())
TELEPHONY_PROVIDER_PKG = "com.android.providers.telephony"
_BY_AUTHORITY = {a: p for p in PROVIDERS for a in p.authorities}


def clear_provider_package(model: Device, package: str) -> bool:
    """`pm clear` of a package that holds provider data on a phone without being an app here: the contacts
    provider (contacts and the call log), the telephony provider (SMS). False for any other package."""
    if package == TELEPHONY_PROVIDER_PKG:
        _SMS.clear(model)
        return True
    if package != CONTACTS_PROVIDER_PKG:
        return False
    _CONTACTS.clear(model)
    _CALLS.clear(model)
    return True


def resolve(uri: str) -> tuple[Provider, str]:
    """The provider of a content:// URI and the path inside it ("sms/inbox" keeps its authority as the first
    segment for content://sms, whose authority is also its table). Raises `UnknownUri`."""
    if not uri.startswith("content://"):
        raise UnknownUri(uri)
    authority, _, path = uri[len("content://") :].partition("/")
    provider = _BY_AUTHORITY.get(authority)
    if provider is None:
        raise UnknownUri(uri)
    if authority == "sms":
        path = "sms" + (f"/{path}" if path else "")
    return provider, path.rstrip("/")


__all__ = [
    "PROVIDERS",
    "Predicate",
    "Provider",
    "ProviderError",
    "SelectionError",
    "Table",
    "UnknownUri",
    "Values",
    "clear_provider_package",
    "resolve",
    "selection",
]
