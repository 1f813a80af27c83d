"""Roles as RoleManager keeps them (Android 10+): which package holds the SMS role (the default SMS app). The role
is granted by its request dialog (PermissionController's RequestRoleFragment, which an SMS app opens) or by `cmd role
add-role-holder`; RoleManager then mirrors the SMS role into `Settings.Secure.SMS_DEFAULT_APPLICATION`
(`settings get secure sms_default_application`). A `settings put` of that setting does not move the role, as on a
device since Android 10 (the setting is only the mirror).

The holders live with the permission controller's data (`app_data`), so snapshots and resets carry them."""

from __future__ import annotations

from .ui.host import Device

ROLE_SMS = "android.app.role.SMS"
PERMISSION_CONTROLLER = "com.google.android.permissioncontroller"
SMS_DEFAULT_SETTING = "sms_default_application"  # Settings.Secure: the SMS role's holder, mirrored
DEFAULT_HOLDERS = {ROLE_SMS: "com.google.android.apps.messaging"}  # config_defaultSms: Google Messages


def role_holder(model: Device, role: str) -> str | None:
    """The package holding `role` (exclusive roles have at most one), or None."""
    with model.lock:
        held = model.app_data.get(PERMISSION_CONTROLLER, {}).get("roles", {})
        holder = held[role] if role in held else DEFAULT_HOLDERS.get(role)
    return holder if holder is None or holder in model.packages else None


def set_role_holder(model: Device, role: str, package: str | None) -> None:
    """`package` holds `role` from now on (None: nobody), the SMS role mirrored into its secure setting."""
    with model.lock:
        model.app_data.setdefault(PERMISSION_CONTROLLER, {}).setdefault("roles", {})[role] = package
        if role == ROLE_SMS:
            if package is None:
                model.settings["secure"].pop(SMS_DEFAULT_SETTING, None)
            else:
                model.settings["secure"][SMS_DEFAULT_SETTING] = package
    model.log("I", "RoleManagerService", f"Role holders changed for {role}: {package or ''}")
    model.events.log("role", role=role, holder=package)
