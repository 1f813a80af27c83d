"""The page of `droidharness compare --out compare.html`: the comparison's tables, then every shared episode with
the baseline's and each other run's steps side by side, aligned step by step, the first step where they differ
marked.

Built from the report's own parts: the page (`harness.report.page`: escaping, style sheet, the one inline script
and its Content-Security-Policy) and the screenshots with the action drawn on them (`harness.report.draw`).
Every value from the runs goes through `e`; the page loads nothing external.
"""

from __future__ import annotations

from harness.report.compare import Comparison, Pairing, first_difference
from harness.report.draw import Thumbs, thumbnails
from harness.report.page import CSS, JS, csp, e, num, pct
from harness.scoring.cost import money
from harness.scoring.episodes import BREAKDOWNS, Score
from harness.trajectory.reader import EpisodeRecord
from harness.trajectory.records import StepRecord, parse_episode_key
from tasks.schema import CATEGORY_NAMES

COMPARE_CSS = """
table.side{width:100%;table-layout:fixed}table.side td{vertical-align:top;text-align:left}
table.side td.n{width:70px;text-align:right}tr.first td{background:#fff5f5}tr.first td.n{color:var(--bad);
font-weight:700}.side .shot img{max-width:240px}.up{color:var(--ok);font-weight:600}.down{color:var(--bad);
font-weight:600}.note{border:1px solid var(--warn);background:#fff8eb;border-radius:6px;padding:6px 10px}
"""


def _name(key: str) -> str:
    task, lang = parse_episode_key(key)
    return f"{task} [{lang}]"


def _link(key: str) -> str:
    return f'<a href="#cmp-{e(key)}">{e(_name(key))}</a>'


def _diff(a: float | None, b: float | None, pct_points: bool = True) -> str:
    if a is None or b is None:
        return "–"
    d = b - a
    cls = "up" if d > 0 else "down" if d < 0 else "mut"
    text = f"{100 * d:+.1f} pts" if pct_points else f"{d:+,.0f}"
    return f"<span class={cls}>{e(text)}</span>"


def _runs_table(c: Comparison) -> str:
    rows = []
    for i, s in enumerate(c.sides):
        o = c.boards[i].overall
        rows.append(
            f"<tr><td class=l>{e(s.label)}{' <span class=mut>(baseline)</span>' if i == 0 else ''}</td>"
            f"<td class=l>{e(s.agent)}</td><td class=l>{e(s.suite)}</td><td>{len(s.run.episodes)}</td>"
            f"<td>{o.scored}</td><td>{pct(o.sr)}</td><td>{pct(o.atp)}</td><td>{num(o.mean_steps)}</td>"
            f"<td>{c.tokens(i):,}</td><td>{money(c.cost(i))}</td></tr>"
        )
    return (
        "<table><tr><th class=l>run</th><th class=l>agent</th><th class=l>suite</th><th>episodes</th>"
        "<th>scored (shared)</th><th>SR</th><th>ATP</th><th>mean steps</th><th>tokens</th><th>cost</th></tr>"
        f"{''.join(rows)}</table>"
    )


def _pairing_html(c: Comparison, p: Pairing) -> str:
    base, other = c.sides[0].label, c.sides[p.other].label
    ci = p.progress_interval
    interval = f"[{100 * ci[0]:+.1f}, {100 * ci[1]:+.1f}] pts" if ci else "–"
    flips = (
        f"<p><b>gained</b> ({len(p.gained)}): {', '.join(_link(k) for k in p.gained) or '–'}<br>"
        f"<b>lost</b> ({len(p.lost)}): {', '.join(_link(k) for k in p.lost) or '–'}</p>"
    )
    return (
        f"<h3>{e(other)} vs {e(base)}</h3><p>{p.paired} episode(s) scored in both. SR {pct(p.sr[0])} → "
        f"{pct(p.sr[1])} ({_diff(*p.sr)}), exact McNemar p = {p.mcnemar_p:.4g} ({len(p.lost)} lost, "
        f"{len(p.gained)} gained). ATP {pct(p.atp[0])} → {pct(p.atp[1])} ({_diff(*p.atp)}), paired bootstrap "
        f"95% interval of the progress difference {e(interval)} ({p.resamples:,} resamples, seed {p.seed}).</p>"
        f"{flips}"
    )


def _perturbation_html(c: Comparison) -> str:
    """Runs made with --perturb: per perturbation, the shared episodes it was applied to, their flips and the
    paired tests on them."""
    if not c.by_perturbation:
        return ""
    rows = []
    for g in c.by_perturbation:
        p = g.pairing
        rows.append(
            f'<tr><td class=l><span class="badge pert">{e(g.perturbation)}</span></td>'
            f"<td class=l>{e(c.sides[p.other].label)}</td><td>{p.paired}</td><td>{pct(p.sr[0])} → {pct(p.sr[1])}</td>"
            f"<td>{_diff(*p.sr)}</td><td>{p.mcnemar_p:.4g}</td><td>{pct(p.atp[0])} → {pct(p.atp[1])}</td>"
            f"<td class=l>{', '.join(_link(k) for k in p.lost) or '–'}</td>"
            f"<td class=l>{', '.join(_link(k) for k in p.gained) or '–'}</td></tr>"
        )
    return (
        "<h2>By perturbation</h2><p class=mut>Each perturbation's shared episodes: those it was applied to (in either "
        "run of the pair; an episode belongs to every perturbation applied to it), and the paired tests on them.</p>"
        "<table><tr><th class=l>perturbation</th><th class=l>run</th><th>paired</th><th>SR</th><th>Δ SR</th>"
        "<th>exact McNemar p</th><th>ATP</th><th class=l>lost</th><th class=l>gained</th></tr>"
        f"{''.join(rows)}</table>"
    )


def _breakdown_html(c: Comparison, name: str) -> str:
    head = "".join(f"<th>{e(s.label)} SR</th><th>ATP</th>" for s in c.sides)
    diffs = "".join(f"<th>Δ SR {e(c.sides[p.other].label)}</th><th>Δ ATP</th>" for p in c.pairings)
    rows = []
    for group, scores in c.breakdown(name).items():
        named = CATEGORY_NAMES.get(group, "") if name == "by_category" else ""
        label = e(group) + (f" <span class=mut>{e(named)}</span>" if named else "")
        cells = "".join(f"<td>{pct(s.sr if s else None)}</td><td>{pct(s.atp if s else None)}</td>" for s in scores)
        base: Score | None = scores[0]
        deltas = "".join(
            f"<td>{_diff(base.sr if base else None, s.sr if s else None)}</td>"
            f"<td>{_diff(base.atp if base else None, s.atp if s else None)}</td>"
            for s in scores[1:]
        )
        rows.append(f"<tr><td class=l>{label}</td>{cells}{deltas}</tr>")
    return f"<table><tr><th class=l>{e(name.removeprefix('by_'))}</th>{head}{diffs}</tr>{''.join(rows)}</table>"


def _androidworld_html(c: Comparison) -> str:
    """Runs of AndroidWorld's suite: each one's AndroidWorld figure over the shared episodes, as it groups them."""
    figs = c.androidworld()
    if not any(figs):
        return ""
    head = "".join(f"<th>{e(s.label)}</th>" for s in c.sides)
    overall = "".join(f"<td>{pct(f['success_rate'] if f else None)}</td>" for f in figs)
    rows = [f"<tr><td class=l><b>overall</b></td>{overall}</tr>"]
    for part in ("by_difficulty", "by_tag", "by_app"):
        groups = sorted({g for f in figs if f for g in f[part]})
        for g in groups:
            cells = "".join(f"<td>{pct(f[part].get(g) if f else None)}</td>" for f in figs)
            rows.append(f"<tr><td class=l>{e(part.removeprefix('by_'))}: {e(g)}</td>{cells}</tr>")
    return (
        "<h2>AndroidWorld</h2><p class=mut>AndroidWorld's own figure over the shared episodes, as its runner computes "
        "it, grouped by its task metadata's difficulty and tags, and by app.</p>"
        f"<table><tr><th class=l>group</th>{head}</tr>{''.join(rows)}</table>"
    )


def _episodes_table(c: Comparison) -> str:
    head = "".join(f"<th>{e(s.label)}</th><th>progress</th><th>steps</th><th>tokens</th><th>cost</th>" for s in c.sides)
    diffs = "".join(
        f"<th>Δ progress {e(c.sides[p.other].label)}</th><th>Δ steps</th><th>Δ tokens</th><th>Δ cost</th>"
        for p in c.pairings
    )
    rows = []
    for k in c.shared:
        cells = c.cells[k]
        runs = "".join(
            f'<td><span class="badge s-{e(x.status)}">{e(x.status)}</span></td><td>{pct(x.progress)}</td>'
            f"<td>{x.steps}</td><td>{x.tokens:,}</td><td>{money(x.cost)}</td>"
            for x in cells
        )
        deltas = ""
        for p in c.pairings:
            d = c.delta(k, p.other)
            cost = d["cost"]
            signed = "–" if cost is None else ("+" if cost >= 0 else "-") + money(abs(cost))
            deltas += (
                f"<td>{_diff(0.0, d['progress'])}</td><td>{d['steps']:+d}</td><td>{d['tokens']:+,d}</td>"
                f"<td>{signed}</td>"
            )
        rows.append(f"<tr><td class=l>{_link(k)}</td>{runs}{deltas}</tr>")
    return f"<table><tr><th class=l>episode</th>{head}{diffs}</tr>{''.join(rows)}</table>"


def _step_cell(ep: EpisodeRecord, step: StepRecord | None, thumbs: Thumbs) -> str:
    if step is None:
        return "<td class=mut>–</td>"
    src = thumbs.get((str(ep.path), step.step))
    img = f'<img src="{e(src)}" alt="{e(f"step {step.step} screen")}">' if src else "<div class=noshot>no screen</div>"
    a = step.agent
    action = a.action_text or (a.action.get("type") if a.action else None) or "no action"
    hits = step.milestones.new_hits if step.milestones else []
    return (
        f"<td><div class=shot>{img}</div><div class=act>{e(action)}</div>"
        + (f"<div class=res-bad>invalid: {e(a.error)}</div>" if a.invalid else "")
        + "".join(f"<div class=hits>✔ {e(h)}</div>" for h in hits)
        + (f"<div class=thought>{e(a.thought)}</div>" if a.thought else "")
        + "</td>"
    )


def _final_cell(ep: EpisodeRecord, thumbs: Thumbs) -> str:
    src = thumbs.get((str(ep.path), ep.final_step)) if ep.final_step is not None else None
    img = f'<div class=shot><img src="{e(src)}" alt="final screen"></div>' if src else ""
    return f"<td>{img}<div class=mut>{e(ep.status)}</div></td>"


def _side_by_side(c: Comparison, key: str, p: Pairing, thumbs: Thumbs) -> str:
    a, b = c.sides[0].run.episodes[key], c.sides[p.other].run.episodes[key]
    first = first_difference(a.steps, b.steps)
    rows = []
    for i in range(max(len(a.steps), len(b.steps))):
        sa = a.steps[i] if i < len(a.steps) else None
        sb = b.steps[i] if i < len(b.steps) else None
        ref = sa if sa is not None else sb
        n = ref.step if ref is not None else i + 1
        mark = n == first
        rows.append(
            f"<tr{' class=first' if mark else ''}><td class=n>#{n}"
            + ("<br>first difference" if mark else "")
            + f"</td>{_step_cell(a, sa, thumbs)}{_step_cell(b, sb, thumbs)}</tr>"
        )
    rows.append(f"<tr><td class=n>end</td>{_final_cell(a, thumbs)}{_final_cell(b, thumbs)}</tr>")
    said = f"first difference at step {first}" if first is not None else "the same steps"
    return (
        f"<h3>{e(c.sides[0].label)} | {e(c.sides[p.other].label)} <span class=mut>({e(said)})</span></h3>"
        f"<table class=side><tr><th class=n>step</th><th class=l>{e(c.sides[0].label)}</th>"
        f"<th class=l>{e(c.sides[p.other].label)}</th></tr>{''.join(rows)}</table>"
    )


def _episode(c: Comparison, key: str, thumbs: Thumbs) -> str:
    badges = " ".join(
        f'<span class=mut>{e(s.label)}</span> <span class="badge s-{e(x.status)}">{e(x.status)}</span> '
        f"{pct(x.progress)}"
        for s, x in zip(c.sides, c.cells[key], strict=True)
    )
    firsts = [
        first_difference(c.sides[0].run.episodes[key].steps, c.sides[p.other].run.episodes[key].steps)
        for p in c.pairings
    ]
    diff = ", ".join("same steps" if f is None else f"differs from step {f}" for f in firsts)
    body = "".join(_side_by_side(c, key, p, thumbs) for p in c.pairings)
    return (
        f'<details class=episode id="cmp-{e(key)}"><summary><b>{e(_name(key))}</b> {badges} '
        f"<span class=mut>{e(diff)}</span></summary><div class=body>{body}</div></details>"
    )


def render_compare(c: Comparison) -> str:
    """The comparison page as one HTML string (no external resources)."""
    thumbs = thumbnails(s.run.episodes[k] for k in c.shared for s in c.sides)
    notes = "".join(f"<p class=note>{e(n)}</p>" for n in c.notes)
    titles = {"by_category": "By category", "by_language": "By language", "by_app_count": "By number of apps"}
    breakdowns = "".join(f"<h3>{titles.get(n, n)}</h3>{_breakdown_html(c, n)}" for n in BREAKDOWNS)
    title = "DroidHarness compare · " + " vs ".join(s.label for s in c.sides)
    return (
        "<!DOCTYPE html><html lang=en><head><meta charset=utf-8>"
        f'<meta http-equiv="Content-Security-Policy" content="{e(csp())}">'
        '<meta name=viewport content="width=device-width,initial-scale=1">'
        f"<title>{e(title)}</title><style>{CSS}{COMPARE_CSS}</style></head><body>"
        f"<h1>{e(title)}</h1>{notes}<p>{len(c.shared)} shared episode(s); the first run is the baseline. SR and "
        "ATP over each run's scored shared episodes; the paired tests over the episodes scored in both.</p>"
        f"{_runs_table(c)}<h2>Paired tests</h2>{''.join(_pairing_html(c, p) for p in c.pairings)}"
        f"{_perturbation_html(c)}{_androidworld_html(c)}"
        f"<h2>Breakdowns</h2>{breakdowns}<h2>Episodes</h2>{_episodes_table(c)}"
        "<h2>Steps side by side</h2><div class=toolbar><button type=button data-toggle=open>expand all</button>"
        "<button type=button data-toggle=close>collapse all</button></div>"
        f"{''.join(_episode(c, k, thumbs) for k in c.shared)}<script>{JS}</script></body></html>"
    )


__all__ = ["render_compare"]
