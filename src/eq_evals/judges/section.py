"""Judge cards beside a leaderboard: which judges a leaderboard rests on, their cards, and "judge not checked"
(docs/judges.md, "Judge cards in leaderboards").

Not discovered as a leaderboard section by itself (``eq_evals.sections`` discovers ``<package>/leaderboard.py``
modules); the leaderboard writer hooks it in, either as a section::

    # src/eq_evals/judges/leaderboard.py
    from eq_evals.judges.section import SECTIONS  # noqa: F401

(the section reads the judge-check logs among ``eq-evals ratings LOGS``, and the judges the other sections used
from ``Inputs.shared["judges"]`` when they publish them, else from the shared pairwise comparisons), or by calling
:func:`judges_of_logs`, :func:`eq_evals.judges.card.judge_cards` and :func:`render_judges` directly.
"""

from __future__ import annotations

from typing import Any, Iterable

from eq_evals.judges.card import BOARD_ROLES, STATUS_MARK, TASKS, THRESHOLDS, JudgeCard, board_key, cards_from_logs

# tasks whose scores rest on a judge, by benchmark: the judge is the grader role (or the named judge roles), the
# PACE board its agent roles
JUDGED_TASKS = {
    "facet_pairwise": "facet",
    "heart": "heart",
    "pace_pairwise": "pace",
    "pace": "pace_board",
    "longemotion_conversation": "longemotion",
    "longemotion_summary": "longemotion",
    "longemotion_expression": "longemotion",
}


def _names(value: Any) -> list[str]:
    values = value if isinstance(value, list) else [value]
    return [str(getattr(v, "model", v)) for v in values if v is not None]


def judges_of_log(log: Any) -> tuple[str, set[str]] | None:
    """(benchmark, the judges its scores rest on) for a log of a judged task, else None. The names are the keys
    :func:`eq_evals.judges.card.judge_cards` files cards under."""
    task = log.eval.task.split("/")[-1]
    benchmark = JUDGED_TASKS.get(task)
    if benchmark is None:
        return None
    roles = dict(log.eval.model_roles or {})
    if benchmark in ("pace", "pace_board"):
        if any(r in roles for r in BOARD_ROLES) or "grader" in roles:
            return benchmark, {board_key(roles)}
        return benchmark, set()
    judge_roles = [r.strip() for r in str((log.eval.task_args or {}).get("judge_roles") or "").split(",") if r.strip()]
    names = [n for r in (judge_roles or ["grader"]) for n in _names(roles.get(r))]
    return benchmark, set(names)


def judges_of_logs(logs: Iterable[Any]) -> dict[str, set[str]]:
    """benchmark -> the judges the logs' scores rest on."""
    out: dict[str, set[str]] = {}
    for log in logs:
        found = judges_of_log(log)
        if found is not None:
            out.setdefault(found[0], set()).update(found[1])
    return out


def render_judges(used: dict[str, set[str]], cards: dict[str, JudgeCard]) -> str:
    """A Markdown section: for every judge a leaderboard rests on, its card's status on that benchmark (and what
    fails), or "judge not checked"; then the other cards found."""
    lines = [
        "## Judges",
        "",
        "Each judge these results rest on, with its judge card (`eq-evals judge-check`, docs/judges.md).",
        "",
        "| benchmark | judge | judge card | failing |",
        "|---|---|---|---|",
    ]
    shown = set()
    for benchmark in sorted(used):
        for judge in sorted(used[benchmark]):
            card = cards.get(judge)
            section = card.sections.get(benchmark) if card else None
            if section is None:
                other = f" (card has {', '.join(card.sections)} only)" if card else ""
                lines.append(f"| {benchmark} | {judge} | judge not checked{other} | |")
                continue
            shown.add((judge, benchmark))
            failing = [THRESHOLDS[k].label for k, f in section["figures"].items() if f["status"] == "fail"]
            cell = f" {', '.join(failing)} " if failing else " "
            lines.append(
                f"| {benchmark} | {judge} | {STATUS_MARK[section['status']]} "
                f"(accuracy {_pct(section['figures']['accuracy']['value'])}) |{cell}|"
            )
    if not any(used.values()):
        lines.append("| | | no judged results among these logs | |")
    rest = [(j, b) for j, c in sorted(cards.items()) for b in c.sections if (j, b) not in shown]
    if rest:
        lines += [
            "",
            "Other judge cards in these logs: "
            + "; ".join(f"{j} on {b}: {STATUS_MARK[cards[j].sections[b]['status']]}" for j, b in rest)
            + ".",
        ]
    return "\n".join(lines) + "\n"


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{x * 100:.1f}%"


def build(inputs: Any) -> Any:
    """A leaderboard section (``eq_evals.sections``): cards from the judge-check logs among the inputs, matched
    with the judges the other sections report in ``inputs.shared["judges"]`` (benchmark -> judges; see
    :func:`judges_of_logs`) or, failing that, the judges of the shared pairwise comparisons."""
    from eq_evals.sections import Result

    cards = cards_from_logs((log, info.path) for log, info in inputs.logs)
    used: dict[str, set[str]] = {b: set(j) for b, j in (inputs.shared.get("judges") or {}).items()}
    if not used:  # the judges every judged log among the run's logs rests on (the writer shares them all)
        used = judges_of_logs(log for log, _ in inputs.shared.get("logs") or [])
    if not cards and not used:
        return Result()
    return Result(
        markdown=render_judges(used, cards),
        json={
            "judge_cards": {j: c.as_json() for j, c in cards.items()},
            "judges_used": {b: sorted(j) for b, j in used.items()},
        },
    )


def _sections() -> list[Any]:
    from eq_evals.sections import Section

    return [Section(key="judges", title="Judges", tasks=frozenset(TASKS), build=build, order=90)]


SECTIONS = _sections()
