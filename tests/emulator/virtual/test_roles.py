"""The SMS role through the real adb server: `cmd role` reads and moves it, Settings.Secure mirrors it (a `settings
put` does not move it, as since Android 10), SENDTO sms: goes to its holder when several apps take it, and snapshots
carry it."""

from __future__ import annotations

MESSAGES = "com.google.android.apps.messaging"
SMS_MESSENGER = "com.simplemobiletools.smsmessenger"
ROLE = "android.app.role.SMS"


def _sh(adb_cli, vdevice, line: str, code: int = 0) -> str:
    r = adb_cli("-s", vdevice.serial, "shell", line)
    assert r.returncode == code, (r.stdout, r.stderr)
    return r.stdout.decode() + r.stderr.decode()


def _focus(adb_cli, vdevice) -> str:
    return _sh(adb_cli, vdevice, "dumpsys window | grep mCurrentFocus").split()[-1].rstrip("}")


def test_cmd_role_moves_the_sms_role_and_the_setting_mirrors_it(vdevice, adb_cli):
    assert _sh(adb_cli, vdevice, f"cmd role get-role-holders {ROLE}") == MESSAGES + "\n"
    assert _sh(adb_cli, vdevice, "settings get secure sms_default_application") == MESSAGES + "\n"
    _sh(adb_cli, vdevice, f"settings put secure sms_default_application {SMS_MESSENGER}")
    assert _sh(adb_cli, vdevice, f"cmd role get-role-holders {ROLE}") == MESSAGES + "\n"  # the mirror moved nothing
    sendto = "am start -a android.intent.action.SENDTO -d smsto:5551234"
    _sh(adb_cli, vdevice, sendto)
    assert _focus(adb_cli, vdevice).startswith(MESSAGES + "/")
    _sh(adb_cli, vdevice, f"cmd role add-role-holder {ROLE} {SMS_MESSENGER}")
    assert _sh(adb_cli, vdevice, f"cmd role get-role-holders {ROLE}") == SMS_MESSENGER + "\n"
    assert _sh(adb_cli, vdevice, "settings get secure sms_default_application") == SMS_MESSENGER + "\n"
    _sh(adb_cli, vdevice, sendto)
    assert _focus(adb_cli, vdevice) == f"{SMS_MESSENGER}/{SMS_MESSENGER}.activities.ThreadActivity"
    # VIEW sms: is no preferred activity of the role: the first app that takes it
    _sh(adb_cli, vdevice, "am start -a android.intent.action.VIEW -d sms:5551234")
    assert _focus(adb_cli, vdevice).startswith(MESSAGES + "/")
    bad = _sh(adb_cli, vdevice, f"cmd role add-role-holder {ROLE} com.example.none", code=255)
    assert "not a qualifying application" in bad
    _sh(adb_cli, vdevice, f"cmd role remove-role-holder {ROLE} {SMS_MESSENGER}")
    assert _sh(adb_cli, vdevice, f"cmd role get-role-holders {ROLE}") == "\n"
    assert _sh(adb_cli, vdevice, "settings get secure sms_default_application") == "null\n"


def test_a_snapshot_carries_the_role(vdevice, adb_cli):
    model = vdevice.model
    snap = model.snapshot()
    _sh(adb_cli, vdevice, f"cmd role add-role-holder {ROLE} {SMS_MESSENGER}")
    model.restore(snap)
    assert _sh(adb_cli, vdevice, f"cmd role get-role-holders {ROLE}") == MESSAGES + "\n"
