"""What the package manager knows of a package beyond `model.Package` (requested and granted permissions, SDK
levels, the last update, the enabled state of `pm enable` / `pm disable-user`), kept per device by the shell, and
where its APK lies.
Below the commands that read it: `pm`, `am` (a disabled package's activities do not resolve, as on Android) and
`dumpsys package`."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .registry import Ctx, procs

if TYPE_CHECKING:  # pragma: no cover
    from ..records import Package


@dataclass
class PackageMeta:
    requested: list[str] = field(default_factory=list)
    granted: set[str] = field(default_factory=set)
    min_sdk: int = 24
    target_sdk: int = 34
    last_update_time: float = field(default_factory=time.time)
    enabled: str = "enabled"  # "enabled", "disabled", "disabled-user", "default"
    debuggable: bool = False  # android:debuggable: what `run-as` asks


def meta(ctx: Ctx, package: str) -> PackageMeta:
    """The package's record (created with its defaults on first use)."""
    p = procs(ctx.model)
    store = p.pkg_meta
    with p.lock:
        m = store.get(package)
        if m is None:
            pkg = ctx.model.packages.get(package)
            m = store[package] = PackageMeta(
                requested=list(pkg.permissions) if pkg else [],
                last_update_time=pkg.first_install_time if pkg else ctx.model.clock.time(),
            )
        return m


def is_enabled(ctx: Ctx, package: str) -> bool:
    """False after `pm disable` / `pm disable-user` (until `pm enable` / `pm default-state`)."""
    p = procs(ctx.model)
    with p.lock:
        m = p.pkg_meta.get(package)
    return m is None or not m.enabled.startswith("disabled")


def apk_path(pkg: Package) -> str:
    if pkg.apk_path:
        return pkg.apk_path
    short = pkg.name.rsplit(".", 1)[-1].capitalize()
    base = "/system/priv-app" if pkg.system else "/data/app"
    return f"{base}/{short}/{short}.apk"
