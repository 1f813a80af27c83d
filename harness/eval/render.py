"""The rich tables of an offline evaluation report (figures in %): a header with the step counts, then the tables
of the dataset's official metric (`render_aitw`, `render_odyssey`, `render_agentcpm`; `harness.eval.metric_kinds`
says which renderer a metric family uses)."""

from __future__ import annotations

import math
from typing import Any

from rich.table import Table


def pct(v: Any) -> str:
    """A fraction as a percentage with two decimals; "-" for None / NaN."""
    return "-" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{100 * v:.2f}"


def render_header(report: dict[str, Any], console: Any) -> None:
    """The dataset, what was evaluated and how many steps had no usable prediction (and why)."""
    head = (
        f"{report['dataset']}: {report['episodes']} episodes, {report['steps']} steps; invalid {report['invalid']}, "
        f"not expressible {report['unexpressible']}, missing {report['missing']}"
    )
    errors, timeouts = report.get("agent_errors") or 0, report.get("agent_timeouts") or 0
    if errors or timeouts:
        head += f"; agent errors {errors}, timeouts {timeouts} (those steps score as invalid)"
    console.print(head, highlight=False)


def render_aitw(report: dict[str, Any], console: Any) -> None:
    """AitW action matching per subset, the overall mean of subsets, per split label."""
    m = report["metrics"]
    t = Table(
        "subset",
        "episodes",
        "steps",
        "action matching acc. (%)",
        "step acc. (%)",
        title="AitW action matching (per-episode partial accuracy)",
    )
    for sub, v in m["per_subset"].items():
        t.add_row(sub, str(v["episodes"]), str(v["steps"]), pct(v["action_matching_accuracy"]), pct(v["step_accuracy"]))
    t.add_row(
        "[bold]overall[/bold] (mean of subsets)",
        str(m["episodes"]),
        str(m["steps"]),
        f"[bold]{pct(m['overall'])}[/bold]",
        pct(m["step_accuracy"]),
    )
    console.print(t)
    for split, v in (m.get("per_split") or {}).items():
        console.print(f"split {split}: overall {pct(v['overall'])}% over {v['episodes']} episodes", highlight=False)


def render_odyssey(report: dict[str, Any], console: Any) -> None:
    """GUI Odyssey AMS / SR per category, pooled and per-category mean, the other click rule."""
    m = report["metrics"]
    t = Table(
        "category",
        "episodes (left out)",
        "steps (scored)",
        "AMS (%)",
        "SR (%)",
        title=f"GUI Odyssey, rule {m['rule']}",
    )

    def row(name: str, v: dict[str, Any]) -> None:
        t.add_row(
            name,
            f"{v['episodes']} ({v['episodes_left_out']})",
            f"{v['steps']} ({v['steps_scored']})",
            pct(v["AMS"]),
            pct(v["SR"]),
        )

    for cat, v in m["per_category"].items():
        row(cat, v)
    row("[bold]pooled[/bold]", m["pooled"])
    if m.get("per_category_mean"):
        row("[bold]per-category mean[/bold]", m["per_category_mean"])
    console.print(t)
    console.print(
        f"official aggregation for this split: {m['official_aggregate']} -> AMS {pct(m['AMS'])}%, "
        f"SR {pct(m['SR'])}% ({m['episodes_left_out']} episodes left out of SR: a step without "
        f"a prediction); action type {pct(m['action_type_accuracy'])}%, text "
        f"{pct(m['text_accuracy'])}% ({m['text_correct']} / {m['text_total']})",
        highlight=False,
    )
    o = m["other_rule"]
    console.print(
        f"rule {o['rule']}: pooled AMS {pct(o['pooled']['AMS'])}%, SR {pct(o['pooled']['SR'])}%", highlight=False
    )


def render_agentcpm(report: dict[str, Any], console: Any) -> None:
    """The AgentCPM-GUI evaluator's figures per category / subset and per action type."""
    m = report["metrics"]
    ds = report["dataset"]
    group = "category" if "per_category" in m else "subset"
    t = Table(
        group,
        "episodes",
        "steps",
        "TM (%)",
        "EM (%)",
        "SR (%)",
        "GP (%)",
        title=f"{ds}: AgentCPM-GUI static evaluator",
    )
    for g, v in (m.get(f"per_{group}") or {}).items():
        t.add_row(g, str(v["episodes"]), str(v["steps"]), pct(v["TM"]), pct(v["EM"]), pct(v["SR"]), pct(v["GP"]))
    t.add_row(
        "[bold]all[/bold]",
        str(m["episodes"]),
        str(m["steps"]),
        pct(m["TM"]),
        pct(m["EM"]),
        pct(m["SR"]),
        pct(m["GP"]),
    )
    console.print(t)
    pt = Table("GT action type", "steps", "TM (%)", "EM (%)", title=f"per action type (mode {m['mode']})")
    for name, v in m["per_type"].items():
        pt.add_row(name, str(v["count"]), pct(v["TM"]), pct(v["EM"]))
    console.print(pt)
    pd = m["point_dist_avg"]
    td = m["text_dist_avg"]
    console.print(
        f"hit rate {pct(m['hit_rate'])}%, avg text distance (Levenshtein ratio) "
        f"{'-' if td is None else f'{td:.4f}'}, avg point distance "
        f"{'-' if pd is None else f'{pd:.1f}'} (of 1000); steps without a prediction are left out",
        highlight=False,
    )
    if len(m.get("per_lang") or {}) > 1:
        for lang, v in m["per_lang"].items():
            console.print(f"{lang}: EM {pct(v['EM'])}%  SR {pct(v['SR'])}%", highlight=False)
