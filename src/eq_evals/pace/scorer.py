"""PACE scorers: the board on one reply (``pace_board``) and on a head-to-head battle (``pace_battle``).

Inspect View shows, per sample, one span per agent call (its prompt, reply and retries), the Chief
Arbitrator's span, and in the score explanation each agent's score and rationale, or why it is missing.
"""

from __future__ import annotations

import asyncio
import math
from typing import Any

from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, metric, scorer
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import span

from eq_evals.core.limits import limit_hit, limit_score, unscored_if_cut
from eq_evals.core.text import MISSING, fmt, markdown_table
from eq_evals.core.view import note, short
from eq_evals.errors import EqEvalsError
from eq_evals.pace import board as pb
from eq_evals.pairwise.verdict import Judgment, PairVerdict, dump
from eq_evals.ratings.causal_pace import DIMENSIONS

CA_MODES = ("deterministic", "llm")

BOARD_JUDGE = "pace_board"  # the judge name a battle's verdict carries: the whole PACE-AB board
# A composite renormalised over the dimensions present because an agent's reply could not be read: the score's
# reason and a metadata flag (always present on a scored sample: true or false), with the dimensions under
# ``missing`` (pace_board: a list; pace_battle: per model). A failed call errors the sample instead (JudgeOutage).
PARTIAL = "partial_composite"


def _check(ca_mode: str, attempts: int, tie_margin: float = 0.0) -> None:
    if ca_mode not in CA_MODES:
        raise EqEvalsError(f"-T ca_mode={ca_mode}: expected one of {list(CA_MODES)}")
    if attempts < 1:
        raise EqEvalsError(f"-T attempts={attempts}: at least 1")
    if tie_margin < 0:
        raise EqEvalsError(f"-T tie_margin={tie_margin}: must be >= 0")


@solver
def pace_roles(
    drop: str | None = None, ca_mode: str = "deterministic", overall: bool = False, board: str = pb.BOARD_FILE
) -> Solver:
    """First step of the PACE tasks: stop before any model call when the board has no judge bound."""
    roles = pb.board_roles(drop, ca_mode, overall, board)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        pb.check_roles(roles)
        return state

    return solve


def _fmt(x: float | None) -> str:
    return MISSING if x is None else f"{x:.3g}"


def _weights_note(used: dict[str, float], missing: list[str]) -> str:
    text = "W̄ = " + ", ".join(f"{d} {w:.3f}" for d, w in used.items())
    if missing:
        text += (
            f"; renormalised over {', '.join(used)} because {', '.join(missing)} "
            + ("is" if len(missing) == 1 else "are")
            + " missing"
        )
    return text


def _partial_note(missing: list[str], used: dict[str, float]) -> str:
    return (
        f"partial composite: {', '.join(missing)} missing (the agent's reply could not be read), EQ over "
        f"{', '.join(used)} only"
    )


def arbitration_note(
    spec: dict[str, Any],
    scores: dict[str, dict[str, float | None]],
    used: dict[str, dict[str, float]],
    eqs: dict[str, float | None],
    source: str,
    title: str,
) -> None:
    """The Chief Arbitrator's arithmetic as a short Markdown table in the transcript (core/view.py): per dimension
    the agent, the weight W̄ used and each reply's score, then EQ = Σ W̄·score; weights and scores rounded (the
    score metadata keeps them in full). ``scores``/``used``/``eqs`` are keyed by reply (``reply`` pointwise, the
    two models in a battle)."""
    replies = list(scores)
    same = all(used[r] == used[replies[0]] for r in replies)  # different only when a reply lost a dimension
    name = {r: "" if r == "reply" else f" {short(r)}" for r in replies}
    header = ["dimension", "agent"] + (["W̄"] if same else [])
    for r in replies:
        header += ([] if same else [f"W̄{name[r]}"]) + [f"score{name[r]}"]
    rows = []
    for d in DIMENSIONS:
        if not any(d in scores[r] for r in replies):
            continue  # an agent dropped from the board
        row = [d, spec["agents"][d]["agent"]["en"]] + ([fmt(used[replies[0]].get(d), 3)] if same else [])
        for r in replies:
            row += ([] if same else [fmt(used[r].get(d), 3)]) + [fmt(scores[r].get(d), 2)]
        rows.append(row)
    total = ["**EQ**", "Σ W̄·score"] + (["1.000"] if same else [])
    for r in replies:
        total += ([] if same else ["1.000"]) + [f"**{fmt(eqs[r], 2)}**"]
    body = markdown_table(header, rows + [total])
    body += f"\n\nWeights: {source}, renormalised over the dimensions present (Causal-PACE Def. 3.2)."
    for r in replies:
        lost = [d for d, x in scores[r].items() if x is None]
        if lost:
            body += f"\n\n{name[r].strip() or 'The reply'}: {', '.join(lost)} missing (unreadable agent reply), EQ over the others only."
    note(title, body)


def _present(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


@metric
def pace_means() -> Metric:
    """Mean P, A, C, E and composite EQ over the scored samples, each over the samples where it is present
    (a missing dimension is skipped, never counted as 0), the EQ's standard error, and with more than one
    language the EQ per language (``eq_en``, ``eq_zh``: the paper keeps languages apart)."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        rows = [
            (s.score.value, (s.sample_metadata or {}).get("language"))
            for s in scores
            if isinstance(s.score.value, dict) and _present(s.score.value.get("eq"))
        ]
        out: dict[str, float] = {}
        for key in ("eq", *DIMENSIONS):  # EQ first: the headline Inspect View lists a run by
            values = [float(v[key]) for v, _ in rows if _present(v.get(key))]
            if values:  # a dimension no sample has is left out (never reported as 0)
                out[key] = sum(values) / len(values)
            if len(values) < len(rows):
                out[f"missing_{key}"] = float(len(rows) - len(values))
        eqs = [float(v["eq"]) for v, _ in rows]
        if len(eqs) > 1:
            m = sum(eqs) / len(eqs)
            out["eq_stderr"] = math.sqrt(sum((x - m) ** 2 for x in eqs) / (len(eqs) - 1) / len(eqs))
        languages = sorted({lang for _, lang in rows if lang})
        if len(languages) > 1:
            for lang in languages:
                values = [float(v["eq"]) for v, g in rows if g == lang]
                out[f"eq_{lang}"] = sum(values) / len(values)
        out["scored"] = float(len(rows))
        return out

    return compute


@scorer(metrics=[pace_means()])
def pace_board(
    weights: str = "paper",
    drop: str | None = None,
    ca_mode: str = "deterministic",
    attempts: int = 3,
    threshold: float = 6.0,
    judge_max_tokens: int | None = None,
    board: str = pb.BOARD_FILE,
) -> Scorer:
    """PACE-AB on one reply (pointwise; docs/pace.md, 'The board'): the four agents, then the Chief Arbitrator.

    Value: ``{"P", "A", "C", "E", "eq"}`` on 0-10 (a missing dimension is None). Unscored when the reply is
    empty or every agent's reply was unreadable.
    """
    _check(ca_mode, attempts)
    w, source = pb.board_weights(weights, drop)
    dims = list(w)
    roles = pb.board_roles(drop, ca_mode, False, board)
    config = pb.judge_config(judge_max_tokens)

    async def score(state: TaskState, target: Target) -> Score:
        pb.check_roles(roles)
        spec = pb.load_board(board)
        language = state.metadata.get("language", "en")
        query, reply = state.input_text, (state.output.completion if state.output else "").strip()
        base = {
            "weights": w,
            "weights_source": source,
            "ca_mode": ca_mode,
            "threshold": threshold,
            "dropped": pb.dropped(drop),
        }
        hit = limit_hit()
        if hit is not None:  # cut by a limit: no reply to judge, whatever text came before it (core.limits)
            return limit_score(
                hit, before="the tested model replied", reason="limit" if reply else "no_reply", metadata=base
            )
        if not reply:
            return Score.unscored(reason="no_reply", explanation="the tested model gave no reply", metadata=base)
        reports = await pb.review(spec, dims, language, attempts, {"query": query, "reply": reply}, config=config)
        scores = {d: (r.result["score"] if r.result else None) for d, r in reports.items()}
        rationales = {d: r.result["rationale"] for d, r in reports.items() if r.result}
        lines = [
            f"{r.agent} ({d}): " + (f"{scores[d]:g}/10. {rationales[d]}" if r.result else f"missing: {r.problem}")
            for d, r in reports.items()
        ]
        metadata = {
            **base,
            "reports": {d: r.as_dict() for d, r in reports.items()},
            "meets": {d: s >= threshold for d, s in scores.items() if s is not None},
        }
        async with span("Chief Arbitrator"):
            eq, used, missing = pb.combine(scores, w)
            arbitration_note(
                spec,
                {"reply": scores},
                {"reply": used},
                {"reply": eq},
                source,
                f"Chief Arbitrator: EQ = {fmt(eq, 2)} (weighted sum of the agents' scores)",
            )
        metadata.update(missing=missing, weights_used=used, eq_formula=eq)
        if eq is None:
            return Score.unscored(reason="all_agents_unparseable", explanation="\n".join(lines), metadata=metadata)
        # a composite renormalised around a missing dimension is a partial composite, and says so: the reason
        # (which eq-evals doctor counts) and the metadata flag the leaderboard reads
        metadata[PARTIAL] = bool(missing)
        if missing:
            lines.insert(0, _partial_note(missing, used))
        ca_line = f"Chief Arbitrator: EQ = {eq:.3f} ({_weights_note(used, missing)})"
        if ca_mode == "llm":
            ca = await pb.arbitrate(spec, language, attempts, query, reply, scores, rationales, used, eq, config=config)
            metadata["arbitrator"] = ca.as_dict()
            if ca.result is not None:
                metadata["eq_ca"] = ca.result["eq"]
                eq = ca.result["eq"]
                ca_line = (
                    f"Chief Arbitrator (LLM): EQ = {eq:.3f}. {ca.result['rationale']} "
                    f"[weighted sum {metadata['eq_formula']:.3f}; {_weights_note(used, missing)}]"
                )
            else:
                ca_line += f". The LLM arbitrator's reply was unreadable ({ca.problem}); the weighted sum is used"
        lines.append(ca_line)
        # a missing dimension is NaN in the value (Inspect's epoch reducer would turn None into 0); the metric
        # leaves it out and the log stores it as null
        value: dict[str, Any] = {d: math.nan if scores.get(d) is None else scores[d] for d in DIMENSIONS}
        value["eq"] = eq
        return Score(
            value=value,
            answer=f"EQ {eq:.2f}" + (" (partial)" if missing else ""),
            explanation="\n".join(lines),
            reason=PARTIAL if missing else None,
            metadata=metadata,
        )

    return score


def _battle_result(a: str, b: str, eqs: dict[str, float | None], tie_margin: float, ca_mode: str) -> str:
    """The weighted sums' verdict for the arbitrator's title (an LLM arbitrator may still change the EQs)."""
    if eqs[a] is None or eqs[b] is None:
        return ""
    outcome = _winner(eqs[a], eqs[b], tie_margin)  # type: ignore[arg-type]
    said = "tie" if outcome == 0.5 else f"{short(a if outcome == 1.0 else b)} wins"
    return f" → {said}" + (" (before the LLM arbitrator)" if ca_mode == "llm" else "")


def _winner(eq_a: float, eq_b: float, tie_margin: float) -> float:
    diff = eq_a - eq_b
    return 1.0 if diff > tie_margin else 0.0 if diff < -tie_margin else 0.5


@metric
def ties() -> Metric:
    """The share of battles judged a tie (|EQ_A - EQ_B| <= tie_margin). A battle run's first metric: the winners
    are read from the verdicts by eq-evals ratings, and model_a's mean outcome would only say how often the model
    the pairing named first won."""

    def compute(scores: list[SampleScore]) -> float:
        values = [s.score.value for s in scores if _present(s.score.value)]
        return sum(v == 0.5 for v in values) / len(values) if values else math.nan

    return compute


@scorer(metrics={"outcome": [ties()]})
def pace_battle(
    weights: str = "paper",
    drop: str | None = None,
    ca_mode: str = "deterministic",
    attempts: int = 3,
    tie_margin: float = 0.0,
    overall: bool = False,
    judge_max_tokens: int | None = None,
    board: str = pb.BOARD_FILE,
) -> Scorer:
    """PACE-AB on a head-to-head battle (paper §5.2, "head-to-head competitions"): every agent scores both
    replies, in both presentation orders (A/B then B/A, the two orders' scores averaged per reply); the
    arbitrator gives each reply an EQ; the winner is the higher EQ unless |eq_a - eq_b| <= tie_margin.

    With ``overall``, an independent overall-preference judge (role ``pace_overall``) also picks a winner in
    both orders (disagreeing orders -> tie), recorded as ``overall_winner``: the Y Causal-PACE weights can be
    fitted from (docs/pace-weights.md, 'Circularity warning'), never derived from the board's own scores.
    """
    _check(ca_mode, attempts, tie_margin)
    w, source = pb.board_weights(weights, drop)
    dims = list(w)
    roles = pb.board_roles(drop, ca_mode, overall, board)
    config = pb.judge_config(judge_max_tokens)

    async def score(state: TaskState, target: Target) -> Score:
        if cut := unscored_if_cut(before="the battle was judged"):
            return cut
        pb.check_roles(roles)
        spec = pb.load_board(board)
        md = state.metadata
        a, b, language = md["model_a"], md["model_b"], md.get("language", "en")
        query, texts = md["user_input"], {a: md["response_a"], b: md["response_b"]}
        orders = [(a, b), (b, a)]
        reviews = await asyncio.gather(
            *(
                pb.review(
                    spec,
                    dims,
                    language,
                    attempts,
                    {"query": query, "reply_a": texts[x], "reply_b": texts[y]},
                    pairwise=True,
                    label=f": A={short(x)}, B={short(y)}",
                    config=config,
                )
                for x, y in orders
            )
        )
        per_model: dict[str, dict[str, float | None]] = {a: {}, b: {}}
        notes: list[str] = []
        lines: list[str] = []
        for d in dims:
            got: dict[str, list[float]] = {a: [], b: []}
            for (x, y), reports in zip(orders, reviews):
                r = reports[d]
                if r.result is None:
                    notes.append(f"{d} order A={x}, B={y}: {r.problem}")
                    continue
                got[x].append(r.result["A"]["score"])
                got[y].append(r.result["B"]["score"])
                lines.append(
                    f"{r.agent} ({d}) [A={x}, B={y}]: A {r.result['A']['score']:g} "
                    f"({r.result['A']['rationale']}); B {r.result['B']['score']:g} ({r.result['B']['rationale']})"
                )
            for m in (a, b):
                per_model[m][d] = sum(got[m]) / len(got[m]) if got[m] else None
        results = {m: pb.combine(per_model[m], w) for m in (a, b)}
        metadata: dict[str, Any] = {
            "model_a": a,
            "model_b": b,
            "item": md.get("item"),
            "item_id": md.get("item_id"),
            "language": language,
            "dimension": md.get("dimension", "pace_eq"),
            "phase": md.get("phase", ""),
            "weights": w,
            "weights_source": source,
            "ca_mode": ca_mode,
            "tie_margin": tie_margin,
            "scores": per_model,
            "missing": {m: results[m][2] for m in (a, b)},
            "problems": notes,
            "reports": [{d: r.as_dict() for d, r in rv.items()} for rv in reviews],
        }
        if notes:
            lines += [f"missing: {n}" for n in notes]
        eqs = {m: results[m][0] for m in (a, b)}
        async with span("Chief Arbitrator"):
            arbitration_note(
                spec,
                per_model,
                {m: results[m][1] for m in (a, b)},
                dict(eqs),
                source,
                f"Chief Arbitrator: EQ {short(a)} = {fmt(eqs[a], 2)}, {short(b)} = {fmt(eqs[b], 2)}"
                + _battle_result(a, b, eqs, tie_margin, ca_mode),
            )
        if ca_mode == "llm" and all(v is not None for v in eqs.values()):
            metadata["eq_formula"] = dict(eqs)
            for m in (a, b):
                used = results[m][1]
                rationales = {
                    d: " / ".join(
                        r[d].result["A" if x == m else "B"]["rationale"]
                        for (x, _), r in zip(orders, reviews)
                        if r[d].result
                    )
                    for d in dims
                }
                ca = await pb.arbitrate(
                    spec,
                    language,
                    attempts,
                    query,
                    texts[m],
                    per_model[m],
                    rationales,
                    used,
                    eqs[m],
                    label=f": {short(m)}",
                    config=config,
                )
                metadata.setdefault("arbitrator", {})[m] = ca.as_dict()
                if ca.result is not None:
                    eqs[m] = ca.result["eq"]
                else:
                    lines.append(f"Chief Arbitrator (LLM) on {m}: unreadable ({ca.problem}); weighted sum used")
        metadata["eq"] = eqs
        if overall:
            prefs = await asyncio.gather(
                *(
                    pb.prefer(
                        spec,
                        language,
                        attempts,
                        query,
                        texts[x],
                        texts[y],
                        label=f": A={short(x)}, B={short(y)}",
                        config=config,
                    )
                    for x, y in orders
                )
            )
            picks = [
                None
                if p.result is None
                else "tie"
                if p.result["winner"] == "tie"
                else (x if p.result["winner"] == "A" else y)
                for (x, y), p in zip(orders, prefs)
            ]
            metadata["overall_calls"] = [p.as_dict() for p in prefs]
            if None in picks:
                metadata["overall_winner"] = None
                metadata["overall_problem"] = "; ".join(p.problem for p in prefs if p.result is None)
            else:
                metadata["overall_winner"] = picks[0] if picks[0] == picks[1] else "tie"
                metadata["overall_conflicted"] = picks[0] != picks[1]
            lines.append(
                f"Overall preference (independent): {metadata['overall_winner'] or 'not recorded'}"
                f" (orders: {picks[0]}, {picks[1]})"
            )
        if eqs[a] is None or eqs[b] is None:
            lost = [m for m in (a, b) if eqs[m] is None]
            return Score.unscored(
                reason="all_agents_unparseable",
                explanation="\n".join(lines + [f"no dimension score for {', '.join(lost)}"]),
                metadata=metadata,
            )
        outcome = _winner(eqs[a], eqs[b], tie_margin)
        metadata["winner"] = a if outcome == 1.0 else b if outcome == 0.0 else "tie"
        partial = {m: results[m][2] for m in (a, b) if results[m][2]}
        metadata[PARTIAL] = bool(partial)
        if partial:
            lines.insert(0, "; ".join(f"{m}: {_partial_note(dims_, results[m][1])}" for m, dims_ in partial.items()))
        for m in (a, b):
            lines.append(f"Chief Arbitrator: EQ[{m}] = {eqs[m]:.3f} ({_weights_note(results[m][1], results[m][2])})")
        lines.append(f"Winner: {metadata['winner']} (eq difference {eqs[a] - eqs[b]:+.3f}, tie margin {tie_margin})")
        # the board's verdict as the project's typed pairwise record: a decisive battle has margin 1, a tie 0
        metadata["verdicts"] = dump(
            [
                PairVerdict(
                    model_a=a,
                    model_b=b,
                    item=str(md.get("item") or state.sample_id),
                    sample=str(state.sample_id),
                    language=language,
                    phase=md.get("phase", ""),
                    judgments=[
                        Judgment(
                            judge=BOARD_JUDGE,
                            criterion=md.get("dimension") or "pace_eq",
                            outcome=outcome,
                            margin=0 if outcome == 0.5 else 1,
                        )
                    ],
                )
            ]
        )
        return Score(
            value={"outcome": outcome, "eq_a": eqs[a], "eq_b": eqs[b], "eq_diff": eqs[a] - eqs[b]},
            answer=metadata["winner"],
            explanation="\n".join(lines),
            reason=PARTIAL if partial else None,
            metadata=metadata,
        )

    return score


def _validate(board: str = pb.BOARD_FILE, weights: str = "paper", drop: str | None = None, **_: object) -> None:
    pb.load_board(board)
    pb.dropped(drop)
    if weights in ("paper", "equal"):
        pb.board_weights(weights, drop)


for _fn in (pace_board, pace_battle, pace_roles):
    _fn.validate_declaration = _validate  # type: ignore[attr-defined]
