"""``eq-evals doctor LOGS...`` (alias ``check``): what each log is, whether it is complete, how many samples are
unscored and why, and whether the logs can be compared. The first thing to run when a leaderboard looks wrong.

Every fact comes from ``eq_evals.logcheck``, the same check ``ratings``, ``sage leaderboard``, ``agreement`` and
``facet_pairwise`` apply. Exit status: 0 when every log is readable and complete and the logs of each task can be
compared, 1 otherwise (so scripts can stop before rating).
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from eq_evals import logcheck
from eq_evals.errors import EqEvalsError
from eq_evals.logcheck import expand_log_paths


def diagnose(paths: list[str]) -> dict[str, Any]:
    infos: list[logcheck.LogCheck] = []
    unreadable: list[str] = []
    for path in expand_log_paths(paths):
        try:
            _, info = logcheck.read_checked(path)
        except EqEvalsError as ex:
            unreadable.append(str(ex))
            continue
        infos.append(info)
    retried = logcheck.completed_retries([i.path for i in infos])
    infos_ok = [i for i in infos if i.complete or i.task_id not in retried]  # a finished retry replaces its original
    notes = logcheck.comparability(infos_ok)
    return {
        "logs": [i.as_dict() for i in infos],
        "unreadable": unreadable,
        "comparability": notes,
        "summary": {
            "logs": len(infos) + len(unreadable),
            "complete": sum(i.complete for i in infos),
            "partial": sum(not i.complete for i in infos),
            "unreadable": len(unreadable),
            "errored_samples": sum(i.errored for i in infos),
            "unscored_scores": sum(i.n_unscored for i in infos),
        },
        "retried": {i.path: retried[i.task_id] for i in infos if not i.complete and i.task_id in retried},
        "ok": not unreadable and not notes and all(i.complete for i in infos_ok),
    }


def render(report: dict[str, Any]) -> str:
    lines: list[str] = []
    for d in report["logs"]:
        roles = ", ".join(f"{r}={m}" for r, m in d["roles"].items()) or "none"
        args = ", ".join(f"{k}={v}" for k, v in sorted(d["task_args"].items())) or "defaults"
        retry = report["retried"].get(d["path"])
        lines += [
            d["path"] + (f"  (finished by its retry {retry}; left out by every command)" if retry else ""),
            f"  task {d['task']} (version {d['task_version']}), model {d['model']}, roles: {roles}",
            f"  dataset {d['dataset']}, epochs {d['epochs']}; arguments: {args}",
            f"  {'complete' if d['complete'] else 'PARTIAL (' + d['state'].removeprefix('partial: ') + ')'}: "
            f"{d['present']} of "
            f"{d['planned'] if d['planned'] is not None else '?'} planned samples in the log, "
            f"{d['errored']} errored",
        ]
        for version in d["data_versions"]:
            lines.append(f"  data: {version}")
        if d["partial_inputs"]:
            lines.append(
                f"  {d['partial_inputs']} sample(s) built from partial generation logs (allow_partial): "
                "their leaderboard rows are marked partial"
            )
        for message, n in d["errors"].items():
            lines.append(f"  error x{n}: {message}")
        for scorer, n in d["scored"].items():
            unscored = [u for u in d["unscored"] if u["scorer"] == scorer]
            partial = d.get("partial_composites", {}).get(scorer, 0)
            lines.append(
                f"  {scorer}: {n} scored, {sum(u['count'] for u in unscored)} unscored"
                + (f", {partial} of the scored are partial composites (a part missing)" if partial else "")
            )
        for u in d["unscored"]:
            if u["scorer"] not in d["scored"]:
                lines.append(f"  {u['scorer']}: 0 scored")
            lines.append(f"    unscored x{u['count']} ({u['scorer']}): {u['reason']}")
        lines.append("")
    for problem in report["unreadable"]:
        lines += [f"UNREADABLE: {problem}", ""]
    lines.append("Comparability:")
    lines += [f"  - {n}" for n in report["comparability"]] or [
        "  logs of the same task agree in version, arguments, item set, epochs and model roles"
    ]
    s = report["summary"]
    lines += [
        "",
        f"{s['logs']} log(s): {s['complete']} complete, {s['partial']} partial, {s['unreadable']} unreadable; "
        f"{s['errored_samples']} errored sample(s), {s['unscored_scores']} unscored score(s).",
    ]
    if s["partial"]:
        lines.append(
            "Partial logs are skipped by eq-evals ratings / sage leaderboard / agreement / facet_pairwise "
            "unless --allow-partial (-T allow_partial=true) is given; finish them with `inspect eval-retry LOG`."
        )
    return "\n".join(lines)


def cmd_doctor(args: argparse.Namespace) -> int:
    report = diagnose(args.logs)
    print(json.dumps(report, indent=2, ensure_ascii=False, default=str) if args.json else render(report))
    return 0 if report["ok"] else 1
