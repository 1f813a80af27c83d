"""A device leased for an episode under a perturbation plan (docs/robustness.md). The one perturbation the lease
itself applies is the locale: a system language other than the instruction's, over the content of a device set up
in the instruction's language (a user who switched the phone's language: the UI speaks the other language, the
contacts, notes and messages stay as they were). It is switched the way the pool switches a device's language for
every episode (`DevicePool.ensure_locale`: an embedded device's model, or a device process' boot snapshot of that
pair of languages), so it comes before the task's start state - and it is undone the same way, by the next lease.
A device the harness cannot switch (a phone: its language is its own) is leased in the episode's language and the
refusal recorded. Everything else is put on after the start state by the episode's session
(harness.run.loop.perturb).
"""

from __future__ import annotations

from harness.errors import ConfigError
from harness.perturbation import PerturbationRecord, PerturbPlan, locale_language
from harness.run.fleet.pool import DevicePool, Lease
from harness.run.loop.perturb import conflict
from tasks.schema import LANGS, Task

LOCALE_PROPS = ("persist.sys.locale", "ro.product.locale")


def _device_locale(lease: Lease) -> str:
    """The system language the leased device reads back (`getprop persist.sys.locale`, else the product's)."""
    for prop in LOCALE_PROPS:
        r = lease.device.shell(["getprop", prop])
        value = r.stdout.decode("utf-8", "replace").strip()
        if value:
            return value
    return ""


def lease_episode(
    pool: DevicePool, slot: int, task: Task, lang: str, plan: PerturbPlan | None
) -> tuple[Lease, list[PerturbationRecord]]:
    """Slot `slot`'s device for an episode of `task` in `lang` (`DevicePool.lease`: health check, reset, the
    language), in the system language of the plan's `locale=` when there is one and it applies; and what the lease
    applied (the locale's record: applied, or why not)."""
    p = plan.get("locale") if plan else None
    if p is None or p.value is None:
        return pool.lease(slot, task.apps, lang), []
    ui = locale_language(p.value)
    why = conflict(task, p)
    if why is None and ui == lang:
        why = f"{p.value} is the episode's own language"
    if why is None and ui not in LANGS:
        why = f"the device pool switches a device's system language to {' or '.join(LANGS)} only"
    if why is not None:
        return pool.lease(slot, task.apps, lang), [PerturbationRecord(p.name, p.value, None, False, why)]
    try:
        lease = pool.lease(slot, task.apps, lang, ui=ui)
    except ConfigError as e:  # a device whose language the harness does not switch (a phone)
        refused = PerturbationRecord(p.name, p.value, None, False, f"the device refused it: {e}")
        return pool.lease(slot, task.apps, lang), [refused]
    now = _device_locale(lease)
    if locale_language(now) != ui:
        why = f"the device refused it: its system language reads back {now or 'nothing'} after the switch"
        return pool.lease(slot, task.apps, lang), [PerturbationRecord(p.name, p.value, None, False, why)]
    note = "" if now.lower() == p.value.lower() else f"the device's system language reads back {now}"
    return lease, [PerturbationRecord(p.name, p.value, None, True, note)]


__all__ = ["lease_episode"]
