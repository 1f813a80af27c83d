"""The device zygote warms up the apps a run uses (issue 49, item 4): given the run's packages it draws the first
screens of those apps only (the devices after the warm-up wait less for it); given none, every app's."""

from __future__ import annotations

from typing import Any

from emulator.virtual.model import VirtualDeviceModel
from emulator.virtual.zygote import Zygote, warm_up

NOTES, CLOCK = "com.droidharness.notes", "com.google.android.deskclock"


def _started(monkeypatch) -> list[str]:
    started: list[str] = []
    start = VirtualDeviceModel.start_activity

    def spy(self: VirtualDeviceModel, package: str, *args: Any, **kwargs: Any) -> Any:
        started.append(package)
        return start(self, package, *args, **kwargs)

    monkeypatch.setattr(VirtualDeviceModel, "start_activity", spy)
    return started


def test_the_warm_up_draws_the_first_screens_of_the_apps_it_is_given(monkeypatch):
    started = _started(monkeypatch)
    warm_up("medium_phone", ("en", "zh"), packages=(NOTES, CLOCK, "com.example.not.installed"))
    assert sorted(started) == sorted([NOTES, CLOCK] * 2)  # each in both languages; an unknown name warms nothing
    started.clear()
    warm_up("medium_phone", ("en",))
    assert {NOTES, CLOCK} < set(started) and len(started) > 10  # every app's


def test_the_zygote_is_told_the_packages_to_warm_up(tmp_path):
    assert "--packages" not in Zygote(str(tmp_path)).command()
    cmd = Zygote(str(tmp_path), packages=(NOTES, CLOCK)).command()
    assert cmd[cmd.index("--packages") + 1] == f"{NOTES},{CLOCK}"


def test_a_warm_request_narrows_the_apps_not_drawn_yet_and_adds_languages(monkeypatch):
    """A zygote started ahead of its pool warms every app in stages until the pool names its apps (`want`): the
    apps it has not drawn yet and the pool does not name are left out, the pool's languages are added."""
    from emulator.virtual.zygote import HOME, Warmth

    started = _started(monkeypatch)
    warmth = Warmth("medium_phone", ("en",), None)
    assert warmth.step() and warmth.imported  # the imports are a stage of their own
    assert warmth.step() and warmth.done == {("en", HOME)}  # then the home screen
    warmth.want(("en", "zh"), (NOTES, CLOCK))
    while warmth.step():
        pass
    warmth.settle()
    assert not warmth.pending()
    assert sorted(started) == sorted([NOTES, CLOCK] * 2)
    assert warmth.done == {(lang, pkg) for lang in ("en", "zh") for pkg in (HOME, NOTES, CLOCK)}


def test_a_zygote_started_ahead_draws_no_app_until_told_which(monkeypatch, tmp_path):
    """Started ahead of its pool (`apps_later`), the zygote warms the imports and the home screens only: the apps
    once the pool names them (an empty warm request: every app)."""
    from emulator.virtual.zygote import HOME, Warmth

    assert "--apps-later" in Zygote(str(tmp_path), apps_later=True).command()
    started = _started(monkeypatch)
    warmth = Warmth("medium_phone", ("en",), ())
    while warmth.step():
        pass
    assert started == [] and warmth.done == {("en", HOME)}
    warmth.want(("en",), (CLOCK,))
    while warmth.step():
        pass
    assert started == [CLOCK]
