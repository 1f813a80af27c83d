"""Runtime permission requests (an app's `requestPermissions`): PermissionController's GrantPermissionsActivity,
one prompt per permission group still to grant, in the order the app asked for them.

The prompt is a system window (`WindowState.sysdialog`, kind "permission", with the requested permissions), so it
stays up when the app that asked is force-stopped - as GrantPermissionsActivity, an activity of the permission
controller's package, outlives `am force-stop` of the app whose task it sits in. Each time it is drawn it shows the
first group not granted yet: a group granted meanwhile (`pm grant`) is skipped, as the activity does when it sees
the grant. Its buttons are the platform's: location - "While using the app", "Only this time", "Don't allow";
the other groups - "Allow", "Don't allow". BACK cancels the request.

A grant is kept where `pm grant` keeps it (the package manager's record, when the shell has made one) and with the
package's data (`app_data`, so `pm clear` drops it, as clearing an app's data resets its runtime permissions, and
snapshots carry it). A group denied twice is not asked for again ("don't ask again", Android 11+).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from .dialogs import dialog
from .fonts import wrap
from .host import Device
from .layout import Ctx
from .view import View
from .widgets import Click
from .windowstate import WindowState

PERMISSION_CONTROLLER = "com.google.android.permissioncontroller"
PC_ID = "com.android.permissioncontroller:id/"  # the resource ids keep the AOSP package name
GRANTS, DENIALS = "runtime_grants", "runtime_denials"  # keys of the package's app_data
KIND = "permission"


@dataclass(frozen=True)
class Group:
    name: str
    permissions: tuple[str, ...]
    en: str  # the prompt's title, {app} for the app's label
    zh: str
    foreground: bool = False  # location: "While using the app" / "Only this time" instead of "Allow"


_P = "android.permission."
GROUPS = (
    Group(
        "location",
        (_P + "ACCESS_FINE_LOCATION", _P + "ACCESS_COARSE_LOCATION", _P + "ACCESS_BACKGROUND_LOCATION"),
        "Allow {app} to access this device\u2019s location?",
        "要允许“{app}”获取此设备的位置信息吗？",
        foreground=True,
    ),
    Group(
        "nearby_devices",
        (_P + "BLUETOOTH_SCAN", _P + "BLUETOOTH_CONNECT", _P + "BLUETOOTH_ADVERTISE", _P + "UWB_RANGING"),
        "Allow {app} to find, connect to, and determine the relative position of nearby devices?",
        "要允许“{app}”查找、连接附近的设备并确定其相对位置吗？",
    ),
    Group(
        "notifications",
        (_P + "POST_NOTIFICATIONS",),
        "Allow {app} to send you notifications?",
        "要允许“{app}”向您发送通知吗？",
    ),
    Group(
        "camera",
        (_P + "CAMERA",),
        "Allow {app} to take pictures and record video?",
        "要允许“{app}”拍摄照片和录制视频吗？",
        foreground=True,
    ),
    Group(
        "microphone", (_P + "RECORD_AUDIO",), "Allow {app} to record audio?", "要允许“{app}”录音吗？", foreground=True
    ),
)


def _group_of(permission: str) -> Group | None:
    return next((g for g in GROUPS if permission in g.permissions), None)


def _pm_record(model: Device, package: str) -> Any:
    """The package manager's record of the package (`pm grant` writes its `granted`), None before the shell made
    one."""
    with model.procs.lock:
        return model.procs.pkg_meta.get(package)


def granted(model: Device, package: str) -> set[str]:
    """The runtime permissions the package holds: granted with `pm grant` or on a prompt."""
    rec = _pm_record(model, package)
    out = set(rec.granted) if rec is not None else set()
    return out | set(model.app_data.get(package, {}).get(GRANTS, ()))


def has_permissions(model: Device, package: str, permissions: Iterable[str]) -> bool:
    held = granted(model, package)
    return all(p in held for p in permissions)


def _pending(model: Device, package: str, requested: list[str], answered: list[str]) -> Group | None:
    """The first group of the request not granted, not answered on this prompt, not denied for good."""
    held = granted(model, package)
    denials: dict[str, int] = model.app_data.get(package, {}).get(DENIALS, {})
    for p in requested:
        g = _group_of(p)
        if g is None or g.name in answered or p in held or denials.get(g.name, 0) >= 2:
            continue
        return g
    return None


def request(model: Device, package: str, permissions: Iterable[str]) -> bool:
    """The app asks for `permissions` (ActivityCompat.requestPermissions): the prompt comes up when some group is
    still to grant. True when it did."""
    requested = [p for p in permissions if _group_of(p) is not None]
    if _pending(model, package, requested, []) is None:
        return False
    model.ui.state.sysdialog = {"kind": KIND, "package": package, "request": ",".join(requested), "answered": ""}
    model.events.log("permission", action="request", package=package, permissions=",".join(requested))
    return True


def _answer(model: Device, state: WindowState, shown: dict[str, str], group: Group, allow: bool) -> None:
    package = shown["package"]
    requested = [p for p in shown["request"].split(",") if p]
    data = model.app_data.setdefault(package, {})
    if allow:
        perms = [p for p in requested if p in group.permissions]
        data[GRANTS] = sorted(set(data.get(GRANTS, [])) | set(perms))
        rec = _pm_record(model, package)
        if rec is not None:
            rec.granted |= set(perms)
    else:
        denials = data.setdefault(DENIALS, {})
        denials[group.name] = denials.get(group.name, 0) + 1
    model.events.log("permission", action="grant" if allow else "deny", package=package, group=group.name)
    answered = [a for a in shown.get("answered", "").split(",") if a] + [group.name]
    nxt = dict(shown, answered=",".join(answered))
    state.sysdialog = nxt if _pending(model, package, requested, answered) is not None else None


def prompt(ctx: Ctx, state: WindowState, shown: dict[str, str]) -> View | None:
    """The prompt of the request's next group (None, and the window gone, when none is left)."""
    model = ctx.model
    package = shown.get("package", "")
    requested = [p for p in shown.get("request", "").split(",") if p]
    answered = [a for a in shown.get("answered", "").split(",") if a]
    group = _pending(model, package, requested, answered)
    if group is None:
        return None
    pkg = model.packages.get(package)
    app = pkg.label(model.locale) if pkg is not None else package

    def answer(allow: bool) -> Callable[[], None]:
        return lambda: _answer(model, state, shown, group, allow)

    def cancel() -> None:
        state.sysdialog = None
        model.events.log("permission", action="cancel", package=package)

    deny: tuple[str, str, Click] = (
        ctx.tr("Don\u2019t allow", "不允许"),
        PC_ID + "permission_deny_button",
        answer(False),
    )
    buttons: list[tuple[str, str, Click]]
    if group.foreground:
        buttons = [
            (
                ctx.tr("While using the app", "使用该应用时允许"),
                PC_ID + "permission_allow_foreground_only_button",
                answer(True),
            ),
            (ctx.tr("Only this time", "仅限这一次"), PC_ID + "permission_allow_one_time_button", answer(True)),
            deny,
        ]
    else:
        buttons = [(ctx.tr("Allow", "允许"), PC_ID + "permission_allow_button", answer(True)), deny]
    title = (group.zh if ctx.zh else group.en).format(app=app)
    l, t, r, b = ctx.mgr.dialog_area()
    inner = min(ctx.dp(312), r - l - ctx.dp(32)) - ctx.dp(48)
    lines = len(wrap(title, ctx.sp(18), inner, False))
    tall = ctx.dp(24 + 16 + 20) + int(lines * ctx.sp(18) * 1.35) + len(buttons) * ctx.dp(48)
    stacked = tall <= (b - t) - ctx.dp(32)  # the buttons one under the other when they fit, else side by side
    return dialog(
        ctx,
        title,
        buttons=buttons if stacked else buttons[::-1],
        on_cancel=cancel,
        package=PERMISSION_CONTROLLER,
        width_dp=312 if stacked else min(600, (r - l) / ctx.scale - 32),
        centered_buttons=stacked,
        title_rid=PC_ID + "permission_message",
        cancel_outside=False,
    )


__all__ = ["GROUPS", "KIND", "Group", "granted", "has_permissions", "prompt", "request"]
