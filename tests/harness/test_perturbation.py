"""The perturbations a run asks for (harness/perturbation.py): `--perturb`'s text parsed into typed records, every
kind of bad input refused with one line naming the option and the item, `dialog` / `popup` with a kind or none
(then one is drawn), and the per-episode record's JSON."""

from __future__ import annotations

import json

import pytest

from harness.errors import ConfigError
from harness.perturbation import (
    NAMES,
    PLANNED,
    Perturbation,
    PerturbationRecord,
    PerturbPlan,
    locale_language,
    parse_one,
    parse_perturbations,
)
from harness.run.orchestration.suite import SuiteOptions


def test_every_perturbation_parses_into_a_typed_record_in_the_order_given():
    got = parse_perturbations(
        "dark, font=1.3,size=1080x1920,density=320,landscape,locale=zh-CN,animations,notification"
    )
    assert got == (
        Perturbation("dark"),
        Perturbation("font", "1.3"),
        Perturbation("size", "1080x1920"),
        Perturbation("density", "320"),
        Perturbation("landscape"),
        Perturbation("locale", "zh-CN"),
        Perturbation("animations"),
        Perturbation("notification"),
    )
    assert [p.label for p in got] == [
        "dark",
        "font=1.3",
        "size=1080x1920",
        "density=320",
        "landscape",
        "locale=zh-CN",
        "animations",
        "notification",
    ]
    assert [p.interruption for p in got] == [False] * 7 + [True]
    assert parse_perturbations(["dark", "font=2"]) == (Perturbation("dark"), Perturbation("font", "2"))  # repeated
    assert parse_perturbations("") == () and parse_perturbations("dark,") == (Perturbation("dark"),)
    assert parse_one("DARK") == Perturbation("dark")  # names are case-insensitive
    assert parse_one("locale=zh-Hans-CN").value == "zh-Hans-CN"


BAD = [  # (item, what the one line says)
    ("font=abc", "--perturb font=abc: 'abc' is not a font scale"),
    ("font=0", "--perturb font=0: '0' is not a font scale"),
    ("font=9", "(above 0, at most 4)"),
    ("font", "--perturb font: font needs a font scale"),
    ("size=12", "--perturb size=12: '12' is not a display size WIDTHxHEIGHT"),
    ("size=1080", "'1080' is not a display size"),
    ("size=0x100", "'0x100' is not a display size"),
    ("density=abc", "--perturb density=abc: 'abc' is not a display density"),
    ("density=", "density needs a display density"),
    ("locale=not a tag", "is not a language tag"),
    ("locale=", "locale needs a language tag"),
    ("dark=yes", "--perturb dark=yes: dark takes no value"),
    ("blur", "--perturb blur: unknown perturbation 'blur'; known: dark, font, size, density, landscape"),
    ("dialog=crash", "--perturb dialog=crash: 'crash' is not one of anr|battery|permission"),
    ("popup=banner", "--perturb popup=banner: 'banner' is not one of rate|promo"),
    ("dark,dark", "--perturb dark: dark is given twice"),
    ("font=1.3,font=2", "font is given twice"),
]


@pytest.mark.parametrize(("item", "said"), BAD, ids=[b[0] for b in BAD])
def test_bad_items_are_one_config_error_naming_the_option_and_the_item(item, said):
    with pytest.raises(ConfigError) as err:
        parse_perturbations(item)
    assert said in str(err.value) and "\n" not in str(err.value)


def test_the_known_names_are_listed_and_none_is_planned_now():
    assert PLANNED == () and {"dialog", "popup"} <= set(NAMES)
    with pytest.raises(ConfigError, match="known: .*notification, dialog, popup$"):
        parse_one("nope")


def test_dialog_and_popup_take_a_kind_or_none():
    assert parse_perturbations("dialog,popup") == (Perturbation("dialog"), Perturbation("popup"))
    assert parse_one("dialog=anr") == Perturbation("dialog", "anr")
    assert parse_one("dialog=battery").label == "dialog=battery"
    assert parse_one("popup=promo") == Perturbation("popup", "promo")
    assert parse_one("dialog").interruption and parse_one("popup=rate").interruption


def test_records_and_plans_survive_json():
    r = PerturbationRecord("notification", None, 4, True, "")
    assert PerturbationRecord.from_json(json.loads(json.dumps(r.to_json()))) == r
    assert r.to_json() == {"name": "notification", "value": None, "step": 4, "applied": True, "reason": ""}
    off = PerturbationRecord("font", "1.3", None, False, "the task checks system:font_scale")
    assert PerturbationRecord.from_json(off.to_json()) == off and off.label == "font=1.3"
    with pytest.raises(ValueError):
        PerturbationRecord.from_json({"applied": True})
    plan = PerturbPlan.parse("dark,notification", seed=7)
    assert plan.to_json() == {"perturbations": ["dark", "notification"], "seed": 7}
    assert plan and not PerturbPlan() and plan.get("notification") == Perturbation("notification")
    assert plan.get("font") is None
    assert locale_language("zh-CN") == "zh" and locale_language("en_US") == "en"


def test_suite_options_parse_the_perturbations_into_typed_records():
    opts = SuiteOptions(perturb="dark,font=1.3", perturb_seed=5)
    assert opts.perturb == (Perturbation("dark"), Perturbation("font", "1.3"))
    assert opts.plan == PerturbPlan((Perturbation("dark"), Perturbation("font", "1.3")), 5)
    assert SuiteOptions(perturb=[Perturbation("landscape"), "notification"]).plan.labels == [
        "landscape",
        "notification",
    ]
    assert not SuiteOptions().plan
    with pytest.raises(ConfigError, match="--perturb size=12"):
        SuiteOptions(perturb="size=12")


def test_a_drawn_kinds_record_counts_for_the_perturbation_asked():
    drawn = PerturbationRecord("dialog", "anr", 3, True)
    assert drawn.label == "dialog=anr"
    assert drawn.counts_for("dialog") and drawn.counts_for("dialog=anr") and not drawn.counts_for("dialog=battery")
    assert not PerturbationRecord("font", "1.3").counts_for("font")
