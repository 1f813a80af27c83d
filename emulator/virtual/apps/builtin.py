"""The virtual device's built-in apps, in launcher order (`apps/__init__` imports none of them, so an app's modules
may import one another as `from . import x`)."""

from __future__ import annotations

from .audiorecorder import AudioRecorderApp
from .base import App
from .broccoli import BroccoliApp
from .calendar import SimpleCalendarApp
from .camera import CameraApp
from .clipper import ClipperApp
from .clock import ClockApp
from .contacts import ContactsApp
from .dialer import DialerApp
from .expense import ExpenseApp
from .files import FilesApp
from .gallery import GalleryApp
from .joplin import JoplinApp
from .launcher import LauncherApp
from .markor import MarkorApp
from .messages import MessagesApp
from .notes import NotesApp
from .opentracks import OpenTracksApp
from .orgtasks import OrgTasksApp
from .osmand import OsmAndApp
from .retromusic import RetroMusicApp
from .settings import SettingsApp
from .shop import ShopApp
from .simpledraw import SimpleDrawApp
from .smsmessenger import SmsMessengerApp
from .vlc import VlcApp
from .weather import WeatherApp

# in launcher order
BUILTIN: list[type[App]] = [
    LauncherApp,
    SettingsApp,
    NotesApp,
    ContactsApp,
    ClockApp,
    ShopApp,
    WeatherApp,
    MessagesApp,
    DialerApp,  # no launcher icon
    SmsMessengerApp,  # installed apps (not system ones), as AndroidWorld installs them
    ClipperApp,
    BroccoliApp,
    SimpleCalendarApp,
    ExpenseApp,
    MarkorApp,
    OrgTasksApp,
    JoplinApp,
    RetroMusicApp,
    VlcApp,
    OpenTracksApp,
    GalleryApp,
    FilesApp,
    CameraApp,
    OsmAndApp,
    AudioRecorderApp,
    SimpleDrawApp,
]


def builtin_apps() -> list[App]:
    return [cls() for cls in BUILTIN]


__all__ = ["BUILTIN", "builtin_apps"]
