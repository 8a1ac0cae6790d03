"""``judge_check``: the benchmark's own scorer on a known-answer pair, with one typed verdict record out
(``eq_evals.pairwise.verdict``; docs/judges.md, "How the check judges").

Before that it prepares the pair (``setup.prepare``): for a self-preference pair it has the judge write its own
reply; for HEART it puts the worse reply where HEART's scorer reads the candidate's.

The judge check never judges by itself: it runs the scorer the benchmark's task runs, with the same rubric files,
prompts, parsing, retries and judge settings, and reads what that scorer recorded.

- Pairwise scorers (FACET's ``pairwise_judge``, HEART's ``heart_pairwise``) already write the verdict record:
  every judge call with the order it showed, each judge's judgment per criterion.
- ``pace_battle`` records only the board's combined verdict; the check adds, from the battle's own reports, one
  call per agent and presentation order (the two scores it gave, the reply it favoured), each agent's judgment
  per dimension, and the board's verdict per order, so position flips are visible.
- Pointwise scorers (``pace_board``, ``longemotion_judge``) score one reply: the check runs them on the worse
  reply and on the good reply in turn and records each call (``order`` names the one reply it scored, ``verdict``
  is the score) and, per criterion, which reply scored higher (equal scores: 0.5).

The worse reply is always ``model_a``, so a judgment's ``outcome`` 0 means the good reply won. The score's value:
``good_wins`` (the headline criterion's judgment favours the good reply in both orders), ``flipped`` (the two
orders disagreed) and ``judged`` (a judgment was recorded).
"""

from __future__ import annotations

import math
from typing import Any

from inspect_ai.model import ModelOutput, get_model
from inspect_ai.scorer import Score, Scorer, Target, mean, scorer
from inspect_ai.solver import TaskState
from inspect_ai.util import store_as

from eq_evals import components
from eq_evals.core.limits import unscored_if_cut
from eq_evals.errors import EqEvalsError
from eq_evals.judges.pairs import KEY
from eq_evals.judges.setup import prepare
from eq_evals.pairwise.verdict import JudgeCall, Judgment, PairVerdict, dump, sample_verdicts

PAIRWISE = ("pairwise_judge", "heart_pairwise", "pace_battle")
POINTWISE = ("pace_board", "longemotion_judge")
LONGEMOTION_RUBRICS = {
    "conversation": "longemotion/conversation.yaml",
    "summary": "longemotion/summary.yaml",
    "expression": "longemotion/expression.yaml",
}
BOARD = "pace_board"  # the name PACE's scorer gives the whole board's verdict


def headline(inner: str, block: dict[str, Any]) -> str:
    """The criterion the score's value reports: the one the benchmark ranks on."""
    return {
        "pairwise_judge": block.get("dimension") or "overall",
        "heart_pairwise": "overall",
        "pace_battle": "pace_eq",
        "pace_board": "eq",
        "longemotion_judge": "score",
    }[inner]


def _outcome(a: float | None, b: float | None) -> float | None:
    if a is None or b is None:
        return None
    return 1.0 if a > b else 0.0 if a < b else 0.5


def _number(x: Any) -> float | None:
    return float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) else None


# --------------------------------------------------------------------------------------------- PACE battles


def battle_record(score: Score, state: TaskState) -> PairVerdict:
    """The battle's verdict record with every agent call, each agent's judgment per dimension and the board's
    verdict per presentation order (from ``pace_battle``'s reports)."""
    from eq_evals.pace import board as pb

    md, smd = score.metadata or {}, state.metadata
    a, b = smd["model_a"], smd["model_b"]
    orders = [(a, b), (b, a)]
    weights = md.get("weights") or {}
    records = sample_verdicts(_Carrier(score), str(state.sample_id))
    record = (
        records[0]
        if records
        else PairVerdict(
            model_a=a,
            model_b=b,
            item=str(smd.get("item") or ""),
            sample=str(state.sample_id),
            language=smd.get("language", "en"),
        )
    )
    calls: list[JudgeCall] = []
    per_order_eq: list[dict[str, float | None]] = []
    by_agent: dict[tuple[str, str], list[tuple[JudgeCall, float | None, float | None]]] = {}
    for (x, y), reports in zip(orders, md.get("reports") or []):
        scores: dict[str, dict[str, float | None]] = {x: {}, y: {}}
        for dim, rep in reports.items():
            result = rep.get("result")
            if result:
                sx, sy = float(result["A"]["score"]), float(result["B"]["score"])
                scores[x][dim], scores[y][dim] = sx, sy
                winner = x if sx > sy else y if sy > sx else None
                call = JudgeCall(
                    judge=rep["model"],
                    criterion=dim,
                    order=[x, y],
                    verdict=f"A {sx:g} / B {sy:g}",
                    winner=winner,
                    margin=min(5, int(round(abs(sx - sy)))),
                    attempts=rep["attempts"],
                    reasoning=f"A: {result['A']['rationale']}\nB: {result['B']['rationale']}",
                    error=None if winner else "tie",
                )
            else:
                scores[x][dim] = scores[y][dim] = None
                call = JudgeCall(
                    judge=rep["model"],
                    criterion=dim,
                    order=[x, y],
                    attempts=rep["attempts"],
                    reasoning="\n---\n".join(rep.get("replies") or []),
                    error="judge_unparseable",
                )
            calls.append(call)
            by_agent.setdefault((rep["model"], dim), []).append((call, scores[a].get(dim), scores[b].get(dim)))
        eqs = {m: pb.combine(scores[m], weights)[0] if weights else None for m in (x, y)}
        per_order_eq.append(eqs)
        winner = None if None in eqs.values() or eqs[x] == eqs[y] else (x if eqs[x] > eqs[y] else y)
        calls.append(
            JudgeCall(
                judge=BOARD,
                criterion="pace_eq",
                order=[x, y],
                winner=winner,
                verdict=None if None in eqs.values() else f"EQ A {eqs[x]:.3f} / B {eqs[y]:.3f}",
                error=None if winner else ("tie" if None not in eqs.values() else "judge_unparseable"),
            )
        )
    judgments = []
    board = [j for j in record.judgments if j.judge == BOARD]
    if board:
        winners = [c.winner for c in calls if c.judge == BOARD]
        conflicted = len(winners) == 2 and None not in winners and winners[0] != winners[1]
        judgments.append(board[0].model_copy(update={"conflicted": conflicted}))
    else:
        judgments.append(Judgment(judge=BOARD, criterion="pace_eq", reason="judge_unparseable"))
    for (judge, dim), pair in by_agent.items():
        judgments.append(_scored_judgment(pair, judge, dim))
    return record.model_copy(update={"calls": calls, "judgments": judgments})


def _scored_judgment(calls: list[tuple[JudgeCall, float | None, float | None]], judge: str, criterion: str) -> Judgment:
    """One agent's judgment on one dimension over both orders, from (call, score of model_a, score of model_b):
    the mean of its scores per reply decides, as the board averages them; the orders conflict when each
    favoured a different reply."""
    if any(sa is None or sb is None for _, sa, sb in calls):
        return Judgment(judge=judge, criterion=criterion, reason="judge_unparseable")
    total_a = sum(sa for _, sa, _ in calls)  # type: ignore[misc]
    total_b = sum(sb for _, _, sb in calls)  # type: ignore[misc]
    winners = [c.winner for c, _, _ in calls if c.winner is not None]
    conflicted = len(winners) == 2 and winners[0] != winners[1]
    outcome = 0.5 if conflicted else _outcome(total_a, total_b)
    return Judgment(
        judge=judge, criterion=criterion, outcome=outcome, conflicted=conflicted, margin=0 if outcome == 0.5 else 1
    )


class _Carrier:
    """A stand-in sample holding one score, for ``sample_verdicts``."""

    def __init__(self, score: Score) -> None:
        self.scores = {"inner": score}
        self.id = ""


# --------------------------------------------------------------------------------------------- pointwise


async def _score_one(inner: Scorer, state: TaskState, target: Target, text: str, longemotion: bool) -> Score:
    state.output = ModelOutput.from_content(model="judgecheck", content=text)
    if longemotion:
        from eq_evals.longemotion.solvers import LongEmotionState

        store_as(LongEmotionState).output_for_judge = text
    return await inner(state, target)


def pointwise_record(inner_name: str, scores: dict[str, Score], state: TaskState, judge: str) -> PairVerdict:
    """The two pointwise scores as one verdict record: one call per agent (or judge) and reply, one judgment
    per criterion (the reply with the higher score wins it; equal scores: 0.5)."""
    md = state.metadata
    a, b = md["model_a"], md["model_b"]
    calls: list[JudgeCall] = []
    values: dict[str, dict[str, float | None]] = {}
    judges: dict[str, str] = {}
    rule: dict[str, str] = {}
    for name, score in scores.items():
        smd = score.metadata or {}
        value = score.value if isinstance(score.value, dict) else {}
        values[name] = {k: _number(v) for k, v in value.items()}
        if getattr(score, "unscored", False) and getattr(score, "reason", "") == "no_reply":
            rule[name] = "no_reply"  # the benchmark's rule: an empty reply is not scored (PACE), no judge call
            continue
        if inner_name == "pace_board":
            for dim, rep in (smd.get("reports") or {}).items():
                result = rep.get("result")
                judges[dim] = rep["model"]
                calls.append(
                    JudgeCall(
                        judge=rep["model"],
                        criterion=dim,
                        order=[name],
                        verdict=f"{result['score']:g}/10" if result else None,
                        attempts=rep["attempts"],
                        reasoning=(result or {}).get("rationale") or rep.get("problem") or "",
                        error=None if result else "judge_unparseable",
                    )
                )
        else:
            ok = _number(value.get("score")) is not None
            calls.append(
                JudgeCall(
                    judge=judge,
                    criterion="score",
                    order=[name],
                    verdict=f"{value['score']:g}" if ok else None,
                    attempts=int(smd.get("judge_attempts") or 1),
                    reasoning=str(score.explanation or "")[:4000],
                    error=None if ok else "judge_unparseable",
                )
            )
    criteria = (
        ["eq", *judges]
        if inner_name == "pace_board"
        else list(dict.fromkeys(k for v in values.values() for k in v)) or ["score"]
    )
    judgments = []
    for criterion in criteria:
        who = BOARD if criterion == "eq" else judges.get(criterion, judge)
        if rule:
            reason = "; ".join(f"rule:{why} ({name})" for name, why in rule.items())
            judgments.append(Judgment(judge=who, criterion=criterion, reason=reason))
            continue
        outcome = _outcome(values.get(a, {}).get(criterion), values.get(b, {}).get(criterion))
        judgments.append(
            Judgment(
                judge=who,
                criterion=criterion,
                outcome=outcome,
                margin=0 if outcome in (None, 0.5) else 1,
                reason="" if outcome is not None else "judge_unparseable",
            )
        )
    return PairVerdict(
        model_a=a,
        model_b=b,
        item=str(md.get("item") or ""),
        sample=str(state.sample_id),
        language=md.get("language", "en"),
        calls=calls,
        judgments=judgments,
        lengths={a: len(md["response_a"].split()), b: len(md["response_b"].split())},
    )


# --------------------------------------------------------------------------------------------- the scorer


@scorer(metrics={"good_wins": [mean()], "flipped": [mean()], "judged": [mean()]})
def judge_check(inner: str, **args: Any) -> Scorer:
    """Run the registered scorer ``inner`` (with the other arguments, as the benchmark's task passes them) on a
    known-answer pair and record one verdict record (see the module doc)."""
    components.load_all()
    if inner not in PAIRWISE + POINTWISE:
        raise EqEvalsError(f"judge_check: inner={inner!r}: expected one of {', '.join(PAIRWISE + POINTWISE)}")
    if inner == "longemotion_judge":
        inners = {
            task: components.SCORERS[inner](rubric=rubric, **args) for task, rubric in LONGEMOTION_RUBRICS.items()
        }
    else:
        base = components.SCORERS[inner](**args)

    async def score(state: TaskState, target: Target) -> Score:
        if cut := unscored_if_cut(before="the known-answer pair was judged"):  # core/limits.py: never a score
            return cut
        md = state.metadata
        if not isinstance(md.get(KEY), dict):
            raise EqEvalsError(f"sample {state.sample_id}: not a judge-check sample (no '{KEY}' metadata)")
        await prepare(state, md[KEY]["benchmark"])  # the judge's own reply (self probe); HEART's candidate
        block = dict(md[KEY])
        inner_md: dict[str, Any] = {}
        if inner in POINTWISE:
            longemotion = inner == "longemotion_judge"
            scorer_fn = inners[md.get("task", "conversation")] if longemotion else base
            judge = str(get_model(role="grader")) if longemotion else BOARD
            scores = {}
            for name, text in ((md["model_a"], md["response_a"]), (md["model_b"], md["response_b"])):
                scores[name] = await _score_one(scorer_fn, state, target, text, longemotion)
            record = pointwise_record(inner, scores, state, judge)
            inner_md = {
                "scores": {
                    n: {
                        "value": s.value,
                        "explanation": s.explanation,
                        "unscored": getattr(s, "unscored", False),
                        "reason": getattr(s, "reason", None),
                        "metadata": s.metadata,
                    }
                    for n, s in scores.items()
                }
            }
        else:
            result = await base(state, target)
            inner_md = dict(result.metadata or {})
            if inner == "pace_battle":
                record = battle_record(result, state)
            else:
                found = sample_verdicts(_Carrier(result), str(state.sample_id))
                record = (
                    found[0]
                    if found
                    else PairVerdict(
                        model_a=md["model_a"],
                        model_b=md["model_b"],
                        item=str(md.get("item") or ""),
                        sample=str(state.sample_id),
                        language=md.get("language", "en"),
                    )
                )
            inner_md["inner_value"] = result.value
            inner_md["inner_explanation"] = result.explanation
        inner_md.pop("verdicts", None)
        metadata = {**inner_md, "verdicts": dump([record]), KEY: block}
        main = headline(inner, block)
        heads = [j for j in record.judgments if j.criterion == main and j.outcome is not None]
        rule = [j.reason for j in record.judgments if j.reason.startswith("rule:")] or (
            ["rule:empty_response"] if inner_md.get("empty_response") else []
        )
        lines = [
            f"{block['probe']} pair ({block['degradation']}{'+' + block['variant'] if block.get('variant') else ''}) "
            f"on {block['item']}: the worse reply is {record.model_a}, the good one {record.model_b}"
        ]
        for j in record.judgments:
            if j.criterion == main:
                state_ = (
                    "not recorded (" + j.reason + ")"
                    if j.outcome is None
                    else ("good reply wins" if j.outcome == 0 else "worse reply wins" if j.outcome == 1 else "draw")
                    + (", the two orders disagree" if j.conflicted else "")
                )
                lines.append(f"{j.judge} on {main}: {state_}")
        if not heads:
            if rule:
                lines.append("decided by the benchmark's own rule, no judge call: " + "; ".join(rule))
                return Score(
                    value={"good_wins": 1.0, "flipped": 0.0, "judged": 0.0},
                    answer="rule",
                    explanation="\n".join(lines),
                    metadata=metadata,
                )
            return Score.unscored(reason="judge_unparseable", explanation="\n".join(lines), metadata=metadata)
        value = {
            "good_wins": sum(j.outcome == 0 and not j.conflicted for j in heads) / len(heads),
            "flipped": sum(j.conflicted for j in heads) / len(heads),
            "judged": 1.0,
        }
        answer = "good" if value["good_wins"] == 1 else "worse" if all(j.outcome == 1 for j in heads) else "mixed"
        return Score(value=value, answer=answer, explanation="\n".join(lines), metadata=metadata)

    return score


def _validate(inner: str = "", **literal: Any) -> None:
    """The inner scorer's own check, on the arguments the declaration writes out (the engine leaves out those
    that name a task parameter)."""
    from eq_evals.judges.setup import own_prompts

    components.load_all()
    own_prompts()  # the self-preference probe's prompt file
    if inner not in PAIRWISE + POINTWISE:
        raise ValueError(f"inner={inner!r}: expected one of {', '.join(PAIRWISE + POINTWISE)}")
    validator = getattr(components.SCORERS[inner], "validate_declaration", None)
    if validator is not None:
        if inner == "longemotion_judge":
            for rubric in LONGEMOTION_RUBRICS.values():
                validator(rubric=rubric, **literal)
        else:
            validator(**literal)


judge_check.validate_declaration = _validate  # type: ignore[attr-defined]
