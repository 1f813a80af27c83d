import copy
from dataclasses import fields

from emulator.virtual.records import Package


def _package() -> Package:
    return Package(
        "com.example.notes",
        {"en": "Notes", "zh": "笔记"},
        activities=["com.example.notes.Main", "com.example.notes.Edit"],
        launcher_activity="com.example.notes.Main",
        intent_filters=[("android.intent.action.SEND", "mime:text/plain", "com.example.notes.Edit")],
        permissions=["android.permission.READ_CONTACTS"],
        appops={"MANAGE_EXTERNAL_STORAGE": "allow"},
        first_install_time=1700000000.0,
    )


def test_a_packages_deep_copy_is_equal_and_its_containers_are_its_own():
    pkg = _package()
    dup = copy.deepcopy({"p": pkg, "again": pkg})
    assert dup["p"] == pkg and dup["again"] is dup["p"], "one copy per package, however often it is referred to"
    for f in fields(Package):
        value, copied = getattr(pkg, f.name), getattr(dup["p"], f.name)
        if isinstance(value, list | dict):
            assert copied is not value, f.name
            items = value.items() if isinstance(value, dict) else enumerate(value)
            # what the copy shares must be immutable: strings and tuples of strings
            assert all(
                isinstance(v, str) or (isinstance(v, tuple) and all(isinstance(x, str) for x in v)) for _, v in items
            ), f.name
    dup["p"].permissions.append("android.permission.CAMERA")
    dup["p"].appops["X"] = "deny"
    dup["p"].labels["fr"] = "Notes"
    assert pkg == _package(), "changing the copy leaves the original as it was"
