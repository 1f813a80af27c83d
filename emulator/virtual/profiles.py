"""Hardware profiles of the virtual device: real screen sizes and densities of the phones datasets use."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Profile:
    """One device model as adb and uiautomator2 see it. Sizes are the natural (rotation 0) orientation."""

    name: str  # CLI name, e.g. "pixel_7_pro"
    model: str  # ro.product.model
    device: str  # ro.product.device (code name)
    product: str  # ro.product.name
    width: int
    height: int
    density: int  # dpi, as `wm density` reports it
    manufacturer: str = "Google"
    brand: str = "google"
    api_level: int = 34
    release: str = "14"

    @property
    def emulator(self) -> bool:
        """An Android Emulator system image (sdk_gphone64_x86_64) rather than a phone."""
        return self.product.startswith("sdk_gphone")

    @property
    def abilist(self) -> tuple[str, ...]:
        """ro.product.cpu.abilist: x86_64 emulator images translate arm64; Pixels from the 7 on run 64-bit
        code only; older Pixels also run 32-bit ARM."""
        if self.emulator:
            return ("x86_64", "arm64-v8a")
        return ("arm64-v8a",) if self.api_level >= 33 else ("arm64-v8a", "armeabi-v7a", "armeabi")

    @property
    def machine(self) -> str:
        """`uname -m`."""
        return "x86_64" if self.emulator else "aarch64"


PROFILES: dict[str, Profile] = {
    p.name: p
    for p in [
        Profile("pixel_7_pro", "Pixel 7 Pro", "cheetah", "cheetah", 1440, 3120, 560),
        Profile("pixel_8_pro", "Pixel 8 Pro", "husky", "husky", 1344, 2992, 480),
        Profile("pixel_fold", "Pixel Fold", "felix", "felix", 1840, 2208, 420),
        Profile("pixel_tablet", "Pixel Tablet", "tangorpro", "tangorpro", 2560, 1600, 320),
        Profile("medium_phone", "Medium Phone", "emu64xa", "sdk_gphone64_x86_64", 1080, 2400, 420),
        Profile("small_phone", "Small Phone", "emu64xa", "sdk_gphone64_x86_64", 720, 1280, 320),
        Profile("pixel_4_xl", "Pixel 4 XL", "coral", "coral", 1440, 3040, 560, api_level=30, release="11"),
    ]
}

DEFAULT_PROFILE = "medium_phone"


def get_profile(name: str) -> Profile:
    key = name.strip().lower().replace(" ", "_").replace("-", "_")
    try:
        return PROFILES[key]
    except KeyError:
        raise ValueError(f"unknown device profile {name!r}; choose one of: {', '.join(PROFILES)}") from None
