"""Validators for FACET item files (the project's JSONL, schema in datasets/facet/README.md, or the authors' JSON).

Run by the test suite on the bundled files and by ``eq-evals validate FILE...`` on any FACET file.
Each check yields findings (``error`` fails the run, ``warning`` does not) naming the file, row and item,
and figures that the dataset card quotes. The checks:

- ``schema``: the loader's own rules (fields, labels in the taxonomy, levels, option numbers), duplicate ids.
- ``leakage``: a gold label, its inflections or its taxonomy synonyms (``forms`` in taxonomy.yaml) written in
  the item text; crisis level names in a vignette; strategy annotations such as "(Optimal Adequacy)" after a
  Social Adequacy option (the paper's own example, FACET paper §4.2.2, shows such labels).
- ``stage_directions``: parenthesised or starred stage directions in hidden-emotion dialogues (the paper's
  format has none, paper §4.2 example).
- ``proportions``: single/multi-select shares against the paper's (FACET paper §4.2.1-4.2.2 and Fig. 6b: 41/19, 40/20, 47/13 of 60).
- ``predictive_ngrams``: an n-gram whose occurrence predicts the label across the set: a one-sided
  hypergeometric test per (n-gram, label), Bonferroni-corrected over every test made.
- ``shortcuts``: several families of detectors (``eq_evals.core.itemcheck``), each cross-validated and reported
  as a mean and range over repeated random splits against chance and majority, with a pass/fail against its
  limit. Social Adequacy: models that see only the options (naive Bayes on words / character n-grams, a
  per-option form model) and learned rules on the gold's length rank, position and form (justifications,
  hedges, the longest or most specific option). Crisis levels: naive Bayes on words and on character n-grams
  (limit: majority + ``margin``) and a rule on the vignette's length. (``text_classifier`` is the old name.)
- ``same_scenario``: items of any dimension and file that tell the same story: reworded copies (TF-IDF over
  content words, an error) and, with the ``[rag]`` extra, paraphrases (sentence embeddings and TF-IDF as
  z-scores against the set's own background, a warning to read); English side, mapped to item ids.
- ``positions``: the gold's position (Social Adequacy option number, crisis level) against a uniform
  spread (chi-square test).
- ``near_duplicates``: pairs of items of one language whose shingle sets overlap (Jaccard) above a threshold;
  ``templates``: long n-grams repeated across a large share of a dimension's items.
- ``authors_overlap``: the share of an item's shingles found in one of the authors' samples.
- ``alignment``: each item's EN and ZH versions exist and agree on dimension, format, gold (through the
  taxonomy), options and scenario; their length ratio is within bounds.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass
from functools import cache
from pathlib import Path
from typing import Any, Iterable

from eq_evals.core.embeddings import english_embeddings
from eq_evals.core.itemcheck import (
    Choice,
    Finding,  # noqa: F401 - part of this module's interface
    Labelled,
    Report,
    add_unique,
    choice_detectors,
    choice_form_figures,
    collect_files,
    folds_of,  # noqa: F401 - re-exported for the tests
    form_flags,
    has_phrase,
    label_detectors,
    limits,
    ngrams,
    render_findings,
    reviewed_pairs,
    tokens,
)
from eq_evals.core.itemcheck import check_same_scenario as shared_check_same_scenario
from eq_evals.core.itemcheck import word_features as features
from eq_evals.core.text import read_jsonl
from eq_evals.errors import DataError
from eq_evals.facet.answers import count_options, gold_slots, normalize_label, parse_level
from eq_evals.facet.data import EMOTION_DIMENSIONS, OPTION_LABEL, read_records
from eq_evals.facet.data import validate as validate_record
from eq_evals.facet.taxonomy import taxonomy
from eq_evals.resources import load_yaml

# FACET paper §4.2, Fig. 6b: multi-select items among 60
PAPER_MULTI = {"apparent_emotion": 19 / 60, "hidden_emotion": 20 / 60, "emotion_prediction": 13 / 60}
CHECKS = (
    "schema",
    "leakage",
    "stage_directions",
    "proportions",
    "predictive_ngrams",
    "shortcuts",
    "positions",
    "near_duplicates",
    "same_scenario",
    "templates",
    "authors_overlap",
    "alignment",
)
OPTION_LINE = re.compile(r"^\s*(\d{1,2})[.、．)]\s*(.+)$", re.MULTILINE)
# ASCII brackets need two characters inside (so "(a)" style markers pass); a full-width one-character
# direction such as （笑） is a stage direction in Chinese
STAGE = re.compile(r"\([^)]{2,}\)|（[^）]+）|\*[^*\n]{2,}\*|\[[^\]\n]{2,}\]|【[^】\n]+】")


ALIASES = {"text_classifier": "shortcuts"}  # the check's name before issue 23
_L = limits("facet")


@dataclass(frozen=True)
class Thresholds:
    """Limits of the checks. The defaults are datasets/facet/validation_limits.yaml, where each has its reason;
    the command line can override them for a run."""

    margin: float = _L["margin"]
    folds: int = _L["folds"]
    repeats: int = _L["repeats"]
    shortcut_alpha: float = _L["shortcut_alpha"]
    alpha: float = _L["alpha"]
    min_support: int = _L["min_support"]
    position_alpha: float = _L["position_alpha"]
    proportion_tolerance: float = _L["proportion_tolerance"]
    near_duplicate: float = _L["near_duplicate"]
    same_scenario_z: float = _L["same_scenario_z"]
    same_scenario_z_bilingual: float = _L["same_scenario_z_bilingual"]
    same_scenario_min_texts: int = _L["same_scenario_min_texts"]
    same_scenario_embedding: float = _L["same_scenario_embedding"]
    same_scenario_tfidf: float = _L["same_scenario_tfidf"]
    same_scenario_tfidf_zh: float = _L["same_scenario_tfidf_zh"]
    template_share: float = _L["template_share"]
    template_min_items: int = _L["template_min_items"]
    overlap: float = _L["overlap"]
    length_ratio: tuple[float, float] = tuple(_L["length_ratio"])
    min_items: int = _L["min_items"]

    def limits(self) -> dict[str, Any]:
        """The limits file's FACET section with this run's values."""
        return {**_L, **asdict(self)}


@dataclass
class Item:
    file: str
    row: str
    record: dict

    @property
    def id(self) -> str:
        return str(self.record.get("id", ""))

    @property
    def language(self) -> str:
        return self.record["language"]

    @property
    def dimension(self) -> str:
        return self.record["dimension"]

    @property
    def text(self) -> str:
        return self.record["input"]


# ---------------------------------------------------------------- text helpers


def shingles(text: str, language: str) -> set[str]:
    """Word 3-grams (EN) or character 4-grams (ZH): the unit of the overlap checks."""
    return set(ngrams(tokens(text, language), [4 if language == "zh" else 3]))


def split_options(text: str) -> tuple[str, list[str]]:
    """(stem, option texts) of a Social Adequacy item."""
    matches = list(OPTION_LINE.finditer(text))
    if not matches:
        return text, []
    return text[: matches[0].start()], [m.group(2).strip() for m in matches]


def label_text(item: Item) -> str:
    """The class a text classifier would predict: level, option number, or first gold label."""
    gold = item.record.get("answer")
    if item.dimension == "crisis_recognition":
        return str(parse_level(str(gold)))
    if item.dimension in EMOTION_DIMENSIONS:
        return "+".join(slot[0] for slot in gold_slots(str(gold)))
    return str(gold)


@cache
def label_forms(language: str) -> dict[str, list[str]]:
    """normalised label -> the words that give it away: the label, regular inflections and the taxonomy's
    ``forms`` (inflections and synonyms, datasets/facet/taxonomy.yaml)."""
    extra = (load_yaml("datasets", "facet/taxonomy.yaml").get("forms") or {}).get(language) or {}
    out = {}
    for name in taxonomy().names(language):
        forms = [name, *extra.get(name, [])]
        if language == "en":
            forms += [name + "s"] if not name.endswith("s") else []
        out[normalize_label(name)] = forms
    return out


def find_form(text: str, form: str, language: str) -> bool:
    if language == "zh":
        return form in text
    pattern = r"(?<![a-z])" + re.escape(form.lower()).replace(r"\ ", r"[\s-]+").replace(r"\-", r"[\s-]+") + r"(?![a-z])"
    return re.search(pattern, text.lower()) is not None


# ---------------------------------------------------------------- statistics


def hypergeom_tail(total: int, successes: int, draws: int, observed: int) -> float:
    """P(X >= observed) for X ~ Hypergeometric(total, successes, draws)."""
    denominator = math.comb(total, draws)
    upper = min(successes, draws)
    return (
        sum(math.comb(successes, k) * math.comb(total - successes, draws - k) for k in range(observed, upper + 1))
        / denominator
    )


def chi_square_p(observed: list[float], expected: list[float]) -> float:
    """Upper tail of the chi-square statistic with len-1 degrees of freedom (regularised gamma, series)."""
    stat = sum((o - e) ** 2 / e for o, e in zip(observed, expected) if e > 0)
    dof = sum(1 for e in expected if e > 0) - 1
    if dof <= 0:
        return 1.0
    a, x = dof / 2, stat / 2
    if x == 0:
        return 1.0
    if x < a + 1:  # series for the lower incomplete gamma
        term = total = 1.0 / a
        k = a
        for _ in range(500):
            k += 1
            term *= x / k
            total += term
        lower = total * math.exp(-x + a * math.log(x) - math.lgamma(a))
        return max(0.0, 1.0 - lower)
    # continued fraction for the upper incomplete gamma (Lentz)
    b, c, d = x + 1 - a, 1e300, 1 / (x + 1 - a)
    h = d
    for i in range(1, 500):
        an = -i * (i - a)
        b += 2
        d = 1 / (an * d + b)
        c = b + an / c
        h *= d * c
    return min(1.0, math.exp(-x + a * math.log(x) - math.lgamma(a)) * h)


# ---------------------------------------------------------------- loading


def jsonl_rows(file: Path, report: Report) -> list[tuple[str, Any]]:
    """Rows of a JSONL file; a line that is not JSON is reported and skipped, so the rest is still checked."""

    def bad(number: int, problem: str) -> None:
        report.add("schema", "error", None, problem, str(file), f"line {number}")

    return [(f"line {number}", row) for number, row in read_jsonl(file, on_error=bad)]


def load_items(files: list[Path], report: Report) -> list[Item]:
    items, seen = [], {}
    for file in files:
        try:
            rows = jsonl_rows(file, report) if file.suffix == ".jsonl" else read_records(file)
        except DataError as ex:
            report.add("schema", "error", None, ex.problem, str(ex.file), str(ex.row))
            continue
        for row, record in rows:
            row = str(row)
            if not isinstance(record, dict):
                report.add("schema", "error", None, "a record must be a JSON object", str(file), row)
                continue
            try:
                validate_record(record, str(file), row)
            except DataError as ex:
                report.add("schema", "error", None, ex.problem, str(file), row)
                continue
            add_unique(items, Item(str(file), row, record), seen, report)
    return items


# ---------------------------------------------------------------- checks


def check_leakage(items: list[Item], report: Report, t: Thresholds) -> None:
    leaks = Counter()
    for item in items:
        if item.dimension in EMOTION_DIMENSIONS:
            forms = label_forms(item.language)
            golds = [item.record.get("answer"), item.record.get("secondary_answer")]
            labels = {label for gold in golds if gold for slot in gold_slots(str(gold)) for label in slot}
            for label in sorted(labels):
                hit = [f for f in forms.get(label, [label]) if find_form(item.text, f, item.language)]
                if hit:
                    leaks[item.dimension] += 1
                    report.add(
                        "leakage", "error", item, f"gold label {label!r} is given away by {hit[0]!r} in the text"
                    )
        elif item.dimension == "crisis_recognition":
            names = [lv[item.language] for lv in taxonomy().crisis_levels]
            hit = [n for n in names if find_form(item.text, n, item.language)]
            if hit:
                leaks[item.dimension] += 1
                report.add("leakage", "error", item, f"the vignette names a crisis level ({hit[0]!r})")
        elif item.dimension == "social_adequacy":
            if OPTION_LABEL.search(item.text):
                leaks[item.dimension] += 1
                report.add(
                    "leakage",
                    "error",
                    item,
                    "an option carries a strategy annotation "
                    f"({OPTION_LABEL.search(item.text).group(0).strip()!r}; see -T strip_option_labels)",
                )
    report.figures["leakage"] = dict(leaks)


def check_stage_directions(items: list[Item], report: Report, t: Thresholds) -> None:
    count = Counter()
    for item in items:
        if item.dimension != "hidden_emotion":
            continue
        dialogue = re.split(r"(?:Dialogue|对话)[:：]", item.text, maxsplit=1)[-1]
        hit = STAGE.search(dialogue)
        if hit:
            count[item.language] += 1
            report.add(
                "stage_directions",
                "error",
                item,
                f"stage direction {hit.group(0)!r} in the dialogue (the paper's hidden-emotion format has none)",
            )
    report.figures["stage_directions"] = dict(count)


def by_group(items: list[Item]) -> dict[tuple[str, str], list[Item]]:
    groups: dict[tuple[str, str], list[Item]] = defaultdict(list)
    for item in items:
        if item.record["format"] != "generative":
            groups[(item.dimension, item.language)].append(item)
    return dict(sorted(groups.items()))


def check_proportions(items: list[Item], report: Report, t: Thresholds) -> None:
    for (dimension, language), group in by_group(items).items():
        key = f"{dimension}:{language}"
        if dimension not in PAPER_MULTI or len(group) < t.min_items:
            report.figures["proportions"][key] = {"items": len(group)}
            continue
        multi = sum(1 for i in group if i.record["format"] == "multi_select")
        share = multi / len(group)
        report.figures["proportions"][key] = {
            "items": len(group),
            "single": len(group) - multi,
            "multi": multi,
            "paper_multi_share": round(PAPER_MULTI[dimension], 3),
        }
        if abs(share - PAPER_MULTI[dimension]) > t.proportion_tolerance:
            report.add(
                "proportions",
                "error",
                None,
                f"{dimension} ({language}): {multi} of {len(group)} items are multi-select ({share:.0%}); the "
                f"paper has {PAPER_MULTI[dimension]:.0%} (19/60, 20/60, 13/60; tolerance "
                f"{t.proportion_tolerance:.0%})",
                group[0].file,
                "-",
            )
    for item in items:
        slots = gold_slots(str(item.record.get("answer"))) if item.dimension in EMOTION_DIMENSIONS else None
        if slots is not None and len(slots) != (2 if item.record["format"] == "multi_select" else 1):
            report.add("proportions", "error", item, f"format {item.record['format']} but {len(slots)} gold slot(s)")
    alternatives = {}
    for (dimension, language), group in by_group(items).items():
        if dimension in EMOTION_DIMENSIONS:
            alt = sum(1 for i in group if "/" in str(i.record["answer"]) or i.record.get("secondary_answer"))
            alternatives[f"{dimension}:{language}"] = f"{alt}/{len(group)}"
    report.figures["gold_alternatives"] = alternatives


def check_predictive_ngrams(items: list[Item], report: Report, t: Thresholds) -> None:
    """One-sided hypergeometric test of 'items containing g have label c', Bonferroni over all tests."""
    for (dimension, language), group in by_group(items).items():
        if dimension == "social_adequacy":  # unit = option, label = gold or not
            units = [
                (features(o, language), "gold" if n + 1 == int(i.record["answer"]) else "other", i)
                for i in group
                for n, o in enumerate(split_options(i.text)[1])
            ]
        else:
            units = [(features(i.text, language), label_text(i), i) for i in group]
        total = len(units)
        label_count = Counter(label for _, label, _ in units)
        df: dict[str, Counter] = defaultdict(Counter)
        for grams, label, _ in units:
            for g in set(grams):
                df[g][label] += 1
        tests, hits = 0, []
        for g, per_label in df.items():
            support = sum(per_label.values())
            if support < t.min_support:
                continue
            for label, k in per_label.items():
                if dimension == "social_adequacy" and label != "gold":
                    continue
                tests += 1
                if k == support or k >= t.min_support:
                    hits.append((hypergeom_tail(total, label_count[label], support, k), g, label, k, support))
        flagged = sorted(h for h in hits if h[0] * max(tests, 1) < t.alpha)
        report.figures["predictive_ngrams"][f"{dimension}:{language}"] = {
            "tests": tests,
            "flagged": len(flagged),
            "strongest": [f"{g!r} -> {label} in {k}/{n} (p={p:.1e})" for p, g, label, k, n in sorted(hits)[:3]],
        }
        for p, g, label, k, n in flagged[:20]:
            report.add(
                "predictive_ngrams",
                "error",
                None,
                f"{dimension} ({language}): {g!r} occurs in {n} {'options' if dimension == 'social_adequacy' else 'items'}"
                f", {k} of them labelled {label} (Bonferroni-corrected p={p * tests:.2g} < {t.alpha})",
                group[0].file,
                "-",
            )


def check_shortcuts(items: list[Item], report: Report, t: Thresholds) -> None:
    """Every detector family on each dimension and language; one error per failing detector."""
    lim = t.limits()
    for (dimension, language), group in by_group(items).items():
        key = f"{dimension}:{language}"
        if len(group) < max(2 * t.folds, t.min_items):
            report.figures["shortcuts"][key] = {"skipped": f"{len(group)} items (fewer than {t.min_items})"}
            continue
        if dimension == "social_adequacy":
            choices = [Choice(split_options(i.text)[1], int(i.record["answer"]) - 1, language) for i in group]
            detectors = choice_detectors(choices, t.folds, t.repeats, lim)
            extra = {"form": choice_form_figures(choices, lim)}
            for item, choice in zip(group, choices):  # issue 23: an option should not argue for itself
                carrying = [
                    m + 1 for m, o in enumerate(choice.options) if form_flags(o, language, lim)["justification"]
                ]
                if carrying:
                    words = sorted(
                        {
                            w
                            for m in carrying
                            for w in lim["justification_words"][language]
                            if has_phrase(choice.options[m - 1], w, language)
                        }
                    )
                    report.add(
                        "shortcuts",
                        "warning",
                        item,
                        f"option(s) {carrying} carry their own justification ({', '.join(map(repr, words))}: "
                        "justification_words in validation_limits.yaml); an option that argues for itself tells the "
                        "reader which kind it is",
                    )
        else:
            labelled = [Labelled(i.text, label_text(i), language) for i in group]
            classes = len({x.label for x in labelled})
            if classes > lim["max_label_share"] * len(group):
                report.figures["shortcuts"][key] = {
                    "skipped": f"{classes} labels in {len(group)} items: no classifier can learn a label"
                }
                continue
            detectors = label_detectors(labelled, t.folds, t.repeats, lim)
            extra = {}
        first = detectors[0]
        report.figures["shortcuts"][key] = {
            "items": len(group),
            "chance": round(first.chance, 3),
            "majority": round(first.majority, 3),
            "detectors": {d.name: d.figures() for d in detectors},
            **extra,
        }
        for d in detectors:
            if not d.passed:
                rule = (
                    f"the {1 - t.shortcut_alpha:.0%} binomial limit around chance"
                    if d.rule == "binomial"
                    else f"majority + {t.margin:.0%}"
                )
                report.add(
                    "shortcuts",
                    "error",
                    None,
                    f"{dimension} ({language}): detector {d.name} (sees {d.sees}) finds the gold in {d.mean:.1%} "
                    f"(range {d.low:.0%}-{d.high:.0%} over {d.repeats} splits; chance {d.chance:.1%}, majority "
                    f"{d.majority:.1%}), above its limit {d.limit:.1%} ({rule})" + (f"; {d.note}" if d.note else ""),
                    group[0].file,
                    "-",
                )


def check_positions(items: list[Item], report: Report, t: Thresholds) -> None:
    for (dimension, language), group in by_group(items).items():
        if dimension == "social_adequacy":
            observed, expected = Counter(), Counter()
            for item in group:
                n = count_options(item.text)
                observed[int(item.record["answer"])] += 1
                for pos in range(1, n + 1):
                    expected[pos] += 1 / n
        elif dimension == "crisis_recognition":
            observed = Counter(parse_level(str(i.record["answer"])) for i in group)
            expected = Counter({lv: len(group) / 5 for lv in range(1, 6)})
        else:
            continue
        keys = sorted(expected)
        p = chi_square_p([observed[k] for k in keys], [expected[k] for k in keys])
        report.figures["positions"][f"{dimension}:{language}"] = {
            "observed": {k: observed[k] for k in keys},
            "expected": {k: round(expected[k], 1) for k in keys},
            "p": round(p, 3),
        }
        if p < t.position_alpha:
            report.add(
                "positions",
                "error",
                None,
                f"{dimension} ({language}): gold positions "
                f"{dict(sorted(observed.items()))} are unbalanced (chi-square p={p:.3g} < {t.position_alpha})",
                group[0].file,
                "-",
            )


def check_near_duplicates(items: list[Item], report: Report, t: Thresholds) -> None:
    worst = {}
    for language in ("en", "zh"):
        group = [i for i in items if i.language == language]
        sets = [shingles(i.text, language) for i in group]
        top = (0.0, "", "")
        for a in range(len(group)):
            for b in range(a + 1, len(group)):
                if not sets[a] or not sets[b]:
                    continue
                jaccard = len(sets[a] & sets[b]) / len(sets[a] | sets[b])
                top = max(top, (jaccard, group[a].id, group[b].id))
                if jaccard >= t.near_duplicate:
                    report.add(
                        "near_duplicates",
                        "error",
                        group[b],
                        f"near-duplicate of {group[a].id} (Jaccard {jaccard:.2f} >= {t.near_duplicate})",
                    )
        if group:
            worst[language] = {"max_jaccard": round(top[0], 3), "pair": list(top[1:])}
    report.figures["near_duplicates"] = worst


def scenario_text(record: dict, text: str) -> str:
    """The part of an item that tells its story: without option lists, question lines and field labels."""
    if record.get("dimension") == "social_adequacy":
        text = split_options(text)[0]
    lines = [ln for ln in text.splitlines() if not re.match(r"\s*(Question|问题)[:：]", ln)]
    return re.sub(r"(Background|Dialogue|背景|对话)[:：]", " ", "\n".join(lines)).strip()


def check_same_scenario(items: list[Item], report: Report, t: Thresholds) -> None:
    """Pairs of items (any dimension, any file) that tell the same story in other words
    (``eq_evals.core.itemcheck.check_same_scenario``)."""
    shared_check_same_scenario(
        items,
        report,
        lambda i: scenario_text(i.record, i.text),
        t.limits(),
        key=lambda i: str(i.record.get("item_id") or re.sub(r"-(en|zh)$", "", i.id)),
        reviewed=reviewed_pairs("facet"),
        embed=english_embeddings,
    )


def _body(item: Item) -> str:
    """The item text without the format's own fixed parts (labels and question line, option stems)."""
    text = item.text
    if item.dimension == "social_adequacy":
        _, options = split_options(text)
        text = "\n".join(options)  # stems may share the question sentence; options must not share wording
    lines = [ln for ln in text.splitlines() if not re.match(r"\s*(Question|问题)[:：]", ln)]
    return re.sub(r"(Background|Dialogue|背景|对话)[:：]", " ", "\n".join(lines))


def check_templates(items: list[Item], report: Report, t: Thresholds) -> None:
    fig = {}
    for (dimension, language), group in by_group(items).items():
        n = 8 if language == "en" else 12
        df = Counter()
        for item in group:
            df.update(set(ngrams(tokens(_body(item), language), [n])))
        need = max(t.template_min_items, math.ceil(t.template_share * len(group)))
        repeated = [(c, g) for g, c in df.items() if c >= need]
        top = df.most_common(1)
        fig[f"{dimension}:{language}"] = {"most_repeated": f"{top[0][1]}/{len(group)}" if top else "0"}
        for c, g in sorted(repeated, reverse=True)[:10]:
            report.add(
                "templates",
                "warning",
                None,
                f"{dimension} ({language}): the {n}-gram {g!r} recurs in {c} of {len(group)} items",
                group[0].file,
                "-",
            )
    report.figures["templates"] = fig


def check_authors_overlap(items: list[Item], authors: Path | None, report: Report, t: Thresholds) -> None:
    if authors is None:
        report.figures["authors_overlap"] = {"skipped": "no --authors file given"}
        return
    from eq_evals.facet.data import convert_upstream

    samples = convert_upstream(json.loads(Path(authors).read_text(encoding="utf-8")), str(authors))
    refs = {
        lang: [(s["id"], shingles(s["input"], lang)) for s in samples if s["language"] == lang] for lang in ("en", "zh")
    }
    top = {}
    for item in items:
        own = shingles(item.text, item.language)
        if not own:
            continue
        for ref_id, ref in refs[item.language]:
            share = len(own & ref) / len(own)
            top[item.language] = max(top.get(item.language, (0.0, "", "")), (share, item.id, ref_id))
            if share >= t.overlap:
                report.add(
                    "authors_overlap",
                    "error",
                    item,
                    f"{share:.0%} of its shingles occur in the authors' sample {ref_id} (limit {t.overlap:.0%})",
                )
    report.figures["authors_overlap"] = {
        lang: {"max_share": round(v[0], 3), "item": v[1], "sample": v[2]} for lang, v in top.items()
    }


def _canonical_gold(item: Item, field_: str) -> Any:
    gold = item.record.get(field_)
    if gold in (None, ""):
        return None
    if item.dimension == "crisis_recognition":
        return parse_level(str(gold))
    if item.dimension in EMOTION_DIMENSIONS:
        en = {normalize_label(e[item.language]): normalize_label(e["en"]) for e in taxonomy().labels}
        return [sorted(en.get(label, label) for label in slot) for slot in gold_slots(str(gold))]
    return str(gold).strip()


def check_alignment(items: list[Item], report: Report, t: Thresholds) -> None:
    pairs: dict[str, dict[str, Item]] = defaultdict(dict)
    for item in items:
        pairs[str(item.record.get("item_id") or re.sub(r"-(en|zh)$", "", item.id))][item.language] = item
    ratios = []
    for item_id, pair in pairs.items():
        if len(pair) == 1:
            (only,) = pair.values()
            other = "zh" if only.language == "en" else "en"
            report.add("alignment", "error", only, f"item {item_id} has no {other} version")
            continue
        en, zh = pair["en"], pair["zh"]
        for key in ("dimension", "format", "scenario_domain", "scenario", "pool"):
            if en.record.get(key) != zh.record.get(key):
                report.add(
                    "alignment",
                    "error",
                    zh,
                    f"{key} {zh.record.get(key)!r} differs from the EN version's {en.record.get(key)!r}",
                )
        for key in ("answer", "secondary_answer"):
            if _canonical_gold(en, key) != _canonical_gold(zh, key):
                report.add(
                    "alignment",
                    "error",
                    zh,
                    f"{key} {zh.record.get(key)!r} is not the EN version's {en.record.get(key)!r} in the taxonomy",
                )
        if en.dimension == "social_adequacy" and count_options(en.text) != count_options(zh.text):
            report.add("alignment", "error", zh, f"{count_options(zh.text)} options, EN has {count_options(en.text)}")
        words, chars = len(tokens(en.text, "en")), len(tokens(zh.text, "zh"))
        if words:
            ratio = chars / words
            ratios.append(ratio)
            low, high = t.length_ratio
            if not low <= ratio <= high:
                report.add(
                    "alignment",
                    "warning",
                    zh,
                    f"{chars} Chinese characters for {words} English words "
                    f"(ratio {ratio:.2f} outside {low}-{high}): check that both tell the same story",
                )
    ratios.sort()
    report.figures["alignment"] = {
        "pairs": sum(1 for p in pairs.values() if len(p) == 2),
        "unpaired": sum(1 for p in pairs.values() if len(p) == 1),
        "zh_chars_per_en_word": {
            "min": round(ratios[0], 2),
            "median": round(ratios[len(ratios) // 2], 2),
            "max": round(ratios[-1], 2),
        }
        if ratios
        else None,
    }


def run(
    paths: Iterable[str | Path],
    authors: str | Path | None = None,
    thresholds: Thresholds = Thresholds(),
    checks: Iterable[str] = CHECKS,
) -> Report:
    """Validate FACET files (or folders of them) and return findings and figures."""
    wanted = {ALIASES.get(c, c) for c in checks}
    unknown = wanted - set(CHECKS)
    if unknown:
        raise ValueError(f"unknown checks {sorted(unknown)}; available: {', '.join(CHECKS)}")
    files = collect_files(paths)
    report = Report([str(f) for f in files])
    items = load_items(files, report)
    steps = {
        "leakage": check_leakage,
        "stage_directions": check_stage_directions,
        "proportions": check_proportions,
        "predictive_ngrams": check_predictive_ngrams,
        "shortcuts": check_shortcuts,
        "same_scenario": check_same_scenario,
        "positions": check_positions,
        "near_duplicates": check_near_duplicates,
        "templates": check_templates,
        "alignment": check_alignment,
    }
    for name in CHECKS:
        if name in wanted and name in steps:
            steps[name](items, report, thresholds)
    if "authors_overlap" in wanted:
        check_authors_overlap(items, Path(authors) if authors else None, report, thresholds)
    report.figures = dict(report.figures)
    return report


def render_shortcuts(figures: dict[str, Any]) -> list[str]:
    """The detectors as a table per dimension and language: mean, range, chance, majority, limit, PASS/FAIL."""
    lines = []
    for key, group in figures.items():
        dimension, language = key.split(":")
        if "skipped" in group:
            lines.append(f"  {dimension} ({language}): skipped, {group['skipped']}")
            continue
        lines.append(
            f"  {dimension} ({language}), {group['items']} items: chance {group['chance']:.1%}, "
            f"majority {group['majority']:.1%}"
        )
        lines.append(f"    {'detector':<22}{'sees':<18}{'mean':>7}{'range':>13}{'limit':>8}  result")
        for name, d in group["detectors"].items():
            span = f"{d['accuracy_min']:.0%}-{d['accuracy_max']:.0%}"
            limit = f"{d['limit']:.1%}"
            lines.append(
                f"    {name:<22}{d['sees']:<18}{d['accuracy']:>7.1%}{span:>13}{limit:>8}  {d['result']}"
                + (f"  ({d['note']})" if d.get("note") else "")
            )
        for what, value in (group.get("form") or {}).items():
            lines.append(f"    {what}: {value}")
    return lines


def render(report: Report) -> str:
    lines = [f"FACET validation of {len(report.files)} file(s)"]
    for check, fig in report.figures.items():
        if check == "shortcuts":
            ran = [d for group in fig.values() for d in group.get("detectors", {}).values()]
            repeats = ran[0]["repeats"] if ran else 0
            lines.append(
                f"\nshortcuts (accuracy: mean and range over {repeats} random cross-validation splits; a detector "
                "fails above its limit, datasets/facet/validation_limits.yaml):"
            )
            lines += render_shortcuts(fig)
            continue
        lines.append(f"\n{check}:")
        if isinstance(fig, dict):
            for key, value in fig.items():
                lines.append(f"  {key}: {value}")
        else:
            lines.append(f"  {fig}")
    lines += render_findings(report)
    return "\n".join(lines)
