"""Find and tap views of the virtual device's screen in-process (shared by the UI and app tests)."""

from __future__ import annotations

from emulator.virtual.model import VirtualDeviceModel
from emulator.virtual.ui.view import View


def views(m: VirtualDeviceModel) -> list[View]:
    return [v for r in m.view_roots() for v in r.walk()]


def find(
    m: VirtualDeviceModel,
    text: str | None = None,
    rid: str | None = None,
    desc: str | None = None,
    package: str | None = None,
) -> View:
    for v in views(m):
        if (
            (text is None or v.text == text)
            and (rid is None or v.resource_id.endswith(rid))
            and (desc is None or v.desc == desc)
            and (package is None or v.package == package)
        ):
            return v
    raise AssertionError(
        f"no view text={text!r} rid={rid!r} desc={desc!r}; texts: {sorted({x.text for x in views(m) if x.text})}"
    )


def exists(m: VirtualDeviceModel, **kw) -> bool:
    try:
        find(m, **kw)
        return True
    except AssertionError:
        return False


def tap(m: VirtualDeviceModel, **kw) -> View:
    v = find(m, **kw)
    m.tap(*v.center)
    return v
