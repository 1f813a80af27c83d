"""The report's "Device preparation" section: per device of the run, what preparing it set, what it kept, what
could not be set and why (manifest.json `devices[i].preparation`, written by the device pool from
`harness.device.prepare`), and the cores a device process was pinned to (`devices[i].cpus`). Every value from
the run goes through `harness.report.page.e`."""

from __future__ import annotations

from harness.device.preparation import KEPT, NOT_SET, SET, DevicePreparation
from harness.report.page import e
from harness.trajectory.reader import Run
from harness.trajectory.records import TrajectoryError

_BADGE = {SET: "s-success", NOT_SET: "s-failed", KEPT: ""}


def _cores(cpus: object) -> str:
    """The header's note for a device process pinned by `--cpu-affinity` (` · on core 0`); "" when it was not."""
    if not isinstance(cpus, list) or not cpus:
        return ""
    return f" · on core{'s' if len(cpus) > 1 else ''} {e(', '.join(str(c) for c in cpus))}"


def _device_table(serial: str, prep: DevicePreparation, cores: str = "") -> str:
    rows = "".join(
        f'<tr><td class=l><code>{e(r.name)}</code></td><td class=l><span class="badge {_BADGE.get(r.status, "")}">'
        f"{e(r.status)}</span></td><td class=l>{e(r.wanted if r.wanted is not None else '')}</td>"
        f"<td class=l>{e(r.value if r.value is not None else '')}</td>"
        f"<td class=l>{e(r.previous if r.previous is not None else '')}</td>"
        f"<td class=l><code>{e(r.method)}</code>{'<br>' if r.method and r.reason else ''}"
        f"<span class=u>{e(r.reason)}</span></td></tr>"
        for r in prep.settings
    )
    refused = len(prep.not_set)
    return (
        f"<h3>{e(serial)} <span class=mut>prepared {e(prep.at)} in {prep.seconds:.2f} s"
        f"{f' · {refused} not set' if refused else ''}{cores}</span></h3>"
        "<table><tr><th class=l>setting</th><th class=l>status</th><th class=l>asked</th><th class=l>now</th>"
        f"<th class=l>before</th><th class=l>how / why not</th></tr>{rows}</table>"
    )


def preparation_section(run: Run) -> str:
    """The section, or "" for a run whose devices were not prepared (written before preparation existed)."""
    if run.manifest is None:
        return ""
    try:
        preps = run.manifest.preparations()
    except TrajectoryError as err:
        return f"<h2>Device preparation</h2><p class=infra>{e(err)}</p>"
    if not any(preps):
        return ""
    tables = "".join(
        _device_table(str(dev.get("serial") or prep.serial), prep, _cores(dev.get("cpus")))
        for dev, prep in zip(run.manifest.devices, preps, strict=True)
        if prep is not None
    )
    return (
        "<h2>Device preparation</h2><p class=mut>Set on each device before its first episode and again after each "
        "reset; a phone's own values are put back after the run. <i>not set</i>: the device refused (its answer "
        f"is shown).</p>{tables}"
    )
