"""LongEmotion scorers (paper Table 1, Appendix F; docs/longemotion.md, 'Scoring').

- ``longemotion_label_match``: EC accuracy (normalised exact label match, docs/longemotion.md, 'Scoring'; ``strict`` = the
  original's case-sensitive equality) and ED accuracy (the predicted index, coerced to int, docs/longemotion.md, 'Scoring').
- ``longemotion_qa_f1``: the paper's SQuAD-style token F1 on the whole reply (LongEmotion paper §3.4).
- ``longemotion_judge``: an LLM judge on the ``grader`` role with a rubric from scorers/longemotion/
  (conversation: the 3 metrics of the sample's stage, 0-5; summary: 3 criteria x 5 fields, 1-5;
  expression: 6 criteria, 0-100). A reply that cannot be read is retried with a correction request;
  after ``retries`` more failures the sample is unscored with the reason and the judge's replies.

A sample cut by a limit is unscored by each of them (reason ``limit``; eq_evals.core.limits), never read as a
reply without a label (0) or handed to the judge.
"""

from __future__ import annotations

import math
from typing import Any

from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    GenerateConfig,
    get_model,
)
from inspect_ai.scorer import (
    CORRECT,
    INCORRECT,
    Metric,
    SampleScore,
    Score,
    Scorer,
    Target,
    accuracy,
    mean,
    metric,
    scorer,
    stderr,
)
from inspect_ai.solver import TaskState
from inspect_ai.util import store_as

from eq_evals.core.limits import unscored_if_cut
from eq_evals.longemotion.data import render_dialogue
from eq_evals.longemotion.parsing import (
    SUMMARY_FIELDS,
    find_json,
    normalize_label,
    parse_emotion,
    parse_index,
    score_number,
    strip_think,
    token_f1,
)
from eq_evals.longemotion.prompts import load_yaml, render
from eq_evals.longemotion.solvers import LongEmotionState

KINDS = ("conversation", "summary", "expression")


# --- EC / ED -----------------------------------------------------------------------------------------


@scorer(metrics=[accuracy(), stderr()])
def longemotion_label_match(strict: bool = False) -> Scorer:
    """EC: the parsed {"Emotion": ...} label against the gold label; ED: the parsed {"index": ...}."""

    async def score(state: TaskState, target: Target) -> Score:
        if cut := unscored_if_cut(before="an answer"):
            return cut
        completion = state.output.completion
        attempts = state.metadata.get("attempts")
        if state.metadata.get("task") == "detection":
            index = parse_index(completion)
            ok = index is not None and index == int(target.text)
            answer = "(no index found)" if index is None else str(index)
        else:
            label = parse_emotion(completion)
            if label is None:
                ok = False
            elif strict:
                ok = label == target.text
            else:
                ok = normalize_label(label) == normalize_label(target.text)
            answer = "(no label found)" if label is None else label
        explanation = f"parsed: {answer} | gold: {target.text} | attempts: {attempts}\n\n{completion}"
        return Score(
            value=CORRECT if ok else INCORRECT,
            answer=answer,
            explanation=explanation,
            metadata={"attempts": attempts, "parsed": answer != "(no label found)" and answer != "(no index found)"},
        )

    return score


# --- QA --------------------------------------------------------------------------------------------


@scorer(metrics=[mean(), stderr()])
def longemotion_qa_f1() -> Scorer:
    """Token F1 between the whole reply (reasoning removed) and the reference answer (0-1; paper x100)."""

    async def score(state: TaskState, target: Target) -> Score:
        if cut := unscored_if_cut(before="an answer"):
            return cut
        prediction = strip_think(state.output.completion)
        f1 = token_f1(prediction, target.text)
        return Score(value=f1, answer=prediction, explanation=f"F1 {f1:.4f} against: {target.text}")

    return score


# --- judges ----------------------------------------------------------------------------------------


def load_rubric(file: str) -> dict[str, Any]:
    data = load_yaml("scorers", file)
    kind = data.get("kind")
    if kind not in KINDS:
        raise ValueError(f"scorers/{file}: 'kind' must be one of {KINDS}")
    for key in ("template", "retry_message", "scale"):
        if key not in data:
            raise ValueError(f"scorers/{file}: missing {key!r}")
    if kind == "conversation":
        stages = data.get("stages") or {}
        if sorted(stages) != [1, 2, 3, 4] or any(len(s.get("metrics", [])) != 3 for s in stages.values()):
            raise ValueError(f"scorers/{file}: 'stages' needs stages 1-4 with three metrics each")
    elif not data.get("criteria"):
        raise ValueError(f"scorers/{file}: missing 'criteria'")
    return data


def _metrics_block(metrics: list[dict[str, str]]) -> str:
    out = []
    for n, m in enumerate(metrics, start=1):
        out.append(
            f"{n}. **{m['key']}**\n   - Description: {m['description']}\n   - Example:\n"
            + "\n".join(f"     {line}" for line in m["example"].strip().splitlines())
        )
    return "\n\n".join(out)


def judge_prompt(rubric: dict[str, Any], state: TaskState, target: Target) -> tuple[list[ChatMessage], list[str]]:
    """The judge messages and the keys the reply must score."""
    kind, md = rubric["kind"], state.metadata
    output = store_as(LongEmotionState).output_for_judge or strip_think(state.output.completion)
    if kind == "conversation":
        stage = rubric["stages"][md["stage"]]
        keys = [m["key"] for m in stage["metrics"]]
        user = render(
            rubric["template"],
            dialogue_history=render_dialogue(md["history"]),
            reply=output,
            stage_title=stage["title"],
            scale=rubric["scale_text"].strip(),
            metrics=_metrics_block(stage["metrics"]),
            skeleton="{" + ", ".join(f'"{k}": [score]' for k in keys) + "}",
        )
    elif kind == "summary":
        keys = SUMMARY_FIELDS
        criteria = "\n".join(f"- **{c['name']}**: {c['description']}" for c in rubric["criteria"])
        user = render(
            rubric["template"],
            ground_truth=target.text,
            model_output=output,
            criteria=criteria,
            scale=rubric["scale_text"].strip(),
        )
    else:
        keys = [c["key"] for c in rubric["criteria"]]
        criteria = "\n".join(
            f"{n}. **{c['key']}**: {c['description'].strip()}" for n, c in enumerate(rubric["criteria"], 1)
        )
        user = render(
            rubric["template"],
            situation=md["scenario"],
            statements=md["statements"],
            generated_text=output,
            criteria=criteria,
            scale=rubric["scale_text"].strip(),
        )
    system = [ChatMessageSystem(content=rubric["system"])] if rubric.get("system") else []
    return [*system, ChatMessageUser(content=user)], keys


def _lookup(d: dict, key: str) -> Any:
    if key in d:
        return d[key]
    folded = {str(k).strip().casefold(): v for k, v in d.items()}
    return folded.get(key.casefold())


def parse_judgement(rubric: dict[str, Any], text: str, keys: list[str]) -> tuple[dict[str, float] | None, str]:
    """(score dict, "") or (None, why it could not be read)."""
    low, high = rubric["scale"]
    if rubric["kind"] == "summary":
        crits = [c["key"] for c in rubric["criteria"]]

        def accept(d: dict) -> bool:
            return all(
                isinstance(_lookup(d, f), dict)
                and all(score_number(_lookup(_lookup(d, f), c), low, high) is not None for c in crits)
                for f in keys
            )

        found = find_json(text, accept)
        if found is None:
            return None, f"no JSON object with the five fields, each scoring {crits} in {low}-{high}"
        cell = {(f, c): score_number(_lookup(_lookup(found, f), c), low, high) for f in keys for c in crits}
        value: dict[str, float] = {"score": sum(cell.values()) / len(cell)}
        value.update({c: sum(cell[f, c] for f in keys) / len(keys) for c in crits})
        value.update({f: sum(cell[f, c] for c in crits) / len(crits) for f in keys})
        return value, ""
    found = find_json(text, lambda d: all(score_number(_lookup(d, k), low, high) is not None for k in keys))
    if found is None:
        return None, f"no JSON object scoring {keys} in {low}-{high}"
    scores = {k: score_number(_lookup(found, k), low, high) for k in keys}
    return {"score": sum(scores.values()) / len(scores), **scores}, ""  # type: ignore[arg-type]


@scorer(metrics=[])
def longemotion_judge(rubric: str, retries: int = 3, temperature: float = 0.0, max_tokens: int = 4096) -> Scorer:
    """LLM judge on the ``grader`` role with the rubric ``scorers/<rubric>``."""
    spec = load_rubric(rubric)

    async def score(state: TaskState, target: Target) -> Score:
        if cut := unscored_if_cut(before="a reply to judge", metadata={"rubric": rubric}):
            return cut
        grader = get_model(role="grader", required=True)
        messages, keys = judge_prompt(spec, state, target)
        replies, problem = [], ""
        for _ in range(retries + 1):
            out = await grader.generate(messages, config=GenerateConfig(temperature=temperature, max_tokens=max_tokens))
            reply = out.completion
            replies.append(reply)
            value, problem = parse_judgement(spec, reply, keys)
            if value is not None:
                return Score(
                    value=value,
                    answer=_short(store_as(LongEmotionState).output_for_judge or ""),
                    explanation=reply,
                    metadata={"judge_attempts": len(replies), "rubric": rubric},
                )
            messages = [
                *messages,
                ChatMessageAssistant(content=reply),
                ChatMessageUser(content=render(spec["retry_message"], problem=problem)),
            ]
        return Score.unscored(
            reason="grader_failed",
            explanation=f"the judge's reply could not be read after {len(replies)} attempts "
            f"({problem}). Replies:\n\n" + "\n\n---\n\n".join(replies),
            metadata={"judge_attempts": len(replies), "rubric": rubric},
        )

    return score


def _short(text: str, n: int = 400) -> str:
    return text if len(text) <= n else text[:n] + " ..."


def _validate_judge(rubric: str = "", **_: Any) -> None:
    if rubric:
        load_rubric(rubric)


longemotion_judge.validate_declaration = _validate_judge  # type: ignore[attr-defined]


# --- metrics ---------------------------------------------------------------------------------------


@metric
def longemotion_judge_means(
    group_by: str | None = None, cluster_by: str | None = None, criteria: bool = True
) -> Metric:
    """For dict-valued judge scores: ``score`` (the mean of the per-sample averages), its ``stderr``,
    with ``criteria`` the mean of every sub-score over the samples that have it, and, with ``group_by``, the mean
    ``score`` per value of that metadata field (e.g. MC checkpoints ``4-1``, Table 4). With ``cluster_by``
    (MC: ``dialogue_id``) the stderr is that of the per-cluster means, since samples sharing a cluster
    (the checkpoints of one dialogue) are not independent. The sub-scores are named by the rubric's criteria
    ("Consolidating Change Outcomes and Growth Narrative"): as metrics those long names crowd Inspect View's log
    header over the task's title, so the tasks with long criterion names pass ``criteria=False`` and keep them in
    each sample's score only."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        sums: dict[str, list[float]] = {}
        groups: dict[str, list[float]] = {}
        clusters: dict[str, list[float]] = {}
        for s in scores:
            value = s.score.value
            if not isinstance(value, dict):
                continue
            for k, v in value.items():
                if isinstance(v, (int, float)) and not math.isnan(float(v)):
                    sums.setdefault(str(k), []).append(float(v))
            if group_by and isinstance(value.get("score"), (int, float)) and not math.isnan(float(value["score"])):
                key = (s.sample_metadata or {}).get(group_by)
                groups.setdefault(f"{group_by}:{key}", []).append(float(value["score"]))
            if cluster_by and isinstance(value.get("score"), (int, float)) and not math.isnan(float(value["score"])):
                key = (s.sample_metadata or {}).get(cluster_by)
                clusters.setdefault(str(key), []).append(float(value["score"]))
        out: dict[str, float] = {}
        main = sums.pop("score", [])
        out["score"] = sum(main) / len(main) if main else math.nan
        units = [sum(v) / len(v) for v in clusters.values()] if cluster_by else main
        if len(units) > 1:
            m = sum(units) / len(units)
            out["stderr"] = math.sqrt(sum((x - m) ** 2 for x in units) / (len(units) - 1) / len(units))
        for k, vs in sums.items() if criteria else ():
            out[k] = sum(vs) / len(vs)
        for k in sorted(groups):
            out[k] = sum(groups[k]) / len(groups[k])
        return out

    return compute
