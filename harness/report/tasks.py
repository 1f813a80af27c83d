"""One self-contained HTML report per run: `write_report(run_dir)` -> runs/<run_id>/report.html.

The headline and the list of unscored episodes, then the summary by category, language and number of apps
(episodes, SR, ATP, mean steps, invalid steps, agent errors, tokens, timing p50/p95),
then every episode (collapsible `<details>`): status, progress, instruction, milestone timeline and a step
timeline of downscaled screenshots (JPEG data URLs) with the action drawn on them (Pillow), the thought, the
parsed action, the result and the milestones the step hit.

Safety: every value from the run (thoughts, raw outputs, typed text, task ids, ...) goes through `html.escape`
with quote=True, in text and in attributes; data never reaches `innerHTML`. The page loads nothing external
and carries a Content-Security-Policy allowing only inline styles, data: images and the one inline script
(expand/collapse all) by its hash -- a second line of defence should an escape ever be missed.

Scoring: every number comes from `harness.scoring.episodes` (the one scoring function, docs/scoring.md): an episode
counts towards SR/ATP unless it is an infrastructure failure (`infra_error`) or unfinished; those are counted
and listed at the top. Agent errors and invalid steps are scored. Timing percentiles cover every recorded step.
"""

from __future__ import annotations

import json
import logging
from collections import defaultdict
from typing import Any

from harness.report.androidworld import androidworld_section, skipped_list
from harness.report.devices import preparation_section
from harness.report.draw import KEY_ACTIONS, Thumbs, thumbnails
from harness.report.page import CSS, JS, csp, e, header, infra_list, ms, num, pct
from harness.report.summary import (
    MODEL_LATENCY,
    TIMING_PHASES,
    episode_category,
    episode_cost,
    episode_instruction,
    episode_progress,
    run_price,
    step_cost,
    summarize,
)
from harness.scoring.cost import Price, money
from harness.trajectory.reader import EpisodeRecord, Run
from harness.trajectory.records import EXPORTS_DIR, PerturbationEntry, StepRecord
from tasks.schema import CATEGORY_NAMES

log = logging.getLogger(__name__)


TIMING_COLUMNS = (*TIMING_PHASES, MODEL_LATENCY)  # the step phases, then each model call's latency


def _table(title_col: str, rows: list[tuple[str, dict[str, Any]]]) -> str:
    head = (
        "<tr><th class=l rowspan=2>" + e(title_col) + "</th><th rowspan=2>episodes</th><th rowspan=2>scored"
        "</th><th rowspan=2>SR</th><th rowspan=2>ATP</th><th rowspan=2>mean steps</th><th rowspan=2>invalid "
        "steps</th><th rowspan=2>agent errors</th><th rowspan=2>tokens</th><th rowspan=2>tokens / ep.</th>"
        "<th rowspan=2>cost</th><th rowspan=2>cost / ep.</th>"
        + "".join(f"<th colspan=2>{e(p)} ms</th>" for p in TIMING_COLUMNS)
        + "</tr><tr>"
        + "<th>p50</th><th>p95</th>" * len(TIMING_COLUMNS)
        + "</tr>"
    )
    body = []
    for label, r in rows:
        tim = "".join(
            f"<td>{ms(r['timings'][p]['p50'])}</td><td>{ms(r['timings'][p]['p95'])}</td>" for p in TIMING_COLUMNS
        )
        extra = []
        if r["unfinished"]:
            extra.append(f"{r['unfinished']} unfinished")
        if r["infra_errors"]:
            extra.append(f"{r['infra_errors']} infrastructure failures")
        note = f" <span class=mut>({e(', '.join(extra))})</span>" if extra else ""
        body.append(
            f"<tr><td class=l>{label}</td><td>{r['episodes']}{note}</td><td>{r['scored']}</td>"
            f"<td>{pct(r['sr'])}</td><td>{pct(r['atp'])}</td><td>{num(r['mean_steps'])}</td>"
            f"<td>{r['invalid_steps']}</td><td>{r['agent_errors']}</td><td>{r['tokens']:,}</td>"
            f"<td>{num(r['tokens_per_episode'], '{:,.0f}')}</td><td>{money(r['cost'])}</td>"
            f"<td>{money(r['cost_per_episode'])}</td>{tim}</tr>"
        )
    return f"<table>{head}{''.join(body)}</table>"


def _result_html(step: StepRecord) -> str:
    r = step.result
    if step.agent.invalid:
        return f"<div class=res-bad>invalid step: {e(step.agent.error or '')}</div>"
    if r is None:
        return "<div class=mut>not executed</div>"
    parts = [f"<span class={'res-ok' if r.ok else 'res-bad'}>{'ok' if r.ok else 'failed'}</span>"]
    if r.readback_matches is not None:
        parts.append(
            f"<span class={'res-ok' if r.readback_matches else 'res-bad'}>readback "
            f"{'matches' if r.readback_matches else 'differs'}</span>"
        )
        if not r.readback_matches and r.readback is not None:
            parts.append(f"<code>{e(r.readback)}</code>")
    if r.settled is False:
        parts.append("<span class=res-bad>not settled</span>")
    if r.error:
        parts.append(f"<span class=res-bad>{e(r.error)}</span>")
    return "<div>" + " · ".join(parts) + "</div>"


def _overlay_labels(step: StepRecord) -> str:
    a = step.agent.action or {}
    kind = a.get("type")
    out = ""
    if kind in KEY_ACTIONS:
        label = kind if kind != "OPEN_APP" else f"OPEN {a.get('name') or a.get('package') or ''}"
        out += f"<span class=key>{e(label)}</span>"
    elif kind in ("SCROLL",):
        out += f"<span class=key>SCROLL {e(a.get('direction', ''))}</span>"
    text = a.get("text") if kind in ("TYPE", "ANSWER") else a.get("answer") if kind == "COMPLETE" else None
    if text:
        out += f"<span class=cap>{e(('⌨ ' if kind == 'TYPE' else '') + str(text))}</span>"
    return out


def _step_card(
    ep: EpisodeRecord,
    step: StepRecord,
    names: dict[str, str],
    thumbs: Thumbs,
    price: Price | None = None,
) -> str:
    src = thumbs.get((str(ep.path), step.step))
    img = (
        f'<img src="{e(src)}" alt="{e(f"step {step.step} screen")}">'
        if src
        else "<div class=noshot>no screenshot</div>"
    )
    a = step.agent
    action = a.action_text or (a.action.get("type") if a.action else "no action")
    hits = step.milestones.new_hits if step.milestones else []
    hit_html = "".join(f"<div class=hits>✔ {e(names.get(h, h))} <span class=mut>({e(h)})</span></div>" for h in hits)
    thought = f"<div class=thought>{e(a.thought)}</div>" if a.thought else ""
    tim = step.timings
    details = ["<summary class=mut>details</summary>"]
    if a.action is not None:
        details.append(f"<div class=mut>action</div><pre>{e(json.dumps(a.action, ensure_ascii=False))}</pre>")
    if a.raw_output:
        details.append(f"<div class=mut>raw output</div><pre>{e(a.raw_output)}</pre>")
    details.append(
        f"<div class=mut>{e(step.observation.package)} / {e(step.observation.activity)} · tokens "
        f"{a.usage.total_tokens}{' · cost ' + money(step_cost(step, price)) if price else ''}"
        f" · capture {ms(tim.capture)} ms · agent {ms(tim.agent)} ms · "
        f"actuation {ms(tim.actuation)} ms · settle {ms(tim.settle)} ms</div>"
    )
    return (
        f'<div class="step{" invalid" if a.invalid else ""}" id="{e(ep.key)}-s{step.step}">'
        f"<div class=shot>{img}{_overlay_labels(step)}</div>"
        f"<div><b>#{step.step}</b> <span class=act>{e(action)}</span></div>{_result_html(step)}{hit_html}"
        f"{thought}<details>{''.join(details)}</details></div>"
    )


def _episode(run: Run, ep: EpisodeRecord, thumbs: Thumbs) -> str:
    meta = ep.meta
    status = ep.status
    price = run_price(run)
    prog = episode_progress(ep)
    cat = episode_category(run, ep)
    milestones = meta.milestones if meta else []
    names = {str(m.get("id")): str(m.get("sub_target") or m.get("id")) for m in milestones}
    if not milestones:  # unfinished: what the last step knew
        last = next((s.milestones for s in reversed(ep.steps) if s.milestones is not None), None)
        milestones = [{"id": k, "sub_target": k, "hit_step": v} for k, v in (last.hits if last else {}).items()]
    summary = (
        f'<summary><span class="badge s-{e(status)}">{e(status)}</span><b>{e(ep.task_id)}</b>'
        f'<span class=mut>{e(ep.lang)} · {e(cat)}</span><span class=bar><span style="width:'
        f'{100 * prog:.0f}%"></span></span><span>{100 * prog:.0f}%</span>'
        f"<span class=mut>{len(ep.steps)} steps</span>"
        + (' <span class="badge s-success">SR</span>' if meta and meta.success else "")
        + "".join(
            f'<span class="badge pert" title="{e(_perturbation_text(p))}">{e(p.record().label)}</span>'
            for p in (meta.perturbations if meta else [])
            if p.applied
        )
        + "</summary>"
    )
    info = []
    ins = episode_instruction(run, ep)
    if ins:
        info.append(f"<p><b>Instruction:</b> <span class=u>{e(ins)}</span></p>")
    exported = [
        f"{EXPORTS_DIR}/{ep.key}.{x}" for x in ("gif", "mp4") if (run.path / EXPORTS_DIR / f"{ep.key}.{x}").is_file()
    ]
    if exported:  # `droidharness export RUN --episode ID --format gif|mp4` wrote them next to the report
        info.append("<p><b>Animation:</b> " + " · ".join(f'<a href="{e(p)}">{e(p)}</a>' for p in exported) + "</p>")
    if meta:
        facts = [
            f"tokens {meta.tokens.total_tokens:,}",
            *([f"cost {money(episode_cost(ep, price))}"] if price else []),
            f"invalid steps {meta.invalid_outputs}",
            f"attempts {meta.attempts}",
            f"wall {num(meta.timings.get('wall'))} s",
        ]
        if meta.seed is not None:
            facts.append(f"seed {meta.seed}")
        if meta.device.get("serial"):
            facts.append(f"device {meta.device['serial']}")
        if meta.reset_method:  # how the pool reset the device first (runs before issue 14 have none)
            facts.append(f"reset {meta.reset_method} {num(meta.reset_seconds, '{:.3f}')} s")
        info.append(f"<p class=mut>{e(' · '.join(facts))}</p>")
        if meta.perturbations:
            items = " · ".join(
                f'<span class="badge pert{"" if p.applied else " off"}">{e(p.record().label)}</span> '
                f"<span class=mut>{e(_perturbation_text(p))}</span>"
                for p in meta.perturbations
            )
            info.append(f"<p><b>Perturbations:</b> {items}</p>")
        if meta.answer is not None:
            info.append(f"<p><b>Answer:</b> <span class=u>{e(meta.answer)}</span></p>")
        if meta.error:
            info.append(f"<p class=res-bad><b>Error:</b> <span class=u>{e(meta.error)}</span></p>")
        end = meta.extra.get("end_state")
        if isinstance(end, dict):
            verdict = (
                "still holds" if end.get("held") else "does NOT hold: " + "; ".join(map(str, end.get("failed", [])))
            )
            info.append(f"<p class={'res-ok' if end.get('held') else 'res-bad'}><b>End state:</b> {e(verdict)}</p>")
        probes = meta.extra.get("probes")
        if isinstance(probes, list) and probes:
            info.append(_probes_html(probes))
    else:
        info.append(
            "<p class=res-bad>Unfinished: no episode.json (the run was interrupted or is still going)."
            + (f" {len(ep.stats.bad_lines)} corrupt line(s) skipped." if ep.stats.bad_lines else "")
            + (" The last step line was cut off." if ep.stats.truncated else "")
            + "</p>"
        )
    if milestones:
        items = "".join(
            f"<li class={'hit' if m.get('hit_step') is not None else 'miss'}>"
            + (f"step {e(m.get('hit_step'))}: " if m.get("hit_step") is not None else "not hit: ")
            + f"{e(m.get('sub_target'))} <span class=mut>({e(m.get('id'))})</span></li>"
            for m in milestones
        )
        hit_at: dict[int, list[str]] = defaultdict(list)
        for m in milestones:
            if m.get("hit_step") is not None:
                hit_at[int(m["hit_step"])].append(str(m.get("id")))
        strip = "".join(
            f'<span class="{"h" if s.step in hit_at else "x" if s.agent.invalid else ""}" '
            f'title="{e(f"step {s.step}: " + (", ".join(hit_at[s.step]) or (s.agent.action_text or "")))}">'
            f"{s.step}</span>"
            for s in ep.steps
        )
        info.append(f"<h3>Milestones</h3><ol class=ms>{items}</ol><div class=strip>{strip}</div>")
    cards = [_step_card(ep, s, names, thumbs, price) for s in ep.steps]
    final = meta.final_observation if meta else None
    if final is not None and ep.final_step is not None:
        src = thumbs.get((str(ep.path), ep.final_step))
        if src:
            cards.append(
                f'<div class="step final"><div class=shot><img src="{e(src)}" alt="final screen">'
                f"</div><div><b>final screen</b></div><div class=mut>{e(final.package)}</div></div>"
            )
    steps_html = f"<h3>Steps</h3><div class=steps>{''.join(cards)}</div>" if cards else "<p class=mut>no steps</p>"
    return (
        f'<details class=episode id="ep-{e(ep.key)}">{summary}<div class=body>{"".join(info)}'
        f"{steps_html}</div></details>"
    )


def _perturbation_text(p: PerturbationEntry) -> str:
    """What an episode did with one perturbation, in words."""
    when = f" before step {p.step}" if p.step is not None else ""
    if p.applied:
        return f"applied{when}" + (f" ({p.reason})" if p.reason else "")
    return f"not applied{when}: {p.reason}"


def _perturb_line(s: dict[str, Any]) -> str:
    """The run's perturbations (`run --perturb`) and how many episodes each was applied to."""
    plan = s.get("perturb")
    if not plan:
        return ""
    parts = [f"{e(label)} <span class=mut>({n} of {plan['episodes']})</span>" for label, n in plan["applied"].items()]
    return (
        f"<p><b>Perturbations</b> (seed {e(plan['seed'])}; applied to episodes): {' · '.join(parts)} "
        "<span class=mut>- a perturbation a task checks is not applied to it; docs/robustness.md</span></p>"
    )


def _probes_html(probes: list[Any]) -> str:
    """An episode's probe questions (harness.run.loop.probes): asked on the screen of their milestone, or not."""
    rows = []
    for p in probes:
        if not isinstance(p, dict):
            continue
        if not p.get("asked"):
            why = p.get("error") or f"not reached (milestone {p.get('at')} not hit)"
            rows.append(f"<tr><td>{e(p.get('probe_id'))}</td><td colspan=4 class=mut>{e(why)}</td></tr>")
            continue
        scores = p.get("scores") or {}
        gt = (p.get("ground_truth") or {}).get("short") or []
        rows.append(
            f"<tr><td>{e(p.get('probe_id'))} <span class=mut>step {e(p.get('step'))}</span></td>"
            f"<td class=u>{e(p.get('question'))}</td><td class=u>{e(p.get('answer_text'))}</td>"
            f"<td class=u>{e(' | '.join(map(str, gt)))}</td>"
            f"<td>SQA-S F1 {pct(scores.get('sqa_s_f1'))} · UIC F1 {pct(scores.get('sqa_uic_f1'))}</td></tr>"
        )
    return (
        "<h3>Probes</h3><table><tr><th>probe</th><th>question</th><th>answer</th><th>ground truth</th>"
        f"<th>scores</th></tr>{''.join(rows)}</table>"
    )


def _price_text(price: dict[str, Any]) -> str:
    p = Price.from_json(price)
    return f"{p} ({p.source})" if p else "?"


def render_task_report(run: Run) -> str:
    """The report of a task run as one HTML string (no external resources)."""

    s = summarize(run)
    cat_rows = [
        (f"{e(c)} <span class=mut>{e(CATEGORY_NAMES.get(c, ''))}</span>", r) for c, r in s["by_category"].items()
    ]
    lang_rows = [(e(lg), r) for lg, r in s["by_language"].items()]
    app_rows = [(e(k), r) for k, r in s["by_app_count"].items()]
    statuses = " · ".join(f'<span class="badge s-{e(k)}">{e(k)}</span> {v}' for k, v in s["statuses"].items())
    thumbs = thumbnails(run.episodes.values())
    episodes = "".join(_episode(run, ep, thumbs) for ep in run.episodes.values())
    title = f"DroidHarness report · {run.manifest.run_id if run.manifest else run.path.name}"
    return (
        "<!DOCTYPE html><html lang=en><head><meta charset=utf-8>"
        f'<meta http-equiv="Content-Security-Policy" content="{e(csp())}">'
        '<meta name=viewport content="width=device-width,initial-scale=1">'
        f"<title>{e(title)}</title><style>{CSS}</style></head><body>"
        f"{header(run)}{_perturb_line(s)}<h2>Summary</h2><p class=headline><b>{e(s['headline'])}</b></p>"
        f"{infra_list(s)}{skipped_list(s)}"
        f"{_table('overall', [('all', s['overall'])])}"
        f"<h3>By category</h3>{_table('category', cat_rows)}<h3>By language</h3>{_table('language', lang_rows)}"
        f"<h3>By number of apps</h3>{_table('apps', app_rows)}"
        f"<p>{statuses}</p><p class=mut>SR: share of scored episodes that succeeded (every milestone hit, the "
        "task's end state still holding at the end and, where the task expects one, the right answer). ATP: mean "
        "milestone progress. Scored: every episode except infrastructure failures and unfinished ones; agent "
        "errors (exceptions, timeouts) and invalid steps count against the agent. Timings are per step, in "
        "milliseconds; model: each model call's round trip. "
        + (f"Cost: the tokens at {e(_price_text(s['price']))}." if s["price"] else "Cost: unpriced (run --price).")
        + "</p>"
        f"{androidworld_section(s)}{preparation_section(run)}"
        f"<h2>Episodes ({len(run.episodes)})</h2><div class=toolbar><button type=button data-toggle=open>"
        "expand all</button><button type=button data-toggle=close>collapse all</button></div>"
        f"{episodes}<script>{JS}</script></body></html>"
    )
