"""``eq-evals pace ...``: fit Causal-PACE weights from labelled observations (PACE paper §3, App. C;
docs/pace-weights.md, '`eq-evals pace weights`').

    eq-evals pace weights DATA... [--out FILE.json] [--discretize none|binary@T|tertiles] [--alpha A]
                                  [--bootstrap N] [--cluster COLUMN|none] [--y COLUMN]

DATA are CSV (header row) or JSONL files with one observation per row: columns ``P``, ``A``, ``C``, ``E`` (the
dimension labels or 0–10 scores), ``Y`` (an independent overall judgement, e.g. arena points 0/1/2), an optional
``count`` frequency column and an optional ``item`` column (the bootstrap cluster). Without DATA the paper's
weights (renormalised) are printed. Never fit Y from a PACE composite (docs/pace-weights.md, 'Circularity warning'). See docs/pace-weights.md.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
from pathlib import Path
from typing import Any

from eq_evals.core.text import MISSING, read_jsonl
from eq_evals.errors import EqEvalsError

COLUMNS = ("P", "A", "C", "E")
LOG_SUFFIXES = (".eval", ".json")


def _value(raw: Any) -> Any:
    """CSV and JSONL agree on labels: numbers become int (when integral) or float, other text stays text."""
    if isinstance(raw, bool):
        return int(raw)
    if isinstance(raw, (int, float)):
        return int(raw) if float(raw).is_integer() else float(raw)
    text = str(raw).strip()
    try:
        number = float(text)
    except ValueError:
        return text
    if math.isnan(number) or math.isinf(number):
        return text
    return int(number) if number.is_integer() else number


def _check_row(row: Any, where: str, y: str, discretize: str, keep: tuple[str, ...] = ("item",)) -> dict[str, Any]:
    from eq_evals.ratings.causal_pace import discretizer

    if not isinstance(row, dict):
        raise EqEvalsError(f"{where}: expected an object with columns {', '.join([*COLUMNS, y])}, got {row!r}")
    to_state = discretizer(discretize)
    out: dict[str, Any] = {}
    for column in (*COLUMNS, y):
        raw = row.get(column)
        if raw is None or (isinstance(raw, str) and not raw.strip()):
            raise EqEvalsError(f"{where}: column {column!r} is missing or empty")
        out[column] = _value(raw)
        if column != y:
            try:
                to_state(out[column])
            except ValueError as ex:
                raise EqEvalsError(f"{where}: column {column!r}: {ex} (discretize={discretize})") from None
    count = row.get("count")
    if count is not None and not (isinstance(count, str) and not count.strip()):
        value = _value(count)
        if isinstance(value, str) or not value >= 0:
            raise EqEvalsError(f"{where}: column 'count' must be a number >= 0, got {count!r}")
        out["count"] = value
    for column in keep:  # cluster columns, kept as text
        value = row.get(column)
        if value is not None and str(value).strip():
            out[column] = str(value).strip()
    return out


def load_observations(
    paths: list[str],
    *,
    y: str = "Y",
    discretize: str = "none",
    cluster: str | None = None,
    allow_partial: bool = False,
    allow_mixed: bool = False,
) -> list[dict[str, Any]]:
    """Observations from CSV / JSONL files (validated; a bad row raises EqEvalsError naming file:line).

    Each observation keeps P, A, C, E, ``y``, ``count`` when given, ``item`` and the ``cluster`` column when
    present (as text).

    ``.eval`` / ``.json`` Inspect logs are delegated to ``eq_evals.pace.logs.observations_from_logs(paths, y=...)``
    (provided by the PACE task package)."""
    keep = tuple(dict.fromkeys(["item", *([cluster] if cluster else [])]))
    rows: list[dict[str, Any]] = []
    if any(Path(p).is_dir() for p in paths):  # a folder of battle logs, as `eq-evals ratings` takes it
        from eq_evals.logcheck import expand_log_paths

        paths = [f for p in paths for f in (expand_log_paths([p]) if Path(p).is_dir() else [p])]
    logs = [p for p in paths if Path(p).suffix.lower() in LOG_SUFFIXES]
    for path in paths:
        p = Path(path)
        suffix = p.suffix.lower()
        if suffix in LOG_SUFFIXES:
            continue
        if suffix not in (".csv", ".jsonl"):
            raise EqEvalsError(
                f"{path}: unsupported file type {suffix or '(none)'}; use .csv or .jsonl "
                "(or PACE Inspect logs, .eval/.json)"
            )
        try:
            text = p.read_text(encoding="utf-8")
        except OSError as ex:
            raise EqEvalsError(f"{path}: cannot read: {ex.strerror or ex}") from None
        if suffix == ".csv":
            reader = csv.DictReader(text.splitlines())
            missing = [c for c in (*COLUMNS, y) if c not in (reader.fieldnames or [])]
            if missing:
                raise EqEvalsError(
                    f"{path}:1: the header lacks column(s) {', '.join(missing)} "
                    f"(found {', '.join(reader.fieldnames or []) or 'nothing'})"
                )
            for row in reader:
                if None in row:
                    raise EqEvalsError(f"{path}:{reader.line_num}: more values than header columns")
                rows.append(_check_row(row, f"{path}:{reader.line_num}", y, discretize, keep))
        else:
            for number, row in read_jsonl(None, str(path), text=text):
                rows.append(_check_row(row, f"{path}:{number}", y, discretize, keep))
    if logs:
        try:
            from eq_evals.pace.logs import observations_from_logs  # type: ignore[import-not-found]
        except ImportError:
            raise EqEvalsError(
                f"reading PACE logs ({', '.join(logs)}) needs eq_evals.pace.logs.observations_from_logs, which this "
                "installation does not provide yet; export the labels as CSV or JSONL with columns P, A, C, E, Y"
            ) from None
        rows.extend(observations_from_logs(logs, y=y, allow_partial=allow_partial, allow_mixed=allow_mixed))
    if not rows:
        raise EqEvalsError(f"no observations in {', '.join(paths)}")
    return rows


def _fmt_ci(ci: Any) -> str:
    return MISSING if ci is None else f"[{ci[0]:.4f}, {ci[1]:.4f}]"


def cmd_weights(args: argparse.Namespace) -> int:
    from eq_evals.ratings.causal_pace import (
        DIMENSION_NAMES,
        PAPER_WEIGHTS,
        DegenerateWeightsError,
        PositivityError,
        discretizer,
        estimate_weights,
        normalize,
    )

    try:
        discretizer(args.discretize)
    except ValueError as ex:
        raise EqEvalsError(f"--discretize: {ex}") from None
    if args.alpha < 0 or not 0 < args.ci < 1 or args.bootstrap < 0:
        raise EqEvalsError("--alpha must be >= 0, --ci in (0, 1) and --bootstrap >= 0")
    if not args.data:
        paper = normalize(PAPER_WEIGHTS)
        result: dict[str, Any] = {
            "weights": {d: {"value": v, "ci": None} for d, v in paper.items()},
            "source": "paper",
            "note": "the paper's fitted weights (PACE §5.2: P 0.430, A 0.161, C 0.202, E 0.206), renormalised to sum "
            "to 1; no data given",
        }
        print("Causal-PACE weights: the paper's (§5.2), renormalised (no data given)")
        for d, v in paper.items():
            print(f"  {d} {DIMENSION_NAMES[d]:<24} {v:.6f}")
    else:
        cluster = args.cluster
        rows = load_observations(
            args.data,
            y=args.y,
            discretize=args.discretize,
            cluster=None if cluster in ("auto", "none") else cluster,
            allow_partial=args.allow_partial,
            allow_mixed=args.allow_mixed_datasets,
        )
        if cluster == "auto":
            cluster = "item" if all("item" in r for r in rows) else None
        elif cluster == "none":
            cluster = None
        elif any(cluster not in r for r in rows):
            raise EqEvalsError(f"--cluster {cluster}: some rows of {', '.join(args.data)} have no {cluster!r} value")
        try:
            fitted = estimate_weights(
                rows,
                y=args.y,
                alpha=args.alpha,
                discretize=args.discretize,
                n_boot=args.bootstrap,
                seed=args.seed,
                cluster=cluster,
                ci=args.ci,
                fallback=args.fallback,
            )
        except (PositivityError, DegenerateWeightsError, ValueError) as ex:
            raise EqEvalsError(f"{', '.join(args.data)}: {ex}") from None
        result = fitted.as_dict()
        partial_rows = sum(1 for r in rows if r.get("partial"))
        if partial_rows:  # kept with --allow-partial: the weights say so, in the JSON and on screen
            result["partial"] = {
                "records": partial_rows,
                "note": "some records come from logs that are not complete (--allow-partial)",
            }
            print(f"PARTIAL: {partial_rows} of {len(rows)} records come from logs that are not complete")
        result.update(
            {
                "source": "estimated",
                "data": list(args.data),
                "n_records": len(rows),
                "note": "W = effective information of X on Y under parent adjustment (PACE Def. 3.1, "
                "Thm 3.1); W̄ = W / sum W. Y must be an independent overall judgement, never a "
                "PACE composite (docs/pace-weights.md, 'Circularity warning').",
            }
        )
        print(
            f"Causal-PACE weights from {len(rows)} records ({fitted.n_rows:g} observations), "
            f"discretize={args.discretize}, alpha={args.alpha:g}, bootstrap {args.bootstrap} "
            f"({'clusters: ' + cluster if cluster else 'rows'}; {fitted.n_skipped} skipped)"
        )
        print(f"  {'dim':<28} {'W (nats)':>10} {'W̄':>9}  {int(args.ci * 100)}% CI{'':<13} naive W̄")
        for d, v in fitted.normalized.items():
            ci = (fitted.ci or {}).get(d)
            print(
                f"  {d} {DIMENSION_NAMES.get(d, d):<26} {fitted.raw[d]:>10.6f} {v:>9.6f}  {_fmt_ci(ci):<20} "
                f"{fitted.naive_normalized[d]:.6f}"
            )
        if fitted.n_boot and fitted.n_skipped:
            print(f"  {fitted.n_skipped} of {fitted.n_boot} bootstrap replicates skipped: {fitted.skipped_reasons}")
    if args.out:
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(result, indent=2, ensure_ascii=False), encoding="utf-8")
        print(f"written: {out}")
    return 0


def claims(path: Path) -> bool:
    """Whether ``eq-evals validate`` hands this file to PACE's validator (its first record looks like PACE's)."""
    from eq_evals.core.itemcheck import first_record

    record = first_record(path)
    return isinstance(record, dict) and "query" in record and "dimension" not in record


def add_validate_arguments(p: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    """PACE's validator has no options of its own (limits: datasets/facet/validation_limits.yaml)."""


def cmd_validate(args: argparse.Namespace) -> int:
    from eq_evals.core.itemcheck import run_validator_command
    from eq_evals.pace.validate import run

    return run_validator_command(args, "PACE", run)


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``pace`` command group to the ``eq-evals`` parser."""
    from eq_evals.commands import add_gate_options, add_group, add_parser

    pace_sub = add_group(
        sub,
        "pace",
        help="PACE: Causal-PACE weights",
        examples=[
            "eq-evals pace weights labels.csv --out weights.json",
            "eq-evals ratings pace-logs/ pace-battles/ --method thurstone   # PACE's leaderboard",
        ],
    )
    p_w = add_parser(
        pace_sub,
        "weights",
        help="fit Causal-PACE weights (PACE Def. 3.1) from CSV/JSONL labels of P, A, C, E and Y",
        description="Fit Causal-PACE dimension weights from observations with columns P, A, C, E, Y, optional count "
        "and item. Y must be an independent overall judgement (never a PACE composite). Without DATA, "
        "print the paper's weights. See docs/pace-weights.md.",
        examples=[
            "eq-evals pace weights                                   # the paper's weights (PACE §5.2)",
            "eq-evals pace weights labels.csv more.jsonl --out weights.json --discretize binary@6",
            "eq-evals pace weights pace-battles/ --bootstrap 50 --alpha 1 --out weights.json",
        ],
    )
    p_w.add_argument(
        "data",
        nargs="*",
        metavar="DATA",
        help="CSV or JSONL files, or pace_pairwise logs (.eval/.json, or folders of them)",
    )
    p_w.add_argument("--out", help="write the weights as JSON to this file")
    p_w.add_argument("--y", default="Y", help="the outcome column (default Y)")
    p_w.add_argument(
        "--discretize",
        default="none",
        help="dimension encoding: none (labels as given, default), binary@T (0-10 score >= T -> 1, e.g. "
        "binary@6) or tertiles (0-3, 4-6, 7-10)",
    )
    p_w.add_argument(
        "--alpha",
        type=float,
        default=0.0,
        help="additive smoothing of P(Y | X, parents) (default 0: the paper's plain frequencies; an "
        "empty cell is then an error)",
    )
    p_w.add_argument(
        "--bootstrap", type=int, default=1000, help="bootstrap replicates for the CIs (default 1000, 0 = none)"
    )
    p_w.add_argument(
        "--cluster",
        default="auto",
        help="bootstrap cluster column (default auto: 'item' when every row has one, else rows; 'none' = rows)",
    )
    p_w.add_argument("--ci", type=float, default=0.95, help="interval level (default 0.95)")
    p_w.add_argument("--seed", type=int, default=0, help="bootstrap seed")
    p_w.add_argument(
        "--fallback",
        choices=["uniform"],
        default=None,
        help="equal weights instead of an error when no dimension has any effect on Y",
    )
    add_gate_options(
        p_w,
        partial="include battle logs that are not complete (cancelled, errored); the weights are then marked partial",
        mixed="fit on battle logs made on different dataset or task versions",
    )
    p_w.set_defaults(func=cmd_weights)
    p_v = add_parser(
        pace_sub,
        "validate",
        help="check PACE query files (JSON, JSONL or CSV of docs/pace.md's fields): schema, EN/ZH alignment, same "
        "scenario; limits in datasets/facet/validation_limits.yaml",
        examples=["eq-evals pace validate datasets/pace", "eq-evals pace validate my_queries.jsonl --json r.json"],
    )
    p_v.add_argument("files", nargs="+", metavar="FILE", help="PACE query files or folders of them")
    p_v.add_argument("--json", help="also write figures and findings as JSON")
    p_v.set_defaults(func=cmd_validate)
