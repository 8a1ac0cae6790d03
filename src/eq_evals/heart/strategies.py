"""HEART's support-strategy analysis (paper §4.8, §9.10; docs/heart.md, 'Support strategies'): a sentence-level LLM classifier over the replies
in earlier ``heart`` logs, and the strategy distribution per system.

Task ``heart_strategies``: one sample per (system, reply) read from heart logs; every sentence is sent to the
``classifier`` model role (default: the task's model) with the 15 strategy definitions (the release's
strategy_metadata.json when given, else the project's own list) and labelled with every strategy whose
probability reaches the threshold (the release's default 0.8); a reply's strategies are the union over its
sentences. Replies with a sentence the classifier never answered readably are unscored with the reason.
``eq-evals ratings`` turns these logs into usage percentages per system and strategy, with the SD and range of
the 15 rates (§4.8), the mean number of strategies per reply and the entropy of the usage distribution.
"""

from __future__ import annotations

import json
import math
import re
from collections import defaultdict
from functools import cache
from typing import Any

from inspect_ai.dataset import Sample
from inspect_ai.model import ChatMessageSystem, ChatMessageUser, GenerateConfig, get_model
from inspect_ai.scorer import Score, Scorer, Target, mean, scorer
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import StoreModel, store_as

from eq_evals.core.limits import unscored_if_cut
from eq_evals.errors import EqEvalsError
from eq_evals.heart.data import strategy_definitions
from eq_evals.logcheck import expand_log_paths
from eq_evals.pairwise.judge import ask_until_parsed, required
from eq_evals.pairwise.logs import load_generation
from eq_evals.resources import load_yaml

SENTENCE = re.compile(r"(?<=[.!?。！？])\s+|(?<=[。！？])")


def sentences(text: str) -> list[str]:
    return [s.strip() for s in SENTENCE.split(text or "") if s and s.strip()]


@cache
def classifier_prompts() -> dict[str, str]:
    data = load_yaml("scorers", "heart/strategies.yaml")
    prompt = data.get("classifier") or {}
    for key in ("system", "user", "retry_note"):
        if not isinstance(prompt.get(key), str):
            raise ValueError(f"scorers/heart/strategies.yaml: classifier.{key} is missing")
    return prompt


def heart_replies(logs: str) -> list[Sample]:
    """The replies of earlier eq_evals/heart logs, one sample per (system, history)."""
    if not logs:
        raise EqEvalsError("-T logs=... is required: eq_evals/heart logs whose replies are classified")
    samples = []
    for path in expand_log_paths(logs):
        gen = load_generation(path)
        if gen.task.split("/")[-1] != "heart":
            raise EqEvalsError(f"{path} is a log of {gen.task}, not of eq_evals/heart")
        for (sid, epoch), r in sorted(gen.responses.items()):
            if epoch != 1:
                continue
            samples.append(
                Sample(
                    id=f"{gen.model}|{sid}",
                    input=r.text,
                    metadata={
                        "system": gen.model,
                        "sample_id": sid,
                        "log": path,
                        "language": r.metadata.get("language", "en"),
                        "sentences": sentences(r.text),
                    },
                )
            )
    if not samples:
        raise EqEvalsError(f"no replies in {logs}")
    return samples


class StrategyLabels(StoreModel):
    per_sentence: list[dict[str, Any]] = []
    labels: list[str] = []
    failed: int = 0


def parse_probs(reply: str, names: list[str]) -> dict[str, float] | None:
    text = re.sub(r"```(?:json)?", "", reply or "")
    blob = text[text.find("{") : text.rfind("}") + 1] if "{" in text else ""
    try:
        data = json.loads(blob)
    except json.JSONDecodeError:
        return None
    probs = data.get("probs") if isinstance(data, dict) else None
    if not isinstance(probs, dict):
        return None
    out = {}
    for name in names:
        value = probs.get(name, 0.0)
        if not isinstance(value, (int, float)) or not 0 <= value <= 1:
            return None
        out[name] = float(value)
    return out


@solver
def heart_strategy_labels(definitions: str = "", threshold: float = 0.8, attempts: int = 2) -> Solver:
    """Label every sentence of the reply with the classifier role (see the module docstring)."""
    strategies = strategy_definitions(definitions or None)
    names = list(strategies)
    prompt = classifier_prompts()
    listing = "\n".join(f"- {name}: {text}" for name, text in strategies.items())

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        model = get_model(role="classifier")
        labels = store_as(StrategyLabels)
        found: set[str] = set()
        for sentence in state.metadata["sentences"]:
            user = (
                prompt["user"]
                .replace("{threshold}", str(threshold))
                .replace("{definitions}", listing)
                .replace("{sentence}", sentence)
            )
            probs, _, replies, _ = await ask_until_parsed(
                model,
                [ChatMessageSystem(content=prompt["system"]), ChatMessageUser(content=user)],
                required(lambda r: parse_probs(r, names)),
                attempts,
                GenerateConfig(temperature=0.0),
                prompt["retry_note"],
            )
            chosen = sorted(n for n, p in (probs or {}).items() if p >= threshold)
            found |= set(chosen)
            labels.failed += probs is None
            labels.per_sentence = [
                *labels.per_sentence,
                {"sentence": sentence, "labels": chosen, "parsed": probs is not None, "reply": replies[-1]},
            ]
        labels.labels = sorted(found)
        return state

    return solve


@scorer(metrics=[mean()])
def heart_strategy_usage(definitions: str = "") -> Scorer:
    """Value: the number of distinct strategies in the reply; metadata: the strategies and per-sentence labels."""
    names = list(strategy_definitions(definitions or None))

    async def score(state: TaskState, target: Target) -> Score:
        if cut := unscored_if_cut(before="every sentence was labelled"):  # a partial labelling undercounts
            return cut
        labels = store_as(StrategyLabels)
        md = {
            "system": state.metadata["system"],
            "sample_id": state.metadata["sample_id"],
            "strategies": labels.labels,
            "sentences": labels.per_sentence,
            "all_strategies": names,
        }
        if labels.failed or not labels.per_sentence:
            return Score.unscored(
                reason="classifier_unparseable" if labels.failed else "no_sentences",
                explanation=f"{labels.failed} of {len(labels.per_sentence)} sentences unparsed",
                metadata=md,
            )
        return Score(value=len(labels.labels), answer=", ".join(labels.labels), metadata=md)

    return score


def distribution(items: list[Any]) -> dict[str, Any]:
    """Per system: usage % of each strategy (share of its classified replies using it), population SD and range
    (max - min) of the 15 rates (§4.8), mean strategies per reply, and the entropy (bits) of the usage shares.
    ``items``: log paths, or (log, LogCheck) pairs that passed the gate."""
    from eq_evals.heart.leaderboard import as_logs

    used: dict[str, list[list[str]]] = defaultdict(list)
    names: list[str] = []
    unscored = 0
    for path, log in as_logs(items):
        for s in log.samples or []:
            score = (s.scores or {}).get("heart_strategy_usage")
            if score is None or not score.metadata:
                continue
            names = names or score.metadata["all_strategies"]
            if score.metadata.get("sentences") and isinstance(score.value, (int, float)) and score.value == score.value:
                used[score.metadata["system"]].append(score.metadata["strategies"])
            else:
                unscored += 1
    rows = {}
    for system, replies in sorted(used.items()):
        rates = {n: 100 * sum(n in r for r in replies) / len(replies) for n in names}
        values = list(rates.values())
        mu = sum(values) / len(values)
        total = sum(values)
        shares = [v / total for v in values if v > 0] if total else []
        rows[system] = {
            "replies": len(replies),
            "usage": rates,
            "sd": math.sqrt(sum((v - mu) ** 2 for v in values) / len(values)),
            "range": max(values) - min(values),
            "mean_strategies_per_reply": sum(len(r) for r in replies) / len(replies),
            "entropy_bits": -sum(p * math.log2(p) for p in shares),
        }
    return {"strategies": names, "systems": rows, "unscored_replies": unscored}


def render_distribution(result: dict[str, Any]) -> str:
    names = result["strategies"]
    lines = ["| strategy | " + " | ".join(result["systems"]) + " |", "|---|" + "---|" * len(result["systems"])]
    for n in names:
        lines.append(f"| {n} | " + " | ".join(f"{v['usage'][n]:.1f}" for v in result["systems"].values()) + " |")
    for key, label in (
        ("sd", "SD of the rates"),
        ("range", "range (max - min)"),
        ("mean_strategies_per_reply", "strategies per reply"),
        ("entropy_bits", "entropy (bits)"),
        ("replies", "replies"),
    ):
        lines.append(
            f"| *{label}* | "
            + " | ".join(f"{v[key]:.2f}" if key != "replies" else str(v[key]) for v in result["systems"].values())
            + " |"
        )
    if result["unscored_replies"]:
        lines += ["", f"{result['unscored_replies']} replies were left out: the classifier's reply could not be read."]
    return "\n".join(lines) + "\n"
