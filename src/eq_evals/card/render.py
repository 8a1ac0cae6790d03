"""The report card's pages: ``report.html`` (one file: inline CSS, inline SVG charts, the data inline as JSON, a
little vanilla JavaScript for the item explorer; nothing loaded from the network, opens from disk),
``report.md`` and ``report.json`` with the same numbers (the JSON at full precision, the pages rounded)."""

from __future__ import annotations

import html
import json
import math
from pathlib import Path
from typing import Any

from eq_evals.card.build import BASELINE_SYSTEMS
from eq_evals.charts import Chart, Point, svg
from eq_evals.core.text import MISSING, markdown_table

FACET_ORDER = ["perception", "cognition", "interaction", "long context", "multi-turn dialogue", "PACE", "HEART"]
STATUS_CLASS = {"scored": "ok", "partial": "warn", "not scored": "warn", "not run": "off"}


def digits(unit: str) -> int:
    if "rating" in unit or "Elo" in unit:
        return 0
    if "0-10" in unit or "0-5" in unit or "1-5" in unit:
        return 2
    return 1


def num(x: Any, d: int = 1) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return MISSING
    return f"{x:,.{d}f}" if abs(x) >= 10000 else f"{x:.{d}f}"


def interval(s: dict[str, Any]) -> str:
    if s.get("lower") is None or s.get("upper") is None:
        return ""
    d = digits(s.get("unit", ""))
    return f"{num(s['lower'], d)} to {num(s['upper'], d)}"


def baselines(s: dict[str, Any]) -> str:
    d = digits(s.get("unit", ""))
    return "; ".join(f"{k} {num(v, d)}" for k, v in s.get("baselines", {}).items() if v is not None)


def profile_chart(card: dict[str, Any]) -> Chart | None:
    """Every score with a 0-100 reading, one row per facet and dimension (and language where the benchmark
    reports languages apart), the models side by side."""
    rows = [s for s in card["scores"] if s.get("scaled") is not None and s["model"] in card["models"]]
    # a benchmark that reports languages pooled ("all") and apart: the profile shows the pooled number
    pooled = {(s["benchmark"], s["dimension"], s["model"]) for s in rows if s["language"] == "all"}
    rows = [s for s in rows if s["language"] == "all" or (s["benchmark"], s["dimension"], s["model"]) not in pooled]
    if not rows:
        return None

    def label(s: dict[str, Any]) -> str:
        lang = f" ({s['language']})" if s["language"] not in ("all", "", "en") or _languages(card, s) > 1 else ""
        return f"{s['facet']} · {s['dimension'].split(' · ')[-1]}{lang}"

    rows.sort(
        key=lambda s: (
            FACET_ORDER.index(s["facet"]) if s["facet"] in FACET_ORDER else 99,
            s["benchmark"],
            s["dimension"],
            s["language"],
        )
    )
    points = [
        Point(
            label(s),
            s["scaled"],
            s.get("scaled_lower"),
            s.get("scaled_upper"),
            series=s["model"],
            mark="partial" if s.get("partial") else "",
        )
        for s in rows
    ]
    return Chart(
        "Profile across the facets of emotional intelligence (0-100; higher is better)",
        "score on 0-100, 95% interval where known",
        points,
        sort=False,
        xlim=(0.0, 100.0),
        footnote=_footnote(card),
        caveats=(["some numbers come from partial logs (hollow points)"] if any(p.mark for p in points) else []),
    )


def _languages(card: dict[str, Any], s: dict[str, Any]) -> int:
    return len(
        {x["language"] for x in card["scores"] if x["benchmark"] == s["benchmark"] and x["dimension"] == s["dimension"]}
    )


def _footnote(card: dict[str, Any]) -> str:
    judges = sorted({j["judge"] for j in card["judges"]})
    versions = sorted({d for v in card["data_versions"] for d in v["datasets"]})
    return " · ".join(
        [
            "judges: " + (", ".join(judges) if judges else "none"),
            "date: " + card["created"][:10],
            "data: "
            + (", ".join(versions[:3]) + (f" (+{len(versions) - 3} more)" if len(versions) > 3 else "") or "n/a"),
            "eq-evals report card",
        ]
    )


# ------------------------------------------------------------------------------------------------ Markdown


def models_line(card: dict[str, Any]) -> str:
    """The card's models: those profiled, and beside them the others its logs hold (an earlier profile's)."""
    profiled = card.get("profiled") or card["models"]
    others = [m for m in card["models"] if m not in profiled]
    line = ", ".join(profiled) or "none"
    return line + (f"; beside them, from earlier logs: {', '.join(others)}" if others else "")


def markdown(card: dict[str, Any]) -> str:
    lines = [f"# {card['title']}", "", f"Made {card['created']} from {len(card['logs'])} logs. Models: "]
    lines[-1] += models_line(card)
    if card["partial_logs"]:
        lines += [
            "",
            f"**PARTIAL**: {len(card['partial_logs'])} logs are not complete: " + ", ".join(card["partial_logs"]),
        ]
    lines += ["", "## Benchmarks", ""]
    lines.append(
        markdown_table(
            ["benchmark", "status", "models", "logs", "reason / what to do"],
            [
                [
                    b["name"],
                    b["status"],
                    ", ".join(b["models"]),
                    str(len(b["logs"])),
                    " ".join(x for x in (b["reason"], b["fix"]) if x),
                ]
                for b in card["benchmarks"]
            ],
        )
    )
    chart = profile_chart(card)
    if chart is not None:
        models = list(dict.fromkeys(p.series for p in chart.points))
        by = {(p.label, p.series): p for p in chart.points}
        lines += ["", "## Profile (0-100)", ""]
        lines.append(
            markdown_table(
                ["facet · dimension", *models],
                [
                    [label, *[_cell(by.get((label, m))) for m in models]]
                    for label in dict.fromkeys(p.label for p in chart.points)
                ],
            )
        )
    for b in card["benchmarks"]:
        scores = [s for s in card["scores"] if s["benchmark"] == b["benchmark"]]
        lines += ["", f"## {b['name']} ({b['status']})", ""]
        if not scores:
            lines.append(f"Not run: {b['reason']}" + (f" {b['fix']}" if b["fix"] else ""))
            continue
        lines.append(
            markdown_table(
                ["dimension", "language", "model", "score", "95% interval", "unit", "baselines", "n", "marks", "log"],
                [
                    [
                        s["dimension"],
                        s["language"],
                        s["model"],
                        num(s["value"], digits(s["unit"])),
                        interval(s),
                        s["unit"],
                        baselines(s),
                        "" if s.get("n") is None else f"{s['n']} {s.get('n_label', '')}".strip(),
                        ", ".join(s.get("marks", [])),
                        (s["logs"][0] + (f" (+{len(s['logs']) - 1})" if len(s["logs"]) > 1 else ""))
                        if s["logs"]
                        else "",
                    ]
                    for s in scores
                ],
            )
        )
    lines += ["", "## Judges", ""]
    if card["judges"]:
        lines.append(
            markdown_table(
                ["benchmark", "judge", "judge card", "diagnostics"],
                [[j["benchmark"], j["judge"], judge_status(j), diagnostics(j)] for j in card["judges"]],
            )
        )
    else:
        lines.append("No judged results among these logs.")
    lines += ["", "## Data versions", ""]
    lines.append(
        markdown_table(
            ["benchmark", "task", "task version", "datasets", "data"],
            [
                [
                    v["benchmark"],
                    v["task"],
                    str(v.get("task_version", "")),
                    ", ".join(v["datasets"]),
                    "; ".join(v["data"]),
                ]
                for v in card["data_versions"]
            ],
        )
    )
    lines += ["", "## Model calls and tokens: plan and logs", ""]
    lines.append(markdown_table(USAGE_HEADER, [usage_cells(r) for r in card["plan_vs_real"]]))
    notes = card["warnings"] + card["notes"] + [f"{k}: {v}" for k, v in card["section_errors"].items()]
    if notes:
        lines += ["", "## Notes", ""] + [f"- {n}" for n in notes]
    lines += ["", f"Items: {len(card['items'])} in report.json (`items`) and in report.html's item explorer.", ""]
    return "\n".join(lines)


def _href(card: dict[str, Any], path: str) -> str:
    """A log as the card links it: relative to the card's folder."""
    return next((log["href"] for log in card["logs"] if log["path"] == path), path)


def _cell(p: Point | None) -> str:
    if p is None or p.value is None:
        return ""
    text = num(p.value, 1)
    if p.lower is not None and p.upper is not None:
        text += f" [{num(p.lower, 1)}, {num(p.upper, 1)}]"
    return text + (f" ({p.mark})" if p.mark else "")


def judge_status(j: dict[str, Any]) -> str:
    if not j["checked"]:
        return "judge not checked"
    acc = j.get("card_accuracy")
    return f"{j['card']}" + (f" (accuracy {100 * acc:.1f}%)" if acc is not None else "")


def diagnostics(j: dict[str, Any]) -> str:
    d = j.get("diagnostics") or {}
    names = {
        "parse_rate": "parse rate",
        "position_flip_rate": "position flips",
        "longer_answer_win_rate": "longer answer wins",
        "error_rate": "error rate",
        "first_position_win_rate": "first position wins",
        "self_judged_share": "self-judged",
    }
    parts = [f"{label} {num(d[k], 3)}" for k, label in names.items() if d.get(k) is not None]
    if d.get("self_family"):
        parts.append("rates its own family: " + ", ".join(d["self_family"]))
    return "; ".join(parts)


USAGE_HEADER = [
    "benchmark",
    "task",
    "role",
    "model",
    "samples plan/log",
    "calls plan/log",
    "input tokens plan/log",
    "output tokens plan/log",
    "cost USD plan/log",
]


def usage_cells(r: dict[str, Any]) -> list[str]:
    plan, real = r.get("plan") or {}, r.get("real") or {}

    def pair(key: str, d: int = 0) -> str:
        a = plan.get(key) if r.get("plan") else None
        b = real.get(key) if r.get("real") else None
        fa = "not planned" if not r.get("plan") else ("unknown" if a is None else num(a, d))
        fb = "not in logs" if not r.get("real") else (MISSING if b is None else num(b, d))
        return f"{fa} / {fb}"

    return [
        r["benchmark"] or "",
        r["task"] or "",
        r["role"] or "",
        r["model"] or "",
        pair("samples"),
        pair("calls"),
        pair("input_tokens"),
        pair("output_tokens"),
        pair("cost_usd", 4),
    ]


# ------------------------------------------------------------------------------------------------ HTML

CSS = """
:root{--fg:#1d2330;--muted:#5b6475;--line:#dfe3ea;--bg:#f6f7f9;--ok:#2d7a3e;--warn:#a15c00;--off:#7a7f89;--accent:#1f4e79}
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans","Noto Sans CJK SC","PingFang SC","Microsoft YaHei",sans-serif;color:var(--fg);margin:0;background:var(--bg)}
header{background:#fff;border-bottom:1px solid var(--line);padding:18px 28px 10px}
h1{font-size:22px;margin:0 0 4px}
h2{font-size:18px;margin:0 0 10px;border-bottom:2px solid var(--accent);padding-bottom:4px}
h3{font-size:16px;margin:18px 0 8px}
nav a{margin-right:14px;color:var(--accent);text-decoration:none;font-weight:600}
main{padding:18px 28px;max-width:1500px}
section{background:#fff;border:1px solid var(--line);border-radius:6px;padding:16px 20px;margin-bottom:18px}
.meta,.muted{color:var(--muted)}
.chip{display:inline-block;white-space:nowrap;border-radius:10px;padding:1px 9px;font-size:12px;font-weight:600;color:#fff;margin-right:4px}
.chip.ok{background:var(--ok)}.chip.warn{background:var(--warn)}.chip.off{background:var(--off)}
.chip.mark{background:#fff;color:var(--warn);border:1px solid var(--warn)}
.banner{border-left:4px solid var(--warn);background:#fff7e8;padding:8px 12px;margin:8px 0}
table{border-collapse:collapse;width:100%;margin:6px 0 12px;font-size:13px}
th,td{border-bottom:1px solid var(--line);padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f0f2f5}
.wide{overflow-x:auto}
table.scores td.score{min-width:90px}
.ci{display:block;color:var(--muted);font-size:11px;font-weight:normal}
a.v{color:var(--fg);text-decoration:none;border-bottom:1px dotted var(--accent)}
td.note{color:var(--muted);font-size:12px;max-width:360px}
details.logs{margin:4px 0 12px;font-size:12px}
details.logs table{font-size:12px}
td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
code{font:12px ui-monospace,Menlo,Consolas,"DejaVu Sans Mono",monospace;background:#f0f2f5;padding:1px 4px;border-radius:3px}
.chart{margin:10px 0;overflow-x:auto}
.chart svg{width:100%;max-width:1000px;height:auto}
.logs{font-size:12px}
.filters{display:flex;gap:10px;flex-wrap:wrap;align-items:center;margin-bottom:8px}
.filters label{font-weight:600}
select,input{font:inherit;padding:3px 6px}
#items{table-layout:fixed}
#items td{overflow-wrap:anywhere}
#more{margin:6px 0}
.reply{white-space:pre-wrap;word-break:break-word}
details summary{cursor:pointer;color:var(--accent)}
.o-correct,.o-win{color:var(--ok);font-weight:600}.o-incorrect,.o-loss,.o-error{color:#a5243d;font-weight:600}
.o-unscored{color:var(--warn);font-weight:600}
"""

JS = """
(function(){
  const card = JSON.parse(document.getElementById('card-data').textContent);
  const items = card.items, tbody = document.querySelector('#items tbody');
  const fb = document.getElementById('f-benchmark'), fd = document.getElementById('f-dimension');
  const fo = document.getElementById('f-outcome'), ft = document.getElementById('f-text');
  const count = document.getElementById('items-count'), more = document.getElementById('more');
  let limit = 100;
  function fill(sel, values){
    const keep = sel.value; sel.length = 1;
    [...new Set(values)].sort().forEach(v => { const o = document.createElement('option'); o.value = v; o.textContent = v; sel.appendChild(o); });
    if ([...sel.options].some(o => o.value === keep)) sel.value = keep;
  }
  function cell(tr, text, cls){ const td = document.createElement('td'); td.textContent = text; if (cls) td.className = cls; tr.appendChild(td); return td; }
  function details(td, label, text){
    if (!text) return;
    const d = document.createElement('details'), s = document.createElement('summary'), p = document.createElement('div');
    s.textContent = label; p.className = 'reply'; p.textContent = text; d.appendChild(s); d.appendChild(p); td.appendChild(d);
  }
  function render(){
    fill(fd, items.filter(i => !fb.value || i.benchmark === fb.value).map(i => i.dimension));
    const q = ft.value.trim().toLowerCase();
    const shown = items.filter(i => (!fb.value || i.benchmark === fb.value) && (!fd.value || i.dimension === fd.value)
      && (!fo.value || i.outcome === fo.value)
      && (!q || [i.model, i.id, i.reply, i.explanation, i.input].join(' ').toLowerCase().includes(q)));
    tbody.textContent = '';
    shown.slice(0, limit).forEach(i => {
      const tr = document.createElement('tr'); tr.className = 'item';
      tr.dataset.benchmark = i.benchmark; tr.dataset.outcome = i.outcome;
      cell(tr, i.benchmark); cell(tr, i.dimension + (i.language ? ' (' + i.language + ')' : '')); cell(tr, i.model);
      cell(tr, i.id + (i.epoch > 1 ? ' #' + i.epoch : ''));
      cell(tr, i.outcome, 'o-' + i.outcome.replace(' ', '-'));
      cell(tr, i.score === null ? 'n/a' : (typeof i.score === 'number' ? String(Math.round(i.score * 1000) / 1000) : String(i.score)), 'n');
      const reply = cell(tr, (i.reply || '').slice(0, 160) + ((i.reply || '').length > 160 ? '…' : ''), 'reply');
      details(reply, 'full reply', i.reply.length > 160 ? i.reply : '');
      details(reply, 'prompt', i.input);
      const ex = cell(tr, '');
      details(ex, 'explanation', i.explanation || i.answer || i.error);
      const lg = cell(tr, '', 'logs'); const a = document.createElement('a');
      a.href = i.href; a.textContent = 'log'; a.title = i.log.split('/').pop() + (i.partial_log ? ' (partial)' : ''); lg.appendChild(a);
      tbody.appendChild(tr);
    });
    count.textContent = shown.length + ' of ' + items.length + ' items' + (shown.length > limit ? ' (first ' + limit + ' shown)' : '');
    more.hidden = shown.length <= limit;
  }
  more.addEventListener('click', () => { limit += 100; render(); });
  fill(fb, items.map(i => i.benchmark)); fill(fo, items.map(i => i.outcome));
  const reset = () => { limit = 100; render(); };
  [fb, fd, fo].forEach(s => s.addEventListener('change', reset)); ft.addEventListener('input', reset);
  render();
})();
"""


def e(x: Any) -> str:
    return html.escape("" if x is None else str(x), quote=True)


def inline_svg(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    return text[text.index("<svg") :]


def _log_links(s_logs: list[str], card: dict[str, Any]) -> str:
    by_path = {log["path"]: log for log in card["logs"]}
    parts = []
    for path in s_logs[:2]:
        log = by_path.get(path)
        if log is None:
            continue
        parts.append(
            f'<a href="{e(log["href"])}">{e(Path(path).name[:40])}</a><br><code>{e(log["inspect_view"])}</code>'
        )
    if len(s_logs) > 2:
        parts.append(f'<span class="muted">+{len(s_logs) - 2} more logs</span>')
    return "<br>".join(parts)


def _cell_html(s: dict[str, Any], card: dict[str, Any]) -> str:
    """A score as a table cell: the rounded number linking to its log (the ``inspect view`` command in its title),
    the interval under it, its marks."""
    by_path = {log["path"]: log for log in card["logs"]}
    d = digits(s["unit"])
    log = by_path.get(s["logs"][0]) if s["logs"] else None
    value = e(num(s["value"], d))
    if log is not None:
        title = f"{log['inspect_view']}  ({Path(log['path']).name}" + (
            f", +{len(s['logs']) - 1} more logs)" if len(s["logs"]) > 1 else ")"
        )
        value = f'<a class="v" href="{e(log["href"])}" title="{e(title)}">{value}</a>'
    parts = [f"<b>{value}</b>"]
    if interval(s):
        parts.append(f'<span class="ci">{e(interval(s))}</span>')
    if s.get("n") is not None:
        parts.append(f'<span class="ci">n={e(s["n"])}</span>')
    parts += [f'<span class="chip mark">{e(m)}</span>' for m in s.get("marks", [])]
    return f'<td class="n score" data-model="{e(s["model"])}">' + " ".join(parts) + "</td>"


def score_table(scores: list[dict[str, Any]], card: dict[str, Any]) -> str:
    """A benchmark's scores: one row per dimension and language, one column per model (baselines, as HEART's
    reference replies, in the baselines column), the unit, the baselines and the notes."""
    models = sorted({s["model"] for s in scores if s["model"] not in BASELINE_SYSTEMS})
    rows: dict[tuple[str, str], dict[str, dict[str, Any]]] = {}
    for s in scores:
        rows.setdefault((s["dimension"], s["language"]), {})[s["model"]] = s
    head = "<th>dimension</th><th>lang.</th>" + "".join(f"<th>{e(m)}</th>" for m in models)
    head += "<th>unit</th><th>baselines</th><th>notes</th>"
    body = []
    for (dimension, language), by_model in rows.items():
        first = next(iter(by_model.values()))
        cells = "".join(
            _cell_html(by_model[m], card) if m in by_model else '<td class="n muted">·</td>' for m in models
        )
        notes = sorted({x["note"] for x in by_model.values() if x.get("note")})
        body.append(
            f'<tr class="score" data-benchmark="{e(first["benchmark"])}"><td>{e(dimension)}</td><td>{e(language)}</td>'
            f"{cells}<td>{e(first['unit'])}</td><td>{e(baselines(first))}</td>"
            f'<td class="note">{"<br>".join(e(n) for n in notes)}</td></tr>'
        )
    return f'<div class="wide"><table class="scores"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table></div>'


def logs_table(paths: list[str], card: dict[str, Any]) -> str:
    """The logs behind a benchmark's numbers, each with the command that opens it in Inspect View."""
    logs = [log for log in card["logs"] if log["path"] in set(paths)]
    return (
        '<details class="logs"><summary>'
        + f"{len(logs)} logs and the <code>inspect view</code> commands that open them</summary><table>"
        + "".join(
            f'<tr><td><a href="{e(log["href"])}">{e(Path(log["path"]).name)}</a></td><td>{e(log["task"])}</td>'
            f"<td>{e(log['model'])}</td><td>{e(log['state'])}</td><td><code>{e(log['inspect_view'])}</code></td></tr>"
            for log in logs
        )
        + "</table></details>"
    )


def page(card: dict[str, Any], out_dir: Path) -> str:
    chart = profile_chart(card)
    b_rows = "".join(
        f'<tr><td><a href="#bench-{e(b["benchmark"])}">{e(b["name"])}</a></td>'
        f'<td><span class="chip {STATUS_CLASS.get(b["status"], "off")}">{e(b["status"])}</span></td>'
        f'<td>{e(", ".join(b["models"]))}</td><td class="n">{len(b["logs"])}</td>'
        f"<td>{e(b['reason'])}{' <b>What to do:</b> ' + e(b['fix']) if b['fix'] else ''}</td></tr>"
        for b in card["benchmarks"]
    )
    parts = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{e(card['title'])}</title><style>{CSS}</style></head><body>",
        f"<header><h1>{e(card['title'])}</h1>",
        f'<p class="meta">Made {e(card["created"])} from {len(card["logs"])} logs · models: {e(models_line(card))}</p>',
        '<nav><a href="#summary">Summary</a><a href="#profile">Profile</a><a href="#benchmarks">Benchmarks</a>'
        '<a href="#judges">Judges</a><a href="#data">Data</a><a href="#usage">Calls and tokens</a>'
        '<a href="#explorer">Items</a><a href="#notes">Notes</a></nav></header><main>',
        '<section id="summary"><h2>Summary</h2>',
    ]
    if card["partial_logs"]:
        parts.append(
            f'<div class="banner"><b>Partial:</b> {len(card["partial_logs"])} logs are not complete; every number '
            "built from them is marked partial.</div>"
        )
    parts.append(
        "<table><thead><tr><th>benchmark</th><th>status</th><th>models</th><th>logs</th><th>reason</th></tr>"
        f"</thead><tbody>{b_rows}</tbody></table></section>"
    )
    parts.append('<section id="profile"><h2>Profile across facets</h2>')
    if chart is not None:
        parts.append(
            '<p class="muted">Every score that has a 0-100 reading, models side by side: accuracy and win shares in %, '
            "SAGE's Sentient score, PACE scores x10, LongEmotion's judge scales rescaled to 0-100. Ratings (Elo "
            "scales) are in the benchmark tables below. Hollow points rest on partial logs.</p>"
        )
        parts.append(f'<div class="chart" id="profile-chart">{svg(chart)}</div>')
    else:
        parts.append("<p>No scores with a 0-100 reading among these logs.</p>")
    parts.append("</section>")
    parts.append('<section id="benchmarks"><h2>Benchmarks</h2>')
    inlined: set[str] = set()
    for b in card["benchmarks"]:
        scores = [s for s in card["scores"] if s["benchmark"] == b["benchmark"]]
        parts.append(
            f'<article id="bench-{e(b["benchmark"])}" class="benchmark"><h3>{e(b["name"])} '
            f'<span class="chip {STATUS_CLASS.get(b["status"], "off")}">{e(b["status"])}</span></h3>'
        )
        if not scores:
            parts.append(
                f"<p>{'Not run' if b['status'] == 'not run' else 'Not scored'}: {e(b['reason'])}"
                + (f" <b>What to do:</b> {e(b['fix'])}" if b["fix"] else "")
                + "</p></article>"
            )
            continue
        parts.append(score_table(scores, card))
        parts.append(logs_table(b["logs"], card))
        others = []
        for rel in b["charts"]:
            if "/charts/" in f"/{rel}" or rel in inlined:
                others.append(rel)
                continue
            inlined.add(rel)
            parts.append(f'<div class="chart">{inline_svg(out_dir / rel)}</div>')
        if others:
            parts.append(
                '<p class="muted">More charts (SVG files beside this page): '
                + ", ".join(f'<a href="{e(r)}">{e(r.removeprefix("files/"))}</a>' for r in others)
                + "</p>"
            )
        parts.append("</article>")
    parts.append("</section>")
    parts.append('<section id="judges"><h2>Judges</h2>')
    if card["judges"]:
        parts.append(
            "<table><thead><tr><th>benchmark</th><th>judge</th><th>judge card</th><th>diagnostics</th></tr></thead>"
            "<tbody>"
            + "".join(
                f"<tr><td>{e(j['benchmark'])}</td><td>{e(j['judge'])}</td><td>"
                + (
                    f'<span class="chip {"ok" if j["card"] == "pass" else "warn"}">{e(judge_status(j))}</span>'
                    if j["checked"]
                    else '<span class="chip mark">judge not checked</span>'
                )
                + f"</td><td>{e(diagnostics(j))}</td></tr>"
                for j in card["judges"]
            )
            + '</tbody></table><p class="muted">A judge card comes from <code>eq-evals judge-check</code> '
            "(docs/judges.md); pass its logs with the others to show it here.</p>"
        )
    else:
        parts.append("<p>No judged results among these logs.</p>")
    parts.append("</section>")
    parts.append(
        '<section id="data"><h2>Data versions</h2><table><thead><tr><th>benchmark</th><th>task</th>'
        "<th>task version</th><th>datasets</th><th>data</th></tr></thead><tbody>"
        + "".join(
            f"<tr><td>{e(v['benchmark'])}</td><td>{e(v['task'])}</td><td>{e(v.get('task_version'))}</td>"
            f"<td>{e(', '.join(v['datasets']))}</td><td>{e('; '.join(v['data']))}</td></tr>"
            for v in card["data_versions"]
        )
        + "</tbody></table></section>"
    )
    parts.append(
        '<section id="usage"><h2>Model calls and tokens</h2><p class="muted">The plan (<code>eq-evals profile '
        "--dry-run</code>) beside what the logs record; cost where Inspect knows the model's price.</p><table><thead><tr>"
        + "".join(f"<th>{e(h)}</th>" for h in USAGE_HEADER)
        + "</tr></thead><tbody>"
        + "".join("<tr>" + "".join(f"<td>{e(c)}</td>" for c in usage_cells(r)) + "</tr>" for r in card["plan_vs_real"])
        + "</tbody></table></section>"
    )
    parts.append(
        '<section id="explorer"><h2>Item explorer</h2><div class="filters">'
        '<label for="f-benchmark">benchmark</label><select id="f-benchmark"><option value="">all</option></select>'
        '<label for="f-dimension">dimension</label><select id="f-dimension"><option value="">all</option></select>'
        '<label for="f-outcome">outcome</label><select id="f-outcome"><option value="">all</option></select>'
        '<label for="f-text">search</label><input id="f-text" type="search" placeholder="model, id, text">'
        '<span id="items-count" class="muted"></span></div>'
        '<table id="items"><colgroup><col style="width:7%"><col style="width:12%"><col style="width:13%">'
        '<col style="width:11%"><col style="width:8%"><col style="width:5%"><col style="width:31%">'
        '<col style="width:9%"><col style="width:4%"></colgroup><thead><tr><th>benchmark</th><th>dimension</th><th>model</th><th>item</th>'
        "<th>outcome</th><th>score</th><th>reply</th><th>explanation</th><th>log</th></tr></thead><tbody></tbody>"
        '</table><button id="more" type="button" hidden>show 100 more</button></section>'
    )
    notes = card["warnings"] + card["notes"] + [f"{k}: {v}" for k, v in card["section_errors"].items()]
    parts.append(
        '<section id="notes"><h2>Notes</h2>'
        + ("<ul>" + "".join(f"<li>{e(n)}</li>" for n in notes) + "</ul>" if notes else "<p>None.</p>")
        + "<h3>Logs</h3><table><thead><tr><th>log</th><th>task</th><th>model</th><th>state</th>"
        "<th>open in Inspect View</th></tr></thead><tbody>"
        + "".join(
            f'<tr><td><a href="{e(log["href"])}">{e(Path(log["path"]).name)}</a></td><td>{e(log["task"])}</td>'
            f"<td>{e(log['model'])}</td><td>{e(log['state'])}</td><td><code>{e(log['inspect_view'])}</code></td></tr>"
            for log in card["logs"]
        )
        + "</tbody></table></section>"
    )
    hrefs = {log["path"]: log["href"] for log in card["logs"]}
    data = {**card, "items": [{**i, "href": hrefs.get(i["log"], "")} for i in card["items"]]}
    data.pop("sections_markdown", None)
    blob = json.dumps(data, ensure_ascii=False, default=str).replace("</", "<\\/")
    parts += [
        f'</main><script type="application/json" id="card-data">{blob}</script>',
        f"<script>{JS}</script></body></html>",
    ]
    return "\n".join(parts)
