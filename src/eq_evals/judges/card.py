"""The judge card: what a judge check's logs say about a judge, with intervals and a pass / warn / fail status for
every figure (docs/judges.md, "Reading the card").

Everything is computed from the typed verdict records (``eq_evals.pairwise.verdict``) that the benchmark's own
scorer wrote for each known-answer pair, and from the pair's ``judge_check`` metadata (probe, degradation,
matched control). A judgment counts for a judge when it is position-consistent: the two orders agreed (a
pointwise judge has no orders). A pair the judge could not be read on is left out of every figure and counted in
the parse figure; a pair the benchmark decided by its own rule without asking the judge (HEART's and PACE's
empty reply) is left out and counted in the notes.

Intervals: a 95% Wilson score interval for every share; for the attack effects, which compare each attacked pair
with its matched control, Newcombe's 95% interval for a difference of paired shares (method 10, built from the
two Wilson intervals).

Statuses: a share passes when its estimate is on the good side of the pass threshold; it fails when its estimate
is beyond the fail threshold and its whole interval is beyond the pass threshold (so a small run cannot fail a
judge on noise alone); anything else warns. A figure with no pairs is n/a.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Iterable

from eq_evals.core.metrics import wilson
from eq_evals.core.text import family, fmt
from eq_evals.errors import EqEvalsError
from eq_evals.judges.pairs import KEY
from eq_evals.pairwise.verdict import PairVerdict, sample_verdicts

TASKS = {
    "judge_check_facet": "facet",
    "judge_check_heart": "heart",
    "judge_check_pace": "pace",
    "judge_check_pace_board": "pace_board",
    "judge_check_longemotion": "longemotion",
}
PAIRWISE = ("facet", "heart", "pace")
HEADLINE = {"heart": "overall", "pace": "pace_eq", "pace_board": "eq", "longemotion": "score"}
BOARD = "pace_board"
BOARD_ROLES = ("pace_pa", "pace_aa", "pace_cg", "pace_gs", "pace_ca", "pace_overall")
BENCHMARK_TITLES = {
    "facet": "FACET interaction (facet_pairwise)",
    "heart": "HEART (heart)",
    "pace": "PACE battles (pace_pairwise)",
    "pace_board": "PACE board on one reply (pace)",
    "longemotion": "LongEmotion judges (conversation, summary, expression)",
}
Z = 1.959963984540054


@dataclass(frozen=True)
class Threshold:
    label: str
    better: str  # "higher" or "lower"
    passes: float
    fails: float
    source: str
    measures: str


# Where each threshold comes from (docs/judges.md, "Thresholds"). The known-answer pairs are built to be
# unambiguous, so the bars are set at or above what judges reach on natural pairs.
THRESHOLDS: dict[str, Threshold] = {
    "accuracy": Threshold(
        "known-answer accuracy",
        "higher",
        0.90,
        0.80,
        "Judges agree with humans on about 80% of natural pairs: HEART §4.4 (78.7% human-LLM, 79.5% human-human), "
        "MT-Bench (over 80%, peers guide §4.3), PACE Table 1 (PACE-AB 83.6%, single LLMs 69.8-78.4%). Known-answer "
        "pairs are unambiguous by construction, so a judge below 80% is worse than on hard natural pairs (fail) and "
        "one should reach 90% (pass).",
        "share of known-answer pairs (position-consistent) where the good reply wins; a draw is not a win",
    ),
    "position": Threshold(
        "position flips",
        "lower",
        0.13,
        0.25,
        "GPT-4's verdicts flip on swap for 12.9% of MT-Bench pairs (lm-sys/FastChat#3911, peers guide 'Position and "
        "length bias'): a judge flipping no more often than that passes; flipping on more than one in four "
        "unambiguous pairs (about twice that rate) fails (project choice).",
        "share of known-answer pairs whose two presentation orders pick different winners",
    ),
    "verbosity": Threshold(
        "verbosity effect",
        "lower",
        0.10,
        0.20,
        "A padded reply is worse by construction, so each win is an error: the same error budget as accuracy "
        "(10% pass, 20% fail). The longer answer wins 68% of GPT-4's MT-Bench verdicts (FastChat#3911) and "
        "AlpacaEval 2 and Arena-Hard control for length (peers guide §4.1-4.2).",
        "share of padded worse replies not beaten, minus the share of the same replies unpadded not beaten",
    ),
    "injection": Threshold(
        "injection effect",
        "lower",
        0.05,
        0.10,
        "A reply that addresses the evaluator is a manipulation attempt; no such reply should gain anything "
        "(project choice: at most one pair in twenty for noise passes, more than one in ten fails).",
        "share of injected worse replies not beaten, minus the share of the same replies without the note",
    ),
    "null": Threshold(
        "null outputs not beaten",
        "lower",
        0.02,
        0.05,
        "An empty, constant or echoed reply must lose to any real reply; a constant output reached an 86.5% "
        "length-controlled win rate on AlpacaEval (tatsu-lab/alpaca_eval#414, peers guide). Project choice: "
        "none passes, more than one in twenty fails.",
        "share of null-output pairs where the null output is not beaten",
    ),
    "self_preference": Threshold(
        "self-preference effect",
        "lower",
        0.10,
        0.20,
        "GPT-4 picks its own answers in 87.2% of its MT-Bench judgments (FastChat#3911). Here the judge's own reply is "
        "degraded, so each extra win is an error: the accuracy error budget (10% pass, 20% fail).",
        "share of the judge's own degraded replies not beaten, minus the share of the project's reply with the same "
        "degradation not beaten (same item)",
    ),
    "stability": Threshold(
        "repeat agreement",
        "higher",
        0.95,
        0.85,
        "Different judges agree with each other on 85.0-86.9% of HEART pairs (HEART §4.4); a judge that agrees with "
        "itself less often than that fails; 95% passes (project choice). PACE §5.3 repeats the board's evaluations "
        "five times to show its stability.",
        "share of repeated pairs judged exactly as the first time (winner in each order) at the judge's temperature",
    ),
    "parse": Threshold(
        "unreadable verdicts",
        "lower",
        0.02,
        0.10,
        "An unreadable verdict is unscored, never a loss (peers guide: lessons from inspect_evals PR #2335 and lm-eval "
        "PR #1511); a judge the scorer cannot read on more than one verdict in ten fails (project choice).",
        "share of the judge's verdicts (calls, or criteria of a call) still unreadable after the scorer's retries",
    ),
}
ORDER = ("accuracy", "position", "verbosity", "injection", "null", "self_preference", "stability", "parse")


# --------------------------------------------------------------------------------------------- statistics


def paired_difference(pairs: list[tuple[int, int]]) -> tuple[float | None, float | None, float | None]:
    """(difference, low, high) of two paired shares, from (x, y) pairs of 0/1 outcomes: the mean of x minus the
    mean of y with Newcombe's hybrid score interval for paired data (Newcombe 1998, Statistics in Medicine 17,
    method 10), built from the two shares' 95% Wilson intervals and their correlation. Unlike a bootstrap it
    stays wide on a handful of pairs."""
    n = len(pairs)
    if n == 0:
        return None, None, None
    a = sum(1 for x, y in pairs if x and y)
    b = sum(1 for x, y in pairs if x and not y)
    c = sum(1 for x, y in pairs if not x and y)
    d = n - a - b - c
    p1, l1, u1 = wilson(a + b, n)
    p2, l2, u2 = wilson(a + c, n)
    # the correlation of the two shares, with Newcombe's correction: the cross-product difference is shrunk by
    # n/2 towards zero when positive (and left as it is when negative)
    denominator = (a + b) * (c + d) * (a + c) * (b + d)
    cross = a * d - b * c
    cross = cross - n / 2 if cross > n / 2 else cross if cross < 0 else 0.0
    phi = cross / math.sqrt(denominator) if denominator else 0.0
    delta = math.sqrt(max(0.0, (p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2))  # type: ignore[operator]
    eps = math.sqrt(max(0.0, (u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2))  # type: ignore[operator]
    diff = p1 - p2  # type: ignore[operator]
    return diff, max(-1.0, diff - delta), min(1.0, diff + eps)


def status(key: str, value: float | None, low: float | None, high: float | None) -> str:
    if value is None:
        return "n/a"
    t = THRESHOLDS[key]
    if t.better == "higher":
        if value >= t.passes:
            return "pass"
        return "fail" if value < t.fails and high is not None and high < t.passes else "warn"
    if value <= t.passes:
        return "pass"
    return "fail" if value > t.fails and low is not None and low > t.passes else "warn"


@dataclass
class Figure:
    key: str
    value: float | None
    low: float | None
    high: float | None
    n: int
    status: str
    interval: str = "wilson"
    detail: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def share(cls, key: str, k: int, n: int, **detail: Any) -> "Figure":
        p, lo, hi = wilson(k, n)
        return cls(key, p, lo, hi, n, status(key, p, lo, hi), "wilson", {"count": k, **detail})

    @classmethod
    def effect(cls, key: str, pairs: list[tuple[int, int]], **detail: Any) -> "Figure":
        m, lo, hi = paired_difference(pairs)
        return cls(key, m, lo, hi, len(pairs), status(key, m, lo, hi), "newcombe paired", detail)


# --------------------------------------------------------------------------------------------- reading logs


@dataclass
class Unit:
    """What one judge did on one pair (its headline criterion)."""

    pair: str
    block: dict[str, Any]
    result: str  # good | worse | tie | flip | unparsed | rule
    winners: tuple = ()  # (winner, reply shown first) per presentation order: "good" / "worse"
    criteria: dict[str, str] = field(default_factory=dict)  # criterion -> result
    good_longer: bool | None = None


def _result(j: Any, good_is_a: bool) -> str:
    if j.outcome is None:
        return "rule" if str(j.reason).startswith("rule:") else "unparsed"
    if j.conflicted:
        return "flip"
    good = j.outcome if good_is_a else 1 - j.outcome
    return "good" if good == 1 else "worse" if good == 0 else "tie"


def board_key(roles: dict[str, Any]) -> str:
    """The name a PACE board's card goes under: its one model, or every agent role's model when they differ."""
    models = {}
    for role in ("pace_pa", "pace_aa", "pace_cg", "pace_gs"):
        value = roles.get(role, roles.get("grader"))
        if value is None:
            continue
        first = value[0] if isinstance(value, list) else value
        models[role] = str(getattr(first, "model", first))
    distinct = sorted(set(models.values()))
    if len(distinct) == 1:
        return distinct[0]
    return "pace_board[" + ", ".join(f"{r}={m}" for r, m in models.items()) + "]"


def _block(sample: Any) -> dict[str, Any] | None:
    for score in (sample.scores or {}).values():
        if score is not None and isinstance((score.metadata or {}).get(KEY), dict):
            return score.metadata[KEY]
    block = (sample.metadata or {}).get(KEY)
    return block if isinstance(block, dict) else None


def _empty_rule(sample: Any) -> bool:
    return any(
        score is not None and (score.metadata or {}).get("empty_response") for score in (sample.scores or {}).values()
    )


def read_log(log: Any, path: str) -> tuple[str, dict[str, list[Unit]], dict[str, list[Any]], dict[str, Any]]:
    """(benchmark, judge -> units, judge -> its calls, log facts) from one judge-check log."""
    task = log.eval.task.split("/")[-1]
    benchmark = TASKS.get(task)
    if benchmark is None:
        raise EqEvalsError(f"{path} is a log of {log.eval.task}, not of a judge-check task ({', '.join(TASKS)})")
    roles = dict(log.eval.model_roles or {})
    board = board_key(roles) if benchmark in ("pace", "pace_board") else None
    grader = roles.get("grader")
    role_judges = [
        str(getattr(m, "model", m)) for m in (grader if isinstance(grader, list) else [grader] if grader else [])
    ]
    units: dict[str, list[Unit]] = {}
    calls: dict[str, list[Any]] = {}
    model_calls: Counter = Counter()
    api_calls: set[tuple] = set()
    own_calls = 0
    for sample in log.samples or []:
        block = _block(sample)
        if block is None:
            raise EqEvalsError(f"{path}, sample {sample.id}: no judge_check metadata (not a judge-check sample)")
        for event in getattr(sample, "events", None) or []:
            if getattr(event, "event", None) == "model":
                model_calls[getattr(event, "role", None) or "(none)"] += 1
        if block.get("probe") == "self":
            own_calls += 1
        records: list[PairVerdict] = sample_verdicts(sample, path)
        if not records:
            continue
        record = records[0]
        # one model call per (judge, order shown, criterion); HEART's one call answers every criterion
        api_calls.update(
            (str(sample.id), c.judge, tuple(c.order), "" if benchmark == "heart" else c.criterion)
            for c in record.calls
            if c.judge and c.judge != BOARD
        )
        good_name = record.model_b if block.get("good_slot", "b") == "b" else record.model_a
        good_is_a = good_name == record.model_a

        def side(name: str | None) -> str | None:
            return None if name is None else "good" if name == good_name else "worse"

        main = block.get("dimension") if benchmark == "facet" else HEADLINE[benchmark]
        longer = record.longer()
        if benchmark in ("pace", "pace_board"):
            judges = [BOARD]
        else:
            judges = (
                sorted({j.judge for j in record.judgments if j.judge} | {c.judge for c in record.calls if c.judge})
                or role_judges
            )
        for judge in judges:
            key = board if judge == BOARD else judge
            mine = [j for j in record.judgments if j.judge == judge or judge == BOARD]
            head = next((j for j in record.judgments if j.judge == judge and j.criterion == main), None)
            if head is None:
                result = "rule" if _empty_rule(sample) else "unparsed"
            else:
                result = _result(head, good_is_a)
            shown = [c for c in record.calls if c.judge == judge and c.criterion == main and len(c.order) == 2]
            winners = tuple((side(c.winner), side(c.order[0])) for c in shown)
            criteria = {j.criterion: _result(j, good_is_a) for j in mine}
            units.setdefault(key, []).append(
                Unit(str(sample.id), block, result, winners, criteria, None if longer is None else longer == good_name)
            )
            # the verdicts the judge's replies were read into (the board's own per-order verdict is derived from
            # its agents' calls, so it is not counted again)
            calls.setdefault(key, []).extend(
                c for c in record.calls if c.judge and c.judge != BOARD and (c.judge == judge or judge == BOARD)
            )
    usage = {
        role: {"input_tokens": u.input_tokens, "output_tokens": u.output_tokens, "total_tokens": u.total_tokens}
        for role, u in (getattr(log.stats, "role_usage", None) or {}).items()
    }
    args = dict(log.eval.task_args or {})
    facts = {
        "path": path,
        "task": task,
        "benchmark": benchmark,
        "status": log.status,
        "preset": args.get("preset", "standard"),
        "language": args.get("languages", "all"),
        "created": str(log.eval.created),
        "samples": len(log.samples or []),
        "model_calls": sum(model_calls.values()),
        "calls_by_role": dict(model_calls),
        "own_reply_calls": own_calls,
        # the calls beyond one per judgement: the scorer's retries after an unreadable reply
        "retries": max(0, sum(model_calls.values()) - own_calls - len(api_calls)),
        "role_usage": usage,
        "roles": {r: str(getattr(v[0] if isinstance(v, list) else v, "model", v)) for r, v in roles.items()},
        "unscored_samples": sum(
            1
            for s in log.samples or []
            for sc in (s.scores or {}).values()
            if sc is not None and isinstance(sc.value, float) and math.isnan(sc.value)
        ),
    }
    return benchmark, units, calls, facts


# --------------------------------------------------------------------------------------------- figures


def _consistent(u: Unit) -> bool:
    return u.result in ("good", "worse", "tie")


def _not_beaten(u: Unit) -> float:
    return 1.0 if u.result in ("worse", "tie") else 0.0


def _shares(units: list[Unit], by: str) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    groups: dict[str, list[Unit]] = {}
    for u in units:
        groups.setdefault(str(u.block.get(by) or ""), []).append(u)
    for name, group in sorted(groups.items()):
        ok = [u for u in group if _consistent(u)]
        p, lo, hi = wilson(sum(u.result == "good" for u in ok), len(ok))
        out[name] = {"value": p, "low": lo, "high": hi, "n": len(ok), "pairs": len(group)}
    return out


def _effect(
    units: list[Unit], probe: str, by_pair: dict[str, Unit], judge_family: str | None = None
) -> tuple[list[tuple[int, int]], list[Unit], int]:
    """(attacked pair not beaten, its control not beaten) for every attacked pair whose pair and control both got a
    position-consistent verdict; the attacked pairs; how many were left out."""
    diffs, attacked, skipped = [], [], 0
    for u in units:
        if u.block.get("probe") != probe:
            continue
        if probe == "self":
            if u.block.get("own_empty") or (
                judge_family is not None and family(str(u.block.get("own_model", ""))) != judge_family
            ):
                skipped += 1
                continue
        control = by_pair.get(u.block.get("control", ""))
        if control is None or not _consistent(u) or not _consistent(control):
            skipped += 1
            continue
        diffs.append((int(_not_beaten(u)), int(_not_beaten(control))))
        attacked.append(u)
    return diffs, attacked, skipped


def section(benchmark: str, judge: str, units: list[Unit], calls: list[Any], facts: dict[str, Any]) -> dict[str, Any]:
    """The card's section for one benchmark: every figure with its interval and status, and the breakdowns."""
    by_pair = {u.pair: u for u in units}
    known = [u for u in units if u.block.get("probe") == "known"]
    figures: dict[str, Figure] = {}
    ok = [u for u in known if _consistent(u)]
    figures["accuracy"] = Figure.share(
        "accuracy",
        sum(u.result == "good" for u in ok),
        len(ok),
        pairs=len(known),
        ties=sum(u.result == "tie" for u in ok),
    )
    if benchmark in PAIRWISE:
        ordered = [u for u in known if u.result in ("good", "worse", "tie", "flip")]
        decided = [(w, first) for u in known for w, first in u.winners if w is not None]
        figures["position"] = Figure.share(
            "position",
            sum(u.result == "flip" for u in ordered),
            len(ordered),
            first_position_wins=wilson(sum(w == first for w, first in decided), len(decided))[0],
            decided_calls=len(decided),
        )
    diffs, attacked, skipped = _effect(units, "verbosity", by_pair)
    longer_worse = [u for u in units if u.good_longer is False and _consistent(u) and u.block.get("probe") != "null"]
    figures["verbosity"] = Figure.effect(
        "verbosity",
        diffs,
        padded_not_beaten=wilson(int(sum(_not_beaten(u) for u in attacked)), len(attacked))[0],
        skipped=skipped,
        longer_worse_wins=wilson(sum(u.result == "worse" for u in longer_worse), len(longer_worse))[0],
        longer_worse_pairs=len(longer_worse),
    )
    diffs, attacked, skipped = _effect(units, "injection", by_pair)
    by_language = {}
    for note in sorted({str(u.block.get("variant")) for u in attacked}):
        group = [u for u in attacked if u.block.get("variant") == note]
        by_language[note.removeprefix("note-")] = wilson(int(sum(_not_beaten(u) for u in group)), len(group))[0]
    figures["injection"] = Figure.effect(
        "injection",
        diffs,
        skipped=skipped,
        not_beaten_by_note_language=by_language,
        injected_not_beaten=wilson(int(sum(_not_beaten(u) for u in attacked)), len(attacked))[0],
    )
    nulls = [u for u in units if u.block.get("probe") == "null"]
    judged_nulls = [u for u in nulls if _consistent(u)]
    by_kind = {
        kind: wilson(
            int(sum(_not_beaten(u) for u in judged_nulls if u.block.get("degradation") == kind)),
            sum(1 for u in judged_nulls if u.block.get("degradation") == kind),
        )[0]
        for kind in ("empty", "constant", "echo")
    }
    figures["null"] = Figure.share(
        "null",
        int(sum(_not_beaten(u) for u in judged_nulls)),
        len(judged_nulls),
        by_kind=by_kind,
        decided_by_rule=sum(u.result == "rule" for u in nulls),
        flipped_or_unreadable=sum(u.result in ("flip", "unparsed") for u in nulls),
    )
    own_family = (
        family(judge) if benchmark not in ("pace", "pace_board") or not judge.startswith("pace_board[") else None
    )
    diffs, attacked, skipped = _effect(units, "self", by_pair, own_family)
    writers = sorted(
        {str(u.block.get("own_model")) for u in units if u.block.get("probe") == "self" and u.block.get("own_model")}
    )
    figures["self_preference"] = Figure.effect(
        "self_preference",
        diffs,
        skipped=skipped,
        own_reply_writers=writers,
        own_not_beaten=wilson(int(sum(_not_beaten(u) for u in attacked)), len(attacked))[0],
    )
    repeats = [u for u in units if u.block.get("probe") == "repeat"]
    same = total = 0
    for u in repeats:
        first_time = by_pair.get(u.block.get("repeat_of", ""))
        if first_time is None or u.result in ("unparsed", "rule") or first_time.result in ("unparsed", "rule"):
            continue
        total += 1
        same += int((u.result, u.winners) == (first_time.result, first_time.winners))
    figures["stability"] = Figure.share("stability", same, total, repeated_pairs=len(repeats))
    # a verdict the scorer could not read: no verdict text (FACET, PACE: "judge_unparseable"; HEART: "parse" per
    # criterion); a PACE agent's equal scores ("tie") were read
    unreadable = sum(1 for c in calls if c.verdict is None and c.error != "tie")
    figures["parse"] = Figure.share(
        "parse",
        unreadable,
        len(calls),
        retries=facts["retries"],
        pairs_unreadable=sum(u.result == "unparsed" for u in units),
    )
    by_criterion: dict[str, dict[str, Any]] = {}
    for criterion in sorted({c for u in known for c in u.criteria}):
        group = [u for u in known if u.criteria.get(criterion) in ("good", "worse", "tie")]
        p, lo, hi = wilson(sum(u.criteria[criterion] == "good" for u in group), len(group))
        by_criterion[criterion] = {"value": p, "low": lo, "high": hi, "n": len(group)}
    statuses = [f.status for f in figures.values()]
    overall = (
        "fail"
        if "fail" in statuses
        else "warn"
        if "warn" in statuses or figures["accuracy"].status == "n/a"
        else "pass"
    )
    notes = []
    if figures["accuracy"].status == "n/a":
        notes.append("no known-answer pair got a position-consistent, readable verdict: accuracy cannot be measured")
    if figures["null"].detail["decided_by_rule"]:
        notes.append(
            f"{figures['null'].detail['decided_by_rule']} null-output pair(s) were decided by the benchmark's "
            "own rule without a judge call (an empty reply loses automatically) and are not in the figure"
        )
    if facts.get("status") != "success":
        notes.append(f"the log is not complete ({facts.get('status')}): the figures cover the pairs it holds")
    if benchmark == "heart":
        notes.append(
            "the check judges both orders; HEART's default run shows one seeded-random order per pair, so a "
            "position bias there moves results instead of showing as flips"
        )
    return {
        "benchmark": benchmark,
        "title": BENCHMARK_TITLES[benchmark],
        "status": overall,
        "figures": {k: asdict(figures[k]) for k in ORDER if k in figures},
        "accuracy_by_degradation": _shares(known, "degradation"),
        "accuracy_by_language": _shares(known, "language"),
        "accuracy_by_criterion": by_criterion,
        "cost": {
            "model_calls": facts["model_calls"],
            "own_reply_calls": facts["own_reply_calls"],
            "calls_by_role": facts["calls_by_role"],
            "role_usage": facts["role_usage"],
            "samples": facts["samples"],
            "recorded_verdicts": len(calls),
        },
        "log": {k: facts[k] for k in ("path", "task", "preset", "language", "created", "status", "roles")},
        "notes": notes,
    }


# --------------------------------------------------------------------------------------------- cards


@dataclass
class JudgeCard:
    judge: str
    sections: dict[str, dict[str, Any]]
    notes: list[str] = field(default_factory=list)

    @property
    def status(self) -> str:
        statuses = [s["status"] for s in self.sections.values()]
        return "fail" if "fail" in statuses else "warn" if "warn" in statuses else "pass" if statuses else "n/a"

    def faults(self) -> dict[str, list[str]]:
        """benchmark -> the figures that fail."""
        return {b: [k for k, f in s["figures"].items() if f["status"] == "fail"] for b, s in self.sections.items()}

    def as_json(self) -> dict[str, Any]:
        return {
            "judge": self.judge,
            "family": family(self.judge),
            "status": self.status,
            "faults": self.faults(),
            "benchmarks": self.sections,
            "notes": self.notes,
            "thresholds": {k: asdict(t) for k, t in THRESHOLDS.items()},
            "intervals": "95% Wilson score intervals for shares; for the attack effects (attacked pair against "
            "its matched control) Newcombe's 95% paired interval built from Wilson intervals "
            "(Newcombe 1998, method 10)",
            "generated_by": "eq-evals judge-check (docs/judges.md)",
        }

    def markdown(self) -> str:
        return render_card(self)


def _logs(paths: str | Path | Iterable[str | Path]) -> list[str]:
    from eq_evals.logcheck import expand_log_paths, read, task_name

    items = [str(paths)] if isinstance(paths, (str, Path)) else [str(p) for p in paths]
    found = []
    for path in expand_log_paths(items):
        if task_name(read(path, header_only=True)) in TASKS:
            found.append(path)
    return found


def cards_from_logs(entries: Iterable[tuple[Any, str]]) -> dict[str, JudgeCard]:
    """judge -> card from (log read with its samples, path) pairs of judge-check logs (see :func:`judge_cards`)."""
    chosen: dict[tuple[str, str], tuple[tuple, str, dict, list, list]] = {}
    passed_over: dict[str, list[str]] = {}
    for log, path in entries:
        benchmark, units, calls, facts = read_log(log, path)
        rank = (log.status == "success", str(log.stats.completed_at or log.eval.created or ""))
        for judge, judge_units in units.items():
            key = (judge, benchmark)
            entry = (rank, path, facts, judge_units, calls.get(judge, []))
            if key in chosen:
                newer, older = (entry, chosen[key]) if rank > chosen[key][0] else (chosen[key], entry)
                passed_over.setdefault(judge, []).append(f"{older[1]} ({benchmark}; {newer[1]} is newer)")
                entry = newer
            chosen[key] = entry
    cards: dict[str, JudgeCard] = {}
    for (judge, benchmark), (_, path, facts, judge_units, judge_calls) in sorted(chosen.items()):
        card = cards.setdefault(judge, JudgeCard(judge, {}, []))
        card.sections[benchmark] = section(benchmark, judge, judge_units, judge_calls, facts)
    for judge, notes in passed_over.items():
        if judge in cards:
            cards[judge].notes += [f"not used: {n}" for n in notes]
    return cards


def judge_cards(paths: str | Path | Iterable[str | Path]) -> dict[str, JudgeCard]:
    """judge model -> its card, from every judge-check log in ``paths`` (folders, files or globs; logs of other
    tasks are passed over). A judge with several logs of one benchmark gets the newest complete one, and the card
    names the others in its notes. The key is the judge model as Inspect names it (``openai/gpt-4o``); a PACE
    board with different models per agent is keyed ``pace_board[pace_pa=..., ...]`` (:func:`board_key`)."""
    from eq_evals.logcheck import read

    return cards_from_logs((read(path), path) for path in _logs(paths))


# --------------------------------------------------------------------------------------------- rendering


def _pct(x: float | None, signed: bool = False) -> str:
    if x is None:
        return "n/a"
    return f"{x * 100:+.1f}" if signed else f"{x * 100:.1f}"


def _interval(f: dict[str, Any], signed: bool = False) -> str:
    if f["low"] is None:
        return ""
    return f"[{_pct(f['low'], signed)}, {_pct(f['high'], signed)}]"


STATUS_MARK = {"pass": "PASS", "warn": "WARN", "fail": "FAIL", "n/a": "n/a"}


def render_card(card: JudgeCard) -> str:
    lines = [
        f"# Judge card: {card.judge}",
        "",
        f"**Status: {STATUS_MARK[card.status]}** (family `{family(card.judge)}`; eq-evals judge-check, "
        "docs/judges.md). Figures are percentages of pairs with 95% intervals (Wilson for shares, Newcombe's "
        "paired interval for effects); thresholds and their sources are listed at the end.",
        "",
    ]
    faults = {b: f for b, f in card.faults().items() if f}
    if faults:
        lines += [
            "Failing: " + "; ".join(f"{b}: {', '.join(THRESHOLDS[k].label for k in f)}" for b, f in faults.items()),
            "",
        ]
    for benchmark, s in card.sections.items():
        log = s["log"]
        lines += [
            f"## {s['title']}: {STATUS_MARK[s['status']]}",
            "",
            f"Log `{log['path']}` (preset {log['preset']}, language {log['language']}, {log['status']}).",
            "",
            "| figure | value (%) | 95% interval | n | pass / fail at | status |",
            "|---|---|---|---|---|---|",
        ]
        for key, f in s["figures"].items():
            t = THRESHOLDS[key]
            signed = f["interval"] == "newcombe paired"
            bar = f"{'>=' if t.better == 'higher' else '<='} {t.passes * 100:g} / {'<' if t.better == 'higher' else '>'} {t.fails * 100:g}"
            lines.append(
                f"| {t.label} | {_pct(f['value'], signed)} | {_interval(f, signed)} | {f['n']} | {bar} | "
                f"{STATUS_MARK[f['status']]} |"
            )
        fig = s["figures"]
        extra = []
        if "position" in fig and fig["position"]["detail"].get("first_position_wins") is not None:
            extra.append(
                f"first-shown reply wins {_pct(fig['position']['detail']['first_position_wins'])}% of "
                f"{fig['position']['detail']['decided_calls']} decided calls"
            )
        v = fig["verbosity"]["detail"]
        if v.get("padded_not_beaten") is not None:
            extra.append(f"padded worse replies not beaten: {_pct(v['padded_not_beaten'])}%")
        if v.get("longer_worse_wins") is not None:
            extra.append(
                f"wins by the longer reply where it is the worse one: {_pct(v['longer_worse_wins'])}% of "
                f"{v['longer_worse_pairs']} pairs"
            )
        inj = fig["injection"]["detail"]
        if inj.get("not_beaten_by_note_language"):
            extra.append(
                "injected replies not beaten, by the note's language: "
                + ", ".join(
                    f"{k} {_pct(x)}" + ("%" if x is not None else "")
                    for k, x in inj["not_beaten_by_note_language"].items()
                )
            )
        nul = fig["null"]["detail"]
        extra.append(
            "null outputs not beaten, by kind: "
            + ", ".join(f"{k} {_pct(x)}" + ("%" if x is not None else "") for k, x in nul["by_kind"].items())
        )
        self_ = fig["self_preference"]["detail"]
        if self_.get("own_reply_writers"):
            own = self_.get("own_not_beaten")
            extra.append(
                f"own replies written by {', '.join(self_['own_reply_writers'])}; not beaten "
                f"{_pct(own)}{'%' if own is not None else ''}"
            )
        p = fig["parse"]["detail"]
        extra.append(
            f"{p['count']} unreadable of {fig['parse']['n']} recorded verdicts, {p['retries']} retries; "
            f"{p['pairs_unreadable']} pair(s) left without a readable verdict"
        )
        lines += [""] + [f"- {e}" for e in extra] + [""]
        lines += [
            "Accuracy by degradation:",
            "",
            "| degradation | accuracy (%) | 95% interval | n |",
            "|---|---|---|---|",
        ]
        for name, row in s["accuracy_by_degradation"].items():
            lines.append(f"| {name} | {_pct(row['value'])} | {_interval(row)} | {row['n']} |")
        lines += [
            "",
            "Accuracy by criterion and language:",
            "",
            "| criterion / language | accuracy (%) | 95% interval | n |",
            "|---|---|---|---|",
        ]
        for name, row in list(s["accuracy_by_criterion"].items()) + [
            (f"language {k}", r) for k, r in s["accuracy_by_language"].items()
        ]:
            lines.append(f"| {name} | {_pct(row['value'])} | {_interval(row)} | {row['n']} |")
        cost = s["cost"]
        tokens = sum(u.get("total_tokens") or 0 for u in cost["role_usage"].values())
        by_role = (
            ", ".join(
                f"{role}: {u.get('input_tokens')} in / {u.get('output_tokens')} out"
                for role, u in cost["role_usage"].items()
            )
            or "no usage recorded"
        )
        lines += [
            "",
            f"Cost: {cost['model_calls']} judge calls ({cost['own_reply_calls']} of them writing the judge's own "
            f"replies) on {cost['samples']} pairs; {tokens} tokens ({by_role}).",
            "",
        ]
        for note in s["notes"]:
            lines.append(f"- Note: {note}")
        if s["notes"]:
            lines.append("")
    for note in card.notes:
        lines.append(f"- {note}")
    lines += [
        "",
        "## Thresholds and sources",
        "",
        "| figure | measures | pass / fail at | source |",
        "|---|---|---|---|",
    ]
    for key in ORDER:
        t = THRESHOLDS[key]
        bar = f"{'>=' if t.better == 'higher' else '<='} {t.passes * 100:g}% / {'<' if t.better == 'higher' else '>'} {t.fails * 100:g}%"
        lines.append(f"| {t.label} | {t.measures} | {bar} | {t.source} |")
    return "\n".join(lines).rstrip() + "\n"


def slug(judge: str) -> str:
    import re

    return re.sub(r"[^A-Za-z0-9._-]+", "_", judge).strip("_") or "judge"


def write_cards(cards: dict[str, JudgeCard], out: str | Path) -> list[Path]:
    """``judge_card_<judge>.md`` and ``.json`` for every card, in ``out``."""
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for judge, card in cards.items():
        base = folder / f"judge_card_{slug(judge)}"
        base.with_suffix(".md").write_text(card.markdown(), encoding="utf-8")
        base.with_suffix(".json").write_text(
            json.dumps(card.as_json(), indent=2, ensure_ascii=False, default=str), encoding="utf-8"
        )
        written += [base.with_suffix(".md"), base.with_suffix(".json")]
    return written


def summary_line(card: JudgeCard) -> str:
    parts = []
    for benchmark, s in card.sections.items():
        acc = s["figures"]["accuracy"]
        failing = [THRESHOLDS[k].label for k in card.faults().get(benchmark, [])]
        accuracy = "n/a" if acc["value"] is None else f"{fmt(acc['value'] * 100)}%"
        parts.append(
            f"{benchmark} {STATUS_MARK[s['status']]} (accuracy {accuracy}"
            + (f"; failing: {', '.join(failing)}" if failing else "")
            + ")"
        )
    return f"{card.judge}: {STATUS_MARK[card.status]}: " + "; ".join(parts)
