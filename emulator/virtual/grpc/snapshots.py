"""`android.emulation.control.SnapshotService` on the virtual device: list, save, load and delete snapshots of the
device's state, in the one store the emulator console's `avd snapshot` uses (a snapshot saved on either door is
listed, loaded and deleted on the other). Pulling and pushing snapshot archives and icebox tracking are not
modelled (UNIMPLEMENTED). Failures answer as the emulator does: `success` false and the reason in `err`.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from emulator.grpcproto.messages import message

if TYPE_CHECKING:  # pragma: no cover
    from ..model import VirtualDeviceModel

SERVICE = "android.emulation.control.SnapshotService"
MODELLED_UNARY = ("ListSnapshots", "SaveSnapshot", "LoadSnapshot", "DeleteSnapshot")
UNMODELLED = {"PullSnapshot": "us", "PushSnapshot": "su", "TrackProcess": "uu"}
REQUESTS = {
    "ListSnapshots": "SnapshotFilter",
    "SaveSnapshot": "SnapshotPackage",
    "LoadSnapshot": "SnapshotPackage",
    "DeleteSnapshot": "SnapshotPackage",
}
LOADED = 2  # SnapshotDetails.LoadStatus.Loaded


class SnapshotControl:
    """The snapshot methods over `store` (name -> the model's snapshot), shared with the console."""

    def __init__(self, model: VirtualDeviceModel, store: dict[str, Any]) -> None:
        self.model = model
        self.store = store
        self.loaded: str | None = None

    def _reply(self, name: str, error: str = "") -> Any:
        return message("SnapshotPackage")(snapshot_id=name, success=not error, err=error.encode())

    def ListSnapshots(self, request: Any) -> Any:
        reply = message("SnapshotList")()
        for name, snap in list(self.store.items()):
            d = reply.snapshots.add(snapshot_id=name, status=LOADED if name == self.loaded else 0)
            d.details.logical_name = name
            d.details.creation_time = int(snap.get("time", 0))
            d.details.rotation = snap.get("state", {}).get("rotation", 0)
        return reply

    def SaveSnapshot(self, request: Any) -> Any:
        name = request.snapshot_id
        if not name:
            return self._reply(name, "a snapshot needs a snapshot_id")
        snap = self.model.snapshot()
        snap["time"] = time.time()
        self.store[name] = snap
        self.loaded = name
        self.model.events.log("grpc", command="SaveSnapshot", name=name)
        return self._reply(name)

    def LoadSnapshot(self, request: Any) -> Any:
        name = request.snapshot_id
        snap = self.store.get(name)
        if snap is None:
            return self._reply(name, f"snapshot '{name}' does not exist")
        self.model.restore(snap)
        self.loaded = name
        self.model.events.log("grpc", command="LoadSnapshot", name=name)
        return self._reply(name)

    def DeleteSnapshot(self, request: Any) -> Any:
        name = request.snapshot_id
        if self.store.pop(name, None) is None:
            return self._reply(name, f"snapshot '{name}' does not exist")
        if self.loaded == name:
            self.loaded = None
        self.model.events.log("grpc", command="DeleteSnapshot", name=name)
        return self._reply(name)
