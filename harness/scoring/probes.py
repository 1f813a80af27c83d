"""The QA scores of probes (screen questions a task asks when one of its milestones is first hit; the loop asks
them, `harness.run.loop.probes`): means over the probes asked, and their part of a run's headline.
"""

from __future__ import annotations

from collections.abc import Iterable
from statistics import mean
from typing import Any

PROBE_METRICS = ("sqa_s_em", "sqa_s_f1", "sqa_uic_f1", "sqa_uic_bb_f1", "ndcg_v", "f1")


def summarize_probes(records: Iterable[dict[str, Any]]) -> dict[str, float | int] | None:
    """QA scores over the probes asked (means of `PROBE_METRICS`, fractions) and the counts; None when no
    probe exists at all (the task set has none)."""
    recs = list(records)
    if not recs:
        return None
    asked = [r for r in recs if r.get("asked")]
    out: dict[str, float | int] = {
        "probes": len(recs),
        "asked": len(asked),
        "not_reached": sum(not r.get("reached") for r in recs),
        "unresolved": sum(bool(r.get("reached") and not r.get("asked")) for r in recs),
    }
    for k in PROBE_METRICS:
        values = [float(r["scores"][k]) for r in asked if k in r.get("scores", {})]
        if values:
            out[k] = mean(values)
    return out


def probe_headline(summary: dict[str, float | int] | None) -> str:
    """The probes' part of a run's headline ("" when the tasks carry no probes)."""
    if not summary:
        return ""
    asked, total = int(summary["asked"]), int(summary["probes"])
    if not asked:
        return f"  probes: none asked of {total}"
    return (
        f"  probes: SQA-S F1 {summary['sqa_s_f1']:.1%}  UIC F1 {summary['sqa_uic_f1']:.1%}  "
        f"over {asked} asked of {total}"
    )
