"""The bundled task families, by name (`droidharness tasks families`)."""

from __future__ import annotations

import re

from tasks.schema import Task, TaskError

from .apps import CART, NOTE, WEATHER_UNIT
from .base import Family, instantiate
from .calendar import EVENT
from .camera import CAMERA_SHOT
from .clock import ALARM, TIMER
from .drawing import DRAWING
from .expense import EXPENSE_ADD
from .files import FILES_FAMILY
from .gallery import GALLERY_FAMILY
from .joplin import JOPLIN_NOTE
from .markor import NOTE_FILE
from .opentracks import OPENTRACKS_RECORD
from .orgtasks import ORGTASKS
from .osmand import OSMAND_FAVORITE
from .people import CONTACT, TEXT
from .recipe import RECIPE
from .recorder import RECORDING
from .retro import RETRO_PLAYLIST
from .vlc import VLC_PLAYLIST

FAMILIES: dict[str, Family] = {
    f.name: f
    for f in (
        ALARM,
        TIMER,
        CONTACT,
        TEXT,
        NOTE,
        WEATHER_UNIT,
        CART,
        EVENT,
        EXPENSE_ADD,
        NOTE_FILE,
        RECIPE,
        ORGTASKS,
        JOPLIN_NOTE,
        OPENTRACKS_RECORD,
        FILES_FAMILY,
        CAMERA_SHOT,
        GALLERY_FAMILY,
        OSMAND_FAVORITE,
        RECORDING,
        RETRO_PLAYLIST,
        DRAWING,
        VLC_PLAYLIST,
    )
}


def get_family(name: str) -> Family:
    try:
        return FAMILIES[name]
    except KeyError:
        raise TaskError(f"no task family {name!r}; known: {', '.join(FAMILIES)}") from None


def family_tasks(name: str, seed: int, count: int) -> list[Task]:
    """`count` instances of the family `name` drawn with `seed` (`tasks.families.base.instantiate`)."""
    return instantiate(get_family(name), seed, count)


FAMILY_PREFIX = "family:"


def family_spec(name: str, seed: int, instances: int) -> str:
    """The suite name of a family's instances (what `run --family` runs and its manifest records):
    `family:NAME:seed=S:instances=K`; `tasks.suite.load_suite` loads it."""
    return f"{FAMILY_PREFIX}{name}:seed={seed}:instances={instances}"


def is_family_spec(text: str) -> bool:
    return text.startswith(FAMILY_PREFIX)


def spec_tasks(spec: str) -> list[Task]:
    """The tasks of a family spec (`family_spec`), in instance order."""
    m = re.fullmatch(r"family:([A-Za-z0-9][A-Za-z0-9_.-]*):seed=(-?\d+):instances=(\d+)", spec)
    if m is None:
        raise TaskError(f"{spec!r}: a family suite is family:NAME:seed=S:instances=K")
    return family_tasks(m.group(1), int(m.group(2)), int(m.group(3)))
