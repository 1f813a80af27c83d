"""The report's AndroidWorld section (a run of `--suite androidworld`): AndroidWorld's own figure beside the
harness's SR, grouped as AndroidWorld groups it (difficulty, tags of its task metadata) and by app, each class with
its trials; and the instances the devices could not host (skipped, with why)."""

from __future__ import annotations

from typing import Any

from harness.report.page import e, pct
from harness.trajectory.records import episode_key


def skipped_list(s: dict[str, Any]) -> str:
    rows = s.get("skipped") or []
    if not rows:
        return ""
    items = "".join(
        f'<li><a href="#ep-{e(episode_key(r["task_id"], r["lang"]))}">{e(r["task_id"])}</a>: '
        f"<span class=u>{e(r['reason'])}</span></li>"
        for r in rows
    )
    return (
        f"<details class=infra><summary><b>Skipped ({len(rows)}): instances the devices cannot host</b> "
        f"(never started, never counted)</summary><ul>{items}</ul></details>"
    )


def _rates(title: str, rows: dict[str, Any]) -> str:
    body = "".join(f"<tr><td class=l>{e(k)}</td><td>{pct(v)}</td></tr>" for k, v in rows.items())
    return f"<table><tr><th class=l>{e(title)}</th><th>success rate</th></tr>{body}</table>"


def androidworld_section(s: dict[str, Any]) -> str:
    fig = s.get("androidworld")
    if not isinstance(fig, dict):
        return ""
    classes = "".join(
        f"<tr><td class=l>{e(name)}</td><td>{e(row.get('difficulty') or '')}</td><td>{pct(row['mean_success_rate'])}"
        f"</td><td>{e(row['trials'])}</td><td>{e(row['left_out'])}</td></tr>"
        for name, row in fig["by_class"].items()
    )
    return (
        "<h2>AndroidWorld</h2>"
        f"<p class=headline><b>AndroidWorld's figure {pct(fig['success_rate'])}</b> over {e(fig['classes'])} "
        "task classes <span class=mut>(as its runner computes it: a score counts when the agent declared the task "
        "done; the mean per class, then over classes; episodes whose judge or agent raised are left out)</span></p>"
        f"<h3>By difficulty</h3>{_rates('difficulty', fig['by_difficulty'])}"
        f"<h3>By tag</h3>{_rates('tag', fig['by_tag'])}"
        f"<h3>By app</h3>{_rates('app', fig.get('by_app') or {})}"
        "<h3>By class</h3><table><tr><th class=l>class</th><th>difficulty</th><th>success rate</th><th>trials</th>"
        f"<th>left out</th></tr>{classes}</table>"
    )


__all__ = ["androidworld_section", "skipped_list"]
