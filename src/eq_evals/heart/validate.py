"""Validators for project-authored HEART history files (``datasets/heart/histories_*.jsonl``, schema in
datasets/heart/README.md), run by the tests and by ``eq-evals heart validate FILE...`` / ``eq-evals validate``.

- ``schema``: the loader's rules (``eq_evals.heart.data``), one finding per bad row.
- ``reference_style``: the references are the opponent every model is judged against, so their style shapes
  every HEART number (issue 23). Per language: the share of references with a question and ending with one,
  against the HEART release's human replies (43% and 36%) within a binomial interval for the number of
  references; the distribution of sentence counts against the release's (total variation distance);
  references longer than the card's 1-3 sentences; adversarial histories whose hostile seeker calls the
  supporter a bot, against the release's 2 of 20.
- ``alignment``: each history's EN and ZH versions exist and agree on subset, emotion, problem, escalation
  profile, turn count and speakers; the references' length ratio is within bounds.
- ``same_scenario``: histories that tell the same story (``eq_evals.core.itemcheck.scenario_pairs``).

Limits: the ``heart`` section of datasets/facet/validation_limits.yaml.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from eq_evals.core.embeddings import english_embeddings
from eq_evals.core.itemcheck import (
    Report,
    add_unique,
    binomial_interval,
    binomial_limit,
    collect_files,
    language_pairs,
    length_ratio,
    limits,
    reviewed_pairs,
)
from eq_evals.core.itemcheck import check_same_scenario as shared_check_same_scenario
from eq_evals.core.text import read_jsonl
from eq_evals.errors import DataError

CHECKS = ("schema", "reference_style", "alignment", "same_scenario")
# the seeker calls the supporter a machine (the release's adversarial histories do so in 2 of 20)
BOT = re.compile(r"\b(bots?|robots?|chatbots?|ai|machines?|algorithms?)\b|机器人|人工智能|复读机|程序", re.I)


@dataclass
class Row:
    file: str
    row: str
    record: dict

    @property
    def id(self) -> str:
        return str(self.record.get("id", ""))

    @property
    def key(self) -> str:
        return re.sub(r"-(en|zh)$", "", self.id)

    @property
    def language(self) -> str:
        return self.record["language"]


def sentences(text: str) -> list[str]:
    """Sentences of a reply: split after . ! ? (and their full-width forms) followed by a space or not."""
    parts = re.split(r"(?<=[.!?])\s+|(?<=[。！？])", text.strip())
    return [p for p in parts if re.search(r"\w", p)]


def style(replies: list[str]) -> dict[str, Any]:
    """Share with a question, share ending with one, sentence-count distribution (1, 2, 3, 4, 5+)."""
    n = len(replies)
    counts = Counter(min(len(sentences(r)), 5) for r in replies)
    return {
        "replies": n,
        "question_share": sum(1 for r in replies if "?" in r or "？" in r) / n,
        "question_ending_share": sum(1 for r in replies if r.strip().endswith(("?", "？"))) / n,
        "sentence_counts": {("5+" if k == 5 else k): counts[k] / n for k in range(1, 6)},
    }


def load(files: list[Path], report: Report) -> list[Row]:
    from eq_evals.heart.data import project_samples_from_rows

    rows: list[Row] = []
    seen: dict[str, str] = {}
    for file in files:

        def bad(number: int, problem: str, file: Path = file) -> None:
            report.add("schema", "error", None, problem, str(file), f"line {number}")

        for number, record in read_jsonl(file, on_error=bad):
            try:
                project_samples_from_rows([(str(file), number, record)])
            except DataError as ex:
                report.add("schema", "error", None, ex.problem, str(file), f"line {number}")
                continue
            add_unique(rows, Row(str(file), f"line {number}", record), seen, report)
    return rows


def check_reference_style(rows: list[Row], report: Report, lim: dict) -> None:
    target = {1: 0, 2: 0, 3: 0, 4: 0, "5+": 0} | dict(lim["release_sentence_counts"])
    for language in sorted({r.language for r in rows}):
        mine = [r for r in rows if r.language == language and r.record.get("reference_response")]
        if not mine:
            continue
        fig = style([r.record["reference_response"] for r in mine])
        n = fig["replies"]
        file = mine[0].file
        shares = {}
        for name, release in (
            ("question_share", lim["release_question_share"]),
            ("question_ending_share", lim["release_question_ending_share"]),
        ):
            low, high = binomial_interval(n, release, lim["share_alpha"])
            ok = low <= fig[name] <= high
            shares[name] = {
                "references": round(fig[name], 3),
                "release": release,
                "accepted": [round(low, 3), round(high, 3)],
                "result": "PASS" if ok else "FAIL",
            }
            if not ok:
                report.add(
                    "reference_style",
                    "error",
                    None,
                    f"{language}: {name.replace('_', ' ')} {fig[name]:.0%} of {n} references; the release's human "
                    f"replies have {release:.0%} (accepted {low:.0%}-{high:.0%}, binomial, alpha {lim['share_alpha']})",
                    file,
                    "-",
                )
        keys = [str(k) for k in target]
        ours = {str(k): v for k, v in fig["sentence_counts"].items()}
        tv = 0.5 * sum(abs(ours.get(k, 0) - float(target[k if k == "5+" else int(k)])) for k in keys)
        shares["sentence_counts"] = {
            "references": {k: round(v, 3) for k, v in ours.items()},
            "release": {str(k): v for k, v in target.items()},
            "total_variation": round(tv, 3),
            "limit": lim["sentence_tv"],
            "result": "PASS" if tv <= lim["sentence_tv"] else "FAIL",
        }
        if tv > lim["sentence_tv"]:
            report.add(
                "reference_style",
                "error",
                None,
                f"{language}: sentence counts of the references {ours} differ from the release's "
                f"{shares['sentence_counts']['release']} (total variation {tv:.2f} > {lim['sentence_tv']})",
                file,
                "-",
            )
        for r in mine:
            count = len(sentences(r.record["reference_response"]))
            if count > lim["max_sentences"]:
                report.add(
                    "reference_style",
                    "warning",
                    r,
                    f"reference has {count} sentences (the card promises 1-{lim['max_sentences']})",
                )
        adversarial = [r for r in rows if r.language == language and r.record.get("subset") == "adversarial"]
        if adversarial:
            bots = [
                r
                for r in adversarial
                if any(
                    BOT.search(turn)
                    for turn, who in zip(r.record["dialogue_history"], r.record["speakers"])
                    if who == "seeker"
                )
            ]
            share = len(bots) / len(adversarial)
            high = binomial_limit(len(adversarial), lim["release_bot_insult_share"], lim["share_alpha"])
            shares["bot_insults"] = {
                "histories": f"{len(bots)}/{len(adversarial)}",
                "release": lim["release_bot_insult_share"],
                "limit": round(high, 3),
                "result": "PASS" if share <= high else "FAIL",
            }
            if share > high:
                report.add(
                    "reference_style",
                    "error",
                    None,
                    f"{language}: in {len(bots)} of {len(adversarial)} adversarial histories the seeker calls the "
                    f"supporter a bot ({', '.join(r.id for r in bots)}); the release has "
                    f"{lim['release_bot_insult_share']:.0%} (limit {high:.0%})",
                    adversarial[0].file,
                    "-",
                )
        report.figures["reference_style"][language] = shares


def check_alignment(rows: list[Row], report: Report, lim: dict) -> None:
    complete = language_pairs(rows, report, "history")
    ratios = []
    for _, en_row, zh_row in complete:
        en, zh = en_row.record, zh_row.record
        for field in ("subset", "emotion_type", "problem_type", "escalation_profile", "speakers"):
            if en.get(field) != zh.get(field):
                report.add(
                    "alignment", "error", zh_row, f"{field} {zh.get(field)!r} differs from EN's {en.get(field)!r}"
                )
        if en.get("reference_response") and zh.get("reference_response"):
            ratio = length_ratio(
                report, zh_row, en["reference_response"], zh["reference_response"], lim["length_ratio"], "reference"
            )
            ratios += [ratio] if ratio is not None else []
    ratios.sort()
    report.figures["alignment"] = {
        "pairs": len(complete),
        "unpaired": len({r.key for r in rows}) - len(complete),
        "reference_zh_chars_per_en_word": [round(ratios[0], 2), round(ratios[-1], 2)] if ratios else None,
    }


def story(r: Row) -> str:
    """What a history tells: the situation and the seeker's turns."""
    seeker = [t for t, who in zip(r.record["dialogue_history"], r.record["speakers"]) if who == "seeker"]
    return " ".join([r.record.get("situation") or "", *seeker])


def check_same_scenario(rows: list[Row], report: Report, facet_lim: dict) -> None:
    shared_check_same_scenario(
        rows, report, story, facet_lim, reviewed=reviewed_pairs("heart"), embed=english_embeddings
    )


def run(paths: Iterable[str | Path], checks: Iterable[str] = CHECKS) -> Report:
    files = collect_files(paths, "HEART")
    report = Report([str(f) for f in files])
    rows = load(files, report)
    wanted = set(checks)
    lim, facet_lim = limits("heart"), limits("facet")
    if "reference_style" in wanted:
        check_reference_style(rows, report, lim)
    if "alignment" in wanted:
        check_alignment(rows, report, {"length_ratio": limits("facet")["length_ratio"]})
    if "same_scenario" in wanted:
        check_same_scenario(rows, report, {**facet_lim, **lim})
    report.figures = dict(report.figures)
    return report
