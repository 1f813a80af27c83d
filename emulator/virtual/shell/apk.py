"""Reading APKs pushed to the device: the zip, its binary AndroidManifest.xml (AXML) and, for labels and
version names given as references, a lookup in resources.arsc.

AXML layout (all little-endian): a chunk header `type u16, header_size u16, size u32`. The file is an XML
chunk (0x0003) holding a string pool (0x0001), a resource-id map (0x0180) and XML node chunks: start/end
namespace (0x0100/0x0101), start element (0x0102), end element (0x0103), CDATA (0x0104). A start element has
`line, comment, ns, name, attr_start u16, attr_size u16, attr_count u16, ...` and attributes of 20 bytes:
`ns, name, raw_value, size u16, res0 u8, data_type u8, data u32`.
"""

from __future__ import annotations

import io
import struct
import zipfile
from dataclasses import dataclass, field

RES_STRING_POOL = 0x0001
RES_XML = 0x0003
RES_XML_START_ELEMENT = 0x0102
RES_XML_RESOURCE_MAP = 0x0180
RES_TABLE = 0x0002
RES_TABLE_PACKAGE = 0x0200
RES_TABLE_TYPE = 0x0201

TYPE_REFERENCE = 0x01
TYPE_STRING = 0x03
TYPE_INT_DEC = 0x10
TYPE_INT_HEX = 0x11
TYPE_BOOLEAN = 0x12

# android:* attribute resource ids (android.R.attr)
ATTR_IDS = {
    0x01010003: "name",
    0x0101021B: "versionCode",
    0x0101021C: "versionName",
    0x01010006: "permission",
    0x01010001: "label",
    0x0101020C: "minSdkVersion",
    0x01010270: "targetSdkVersion",
    0x01010010: "exported",
    0x0101000E: "enabled",
}


class ApkError(Exception):
    """The file is not a readable APK (the message is the install failure reason)."""


@dataclass
class Element:
    tag: str
    attrs: dict[str, object]
    depth: int


@dataclass
class ApkInfo:
    package: str
    version_code: int = 1
    version_name: str = "null"
    label: str | None = None
    min_sdk: int = 1
    target_sdk: int = 1
    activities: list[str] = field(default_factory=list)
    launcher_activity: str | None = None
    ime_services: list[str] = field(default_factory=list)  # full class names of InputMethod services
    permissions: list[str] = field(default_factory=list)


def _string_pool(buf: bytes, off: int) -> list[str]:
    _, header_size, size = struct.unpack_from("<HHI", buf, off)
    count, _styles, flags, strings_start, _ = struct.unpack_from("<IIIII", buf, off + 8)
    utf8 = bool(flags & 0x100)
    offsets = struct.unpack_from(f"<{count}I", buf, off + header_size)
    base = off + strings_start
    out = []
    for o in offsets:
        p = base + o
        try:
            if utf8:
                n = buf[p]
                p += 2 if n & 0x80 else 1  # utf-16 length (skipped)
                n = buf[p]
                if n & 0x80:
                    n = ((n & 0x7F) << 8) | buf[p + 1]
                    p += 2
                else:
                    p += 1
                out.append(buf[p : p + n].decode("utf-8", "replace"))
            else:
                n = struct.unpack_from("<H", buf, p)[0]
                p += 2
                if n & 0x8000:
                    n = ((n & 0x7FFF) << 16) | struct.unpack_from("<H", buf, p)[0]
                    p += 2
                out.append(buf[p : p + 2 * n].decode("utf-16-le", "replace"))
        except (IndexError, struct.error):
            out.append("")
    return out


def parse_axml(buf: bytes) -> list[Element]:
    """Start elements of a binary XML document, in document order, with attribute values decoded."""
    if len(buf) < 8:
        raise ApkError("manifest too short")
    ftype, fheader, fsize = struct.unpack_from("<HHI", buf, 0)
    if ftype != RES_XML:
        raise ApkError("not a binary XML file")
    strings: list[str] = []
    resmap: list[int] = []
    out: list[Element] = []
    depth = 0
    off = fheader
    end = min(len(buf), fsize)
    while off + 8 <= end:
        ctype, cheader, csize = struct.unpack_from("<HHI", buf, off)
        if csize < 8:
            raise ApkError("corrupt binary XML chunk")
        if ctype == RES_STRING_POOL:
            strings = _string_pool(buf, off)
        elif ctype == RES_XML_RESOURCE_MAP:
            resmap = list(struct.unpack_from(f"<{(csize - cheader) // 4}I", buf, off + cheader))
        elif ctype == RES_XML_START_ELEMENT:
            ext = off + cheader
            _ns, name, attr_start, attr_size, attr_count = struct.unpack_from("<IIHHH", buf, ext)
            attrs: dict[str, object] = {}
            for k in range(attr_count):
                a = ext + attr_start + k * attr_size
                _ans, aname, raw, _sz, _res0, dtype, data = struct.unpack_from("<IIIHBBI", buf, a)
                key = ATTR_IDS.get(resmap[aname]) if aname < len(resmap) else None
                if key is None:
                    key = strings[aname] if aname < len(strings) else f"attr{aname}"
                value: object
                if dtype == TYPE_STRING:
                    value = strings[data] if data < len(strings) else ""
                elif raw != 0xFFFFFFFF and raw < len(strings):
                    value = strings[raw]
                elif dtype == TYPE_BOOLEAN:
                    value = data != 0
                elif dtype in (TYPE_INT_DEC, TYPE_INT_HEX):
                    value = data if data < 0x80000000 else data - (1 << 32)
                elif dtype == TYPE_REFERENCE:
                    value = ("@", data)
                else:
                    value = data
                attrs[key] = value
            depth += 1
            out.append(Element(strings[name] if name < len(strings) else "", attrs, depth))
        elif ctype == 0x0103:  # end element
            depth -= 1
        off += csize
    return out


def _full_class(package: str, name: str) -> str:
    if name.startswith("."):
        return package + name
    return name if "." in name else f"{package}.{name}"


def _arsc_string(arsc: bytes, res_id: int, locale: str = "") -> str | None:
    """Resolve a string resource id (0x7fTTEEEE) from resources.arsc, default configuration first."""
    try:
        ttype, theader, tsize = struct.unpack_from("<HHI", arsc, 0)
        if ttype != RES_TABLE:
            return None
        off = theader
        global_strings: list[str] = []
        want_type = (res_id >> 16) & 0xFF
        want_entry = res_id & 0xFFFF
        while off + 8 <= len(arsc):
            ctype, cheader, csize = struct.unpack_from("<HHI", arsc, off)
            if ctype == RES_STRING_POOL:
                global_strings = _string_pool(arsc, off)
            elif ctype == RES_TABLE_PACKAGE:
                p = off + cheader
                end = off + csize
                while p + 8 <= end:
                    ptype, pheader, psize = struct.unpack_from("<HHI", arsc, p)
                    if psize < 8:
                        break
                    if ptype == RES_TABLE_TYPE and arsc[p + 8] == want_type:
                        entry_count, entries_start = struct.unpack_from("<II", arsc, p + 12)
                        cfg_size = struct.unpack_from("<I", arsc, p + 20)[0]
                        lang = arsc[p + 28 : p + 30].rstrip(b"\0").decode("latin-1") if cfg_size >= 12 else ""
                        if want_entry < entry_count and lang == locale:
                            eoff = struct.unpack_from("<I", arsc, p + pheader + 4 * want_entry)[0]
                            if eoff != 0xFFFFFFFF:
                                e = p + entries_start + eoff
                                esize = struct.unpack_from("<H", arsc, e)[0]
                                _vsize, _r, vtype, vdata = struct.unpack_from("<HBBI", arsc, e + esize)
                                if vtype == TYPE_STRING and vdata < len(global_strings):
                                    return global_strings[vdata]
                    p += psize
            off += csize
    except (struct.error, IndexError):
        return None
    return None


def read_apk(data: bytes) -> ApkInfo:
    """Parse an APK's manifest. Raises ApkError when the bytes are not an installable APK."""
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
        manifest = zf.read("AndroidManifest.xml")
    except (zipfile.BadZipFile, KeyError, OSError, ValueError, EOFError) as e:
        raise ApkError(f"Failed to load asset path: {e}") from None
    try:
        arsc = zf.read("resources.arsc")
    except (KeyError, zipfile.BadZipFile, OSError, ValueError):
        arsc = b""
    try:
        elements = parse_axml(manifest)
    except (struct.error, IndexError) as e:
        raise ApkError(f"Failed to parse AndroidManifest.xml: {e}") from None
    if not elements or elements[0].tag != "manifest" or not isinstance(elements[0].attrs.get("package"), str):
        raise ApkError("<manifest> has no package name")
    root = elements[0].attrs
    info = ApkInfo(package=str(root["package"]))

    def text(value: object) -> str | None:
        if isinstance(value, str):
            return value
        if isinstance(value, tuple) and arsc:
            return _arsc_string(arsc, int(value[1]))
        return None

    vc = root.get("versionCode")
    info.version_code = int(vc) if isinstance(vc, int) or (isinstance(vc, str) and vc.isdigit()) else 1
    info.version_name = text(root.get("versionName")) or "null"
    component: tuple[str, str] | None = None  # (kind, full class) of the element we are inside
    comp_depth = 0
    in_filter: dict[str, set[str]] = {}
    for el in elements[1:]:
        if component is not None and el.depth <= comp_depth:
            component = None
        a = el.attrs
        if el.tag == "uses-sdk":
            ms = a.get("minSdkVersion")
            info.min_sdk = int(ms) if isinstance(ms, int) else 1
            ts = a.get("targetSdkVersion")
            info.target_sdk = int(ts) if isinstance(ts, int) else info.min_sdk
        elif el.tag == "uses-permission" and isinstance(a.get("name"), str):
            info.permissions.append(str(a["name"]))
        elif el.tag == "application":
            info.label = text(a.get("label"))
        elif el.tag in ("activity", "activity-alias", "service") and isinstance(a.get("name"), str):
            full = _full_class(info.package, str(a["name"]))
            component, comp_depth = (el.tag, full), el.depth
            in_filter = {"action": set(), "category": set()}
            if el.tag != "service":
                info.activities.append(full)
            elif a.get("permission") == "android.permission.BIND_INPUT_METHOD":
                info.ime_services.append(full)
        elif el.tag in ("action", "category") and component is not None and isinstance(a.get("name"), str):
            in_filter.setdefault(el.tag, set()).add(str(a["name"]))
            kind, full = component
            if (
                kind != "service"
                and info.launcher_activity is None
                and "android.intent.action.MAIN" in in_filter.get("action", set())
                and "android.intent.category.LAUNCHER" in in_filter.get("category", set())
            ):
                info.launcher_activity = full
            if (
                kind == "service"
                and "android.view.InputMethod" in in_filter.get("action", set())
                and full not in info.ime_services
            ):
                info.ime_services.append(full)
        elif el.tag == "intent-filter":
            in_filter = {"action": set(), "category": set()}
    return info
