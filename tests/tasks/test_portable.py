"""Portable tasks: apps named by role and resolved on the device, the reasons a task is not portable, and the
portable suite solved by the reference agent (through the real adb server to the virtual device)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agents.noop import NoOpAgent
from harness.actions import OpenApp
from harness.device.apps import RoleError, candidate_packages, parse_package_list, resolve_roles, role_packages
from harness.device.controller import AdbDevice
from harness.run.fleet.pool import DevicePool
from harness.run.loop.episode import Limits, run_episode
from harness.run.loop.start import prepare_start
from harness.run.orchestration.suite import SuiteOptions, run_suite
from tasks.portable import portability_issues, resolve_task, task_roles
from tasks.roles import ROLES
from tasks.schema import StartState, TaskError, parse_task
from tasks.suite import SUITES_DIR, is_portable_suite, load_suite
from tests.device_util import open_device
from tests.paths import REPO
from tests.run_util import FAST_WRITER

ROOT = REPO

# `pm list packages` of a stock google_apis AVD image (API 34): AOSP Clock, Contacts, Messaging, Dialer, Camera2
AOSP_PM = """package:com.android.settings
package:com.android.deskclock
package:com.android.contacts
package:com.android.messaging
package:com.android.dialer
package:com.android.camera2
package:com.android.calendar
package:com.google.android.documentsui
package:org.chromium.webview_shell
package:com.android.launcher3
package:com.google.android.gms
"""


@pytest.fixture
def device(adb_server, vdevice):
    dev = open_device(adb_server, vdevice, use_u2=False)
    yield dev
    dev.close()


def _task(**kw) -> dict:
    base = {
        "id": "t",
        "category": "1-1",
        "instruction": {"en": "x"},
        "milestones": {"children": [{"id": "m", "sub_target": "x", "check": {"package": "@clock"}}]},
    }
    return {**base, **kw}


# --- the role table and the device's answer -----------------------------------------------------------------
def test_roles_resolve_to_the_google_apps_of_the_virtual_device_through_adb(device: AdbDevice) -> None:
    pkgs = role_packages(device, ["clock", "contacts", "messages", "settings"])
    assert pkgs == {
        "clock": "com.google.android.deskclock",
        "contacts": "com.google.android.contacts",
        "messages": "com.google.android.apps.messaging",
        "settings": "com.android.settings",
    }
    assert role_packages(device, []) == {}  # nothing to ask
    # OPEN_APP of a role launches the installed package of that role
    result, obs = device.step(OpenApp(package="@clock"))
    assert result.ok and obs.package == "com.google.android.deskclock", result.error
    # a role the device has no app for (the virtual device has no calendar): the error names the device, the
    # role and the packages looked for
    with pytest.raises(RoleError) as e:
        role_packages(device, ["clock", "calendar"])
    msg = str(e.value)
    assert device.serial in msg and "@calendar" in msg and "com.android.calendar" in msg and "\n" not in msg


def test_a_start_state_with_roles_is_put_on_the_device(device: AdbDevice, adb_cli) -> None:
    adb_cli("-s", device.serial, "shell", "am start -n com.google.android.deskclock/com.android.deskclock.DeskClock")
    assert adb_cli("-s", device.serial, "shell", "pidof com.google.android.deskclock").stdout.strip().isdigit()
    prepare_start(device, StartState(stop_apps=("@clock",), reset_apps=("@contacts",), open_app="@settings"))
    obs = device.observe()
    assert obs.package == "com.android.settings"
    ps = adb_cli("-s", device.serial, "shell", "pidof com.google.android.deskclock")
    assert ps.returncode != 0 and not ps.stdout.strip(), "the clock was stopped"


def test_an_episode_of_a_role_task_on_a_device_without_the_app_is_an_infrastructure_error(device) -> None:
    task = parse_task(_task(apps=["@calendar"], start={"reset_apps": ["@calendar"]}))
    with pytest.raises(RoleError, match="has no calendar app for @calendar"):
        run_episode(task, NoOpAgent(), device, "en", Limits(max_steps=2))


def test_the_aosp_variant_is_chosen_where_only_it_is_installed() -> None:
    installed = parse_package_list(AOSP_PM + "not a package line\n")
    assert "com.android.deskclock" in installed and len(installed) == 11
    assert resolve_roles(
        ["clock", "contacts", "messages", "settings", "phone", "camera", "files", "browser"], installed, "emulator-5554"
    ) == {
        "clock": "com.android.deskclock",
        "contacts": "com.android.contacts",
        "messages": "com.android.messaging",
        "settings": "com.android.settings",
        "phone": "com.android.dialer",
        "camera": "com.android.camera2",
        "files": "com.google.android.documentsui",
        "browser": "org.chromium.webview_shell",
    }
    # both variants installed: the Google one (the role table's order)
    both = installed + ["com.google.android.deskclock"]
    assert resolve_roles(["clock"], both, "s") == {"clock": "com.google.android.deskclock"}
    with pytest.raises(RoleError, match="device emulator-5554 has no gallery app for @gallery"):
        resolve_roles(["gallery"], installed, "emulator-5554")
    # OPEN_APP's candidates for a role, on that package list
    assert candidate_packages(None, "@messages", installed) == ["com.android.messaging"]
    assert candidate_packages("@clock", None, installed) == ["com.android.deskclock"]
    assert candidate_packages(None, "@nosuchrole", installed) == []


def test_a_task_with_roles_resolves_every_place_a_package_is_named() -> None:
    task = next(t for t in load_suite("portable") if t.id == "portable-contacts-text-grace")
    assert task_roles(task) == ["contacts", "messages"]
    aosp = {"contacts": "com.android.contacts", "messages": "com.android.messaging"}
    done = resolve_task(task, aosp)
    text = json.dumps(done.model_dump())
    assert '"@' not in text, "no role is left"
    assert done.apps == ("com.android.contacts", "com.android.messaging")
    assert done.start.reset_apps == ("com.android.contacts", "com.android.messaging")
    assert done.milestones.leaves()[0].check.package == "com.android.contacts"
    assert done.reference["zh"][0].model_extra["package"] == "com.android.contacts"
    assert task_roles(done) == [] and resolve_task(done, {}) is done
    with pytest.raises(KeyError, match="messages"):
        resolve_task(task, {"contacts": "com.android.contacts"})


@pytest.mark.parametrize(
    "data, field",
    [
        (_task(apps=["@clok"]), "apps"),
        (_task(start={"reset_apps": ["@clok"]}), "start.reset_apps"),
        (_task(start={"open_app": "@clok"}), "start.open_app"),
        (
            _task(milestones={"children": [{"id": "m", "sub_target": "x", "check": {"package": "@clok"}}]}),
            "check.package",
        ),
        (_task(end_state=[{"app": "@clok", "check": {"package": "@clock"}}]), "end_state.0.app"),
        (_task(reference={"en": [{"type": "OPEN_APP", "package": "@clok"}]}), "reference.en.0"),
    ],
)
def test_an_unknown_role_is_a_one_line_error_naming_the_field(data: dict, field: str) -> None:
    with pytest.raises(TaskError) as e:
        parse_task(data, "suite/t.json")
    msg = str(e.value)
    assert msg.startswith("suite/t.json: ") and field in msg and "unknown app role '@clok'" in msg
    assert "@clock" in msg and "\n" not in msg  # the known roles are listed
    assert parse_task(_task(apps=["@clock"], start={"open_app": "@settings"})).apps == ("@clock",)


# --- why a task is not portable -----------------------------------------------------------------------------
def test_the_reasons_a_task_is_not_portable() -> None:
    virtual = {t.id: t for t in load_suite("virtual")}
    why = portability_issues(virtual["clock-yoga-alarm"])
    assert "apps: package com.google.android.deskclock instead of the role @clock" in why
    assert (
        "milestone editor: activity 'com.android.deskclock.alarms.AlarmEditActivity' "
        "(activity names differ between app variants)"
    ) in why
    assert "milestone editor: resource id 'save_button'" in why
    assert "reference en step 2: resource id 'fab'" in why
    why = portability_issues(virtual["notes-search-password"])
    assert any("com.droidharness.notes is no role's app" in w for w in why)
    assert all(portability_issues(t) for t in virtual.values()), "no virtual task is portable"
    bad = parse_task(
        _task(
            milestones={
                "children": [
                    {"id": "m", "sub_target": "x", "check": {"element": {"text": "x", "bbox": [0, 0, 0.5, 0.5]}}}
                ]
            },
            reference={
                "en": [
                    {"type": "OPEN_APP", "name": "Clock"},
                    {"type": "CLICK", "point": [0.5, 0.5]},
                    {"type": "CLICK", "element": 3},
                    {"type": "SCROLL", "direction": "down"},
                ]
            },
            probes=[{"id": "p", "at": "m", "question": {"en": "q"}, "answers": [{"elements": [{"resource_id": "a"}]}]}],
        )
    )
    assert portability_issues(bad) == [
        "milestone m: a screen position (bbox)",
        "reference en step 1: OPEN_APP by label only (labels differ between variants: give the role as package)",
        "reference en step 2: a CLICK at a screen position or element index (locate the element by text instead)",
        "reference en step 3: a CLICK at a screen position or element index (locate the element by text instead)",
        "probe p: resource id 'a'",
    ]


def test_the_portable_suite_is_portable_over_stock_apps_in_both_languages() -> None:
    tasks = load_suite("portable")
    assert (
        is_portable_suite("portable")
        and is_portable_suite(SUITES_DIR / "portable")
        and not is_portable_suite("virtual")
    )
    assert len(tasks) >= 12
    assert {t.id: portability_issues(t) for t in tasks} == {t.id: [] for t in tasks}
    assert all(t.languages == ("en", "zh") and set(t.reference) == {"en", "zh"} for t in tasks)
    roles = {r for t in tasks for r in task_roles(t)}
    assert roles == {"clock", "contacts", "messages", "settings"}
    assert all(
        set(ROLES[r])
        & {"com.android.deskclock", "com.android.contacts", "com.android.messaging", "com.android.settings"}
        for r in roles
    )
    # every task is judged by device state somewhere (success does not rest on one app's screens)
    assert all("state" in json.dumps(t.model_dump(exclude_none=True)) for t in tasks if t.expected_answer is None)


def _check(folder: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "harness", "tasks", "check", str(folder), "--lang", "en", *args],
        capture_output=True,
        text=True,
        timeout=180,
        cwd=ROOT,
        env={**os.environ, "COLUMNS": "400"},
    )


@pytest.mark.slow
def test_tasks_check_portable_fails_a_task_that_is_not_portable_with_the_reason(tmp_path: Path) -> None:
    src = SUITES_DIR / "virtual" / "settings-dark-theme.json"
    (tmp_path / src.name).write_text(src.read_text(encoding="utf-8"), encoding="utf-8")
    r = _check(tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr  # sound on the virtual device
    r = _check(tmp_path, "--portable")
    out = " ".join(r.stdout.split())
    assert r.returncode == 1, r.stdout + r.stderr
    assert "unsound: not portable: apps: package com.android.settings instead of the role @settings" in out
    assert "more)" in out  # the first reasons, and how many more
    assert "Traceback" not in r.stdout + r.stderr


# --- the reference agent on the portable suite -------------------------------------------------------------
@pytest.mark.slow
def test_the_reference_agent_solves_portable_tasks_through_adb(tmp_path: Path) -> None:
    ids = (
        "portable-settings-dark-theme",
        "portable-contacts-create",
        "portable-messages-reply-bob",
        "portable-clock-new-alarm",
    )
    with DevicePool(1) as pool:
        res = run_suite(
            SuiteOptions(
                suite="portable", task_ids=ids, agent="reference", writer=FAST_WRITER, out=tmp_path, run_id="r"
            ),
            pool=pool,
        )
    assert len(res.results) == 2 * len(ids)
    assert res.sr == 1.0 and res.atp == 1.0, [(r.task_id, r.lang, r.progress, r.error) for r in res.results]
    assert all(r.invalid_steps == 0 for r in res.results), "every text locator found its element"
    bob = next(r for r in res.results if r.task_id == "portable-messages-reply-bob")
    assert bob.extra["roles"] == {
        "messages": "com.google.android.apps.messaging",
        "contacts": "com.google.android.contacts",
    }
    stored = json.loads((tmp_path / "r" / "episodes" / "portable-messages-reply-bob__en" / "episode.json").read_text())
    assert stored["extra"]["roles"]["messages"] == "com.google.android.apps.messaging"
