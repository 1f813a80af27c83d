"""The HTML report of a QA run (`droidharness qa run`; kind "qa"): `harness.report.render.render_report` hands such a
run here, and `write_report` / `droidharness report RUN_DIR` write it like any report.

The headline and the unscored questions, the summary tables (every ScreenQA metric overall, by app, by
language: `harness.report.summary.run_summary`, the numbers of summary.json), then every question (collapsible): the
question, the screenshot it was asked about with the predicted answer elements boxed in red and numbered in rank
order and the ground truth boxed in green (`harness.report.draw`), the answer against the ground truth, the
per-metric scores, the agent's error and raw output.

Same safety as the episode report, whose helpers it uses: every value from the run goes through `e()`
(html.escape, quote=True), images are JPEG data URLs, the page loads nothing and carries the same
Content-Security-Policy.
"""

from __future__ import annotations

import base64
import io
import logging
import os
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from harness.report.devices import preparation_section
from harness.report.draw import draw_boxes
from harness.report.page import CSS, JPEG_QUALITY, JS, csp, e, header, infra_list, pct
from harness.report.summary import QuestionRow, run_rows, run_summary
from harness.scoring.questions import METRICS, QAResult
from harness.trajectory.reader import EpisodeRecord, Run
from harness.trajectory.records import episode_key

log = logging.getLogger(__name__)

QA_LONG_SIDE = 480  # the screenshot of a question, downscaled (boxes drawn at this size)

_QA_CSS = """
.qa{display:grid;grid-template-columns:minmax(200px,340px) 1fr;gap:14px;align-items:start}
.qa img{display:block;max-width:100%;height:auto;border:1px solid var(--bd);border-radius:4px}
.legend{font-size:12px}.legend .p{color:#e61e3c;font-weight:700}.legend .g{color:#14a046;font-weight:700}
ol.items{margin:2px 0;padding-left:22px}ol.items li{overflow-wrap:anywhere}
"""


def _shot(ep: EpisodeRecord, result: QAResult | None) -> str | None:
    """The question's screen (frame 1) downscaled, with the predicted and ground-truth boxes; a data URL."""
    from PIL import Image

    path = ep.frame_path(1, "screenshot")
    if path is None:
        return None
    try:
        with Image.open(path) as im:
            im.draft("RGB", (QA_LONG_SIDE, QA_LONG_SIDE))
            im.load()
            full_width = im.size[0]
            img = im.convert("RGB")
        img.thumbnail((QA_LONG_SIDE, QA_LONG_SIDE), Image.Resampling.BILINEAR, reducing_gap=2.0)
        size = ep.steps[0].observation.size if ep.steps else None
        scale = img.width / (size[0] if size else full_width)
        if result is not None:
            gt = [b for annotator in result.ground_truth.elements for b, _ in annotator]
            img = draw_boxes(img, [b for b, _ in result.answer_elements], gt, scale=scale)
        buf = io.BytesIO()
        img.save(buf, "JPEG", quality=JPEG_QUALITY, optimize=True)
    except Exception as exc:  # noqa: BLE001 - a broken image must not break the report
        log.warning("%s: unreadable screenshot: %s", path, exc)
        return None
    return "data:image/jpeg;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def _items(items: list[tuple[tuple[int, int, int, int], str]], indices: list[int] | None = None) -> str:
    if not items:
        return "<p class=mut>(no answer)</p>"
    rows = []
    for n, (b, t) in enumerate(items):
        idx = f"[{indices[n]}] " if indices and n < len(indices) else ""
        rows.append(f"<li><span class=u>{e(idx)}{e(t)}</span> <span class=mut>{e(list(b))}</span></li>")
    return f"<ol class=items>{''.join(rows)}</ol>"


def _question(run: Run, ep: EpisodeRecord, row: QuestionRow, shot: str | None) -> str:
    r = row.result
    f1 = f"F1 {pct(r.scores.get('f1'))}" if r is not None else ""
    summary = (
        f'<summary><span class="badge s-{e(row.status)}">{e(row.status)}</span><b>{e(row.question_id)}</b>'
        f"<span class=mut>{e(row.lang)} · {e(row.app or '(home screen)')}</span><span>{e(f1)}</span>"
        + (f"<span class=u>{e(r.question)}</span>" if r is not None else "")
        + "</summary>"
    )
    body = []
    question = r.question if r is not None else (ep.meta.instruction if ep.meta else None)
    if question:
        body.append(f"<p><b>Question:</b> <span class=u>{e(question)}</span></p>")
    if r is None:
        why = row.error or "unfinished: no episode.json (the run was interrupted)"
        body.append(
            f"<p class=res-bad><b>Not scored</b> ({e(row.status)}, {e(row.attempts)} attempt(s)): "
            f"<span class=u>{e(why)}</span></p>"
        )
        return f'<details class=episode id="ep-{e(ep.key)}">{summary}<div class=body>{"".join(body)}</div></details>'
    img = (
        f'<img src="{e(shot)}" alt="{e(f"{row.question_id} screen")}">'
        if shot
        else "<div class=noshot>no screenshot</div>"
    )
    legend = (
        "<div class=legend><span class=p>■ answer</span> (numbered in rank order) · "
        "<span class=g>■ ground truth</span></div>"
    )
    gts = "".join(f"<div class=mut>annotator {n}</div>{_items(g)}" for n, g in enumerate(r.ground_truth.elements, 1))
    scores = "".join(
        f"<tr><td class=l>{e(name)}</td><td>{pct(r.scores.get(k))}</td></tr>" for k, name in METRICS.items()
    )
    facts = [f"unknown elements {r.unknown_elements}", f"tokens {r.usage.total_tokens:,}"]
    if ep.meta and ep.meta.device.get("serial"):
        facts.append(f"device {ep.meta.device['serial']}")
    facts.append(f"attempts {row.attempts}")
    right = [
        f"<p><b>Answer:</b> <span class=u>{e(r.answer_text)}</span></p>",
        _items(r.answer_elements, r.element_indices),
        f"<p><b>Ground truth:</b> <span class=u>{e(' | '.join(r.ground_truth.short))}</span></p>",
        gts,
        f"<table><tr><th class=l>metric</th><th>score</th></tr>{scores}</table>",
        f"<p class=mut>{e(' · '.join(facts))}</p>",
    ]
    if r.error:
        right.append(f"<p class=res-bad><b>Agent error:</b> <span class=u>{e(r.error)}</span></p>")
    if r.raw_output:
        right.append(f"<details><summary class=mut>raw output</summary><pre>{e(r.raw_output)}</pre></details>")
    body.append(f"<div class=qa><div>{img}{legend}</div><div>{''.join(right)}</div></div>")
    return f'<details class=episode id="ep-{e(ep.key)}">{summary}<div class=body>{"".join(body)}</div></details>'


def _summary_table(title_col: str, rows: list[tuple[str, dict[str, Any]]]) -> str:
    head = (
        f"<tr><th class=l>{e(title_col)}</th><th>questions</th>"
        + "".join(f"<th>{e(name)}</th>" for name in METRICS.values())
        + "<th>agent errors</th><th>unknown elements</th><th>tokens</th></tr>"
    )
    body = "".join(
        f"<tr><td class=l>{e(label)}</td><td>{r['questions']}</td>"
        + "".join(f"<td>{pct(r.get(k))}</td>" for k in METRICS)
        + f"<td>{r['agent_errors']}</td><td>{r['unknown_elements']}</td><td>{r['tokens']:,}</td></tr>"
        for label, r in rows
    )
    return f"<table>{head}{body}</table>"


def render_qa_report(run: Run) -> str:
    """The report of a QA run as one HTML string (no external resources)."""
    s = run_summary(run)
    rows = {episode_key(r.question_id, r.lang): r for r in run_rows(run)}
    eps = list(run.episodes.values())
    with ThreadPoolExecutor(max_workers=min(8, os.cpu_count() or 1)) as pool:
        shots = list(pool.map(lambda ep: _shot(ep, rows[ep.key].result), eps))
    questions = "".join(_question(run, ep, rows[ep.key], shot) for ep, shot in zip(eps, shots, strict=True))
    statuses = " · ".join(f'<span class="badge s-{e(k)}">{e(k)}</span> {v}' for k, v in s["statuses"].items())
    title = f"DroidHarness QA report · {s['run_id']}"
    return (
        "<!DOCTYPE html><html lang=en><head><meta charset=utf-8>"
        f'<meta http-equiv="Content-Security-Policy" content="{e(csp())}">'
        '<meta name=viewport content="width=device-width,initial-scale=1">'
        f"<title>{e(title)}</title><style>{CSS}{_QA_CSS}</style></head><body>"
        f"{header(run)}<h2>Screen question answering</h2><p class=headline><b>{e(s['headline'])}</b></p>"
        f"{infra_list(s)}{_summary_table('overall', [('all', s['overall'])])}"
        f"<h3>By app</h3>{_summary_table('app', list(s['by_app'].items()))}"
        f"<h3>By language</h3>{_summary_table('language', list(s['by_language'].items()))}"
        f"<p>{statuses}</p><p class=mut>Means over the scored questions (every question except infrastructure "
        "failures and unfinished ones; an agent error is scored as the answer it gave, or as no answer). SQA-S: "
        "the short answer (SQuAD-normalized); SQA-UIC: the answer elements' contents as an ordered list; "
        "SQA-UIC-BB: bounds and contents (IoU >= 0.1); avg nDCG_v and avg F1: the ScreenQA paper's, with its "
        "answer matching. success = the answer elements are exactly one annotator's, in order.</p>"
        f"{preparation_section(run)}"
        f"<h2>Questions ({len(eps)})</h2><div class=toolbar><button type=button data-toggle=open>"
        "expand all</button><button type=button data-toggle=close>collapse all</button></div>"
        f"{questions}<script>{JS}</script></body></html>"
    )


__all__ = ["render_qa_report", "QA_LONG_SIDE"]
