"""The page every HTML report shares (task runs: `harness.report.tasks`, QA runs: `harness.report.questions`): the
escaping function, the style sheet, the one inline script and the Content-Security-Policy that allows it by its
hash, the run's header, the list of unscored episodes and number formats.

Safety: every value from the run goes through `e` (`html.escape`, quote=True), in text and in attributes; data
never reaches `innerHTML`; the page loads nothing external.
"""

from __future__ import annotations

import base64
import hashlib
import html
from typing import Any

from harness.trajectory.reader import Run
from harness.trajectory.records import episode_key

JPEG_QUALITY = 70


def e(value: Any) -> str:
    """Escape for HTML text AND attribute values."""
    return html.escape("" if value is None else str(value), quote=True)


# --- HTML --------------------------------------------------------------------------------------------------
CSS = """
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
.badge.pert{background:#6941c6}.badge.pert.off{background:#fff;color:var(--mut);border:1px dashed var(--bd)}
"""


JS = (
    "document.querySelectorAll('button[data-toggle]').forEach(function(b){b.addEventListener('click',"
    "function(){var o=b.getAttribute('data-toggle')==='open';"
    "document.querySelectorAll('details.episode').forEach(function(d){d.open=o;});});});"
)


def csp() -> str:
    digest = base64.b64encode(hashlib.sha256(JS.encode("utf-8")).digest()).decode("ascii")
    return (
        f"default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'sha256-{digest}'; "
        "base-uri 'none'; form-action 'none'"
    )


def pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}%"


def num(x: float | None, fmt: str = "{:.1f}") -> str:
    return "–" if x is None else fmt.format(x)


def ms(x: float | None) -> str:
    return "–" if x is None else f"{1000 * x:.0f}"


def header(run: Run) -> str:
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


def infra_list(s: dict[str, Any]) -> str:
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
