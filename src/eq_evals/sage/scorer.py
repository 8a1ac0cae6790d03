"""SAGE scoring (docs/sage.md, 'Scoring'): the sample score is the final emotion e_T; the Sentient score is its mean."""

from __future__ import annotations

import math
import statistics

from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, ci, mean, metric, scorer, stderr
from inspect_ai.solver import TaskState
from inspect_ai.util import store_as

from eq_evals.core.limits import limit_hit, limit_score
from eq_evals.core.metrics import no_interval_without_scores
from eq_evals.sage.rules import UNPARSEABLE, load_rules
from eq_evals.sage.solver import SageStore


def _meta(s: SampleScore, key: str) -> float | None:
    value = (s.score.metadata or {}).get(key)
    return float(value) if isinstance(value, (int, float)) else None


@metric(scores="unreduced")
def success_count() -> Metric:
    """Dialogues whose final emotion reached the success threshold (>= 100; paper Table 2 "Success").
    Counted per dialogue, i.e. per sample and epoch (unreduced scores), as the leaderboard counts them: the
    epoch reducer keeps only the first epoch's metadata."""

    def compute(scores: list[SampleScore]) -> float:
        return float(sum(1 for s in scores if _meta(s, "success") == 1))

    return compute


@metric(scores="unreduced")
def failure_count() -> Metric:
    """Dialogues whose final emotion fell below the failure threshold (< 10; paper Table 2 "Failure"),
    counted per sample and epoch like ``success_count``."""

    def compute(scores: list[SampleScore]) -> float:
        return float(sum(1 for s in scores if _meta(s, "failure") == 1))

    return compute


@metric
def sage_ci(level: float = 0.95) -> Metric:
    """The t interval of the Sentient score (Inspect's ``ci``), clamped to the emotion range [floor, ceiling]
    of scorers/sage/rules.yaml (0-100): a mean emotion cannot lie outside it."""
    inner = ci(level=level)

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        if not scores:  # every dialogue unscored: no interval rather than 0-0 (core.metrics)
            return no_interval_without_scores(inner)(scores)
        rules = load_rules()
        value = inner(scores)
        assert isinstance(value, dict)
        return {
            k: min(float(rules.ceiling), max(float(rules.floor), float(x))) if not math.isnan(float(x)) else float(x)
            for k, x in value.items()
        }

    return compute


@metric(scores="unreduced")
def mean_npc_turns() -> Metric:
    """Mean number of tested-model replies per dialogue (docs/sage.md, 'Leaderboard': mean tested turns)."""

    def compute(scores: list[SampleScore]) -> float:
        values = [v for s in scores if (v := _meta(s, "npc_turns")) is not None]
        return statistics.fmean(values) if values else float("nan")

    return compute


@metric(scores="unreduced")
def mean_npc_tokens() -> Metric:
    """Mean tested-model output tokens per dialogue, reasoning included (paper §4.2 token efficiency)."""

    def compute(scores: list[SampleScore]) -> float:
        values = [v for s in scores if (v := _meta(s, "npc_output_tokens")) is not None]
        return statistics.fmean(values) if values else float("nan")

    return compute


@scorer(metrics=[mean(), stderr(), success_count(), failure_count(), mean_npc_turns()])
def sage_scorer(rules: str = "sage/rules.yaml") -> Scorer:
    """Final emotion of the Sentient Agent (paper §2.1 Feedback_S: e_T). Dialogues the simulator could not
    finish (unparseable outputs after retries) or a sample limit cut (reason ``interrupted``, the limit named;
    eq_evals.core.limits) are unscored with the reason, never scored as an ending."""
    thresholds = load_rules(rules)

    async def score(state: TaskState, target: Target) -> Score:
        sage = store_as(SageStore)
        meta = state.metadata or {}
        trajectory = " → ".join(map(str, sage.trajectory))
        info = {
            "trajectory": sage.trajectory,
            "end_reason": sage.end_reason,
            "npc_turns": sage.npc_turns,
            "updates": sage.updates,
            "parse_retries": sage.parse_retries,
            "npc_output_tokens": sage.npc_output_tokens,
            "npc_reasoning_tokens": sage.npc_reasoning_tokens,
            "simulator": sage.simulator,
            "hidden_task_type": meta.get("hidden_task_type"),
            "intention": meta.get("intention"),
            "personality": meta.get("personality"),
            "language": meta.get("language"),
            "task": meta.get("task"),
        }
        hit = limit_hit()
        if hit is not None:  # a sample limit stopped the dialogue: unscored, never an ending (core.limits)
            return limit_score(
                hit,
                before="the dialogue ended",
                reason="interrupted",
                answer=f"interrupted dialogue ({hit.name})",
                detail=f"trajectory so far: {trajectory}" if trajectory else "",
                metadata=info,
            )
        if sage.end_reason is None and sage.trajectory:
            # the loop started but something other than a sample limit (a cancellation) stopped it before any ending
            return Score.unscored(
                reason="interrupted",
                answer="interrupted dialogue",
                explanation=f"the dialogue was stopped before it ended; trajectory so far: {trajectory}",
                metadata=info,
            )
        if sage.end_reason in (None, UNPARSEABLE) or not sage.trajectory:
            return Score.unscored(
                reason=sage.end_reason or "no_dialogue",
                answer=f"unfinished dialogue ({sage.end_reason or 'the Sentient Agent loop did not run'})",
                explanation=(sage.failure or "the sentient_dialogue solver did not run for this sample")
                + (f"\n\ntrajectory so far: {trajectory}" if trajectory else ""),
                metadata=info,
            )
        e = sage.emotion
        info.update(emotion=e, success=int(e >= thresholds.success_at), failure=int(e < thresholds.failure_below))
        last = next((t for t in reversed(sage.turns) if t.get("activity")), None)
        explanation = f"trajectory: {trajectory}\nend reason: {sage.end_reason}; tested replies: {sage.npc_turns}"
        if last:
            explanation += f"\nlast inner thoughts (turn {last['turn']}): {last['activity']}"
        return Score(
            value=float(e),
            answer=f"final emotion {e} ({sage.emotion_state}), {sage.end_reason}",
            explanation=explanation,
            metadata=info,
        )

    return score
