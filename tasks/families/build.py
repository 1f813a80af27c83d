"""Small builders for family templates: localized values, milestones and reference steps as task JSON."""

from __future__ import annotations

from typing import Any


def both(en: str, zh: str) -> dict[str, str]:
    return {"en": en, "zh": zh}


def milestone(mid: str, en: str, zh: str, check: dict[str, Any]) -> dict[str, Any]:
    return {"id": mid, "sub_target": both(en, zh), "check": check}


def open_app(en: str, zh: str, package: str) -> dict[str, Any]:
    return {"type": "OPEN_APP", "name": both(en, zh), "package": package}


def click(resource_id: str, text: Any = None, desc: Any = None) -> dict[str, Any]:
    locate: dict[str, Any] = {"resource_id": resource_id}
    if text is not None:
        locate["text"] = text
    if desc is not None:
        locate["desc"] = desc
    return {"type": "CLICK", "locate": locate}


def type_into(text: Any, resource_id: str, **extra: Any) -> dict[str, Any]:
    return {"type": "TYPE", "text": text, "locate": {"resource_id": resource_id}, **extra}


def steps_for_both(steps: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """One reference for both languages (its localized values resolve per language)."""
    return {"en": steps, "zh": steps}
