"""What an AndroidWorld instance needs of a device: its class's apps, with the app its parameters drew."""

from __future__ import annotations

from harness.androidworld.judge import jsonable, needed_apps


class Inst:
    def __init__(self, app_names: tuple[str, ...], params: dict) -> None:
        self.app_names, self.params = app_names, params


def test_the_apps_an_instance_needs_include_the_one_its_parameters_drew():
    assert needed_apps(Inst(("camera", "clock", "contacts"), {"app_name": "clock"})) == ("clock",)
    assert needed_apps(Inst(("settings",), {"app_name": "camera"})) == ("settings", "camera")
    assert needed_apps(Inst(("settings", ""), {"on_or_off": "on"})) == ("settings",)


def test_parameters_are_recorded_as_json_holds_them():
    import datetime

    assert jsonable({"when": datetime.date(2023, 10, 15), "n": 3, "names": ("a", "b")}) == {
        "when": "2023-10-15",
        "n": 3,
        "names": ["a", "b"],
    }


def test_dataclass_rows_are_recorded_as_their_fields():
    """AndroidWorld's rows (`Expense`, `Recipe`, ...) reach the solvers and the trajectory as mappings, not repr."""
    import dataclasses
    import datetime

    @dataclasses.dataclass
    class Row:
        name: str
        amount: int
        when: datetime.date

    got = jsonable({"rows": [Row("Rent", 120000, datetime.date(2023, 10, 1))], "one": Row("Tea", 350, None)})
    assert got == {
        "rows": [{"name": "Rent", "amount": 120000, "when": "2023-10-01"}],
        "one": {"name": "Tea", "amount": 350, "when": None},
    }
