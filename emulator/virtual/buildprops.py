"""The build a virtual device reports: a phone's `user` build, or - posing as an emulator - the userdebug
`google_apis` system image an AVD runs (`sdk_gphone64_x86_64`, hardware `ranchu`, `ro.kernel.qemu=1`).

The screen stays the hardware profile's (an AVD of the Pixel 7 Pro device definition has its screen), but an
emulator image names itself after the image, not the phone, whatever device definition the AVD uses.
"""

from __future__ import annotations

from dataclasses import replace

from .profiles import Profile

# google_apis x86_64 API 34 image, as its build.prop has it
IMAGE_MODEL = "sdk_gphone64_x86_64"
IMAGE_DEVICE = "emu64xa"
IMAGE_BUILD_ID = "UE1A.230829.036.A2"
IMAGE_INCREMENTAL = "11596452"
PHONE_BUILD_ID = "AP2A.240905.003"
PHONE_INCREMENTAL = "12231197"


def emulator_image(profile: Profile) -> Profile:
    """`profile`'s screen with the identity of the emulator system image (x86_64, `sdk_gphone64_x86_64`)."""
    return replace(profile, model=IMAGE_MODEL, device=IMAGE_DEVICE, product=IMAGE_MODEL)


def build_props(
    profile: Profile, serial: str, locale_tag: str, image: bool = False, avd_name: str | None = None
) -> dict[str, str]:
    """The system properties `getprop` lists: with `image` those of the emulator's userdebug system image
    (debuggable: `adb root` works, `su` exists), else a user build (a phone's, or an emulator-style profile not
    posing as an emulator)."""
    p = profile
    debug = image
    build_type, tags = ("userdebug", "dev-keys") if debug else ("user", "release-keys")
    build_id, incremental = (IMAGE_BUILD_ID, IMAGE_INCREMENTAL) if debug else (PHONE_BUILD_ID, PHONE_INCREMENTAL)
    fingerprint = f"{p.brand}/{p.product}/{p.device}:{p.release}/{build_id}/{incremental}:{build_type}/{tags}"
    props = {
        "ro.product.model": p.model,
        "ro.product.name": p.product,
        "ro.product.device": p.device,
        "ro.product.brand": p.brand,
        "ro.product.manufacturer": p.manufacturer,
        "ro.product.cpu.abi": p.abilist[0],
        "ro.product.cpu.abilist": ",".join(p.abilist),
        "ro.product.cpu.abilist64": ",".join(a for a in p.abilist if "64" in a),
        "ro.product.cpu.abilist32": ",".join(a for a in p.abilist if "64" not in a),
        "ro.build.version.sdk": str(p.api_level),
        "ro.build.version.release": p.release,
        "ro.build.version.security_patch": "2024-09-05",
        "ro.build.version.incremental": incremental,
        "ro.build.type": build_type,
        "ro.build.tags": tags,
        "ro.build.id": build_id,
        "ro.build.fingerprint": fingerprint,
        "ro.serialno": serial,
        "ro.boot.serialno": serial,
        "ro.sf.lcd_density": str(p.density),
        "ro.kernel.qemu": "1" if debug else "0",
        "ro.debuggable": "1" if debug else "0",
        "ro.secure": "1",
        "ro.adb.secure": "1",
        "sys.boot_completed": "1",
        "dev.bootcomplete": "1",
        "persist.sys.locale": locale_tag,
        "ro.product.locale": "en-US",
        "persist.sys.timezone": "America/Los_Angeles",
        "ro.hardware": "ranchu" if debug else p.device,
        "init.svc.adbd": "running",
        "service.adb.root": "0",
    }
    if p.emulator:  # Android 12+ emulator images (an emulator-style profile keeps this even when not posing)
        props["ro.boot.qemu"] = "1"
    if debug:
        props.update({"ro.boot.hardware": "ranchu", "ro.product.board": "goldfish_x86_64"})
        if avd_name:
            props["ro.boot.qemu.avd_name"] = avd_name
    return props


def debuggable(props: dict[str, str]) -> bool:
    """adbd may run as root (`adb root`), `su` exists: a userdebug or eng build."""
    return props.get("ro.debuggable") == "1"
