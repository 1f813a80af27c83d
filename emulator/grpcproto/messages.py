"""The emulator's gRPC messages, as the published protos define them (`emulator_controller.proto`,
`snapshot_service.proto`, `snapshot.proto` of the Android Emulator, package `android.emulation.control` and
`emulator_snapshot`): the subset the virtual device serves, built here field by field - same message names,
field names, numbers and types - so what goes over the wire is what stubs generated from those protos read.

The descriptors live in a pool of their own (not protobuf's default pool), so a process that also imports the
emulator's generated stubs (a test, android_env) holds both without a clash. Only protobuf is imported here.
"""

from __future__ import annotations

from typing import Any

from google.protobuf import descriptor_pb2, descriptor_pool, empty_pb2, message_factory

PACKAGE = "android.emulation.control"
SNAPSHOT_PACKAGE = "emulator_snapshot"

_F = descriptor_pb2.FieldDescriptorProto
_SCALARS = {
    "double": _F.TYPE_DOUBLE,
    "float": _F.TYPE_FLOAT,
    "int64": _F.TYPE_INT64,
    "uint64": _F.TYPE_UINT64,
    "int32": _F.TYPE_INT32,
    "uint32": _F.TYPE_UINT32,
    "bool": _F.TYPE_BOOL,
    "string": _F.TYPE_STRING,
    "bytes": _F.TYPE_BYTES,
}

# message -> its fields (name, number, type); a type is a scalar, "enum:Name" (an enum of that message), or a
# message's name; "repeated " in front for a repeated field. The enums follow, as (name, value) pairs.
CONTROL_MESSAGES: dict[str, list[tuple[str, int, str]]] = {
    "VmRunState": [("state", 1, "enum:RunState")],
    "ParameterValue": [("data", 1, "repeated float")],
    "PhysicalModelValue": [
        ("target", 1, "enum:PhysicalType"),
        ("status", 2, "enum:State"),
        ("value", 3, "ParameterValue"),
    ],
    "LogMessage": [
        ("contents", 1, "string"),
        ("start", 2, "int64"),
        ("next", 3, "int64"),
        ("sort", 4, "enum:LogType"),
        ("entries", 5, "repeated LogcatEntry"),
    ],
    "LogcatEntry": [
        ("timestamp", 1, "uint64"),
        ("pid", 2, "uint32"),
        ("tid", 3, "uint32"),
        ("level", 4, "enum:LogLevel"),
        ("tag", 5, "string"),
        ("msg", 6, "string"),
    ],
    "VmConfiguration": [
        ("hypervisorType", 1, "enum:VmHypervisorType"),
        ("numberOfCpuCores", 2, "int32"),
        ("ramSizeBytes", 3, "int64"),
    ],
    "ClipData": [("text", 1, "string")],
    "Touch": [
        ("x", 1, "int32"),
        ("y", 2, "int32"),
        ("identifier", 3, "int32"),
        ("pressure", 4, "int32"),
        ("touch_major", 5, "int32"),
        ("touch_minor", 6, "int32"),
        ("expiration", 7, "enum:EventExpiration"),
    ],
    "TouchEvent": [("touches", 1, "repeated Touch"), ("display", 2, "int32")],
    "MouseEvent": [("x", 1, "int32"), ("y", 2, "int32"), ("buttons", 3, "int32"), ("display", 4, "int32")],
    "KeyboardEvent": [
        ("codeType", 1, "enum:KeyCodeType"),
        ("eventType", 2, "enum:KeyEventType"),
        ("keyCode", 3, "int32"),
        ("key", 4, "string"),
        ("text", 5, "string"),
    ],
    "GpsState": [
        ("passiveUpdate", 1, "bool"),
        ("latitude", 2, "double"),
        ("longitude", 3, "double"),
        ("speed", 4, "double"),
        ("bearing", 5, "double"),
        ("altitude", 6, "double"),
        ("satellites", 7, "int32"),
    ],
    "BatteryState": [
        ("hasBattery", 1, "bool"),
        ("isPresent", 2, "bool"),
        ("charger", 3, "enum:BatteryCharger"),
        ("chargeLevel", 4, "int32"),
        ("health", 5, "enum:BatteryHealth"),
        ("status", 6, "enum:BatteryStatus"),
    ],
    "ImageTransport": [("channel", 1, "enum:TransportChannel"), ("handle", 2, "string")],
    "FoldedDisplay": [
        ("width", 1, "uint32"),
        ("height", 2, "uint32"),
        ("xOffset", 3, "uint32"),
        ("yOffset", 4, "uint32"),
    ],
    "ImageFormat": [
        ("format", 1, "enum:ImgFormat"),
        ("rotation", 2, "Rotation"),
        ("width", 3, "uint32"),
        ("height", 4, "uint32"),
        ("display", 5, "uint32"),
        ("transport", 6, "ImageTransport"),
        ("foldedDisplay", 7, "FoldedDisplay"),
    ],
    "Image": [
        ("format", 1, "ImageFormat"),
        ("width", 2, "uint32"),
        ("height", 3, "uint32"),
        ("image", 4, "bytes"),
        ("seq", 5, "uint32"),
        ("timestampUs", 6, "uint64"),
    ],
    "Rotation": [
        ("rotation", 1, "enum:SkinRotation"),
        ("xAxis", 2, "double"),
        ("yAxis", 3, "double"),
        ("zAxis", 4, "double"),
    ],
    "PhoneCall": [("operation", 1, "enum:Operation"), ("number", 2, "string")],
    "PhoneResponse": [("response", 1, "enum:Response")],
    "Entry": [("key", 1, "string"), ("value", 2, "string")],
    "EntryList": [("entry", 1, "repeated Entry")],
    "EmulatorStatus": [
        ("version", 1, "string"),
        ("uptime", 2, "uint64"),
        ("booted", 3, "bool"),
        ("vmConfig", 4, "VmConfiguration"),
        ("hardwareConfig", 5, "EntryList"),
    ],
    "SmsMessage": [("srcAddress", 1, "string"), ("text", 2, "string")],
    "DisplayConfiguration": [
        ("width", 1, "uint32"),
        ("height", 2, "uint32"),
        ("dpi", 3, "uint32"),
        ("flags", 4, "uint32"),
        ("display", 5, "uint32"),
    ],
    "DisplayConfigurations": [("displays", 1, "repeated DisplayConfiguration")],
    # snapshot_service.proto (same package)
    "SnapshotPackage": [
        ("snapshot_id", 1, "string"),
        ("payload", 2, "bytes"),
        ("success", 3, "bool"),
        ("err", 4, "bytes"),
        ("format", 5, "enum:Format"),
        ("path", 6, "string"),
    ],
    "SnapshotFilter": [("statusFilter", 1, "enum:LoadStatus")],
    "SnapshotDetails": [
        ("snapshot_id", 1, "string"),
        ("details", 2, ".emulator_snapshot.Snapshot"),
        ("status", 3, "enum:LoadStatus"),
        ("size", 4, "uint64"),
    ],
    "SnapshotList": [("snapshots", 1, "repeated SnapshotDetails")],
}

CONTROL_ENUMS: dict[str, dict[str, list[tuple[str, int]]]] = {
    "VmRunState": {
        "RunState": [
            ("UNKNOWN", 0),
            ("RUNNING", 1),
            ("RESTORE_VM", 2),
            ("PAUSED", 3),
            ("SAVE_VM", 4),
            ("SHUTDOWN", 5),
            ("TERMINATE", 7),
            ("RESET", 9),
            ("INTERNAL_ERROR", 10),
        ]
    },
    "PhysicalModelValue": {
        "State": [("OK", 0), ("NO_SERVICE", -3), ("DISABLED", -2), ("UNKNOWN", -1)],
        "PhysicalType": [
            (n, i)
            for i, n in enumerate(
                "POSITION ROTATION MAGNETIC_FIELD TEMPERATURE PROXIMITY LIGHT PRESSURE HUMIDITY VELOCITY "
                "AMBIENT_MOTION HINGE_ANGLE0 HINGE_ANGLE1 HINGE_ANGLE2 ROLLABLE0 ROLLABLE1 ROLLABLE2".split()
            )
        ],
    },
    "LogMessage": {"LogType": [("Text", 0), ("Parsed", 1)]},
    "LogcatEntry": {
        "LogLevel": [(n, i) for i, n in enumerate("UNKNOWN DEFAULT VERBOSE DEBUG INFO WARN ERR FATAL SILENT".split())]
    },
    "VmConfiguration": {
        "VmHypervisorType": [(n, i) for i, n in enumerate("UNKNOWN NONE KVM HAXM HVF WHPX GVM".split())]
    },
    "Touch": {"EventExpiration": [("EVENT_EXPIRATION_UNSPECIFIED", 0), ("NEVER_EXPIRE", 1)]},
    "KeyboardEvent": {
        "KeyCodeType": [("Usb", 0), ("Evdev", 1), ("XKB", 2), ("Win", 3), ("Mac", 4)],
        "KeyEventType": [("keydown", 0), ("keyup", 1), ("keypress", 2)],
    },
    "BatteryState": {
        "BatteryStatus": [(n, i) for i, n in enumerate("UNKNOWN CHARGING DISCHARGING NOT_CHARGING FULL".split())],
        "BatteryCharger": [(n, i) for i, n in enumerate("NONE AC USB WIRELESS".split())],
        "BatteryHealth": [(n, i) for i, n in enumerate("GOOD FAILED DEAD OVERVOLTAGE OVERHEATED".split())],
    },
    "ImageTransport": {"TransportChannel": [("TRANSPORT_CHANNEL_UNSPECIFIED", 0), ("MMAP", 1)]},
    "ImageFormat": {"ImgFormat": [("PNG", 0), ("RGBA8888", 1), ("RGB888", 2)]},
    "Rotation": {
        "SkinRotation": [("PORTRAIT", 0), ("LANDSCAPE", 1), ("REVERSE_PORTRAIT", 2), ("REVERSE_LANDSCAPE", 3)]
    },
    "PhoneCall": {
        "Operation": [
            ("InitCall", 0),
            ("AcceptCall", 1),
            ("RejectCallExplicit", 2),
            ("RejectCallBusy", 3),
            ("DisconnectCall", 4),
            ("PlaceCallOnHold", 5),
            ("TakeCallOffHold", 6),
        ]
    },
    "PhoneResponse": {
        "Response": [
            (n, i) for i, n in enumerate("OK BadOperation BadNumber InvalidAction ActionFailed RadioOff".split())
        ]
    },
    "SnapshotPackage": {"Format": [("TARGZ", 0), ("TAR", 1), ("DIRECTORY", 2)]},
    "SnapshotFilter": {"LoadStatus": [("CompatibleOnly", 0), ("All", 1)]},
    "SnapshotDetails": {"LoadStatus": [("Compatible", 0), ("Incompatible", 1), ("Loaded", 2)]},
}

# snapshot.proto (proto2, package emulator_snapshot): the Snapshot message's fields the device fills in
SNAPSHOT_FIELDS: list[tuple[str, int, str]] = [
    ("version", 1, "int32"),
    ("creation_time", 2, "int64"),
    ("rotation", 9, "int32"),
    ("logical_name", 12, "string"),
    ("parent", 13, "string"),
    ("description", 14, "string"),
]


def _field(msg: descriptor_pb2.DescriptorProto, package: str, name: str, number: int, spec: str, proto2: bool) -> None:
    f = msg.field.add(name=name, number=number, json_name=_json_name(name))
    repeated = spec.startswith("repeated ")
    spec = spec.removeprefix("repeated ")
    f.label = _F.LABEL_REPEATED if repeated else _F.LABEL_OPTIONAL
    if spec in _SCALARS:
        f.type = _SCALARS[spec]
    elif spec.startswith("enum:"):
        f.type = _F.TYPE_ENUM
        f.type_name = f".{package}.{msg.name}.{spec[5:]}"
    else:
        f.type = _F.TYPE_MESSAGE
        f.type_name = spec if spec.startswith(".") else f".{package}.{spec}"
    if proto2 and not repeated:
        f.label = _F.LABEL_OPTIONAL


def _json_name(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


def _files() -> list[descriptor_pb2.FileDescriptorProto]:
    empty = descriptor_pb2.FileDescriptorProto()
    empty_pb2.DESCRIPTOR.CopyToProto(empty)
    snap = descriptor_pb2.FileDescriptorProto(
        name="droidharness/emulator_snapshot.proto", package=SNAPSHOT_PACKAGE, syntax="proto2"
    )
    smsg = snap.message_type.add(name="Snapshot")
    for name, number, spec in SNAPSHOT_FIELDS:
        _field(smsg, SNAPSHOT_PACKAGE, name, number, spec, proto2=True)
    control = descriptor_pb2.FileDescriptorProto(
        name="droidharness/emulator_control.proto",
        package=PACKAGE,
        syntax="proto3",
        dependency=[empty.name, snap.name],
    )
    for mname, fields in CONTROL_MESSAGES.items():
        msg = control.message_type.add(name=mname)
        for ename, values in CONTROL_ENUMS.get(mname, {}).items():
            enum = msg.enum_type.add(name=ename)
            for vname, number in values:
                enum.value.add(name=vname, number=number)
        for fname, number, spec in fields:
            _field(msg, PACKAGE, fname, number, spec, proto2=False)
    return [empty, snap, control]


POOL = descriptor_pool.DescriptorPool()
for _fdp in _files():
    POOL.Add(_fdp)


def message(name: str) -> Any:
    """The message class `name` ("Image", "emulator_snapshot.Snapshot", "google.protobuf.Empty"): names without a
    package are the emulator's (android.emulation.control)."""
    full = name if "." in name else f"{PACKAGE}.{name}"
    return message_factory.GetMessageClass(POOL.FindMessageTypeByName(full))


Empty = message("google.protobuf.Empty")
