"""`root:` and `unroot:` (adb root / adb unroot), answered as adbd answers them.

A user build refuses ("adbd cannot run as root in production builds"); a debuggable one (the emulator's
userdebug image) answers "restarting adbd as root" / "restarting adbd as non root" and restarts adbd
(`emulator.virtual.adbd`), or says it already is what was asked.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..buildprops import debuggable
from ..streams import Stream

if TYPE_CHECKING:  # pragma: no cover
    from ..model import VirtualDeviceModel


def serve_root(model: VirtualDeviceModel, root: bool, stream: Stream) -> None:
    model.events.log("adbd", action="root" if root else "unroot")
    if not debuggable(model.props):
        stream.write(b"adbd cannot run as root in production builds\n")
        return
    if model.adbd.root == root:
        stream.write(b"adbd is already running as root\n" if root else b"adbd not running as root\n")
        return
    stream.write(b"restarting adbd as root\n" if root else b"restarting adbd as non root\n")
    model.adbd.restart(model, root)
