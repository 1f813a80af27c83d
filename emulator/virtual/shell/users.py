"""Who a shell runs as: adbd's uid (the `shell` user, or root after `adb root` on a debuggable build), or whom
`su` switched to. One `User` per shell (`Shell.user`), which `id`, `whoami`, `date` and the shell's `$USER` read,
so permission checks can honour it too."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from ..model import VirtualDeviceModel

# android_filesystem_config.h
NAMES = {
    0: "root",
    1000: "system",
    2000: "shell",
    1004: "input",
    1007: "log",
    1011: "adb",
    1015: "sdcard_rw",
    1023: "media_rw",
    1028: "sdcard_r",
    1078: "ext_data_rw",
    1079: "ext_obb_rw",
    3001: "net_bt_admin",
    3002: "net_bt",
    3003: "inet",
    3006: "net_bw_stats",
    3009: "readproc",
    3011: "uhid",
    3012: "readtracefs",
    9997: "everybody",
}
UIDS = {name: uid for uid, name in NAMES.items()}
# the supplementary groups adbd gives the shells it starts (adbd's drop_privileges)
ADB_SHELL_GROUPS = (1004, 1007, 1011, 1015, 1028, 1078, 1079, 3001, 3002, 3003, 3006, 3009, 3011, 3012)


@dataclass(frozen=True)
class User:
    uid: int
    gid: int
    groups: tuple[int, ...]
    context: str  # the SELinux domain `id -Z` prints

    @property
    def name(self) -> str:
        return name_of(self.uid)

    @property
    def root(self) -> bool:
        return self.uid == 0


SHELL = User(2000, 2000, (2000, *ADB_SHELL_GROUPS), "u:r:shell:s0")
ADBD_ROOT = User(0, 0, (0, *ADB_SHELL_GROUPS), "u:r:su:s0")  # shells of an adbd running as root


def name_of(uid: int) -> str:
    if uid in NAMES:
        return NAMES[uid]
    if uid >= 10000:
        return f"u0_a{uid - 10000}"
    return str(uid)


def adbd_user(model: VirtualDeviceModel) -> User:
    """Whom adbd starts shells as."""
    return ADBD_ROOT if model.adbd.root else SHELL


def su_user(who: str) -> User | None:
    """`su WHO`: a uid or a name (AOSP su also takes "uid,gid,groups..."); None when unknown."""
    ids = who.split(",")
    try:
        nums = [int(x) if x.isdigit() else UIDS[x] for x in ids]
    except KeyError:
        return None
    uid = nums[0]
    gid = nums[1] if len(nums) > 1 else uid
    return User(uid, gid, tuple(nums[2:]) or (gid,), "u:r:su:s0")
