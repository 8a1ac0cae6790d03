"""``eq-evals list [TASK...]``: the tasks, one line each; a task's parameters, generation settings and sample
counts with ``eq-evals list TASK`` (or ``--long`` for every task)."""

from __future__ import annotations

import argparse
import difflib
import os
import re
import shutil
import sys
from collections import Counter

from eq_evals.commands import add_parser
from eq_evals.errors import EqEvalsError

# Data loaders name HF_HUB_OFFLINE when the Hub is off limits; when `eq-evals list` set it itself, say so.
_OFFLINE_SET = re.compile(r"HF_HUB_OFFLINE(?:/HF_DATASETS_OFFLINE)? is set")
_LISTING_OFFLINE = "`eq-evals list` only counts data already on this machine (it never downloads)"

ORDER = 0  # place in `eq-evals --help`


def default_samples(decl, overrides: dict | None = None) -> dict[str, list | Exception] | None:  # noqa: ANN001
    """The samples a declaration's dataset adapter builds with the task's default parameters, per language (each
    choice of a ``language`` parameter but 'all'; the key 'all' for a task without one), or the exception that
    stopped the build (e.g. data not on this machine). None when a required parameter decides the samples
    (``-T logs``). What `eq-evals list` counts; tests/packaging/test_register_entries.py checks the register entries
    against it.
    ``overrides`` replaces defaults (e.g. a local ``data_dir``)."""
    from eq_evals import components
    from eq_evals.engine import substitute

    spec = decl.spec
    if any(p.required for p in spec.parameters.values()):
        return None
    defaults = dict({n: p.default for n, p in spec.parameters.items()}, **(overrides or {}))
    languages = spec.parameters["language"].choices if "language" in spec.parameters else [None]
    built: dict[str, list | Exception] = {}
    for language in [lang for lang in languages if lang != "all"]:
        params = dict(defaults, **({"language": language} if language else {}))
        try:
            built[language or "all"] = components.DATASETS[spec.dataset.adapter](
                **substitute(spec.dataset.args, params)
            )
        except Exception as ex:  # noqa: BLE001 - a listing reports, it does not fail
            built[language or "all"] = ex
    return built


def _sample_counts(decl, offline_by_listing: bool = False) -> str:  # noqa: ANN001
    built = default_samples(decl)
    if built is None:
        return "built from " + ", ".join(f"-T {n}" for n, p in decl.spec.parameters.items() if p.required)
    counts = []
    for language, samples in built.items():
        if isinstance(samples, Exception):
            reason = str(samples).splitlines()[0] if str(samples) else type(samples).__name__
            if offline_by_listing:
                reason = _OFFLINE_SET.sub(_LISTING_OFFLINE, reason)
            counts.append(f"{language}: unavailable ({reason})")
            continue
        formats = Counter(str((s.metadata or {}).get("format", "-")) for s in samples)
        detail = "" if set(formats) == {"-"} else " (" + ", ".join(f"{k} {v}" for k, v in sorted(formats.items())) + ")"
        counts.append(f"{language}: {len(samples)}{detail}")
    return "; ".join(counts)


def _details(decl, offline_by_listing: bool) -> list[str]:  # noqa: ANN001
    from eq_evals.engine import param_form

    spec = decl.spec
    lines = [
        f"eq_evals/{spec.name}  [{spec.benchmark}]",
        f"  {spec.description}",
        f"  samples: {_sample_counts(decl, offline_by_listing)}; epochs: {spec.epochs.count} ({spec.epochs.reducer})",
    ]
    if spec.config:
        settings = ", ".join(f"{k}={v!r}" for k, v in spec.config.items())
        lines.append(f"  generation: {settings} (command-line --max-tokens, --stop-seqs, --temperature ... win)")
    for name, p in spec.parameters.items():
        choices = f" {p.choices}" if p.choices else ""
        lines.append(f"  -T {name}={p.default!r} ({param_form(p)}{choices}): {p.description}")
    return lines + [""]


def _compact(decls: list) -> list[str]:
    """One line per task: name, benchmark, description (cut to the terminal's width on a terminal)."""
    if not decls:
        return []
    name_w = max(len(d.spec.name) for d in decls) + len("eq_evals/")
    bench_w = max(len(d.spec.benchmark) for d in decls)
    width = shutil.get_terminal_size().columns if sys.stdout.isatty() else None
    lines = []
    for d in decls:
        line = f"{'eq_evals/' + d.spec.name:<{name_w}}  {d.spec.benchmark:<{bench_w}}  {d.spec.description}"
        if width and len(line) > width:
            line = line[: max(width - 1, name_w + bench_w + 10)] + "…"
        lines.append(line)
    return lines


def _pick(decls: list, names: list[str]) -> list:
    by_name = {d.spec.name: d for d in decls}
    picked = []
    for raw in names:
        name = raw.removeprefix("eq_evals/")
        if name not in by_name:
            close = difflib.get_close_matches(name, list(by_name), n=3)
            hint = f"; did you mean {', '.join('eq_evals/' + c for c in close)}?" if close else ""
            raise EqEvalsError(f"unknown task {raw!r}{hint} (`eq-evals list` shows every task)")
        picked.append(by_name[name])
    return picked


def cmd_list(args: argparse.Namespace) -> int:
    offline_by_listing = os.environ.get("HF_HUB_OFFLINE", "").strip().lower() not in ("1", "true", "yes", "on")
    os.environ["HF_HUB_OFFLINE"] = "1"  # a listing counts what is here; it never downloads data
    from eq_evals.engine import load_declarations_tolerant
    from eq_evals.resources import display_path

    decls, broken = load_declarations_tolerant()
    for file, error in broken.items():
        print(f"eq-evals: BROKEN {display_path(file)}: {error}", file=sys.stderr)
    known = sorted({d.spec.benchmark for d in decls})
    benchmark = (getattr(args, "benchmark", None) or "").strip().lower()
    if benchmark and benchmark not in known:
        raise EqEvalsError(f"unknown benchmark {args.benchmark!r}; known benchmarks: {', '.join(known)}")
    tasks = getattr(args, "tasks", None) or []
    if tasks:
        chosen, long = _pick(decls, tasks), True
    else:
        chosen, long = [d for d in decls if not benchmark or d.spec.benchmark == benchmark], getattr(args, "long", True)
    if long:
        for decl in chosen:
            print("\n".join(_details(decl, offline_by_listing)))
    else:
        print("\n".join(_compact(chosen)))
        if sys.stdout.isatty():
            print(
                f"\n{len(chosen)} task(s). Parameters, generation settings and sample counts: "
                "eq-evals list TASK (or --long)"
            )
    return 1 if broken else 0


def register(sub: argparse._SubParsersAction) -> None:
    p = add_parser(
        sub,
        "list",
        help="the tasks, one line each; a task's parameters and sample counts with TASK",
        examples=[
            "eq-evals list                          # every task, one line each",
            "eq-evals list --benchmark facet        # FACET's tasks",
            "eq-evals list facet_hidden             # parameters, generation settings, sample counts",
            "eq-evals list --long --benchmark sage  # the details of every SAGE task",
        ],
    )
    p.add_argument(
        "tasks",
        nargs="*",
        metavar="TASK",
        help="show these tasks in full (eq_evals/NAME or NAME): parameters, generation settings, sample counts",
    )
    p.add_argument("--benchmark", help="only tasks of this benchmark (facet, heart, longemotion, pace, sage)")
    p.add_argument(
        "-l",
        "--long",
        action="store_true",
        help="every listed task in full, as for TASK (counting samples reads the data: slower)",
    )
    p.set_defaults(func=cmd_list)
