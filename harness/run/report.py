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

Scoring: every number comes from `harness.run.scoring` (the one scoring function, docs/scoring.md): an episode
counts towards SR/ATP unless it is an infrastructure failure (`infra_error`) or unfinished; those are counted
and listed at the top. Agent errors and invalid steps are scored. Timing percentiles cover every recorded step.
"""

from __future__ import annotations

import base64
import hashlib
import html
import io
import json
import logging
import math
import os
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from harness.run.result import UNFINISHED, EpisodeResult
from harness.run.scoring import BREAKDOWNS, Score, Scoreboard, headline, scoreboard
from harness.run.trajectory import EpisodeRecord, Run, StepRecord, atomic_write_bytes, episode_key, load_run
from harness.scrub import redact

log = logging.getLogger(__name__)

THUMB_LONG_SIDE = 360
JPEG_QUALITY = 70
TIMING_PHASES = ("capture", "agent", "actuation", "settle")
KEY_ACTIONS = {"BACK", "HOME", "ENTER", "RECENT", "WAIT", "OPEN_APP", "COMPLETE", "IMPOSSIBLE", "ANSWER"}


def e(value: Any) -> str:
    """Escape for HTML text AND attribute values."""
    return html.escape("" if value is None else str(value), quote=True)


# --- numbers ---------------------------------------------------------------------------------------------------
def percentile(values: list[float], q: float) -> float | None:
    """Linear-interpolated percentile (q in [0, 100]) of `values`; None when empty."""
    xs = sorted(v for v in values if v is not None and math.isfinite(v))
    if not xs:
        return None
    k = (len(xs) - 1) * q / 100.0
    lo, hi = math.floor(k), math.ceil(k)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def _category(run: Run, ep: EpisodeRecord) -> str:
    if ep.meta and ep.meta.category:
        return ep.meta.category
    for t in run.manifest.tasks if run.manifest else []:
        if t.get("id") == ep.task_id and t.get("category"):
            return str(t["category"])
    return "?"


def _instruction(run: Run, ep: EpisodeRecord) -> str | None:
    if ep.meta and ep.meta.instruction:
        return ep.meta.instruction
    for t in run.manifest.tasks if run.manifest else []:
        if t.get("id") == ep.task_id:
            ins = t.get("instruction")
            return ins.get(ep.lang) if isinstance(ins, dict) else ins
    return None


def _progress(ep: EpisodeRecord) -> float:
    if ep.meta is not None:
        return ep.meta.progress
    last = next((s.milestones for s in reversed(ep.steps) if s.milestones is not None), None)
    return last.progress if last else 0.0


def _apps(run: Run, ep: EpisodeRecord) -> int:
    if ep.meta is not None and ep.meta.apps is not None:
        return ep.meta.apps
    for t in run.manifest.tasks if run.manifest else []:
        if t.get("id") == ep.task_id and isinstance(t.get("apps"), list):
            return len(t["apps"])
    return 1


def outcome(run: Run, ep: EpisodeRecord) -> EpisodeResult:
    """A recorded episode's result (`EpisodeMeta.to_result`); an unfinished one is `unfinished`, never scored.
    Category and app count fall back to the manifest's task rows."""
    if ep.meta is not None:
        r = ep.meta.to_result()
    else:
        r = EpisodeResult(
            ep.task_id,
            ep.lang,
            status=UNFINISHED,
            progress=_progress(ep),
            steps=len(ep.steps),
            invalid_steps=sum(s.agent.invalid for s in ep.steps),
            error="unfinished: no episode.json (the run was interrupted)",
        )
    r.category = _category(run, ep)
    r.apps = _apps(run, ep)
    return r


def run_scoreboard(run: Run) -> Scoreboard:
    """`harness.run.scoring.scoreboard` of every episode on disk: what summary.json, the report, the final line of
    `droidharness run` and `droidharness report` print."""
    return scoreboard(outcome(run, ep) for ep in run.episodes.values())


def _row(score: Score, eps: list[EpisodeRecord]) -> dict[str, Any]:
    """A table row: the score, plus the step-level figures of the same episodes (tokens, timings)."""
    steps = [s for ep in eps for s in ep.steps]
    tokens = sum(s.agent.usage.total_tokens for s in steps)
    timings = {
        ph: {
            "p50": percentile([getattr(s.timings, ph) for s in steps], 50),
            "p95": percentile([getattr(s.timings, ph) for s in steps], 95),
        }
        for ph in TIMING_PHASES
    }
    return {
        **score.to_json(),
        "steps": len(steps),
        "tokens": tokens,
        "tokens_per_episode": tokens / len(eps) if eps else None,
        "timings": timings,
    }


def summarize(run: Run) -> dict[str, Any]:
    """The numbers of summary.json and the report's tables (times in seconds, SR/ATP as fractions or None when
    nothing was scored), all from `harness.run.scoring` over `outcome()` of each episode. A QA run's (kind
    "qa"): `harness.run.qa.run_summary`."""
    if run.kind == "qa":
        from harness.run.qa import run_summary

        return run_summary(run)
    eps = list(run.episodes.values())
    results = [outcome(run, ep) for ep in eps]
    board = scoreboard(results)
    groups: dict[str, dict[str, list[EpisodeRecord]]] = {name: defaultdict(list) for name in BREAKDOWNS}
    for ep, result in zip(eps, results, strict=True):
        for name, key in BREAKDOWNS.items():
            groups[name][key(result)].append(ep)
    scores = {"by_category": board.by_category, "by_language": board.by_language, "by_app_count": board.by_app_count}
    return {
        "run_id": run.manifest.run_id if run.manifest else run.path.name,
        "headline": headline(board.overall),
        "exit_code": board.exit_code,
        "overall": _row(board.overall, eps),
        **{name: {k: _row(scores[name][k], v) for k, v in sorted(g.items())} for name, g in groups.items()},
        "infra_failures": board.to_json()["infra_failures"],
        "statuses": dict(sorted(Counter(ep.status for ep in eps).items())),
    }


# --- thumbnails with the action drawn on them -----------------------------------------------------------------
def _norm_points(step: StepRecord, ep: EpisodeRecord) -> list[tuple[float, float]]:
    """Where the action acted, normalized: the point(s) from the action, else the pixels the device used,
    else the centre of the element in the recorded hierarchy."""
    a = step.agent.action or {}
    if a.get("type") not in ("CLICK", "LONG_PRESS", "SWIPE", "SCROLL", "TYPE"):
        return []
    if "start" in a and "end" in a:
        return [(a["start"]["x"], a["start"]["y"]), (a["end"]["x"], a["end"]["y"])]
    if isinstance(a.get("point"), dict):
        return [(a["point"]["x"], a["point"]["y"])]
    size = step.observation.size
    px = step.result.pixels if step.result is not None else None
    if size and isinstance(px, list) and px:
        pts = [p for p in px if isinstance(p, list) and len(p) == 2]
        if not pts and len(px) == 2 and all(isinstance(v, (int, float)) for v in px):
            pts = [px]
        if pts:
            return [((p[0] + 0.5) / size[0], (p[1] + 0.5) / size[1]) for p in pts]
    if isinstance(a.get("element"), int) and size:
        xml = ep.xml(step.step)
        if xml:
            try:
                from harness.hierarchy import UITree

                cx, cy = UITree.from_xml(xml)[a["element"]].center
                return [(cx / size[0], cy / size[1])]
            except Exception:  # noqa: BLE001 - no overlay rather than no report
                return []
    return []


def _arrow(draw: Any, p: tuple[float, float], q: tuple[float, float], color: tuple[int, ...], width: int) -> None:
    draw.line([p, q], fill=color, width=width)
    ang = math.atan2(q[1] - p[1], q[0] - p[0])
    head = 12
    for da in (2.6, -2.6):
        draw.line([q, (q[0] + head * math.cos(ang + da), q[1] + head * math.sin(ang + da))], fill=color, width=width)


def _small(path: Path) -> Any:
    """The screenshot file at `path` (WebP, PNG or JPEG: either trajectory layout) decoded and downscaled to
    THUMB_LONG_SIDE, RGB; None when unreadable."""
    from PIL import Image

    try:
        im = Image.open(path)
        im.draft("RGB", (THUMB_LONG_SIDE, THUMB_LONG_SIDE))  # JPEG sources decode at a reduced scale
        im.load()  # reads and closes the file
        img = im if im.mode == "RGB" else im.convert("RGB")
        img.thumbnail((THUMB_LONG_SIDE, THUMB_LONG_SIDE), Image.Resampling.BILINEAR, reducing_gap=2.0)
        return img
    except Exception as exc:  # noqa: BLE001 - a broken image must not break the report
        log.warning("%s: unreadable screenshot: %s", path, exc)
        return None


def thumbnail(
    ep: EpisodeRecord, step_no: int, step: StepRecord | None = None, small: dict[Path, Any] | None = None
) -> str | None:
    """`data:image/jpeg;base64,...` of the screenshot at `step_no` (long side THUMB_LONG_SIDE) with the action
    of `step` drawn on it (tap dot, long-press ring, swipe arrow); None when there is no screenshot. `small`:
    already downscaled screens by file (a screen shared by several steps is decoded once)."""
    from PIL import ImageDraw

    path = ep.frame_path(step_no, "screenshot")
    if path is None:
        return None
    base = small[path] if small is not None and path in small else _small(path)
    if base is None:
        return None
    img = base.copy()
    if step is not None and step.agent.action:
        w, h = img.size
        pts = [(x * w, y * h) for x, y in _norm_points(step, ep)]
        kind = step.agent.action.get("type")
        draw = ImageDraw.Draw(img, "RGBA")
        red, white = (230, 30, 60, 255), (255, 255, 255, 230)
        if kind in ("SWIPE", "SCROLL") and len(pts) >= 2:
            _arrow(draw, pts[0], pts[-1], white, 6)
            _arrow(draw, pts[0], pts[-1], red, 3)
            draw.ellipse([pts[0][0] - 5, pts[0][1] - 5, pts[0][0] + 5, pts[0][1] + 5], fill=red, outline=white)
        elif kind == "LONG_PRESS" and pts:
            x, y = pts[0]
            draw.ellipse([x - 14, y - 14, x + 14, y + 14], outline=white, width=6)
            draw.ellipse([x - 14, y - 14, x + 14, y + 14], outline=red, width=3)
            draw.ellipse([x - 3, y - 3, x + 3, y + 3], fill=red)
        elif pts:
            x, y = pts[0]
            draw.ellipse([x - 8, y - 8, x + 8, y + 8], fill=(230, 30, 60, 170), outline=white, width=2)
    buf = io.BytesIO()
    img.save(buf, "JPEG", quality=JPEG_QUALITY, optimize=True)
    return "data:image/jpeg;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


# --- HTML --------------------------------------------------------------------------------------------------
_CSS = """
:root{--ok:#1a7f37;--bad:#c62828;--warn:#b26a00;--mut:#667085;--bd:#d0d5dd;--bg:#f8f9fb}
*{box-sizing:border-box}body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans","Noto Sans CJK SC",
sans-serif;margin:0;padding:16px 24px;color:#1d2939;background:#fff}
h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:24px 0 8px}h3{font-size:14px;margin:12px 0 6px}
.mut{color:var(--mut)}code,pre{font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
pre{white-space:pre-wrap;word-break:break-word;margin:4px 0;background:var(--bg);padding:6px;border-radius:4px;
max-height:220px;overflow:auto}
table{border-collapse:collapse;margin:4px 0 8px}th,td{border:1px solid var(--bd);padding:3px 8px;text-align:right}
th{background:var(--bg);font-weight:600}td.l,th.l{text-align:left}
.badge{display:inline-block;padding:0 6px;border-radius:9px;font-size:12px;font-weight:600;color:#fff;
background:var(--mut)}
.s-success{background:var(--ok)}.s-failed,.s-agent_error,.s-max_steps,.s-impossible{background:var(--bad)}
.s-infra_error,.s-unfinished,.s-aborted{background:var(--warn)}
details.episode{border:1px solid var(--bd);border-radius:6px;margin:6px 0;background:#fff}
details.episode>summary{cursor:pointer;padding:6px 10px;display:flex;gap:10px;align-items:center;flex-wrap:wrap}
details.episode[open]>summary{border-bottom:1px solid var(--bd);background:var(--bg)}
.body{padding:8px 12px}.bar{display:inline-block;width:90px;height:8px;background:#e4e7ec;border-radius:4px;
overflow:hidden;vertical-align:middle}.bar>span{display:block;height:100%;background:var(--ok)}
ol.ms{margin:4px 0;padding-left:22px}ol.ms li.hit{color:var(--ok)}ol.ms li.miss{color:var(--bad)}
.steps{display:grid;grid-template-columns:repeat(auto-fill,minmax(190px,1fr));gap:10px;margin-top:6px}
.step{border:1px solid var(--bd);border-radius:6px;padding:6px;background:#fff;min-width:0}
.step.invalid{border-color:var(--bad);background:#fff5f5}.step.final{background:var(--bg)}
.shot{position:relative;width:max-content;max-width:100%;margin:0 auto 4px}.shot img{display:block;max-width:100%;
height:auto;border:1px solid var(--bd);border-radius:4px}.shot .key{position:absolute;left:4px;top:4px;
background:rgba(230,30,60,.92);color:#fff;font-size:11px;font-weight:700;padding:1px 6px;border-radius:8px}
.shot .cap{position:absolute;left:4px;right:4px;bottom:4px;background:rgba(0,0,0,.72);color:#fff;font-size:11px;
padding:2px 4px;border-radius:3px;overflow-wrap:anywhere;max-height:48px;overflow:hidden}
.noshot{height:120px;display:flex;align-items:center;justify-content:center;background:var(--bg);color:var(--mut)}
.act{font-weight:600;overflow-wrap:anywhere}.res-ok{color:var(--ok)}.res-bad{color:var(--bad)}
.hits{color:var(--ok);font-weight:600}.thought{font-size:12px;overflow-wrap:anywhere;max-height:120px;overflow:auto}
.strip{display:flex;gap:2px;margin:6px 0;flex-wrap:wrap}.strip span{width:18px;height:14px;font-size:10px;
line-height:14px;text-align:center;background:#e4e7ec;border-radius:2px}.strip span.h{background:var(--ok);color:#fff}
.strip span.x{background:var(--bad);color:#fff}
.infra{border:1px solid var(--warn);background:#fff8eb;border-radius:6px;padding:6px 10px;margin:6px 0}
.toolbar button{font:inherit;margin-right:6px}.step div{overflow-wrap:anywhere}
.u,.thought,pre,code,.cap,.act,.strip span{unicode-bidi:isolate}
"""

_JS = (
    "document.querySelectorAll('button[data-toggle]').forEach(function(b){b.addEventListener('click',"
    "function(){var o=b.getAttribute('data-toggle')==='open';"
    "document.querySelectorAll('details.episode').forEach(function(d){d.open=o;});});});"
)


def _csp() -> str:
    digest = base64.b64encode(hashlib.sha256(_JS.encode("utf-8")).digest()).decode("ascii")
    return (
        f"default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'sha256-{digest}'; "
        "base-uri 'none'; form-action 'none'"
    )


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}%"


def _num(x: float | None, fmt: str = "{:.1f}") -> str:
    return "–" if x is None else fmt.format(x)


def _ms(x: float | None) -> str:
    return "–" if x is None else f"{1000 * x:.0f}"


def _table(title_col: str, rows: list[tuple[str, dict[str, Any]]]) -> str:
    head = (
        "<tr><th class=l rowspan=2>" + e(title_col) + "</th><th rowspan=2>episodes</th><th rowspan=2>scored"
        "</th><th rowspan=2>SR</th><th rowspan=2>ATP</th><th rowspan=2>mean steps</th><th rowspan=2>invalid "
        "steps</th><th rowspan=2>agent errors</th><th rowspan=2>tokens</th><th rowspan=2>tokens / ep.</th>"
        + "".join(f"<th colspan=2>{e(p)} ms</th>" for p in TIMING_PHASES)
        + "</tr><tr>"
        + "<th>p50</th><th>p95</th>" * len(TIMING_PHASES)
        + "</tr>"
    )
    body = []
    for label, r in rows:
        tim = "".join(
            f"<td>{_ms(r['timings'][p]['p50'])}</td><td>{_ms(r['timings'][p]['p95'])}</td>" for p in TIMING_PHASES
        )
        extra = []
        if r["unfinished"]:
            extra.append(f"{r['unfinished']} unfinished")
        if r["infra_errors"]:
            extra.append(f"{r['infra_errors']} infrastructure failures")
        note = f" <span class=mut>({e(', '.join(extra))})</span>" if extra else ""
        body.append(
            f"<tr><td class=l>{label}</td><td>{r['episodes']}{note}</td><td>{r['scored']}</td>"
            f"<td>{_pct(r['sr'])}</td><td>{_pct(r['atp'])}</td><td>{_num(r['mean_steps'])}</td>"
            f"<td>{r['invalid_steps']}</td><td>{r['agent_errors']}</td><td>{r['tokens']:,}</td>"
            f"<td>{_num(r['tokens_per_episode'], '{:,.0f}')}</td>{tim}</tr>"
        )
    return f"<table>{head}{''.join(body)}</table>"


def _header(run: Run) -> str:
    m = run.manifest
    if m is None:
        return f"<h1>Run {e(run.path.name)}</h1><p class=mut>no manifest.json</p>"
    agent = m.agent or {}
    bits = [f"agent <b>{e(agent.get('name', '?'))}</b>"]
    if agent.get("model"):
        bits.append(f"model <b>{e(agent['model'])}</b>")
    if agent.get("base_url"):
        bits.append(f"at <code>{e(agent['base_url'])}</code>")
    if m.suite.get("name"):
        bits.append(f"suite <b>{e(m.suite['name'])}</b>")
    devs = ", ".join(str(d.get("serial") or d.get("profile") or d) for d in m.devices if isinstance(d, dict))
    if devs:
        bits.append(f"devices {e(devs)}")
    ver = ", ".join(f"{k} {v}" for k, v in m.versions.items() if v and k != "platform")
    return (
        f"<h1>Run {e(m.run_id)}</h1><p>{' · '.join(bits)}</p>"
        f"<p class=mut>created {e(m.created)} · droidharness {e(m.droidharness_version)} · {e(ver)}"
        + (f" · prompt {e(m.prompt_hash[:12])}" if m.prompt_hash else "")
        + "</p>"
    )


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


def _thumbnails(run: Run) -> dict[tuple[str, int], str | None]:
    """Every thumbnail of the run, made on a thread pool (Pillow decodes and resizes without the GIL). Each
    distinct screen file is decoded once, however many steps show it."""
    jobs: list[tuple[EpisodeRecord, int, StepRecord | None]] = []
    for ep in run.episodes.values():
        jobs += [(ep, s.step, s) for s in ep.steps]
        if ep.final_step is not None:
            jobs.append((ep, ep.final_step, None))
    if not jobs:
        return {}
    paths = list(dict.fromkeys(p for p in (ep.frame_path(n, "screenshot") for ep, n, _ in jobs) if p is not None))
    with ThreadPoolExecutor(max_workers=min(8, os.cpu_count() or 1)) as pool:
        small = dict(zip(paths, pool.map(_small, paths), strict=True))
        urls = list(pool.map(lambda j: thumbnail(j[0], j[1], j[2], small), jobs))
    return {(ep.key, n): u for (ep, n, _), u in zip(jobs, urls, strict=True)}


def _step_card(ep: EpisodeRecord, step: StepRecord, names: dict[str, str], thumbs: dict[tuple[str, int], Any]) -> str:
    src = thumbs.get((ep.key, step.step))
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
        f"{a.usage.total_tokens} · capture {_ms(tim.capture)} ms · agent {_ms(tim.agent)} ms · "
        f"actuation {_ms(tim.actuation)} ms · settle {_ms(tim.settle)} ms</div>"
    )
    return (
        f'<div class="step{" invalid" if a.invalid else ""}" id="{e(ep.key)}-s{step.step}">'
        f"<div class=shot>{img}{_overlay_labels(step)}</div>"
        f"<div><b>#{step.step}</b> <span class=act>{e(action)}</span></div>{_result_html(step)}{hit_html}"
        f"{thought}<details>{''.join(details)}</details></div>"
    )


def _episode(run: Run, ep: EpisodeRecord, thumbs: dict[tuple[str, int], Any]) -> str:
    meta = ep.meta
    status = ep.status
    prog = _progress(ep)
    cat = _category(run, ep)
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
        + "</summary>"
    )
    info = []
    ins = _instruction(run, ep)
    if ins:
        info.append(f"<p><b>Instruction:</b> <span class=u>{e(ins)}</span></p>")
    if meta:
        facts = [
            f"tokens {meta.tokens.total_tokens:,}",
            f"invalid steps {meta.invalid_outputs}",
            f"attempts {meta.attempts}",
            f"wall {_num(meta.timings.get('wall'))} s",
        ]
        if meta.seed is not None:
            facts.append(f"seed {meta.seed}")
        if meta.device.get("serial"):
            facts.append(f"device {meta.device['serial']}")
        if meta.reset_method:  # how the pool reset the device first (runs before issue 14 have none)
            facts.append(f"reset {meta.reset_method} {_num(meta.reset_seconds, '{:.3f}')} s")
        info.append(f"<p class=mut>{e(' · '.join(facts))}</p>")
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
    cards = [_step_card(ep, s, names, thumbs) for s in ep.steps]
    final = meta.final_observation if meta else None
    if final is not None and ep.final_step is not None:
        src = thumbs.get((ep.key, ep.final_step))
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


def _probes_html(probes: list[Any]) -> str:
    """An episode's probe questions (harness.run.probes): asked on the screen of their milestone, or not."""
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
            f"<td>SQA-S F1 {_pct(scores.get('sqa_s_f1'))} · UIC F1 {_pct(scores.get('sqa_uic_f1'))}</td></tr>"
        )
    return (
        "<h3>Probes</h3><table><tr><th>probe</th><th>question</th><th>answer</th><th>ground truth</th>"
        f"<th>scores</th></tr>{''.join(rows)}</table>"
    )


def _infra_list(s: dict[str, Any]) -> str:
    rows = s["infra_failures"]
    if not rows:
        return ""
    items = "".join(
        f'<li><a href="#ep-{e(episode_key(r["task_id"], r["lang"]))}">{e(r["task_id"])} '
        f'[{e(r["lang"])}]</a> <span class="badge s-{e(r["status"])}">{e(r["status"])}</span> '
        f"after {e(r['attempts'])} attempt(s): <span class=u>{e(r['error'])}</span></li>"
        for r in rows
    )
    return (
        f"<div class=infra><b>Not scored ({len(rows)}): infrastructure failures and unfinished episodes"
        f"</b><ul>{items}</ul></div>"
    )


def render_report(run: Run) -> str:
    """The whole report as one HTML string (no external resources). A QA run's: `harness.run.qa_report`."""
    from tasks.schema import CATEGORY_NAMES

    if run.kind == "qa":
        from harness.run.qa_report import render_qa_report

        return render_qa_report(run)

    s = summarize(run)
    cat_rows = [
        (f"{e(c)} <span class=mut>{e(CATEGORY_NAMES.get(c, ''))}</span>", r) for c, r in s["by_category"].items()
    ]
    lang_rows = [(e(lg), r) for lg, r in s["by_language"].items()]
    app_rows = [(e(k), r) for k, r in s["by_app_count"].items()]
    statuses = " · ".join(f'<span class="badge s-{e(k)}">{e(k)}</span> {v}' for k, v in s["statuses"].items())
    thumbs = _thumbnails(run)
    episodes = "".join(_episode(run, ep, thumbs) for ep in run.episodes.values())
    title = f"DroidHarness report · {run.manifest.run_id if run.manifest else run.path.name}"
    return (
        "<!DOCTYPE html><html lang=en><head><meta charset=utf-8>"
        f'<meta http-equiv="Content-Security-Policy" content="{e(_csp())}">'
        '<meta name=viewport content="width=device-width,initial-scale=1">'
        f"<title>{e(title)}</title><style>{_CSS}</style></head><body>"
        f"{_header(run)}<h2>Summary</h2><p class=headline><b>{e(s['headline'])}</b></p>{_infra_list(s)}"
        f"{_table('overall', [('all', s['overall'])])}"
        f"<h3>By category</h3>{_table('category', cat_rows)}<h3>By language</h3>{_table('language', lang_rows)}"
        f"<h3>By number of apps</h3>{_table('apps', app_rows)}"
        f"<p>{statuses}</p><p class=mut>SR: share of scored episodes that succeeded (every milestone hit, the "
        "task's end state still holding at the end and, where the task expects one, the right answer). ATP: mean "
        "milestone progress. Scored: every episode except infrastructure failures and unfinished ones; agent "
        "errors (exceptions, timeouts) and invalid steps count against the agent. Timings are per step, in "
        "milliseconds.</p>"
        f"<h2>Episodes ({len(run.episodes)})</h2><div class=toolbar><button type=button data-toggle=open>"
        "expand all</button><button type=button data-toggle=close>collapse all</button></div>"
        f"{episodes}<script>{_JS}</script></body></html>"
    )


def write_report(run_dir: str | Path, out: str | Path | None = None) -> Path:
    """Render `run_dir` into `run_dir/report.html` (or `out`), written atomically. Returns the path."""
    run = load_run(run_dir, skip_bad=True)
    path = Path(out) if out is not None else Path(run_dir) / "report.html"
    # secrets redacted as in every artifact; a lone surrogate (model output can hold one) shows as its escape,
    # \\ud800, instead of breaking the page
    atomic_write_bytes(path, redact(render_report(run)).encode("utf-8", "backslashreplace"), fsync=False)
    return path


__all__ = ["write_report", "render_report", "summarize", "run_scoreboard", "outcome", "thumbnail", "percentile"]
