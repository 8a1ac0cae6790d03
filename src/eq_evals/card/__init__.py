"""The report card of a profile (``eq-evals card LOGS... --out DIR``, and the end of ``eq-evals profile``): one
self-contained ``report.html`` (inline CSS, SVG charts and data; nothing from the network, opens from disk) with
``report.md`` and ``report.json`` holding the same numbers (docs/profile.md, "The report card").

It reads logs only through the gate (``eq_evals.logcheck.gate``) and the leaderboard sections
(``eq_evals.sections``, as ``eq-evals ratings`` does), and shows what their typed results hold: per benchmark and
dimension the score with its interval and the baselines that give it meaning, a profile chart across the facets
with the models side by side, the judges and their cards (or "judge not checked"), data versions, partial and
unscored marks, model calls and tokens beside the plan, and an item explorer; every number links to its log
with the ``inspect view`` command that opens it. It imports no benchmark package.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from eq_evals.card.build import build_card
from eq_evals.card.render import markdown, page

__all__ = ["write_card", "build_card"]


def clean(value: Any) -> Any:
    """JSON-safe: NaN and infinities become null (strict JSON, and JSON.parse in the page)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(k): clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set)):
        return [clean(v) for v in value]
    return value


def write_card(
    log_paths: list[str | Path],
    out_dir: Path,
    *,
    plan: dict[str, Any] | None = None,
    title: str | None = None,
    allow_partial: bool = True,
    **options: Any,
) -> dict[str, Path]:
    """Write ``report.html``, ``report.md`` and ``report.json`` (and the sections' charts under ``files/``) into
    ``out_dir``; returns their paths by kind. ``plan``: the plan ``eq-evals profile`` made (its rows are shown
    beside the counts from the logs; rows with ``reason`` name benchmarks that did not run). ``options``: the
    gate's (``allow_mixed``) and the sections' (``method``, ``bootstrap``, ``seed``)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    card = clean(build_card(log_paths, out, plan=plan, title=title, allow_partial=allow_partial, **options))
    paths = {"html": out / "report.html", "md": out / "report.md", "json": out / "report.json"}
    paths["json"].write_text(json.dumps(card, indent=1, ensure_ascii=False, allow_nan=False), encoding="utf-8")
    paths["md"].write_text(markdown(card), encoding="utf-8")
    paths["html"].write_text(page(card, out), encoding="utf-8")
    return paths
