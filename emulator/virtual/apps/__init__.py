"""Built-in apps of the virtual device: the framework in `base.py`, one module (or a few `NAME_*` modules) per app,
the list the device installs in `builtin.py`."""

from __future__ import annotations

from .base import App, GenericApp, StaticApp

__all__ = ["App", "GenericApp", "StaticApp"]
