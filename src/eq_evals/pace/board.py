"""PACE-AB, the multi-agent evaluation board (PACE paper §3.2; docs/pace.md, 'The board').

Four reviewer agents, each its own Inspect model role falling back to ``grader``, rate one dimension each:
Perceptive Analyst (P, ``pace_pa``), Attunement Auditor (A, ``pace_aa``), Conviction Guardian (C,
``pace_cg``), Guidance Strategist (E, ``pace_gs``). They are called concurrently, once (one round, no
debate). The Chief Arbitrator (``pace_ca``) combines them: by default deterministically, EQ = Σ W̄(X)·Score(X)
(Causal-PACE Definition 3.2) with the paper's weights (§5.2); as an option an LLM arbitrator.

An agent reply is JSON ``{"score": 0-10, "rationale": ...}``; an unreadable reply is asked again with a
correction note, then that dimension is missing with the reason and the composite renormalises over the
dimensions present (docs/pace-weights.md), a score marked ``partial_composite`` (docs/pace.md, "The board"). A
call that fails (a judge outage, after Inspect's own retries) raises ``JudgeOutage``: the sample errors, so
``inspect eval-retry`` judges it again (docs/ratings.md, "Samples that did not finish").
"""

from __future__ import annotations

import asyncio
import json
import math
import re
from dataclasses import asdict, dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Callable

from inspect_ai.model import ChatMessageSystem, ChatMessageUser, GenerateConfig, Model, get_model, model_roles
from inspect_ai.util import span

from eq_evals.core.view import note
from eq_evals.errors import EqEvalsError
from eq_evals.pairwise.judge import ask_until_parsed
from eq_evals.ratings.causal_pace import DIMENSIONS, composite_eq, normalize, resolve_weights
from eq_evals.resources import load_yaml

BOARD_FILE = "pace/board.yaml"
AGENT_CODES = {"pa": "P", "aa": "A", "cg": "C", "gs": "E"}  # -T drop=PA also works
LANGUAGE_FIELDS = ("agent", "dimension", "definition", "focus", "low", "high")
JUDGE_CONFIG = GenerateConfig(
    temperature=0.0
)  # judges at temperature 0, a project choice (docs/pace.md, `pace` parameters)


@cache
def load_board(file: str = BOARD_FILE) -> dict[str, Any]:
    """The board's prompts (scorers/<file>), checked: four agents with every text in en and zh."""
    data = load_yaml("scorers", file)
    where = f"scorers/{file}"
    agents = data.get("agents")
    if not isinstance(agents, dict) or set(agents) != set(DIMENSIONS):
        raise ValueError(f"{where}: 'agents' must map exactly {list(DIMENSIONS)}")
    for dim, spec in agents.items():
        if not isinstance(spec.get("role"), str):
            raise ValueError(f"{where}: agents.{dim}.role is missing")
        for f in LANGUAGE_FIELDS:
            if not isinstance(spec.get(f), dict) or set(spec[f]) < {"en", "zh"}:
                raise ValueError(f"{where}: agents.{dim}.{f} needs an en and a zh text")
    for key in ("system", "pointwise", "pairwise", "retry"):
        if not isinstance(data.get(key), dict) or set(data[key]) < {"en", "zh"}:
            raise ValueError(f"{where}: '{key}' needs an en and a zh text")
    for key in ("arbitrator", "overall"):
        spec = data.get(key)
        if (
            not isinstance(spec, dict)
            or not isinstance(spec.get("role"), str)
            or not all(isinstance(spec.get(p), dict) and set(spec[p]) >= {"en", "zh"} for p in ("system", "user"))
        ):
            raise ValueError(f"{where}: '{key}' needs a role and system/user texts in en and zh")
    return data


def fill(template: str, values: dict[str, str], texts: dict[str, str]) -> str:
    """Format ``template``; ``texts`` (user message, replies) go in last, so braces in them stay literal."""
    marks = {k: f"\x00{i}\x00" for i, k in enumerate(texts)}
    out = template.format_map({**values, **marks})
    for k, mark in marks.items():
        out = out.replace(mark, texts[k])
    return out.strip()


# --------------------------------------------------------------------------------------------- parsing

FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)


def json_object(text: str) -> dict[str, Any]:
    """The first JSON object in a reply (inside a ``` fence or anywhere); ValueError if there is none."""
    text = text or ""
    candidates = FENCE.findall(text) + [text]
    decoder = json.JSONDecoder()
    for chunk in candidates:
        for start in [m.start() for m in re.finditer(r"\{", chunk)]:
            try:
                value, _ = decoder.raw_decode(chunk[start:])
            except json.JSONDecodeError:
                continue
            if isinstance(value, dict):
                return value
    raise ValueError("no JSON object in the reply")


def _score(value: Any, what: str) -> float:
    if isinstance(value, str) and re.fullmatch(r"\s*\d+(\.\d+)?\s*", value):
        value = float(value)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
        raise ValueError(f"{what} is not a number: {value!r}")
    if not 0 <= value <= 10:
        raise ValueError(f"{what} {value} is outside 0-10")
    return float(value)


def parse_report(text: str) -> dict[str, Any]:
    """``{"score": 0-10, "rationale": "..."}`` from an agent's reply."""
    data = json_object(text)
    return {"score": _score(data.get("score"), "score"), "rationale": str(data.get("rationale", "")).strip()}


def parse_pair_report(text: str) -> dict[str, dict[str, Any]]:
    """``{"A": {"score", "rationale"}, "B": {...}}`` from an agent's reply in a battle."""
    data = json_object(text)
    out = {}
    for letter in ("A", "B"):
        entry = data.get(letter)
        if not isinstance(entry, dict):
            raise ValueError(f"no report for reply {letter}")
        out[letter] = {
            "score": _score(entry.get("score"), f"{letter}.score"),
            "rationale": str(entry.get("rationale", "")).strip(),
        }
    return out


def parse_arbitration(text: str) -> dict[str, Any]:
    data = json_object(text)
    return {"eq": _score(data.get("eq"), "eq"), "rationale": str(data.get("rationale", "")).strip()}


def parse_preference(text: str) -> dict[str, Any]:
    data = json_object(text)
    winner = str(data.get("winner", "")).strip().upper()
    if winner not in ("A", "B", "TIE"):
        raise ValueError(f"winner {data.get('winner')!r} is not A, B or tie")
    return {"winner": "tie" if winner == "TIE" else winner, "rationale": str(data.get("rationale", "")).strip()}


# --------------------------------------------------------------------------------------------- weights


def dropped(drop: str | None) -> list[str]:
    """``-T drop=P`` / ``drop=GS,CG``: dimension codes or agent abbreviations -> dimension codes."""
    out = []
    for part in (drop or "").split(","):
        part = part.strip()
        if not part:
            continue
        dim = AGENT_CODES.get(part.lower(), part.upper())
        if dim not in DIMENSIONS:
            raise EqEvalsError(
                f"-T drop={drop}: {part!r} is neither a dimension ({', '.join(DIMENSIONS)}) nor an "
                f"agent ({', '.join(a.upper() for a in AGENT_CODES)})"
            )
        out.append(dim)
    if len(set(out)) >= len(DIMENSIONS):
        raise EqEvalsError(f"-T drop={drop} leaves no agent on the board")
    return sorted(set(out), key=DIMENSIONS.index)


def board_weights(weights: str = "paper", drop: str | None = None) -> tuple[dict[str, float], str]:
    """The Chief Arbitrator's weights W̄ over the agents on the board, renormalised, and their source.

    ``paper``: the paper's §5.2 values (0.430/0.161/0.202/0.206, renormalised); ``equal``: 0.25 each (the
    project's reading of the "w/o CA" ablation of Table 2: PACE paper §5.4 does not say what replaces the CA); a file:
    fitted weights.
    ``drop`` removes agents ("w/o PA" etc.) and renormalises the rest.
    """
    try:
        raw, source = resolve_weights(weights)
    except (ValueError, TypeError) as ex:
        raise EqEvalsError(
            f"-T weights={weights}: expected paper, equal or a JSON file written by eq-evals pace weights: {ex}"
        ) from None
    source = source if weights in ("paper", "equal") else f"{source}:{Path(weights).name}"
    out = {d: raw[d] for d in DIMENSIONS if d not in dropped(drop)}
    if sum(out.values()) <= 0:
        raise EqEvalsError(f"weights {weights} give the agents on the board a total weight of 0")
    return normalize(out), source + (f" without {','.join(dropped(drop))}" if drop else "")


def combine(
    scores: dict[str, float | None], weights: dict[str, float]
) -> tuple[float | None, dict[str, float], list[str]]:
    """Deterministic Chief Arbitrator: EQ = Σ W̄(X)·Score(X) over the dimensions present, the weights
    renormalised over them. Returns (eq or None when none is present, the weights used, missing dims)."""
    present = {d: s for d, s in scores.items() if d in weights and s is not None}
    missing = [d for d in weights if d not in present]
    if not present:
        return None, {}, missing
    used = normalize({d: weights[d] for d in present})
    return composite_eq(present, used), used, missing


# --------------------------------------------------------------------------------------------- roles


def role_model(role: str) -> Model:
    """The model bound to ``role``, else to ``grader``; EqEvalsError when neither is bound."""
    bound = model_roles()
    if role in bound:
        return get_model(role=role)
    if "grader" in bound:
        return get_model(role="grader")
    raise EqEvalsError(f"no model for role {role}")


def check_roles(roles: list[str]) -> None:
    """Stop before any model call when a board role has neither its own binding nor ``grader``."""
    bound = model_roles()
    missing = [r for r in roles if r not in bound]
    if missing and "grader" not in bound:
        raise EqEvalsError(
            "the PACE board needs judge models: bind --model-role grader=<model> (every agent falls back to it) "
            f"or each of {', '.join(missing)} (e.g. --model-role pace_pa=<model>). The tested model never judges "
            "itself."
        )


def board_roles(
    drop: str | None = None, ca_mode: str = "deterministic", overall: bool = False, file: str = BOARD_FILE
) -> list[str]:
    board = load_board(file)
    roles = [board["agents"][d]["role"] for d in DIMENSIONS if d not in dropped(drop)]
    if ca_mode == "llm":
        roles.append(board["arbitrator"]["role"])
    if overall:
        roles.append(board["overall"]["role"])
    return roles


# --------------------------------------------------------------------------------------------- calls


class JudgeOutage(RuntimeError):
    """A board call failed (after Inspect's own retries): the sample errors and ``inspect eval-retry`` repeats it."""


@dataclass
class Report:
    """One agent's (or the arbitrator's / overall judge's) result for one call."""

    dimension: str
    agent: str
    role: str
    model: str
    result: dict[str, Any] | None
    attempts: int
    problem: str | None = None
    replies: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _lang(language: str) -> str:
    return language if language in ("en", "zh") else "en"


def agent_messages(board: dict, dim: str, language: str, user: str, texts: dict[str, str]) -> list:
    lang = _lang(language)
    spec = board["agents"][dim]
    values = {f: spec[f][lang] for f in LANGUAGE_FIELDS}
    return [
        ChatMessageSystem(content=fill(board["system"][lang], values, {})),
        ChatMessageUser(content=fill(board[user][lang], values, texts)),
    ]


def judge_config(max_tokens: int | None = None) -> GenerateConfig:
    """Generation settings of every board call: temperature 0 [ours]; ``max_tokens`` None = the task's."""
    return GenerateConfig(temperature=0.0, max_tokens=max_tokens)


async def call(
    model: Model,
    messages: list,
    parse: Callable[[str], Any],
    attempts: int,
    note: str,
    *,
    dimension: str,
    agent: str,
    role: str,
    title: str,
    config: GenerateConfig = JUDGE_CONFIG,
) -> Report:
    async with span(title):
        try:
            result, used, replies, problem = await ask_until_parsed(model, messages, parse, attempts, config, note)
        except Exception as ex:
            # a judge that errors after Inspect's own retries (an outage) errors the sample, so `inspect
            # eval-retry` judges it again; a composite renormalised around it would be a silent partial number
            # (docs/ratings.md, "Samples that did not finish")
            raise JudgeOutage(
                f"PACE board: the call of {agent} ({dimension}, role {role}, {model}) failed: {type(ex).__name__}: {ex}"
            ) from ex
    if result is None:
        problem = f"unparseable after {used} attempt(s): {problem}"
    report = Report(dimension, agent, role, str(model), result, used, problem, replies)
    label(report, title, model.role)
    return report


def verdict_text(result: dict[str, Any] | None) -> str:
    """What a board call concluded, in a few words: ``7/10``, ``A 7/10, B 8/10``, ``EQ 6.50``, ``prefers A``."""
    if result is None:
        return "unreadable"
    if "A" in result and "B" in result:
        return f"A {result['A']['score']:g}/10, B {result['B']['score']:g}/10"
    if "eq" in result:
        return f"EQ {result['eq']:.2f}"
    if "winner" in result:
        return "tie" if result["winner"] == "tie" else f"prefers {result['winner']}"
    return f"{result['score']:g}/10"


def label(report: Report, title: str, called_as: str | None = None) -> None:
    """Follow a board call in the transcript with an INFO block: the agent, what it judged (``title`` names the
    dimension and, in a battle, the order shown) and its verdict, with the rationale (core/view.py). ``called_as``:
    the role the model was bound to (``grader`` when the agent's own role is not bound)."""
    role = report.role if called_as in (None, report.role) else f"{report.role} (unbound: {called_as})"
    body = (
        f"{report.agent} (dimension {report.dimension}), role `{role}`, model `{report.model}`, "
        f"{report.attempts} attempt{'s' if report.attempts != 1 else ''}."
    )
    result = report.result or {}
    for key in ("A", "B"):
        if isinstance(result.get(key), dict):
            body += f"\n\n**Reply {key}: {result[key]['score']:g}/10.** {result[key]['rationale']}"
    if result.get("rationale"):
        body += f"\n\n{result['rationale']}"
    if report.result is None:
        body += f"\n\nNo verdict: {report.problem}"
    note(f"{title} → {verdict_text(report.result)}", body)


async def review(
    board: dict,
    dims: list[str],
    language: str,
    attempts: int,
    texts: dict[str, str],
    pairwise: bool = False,
    label: str = "",
    config: GenerateConfig = JUDGE_CONFIG,
) -> dict[str, Report]:
    """Every agent on the board rates its own dimension, concurrently (one round)."""
    lang = _lang(language)

    async def one(dim: str) -> Report:
        spec = board["agents"][dim]
        return await call(
            role_model(spec["role"]),
            agent_messages(board, dim, lang, "pairwise" if pairwise else "pointwise", texts),
            parse_pair_report if pairwise else parse_report,
            attempts,
            board["retry"][lang],
            dimension=dim,
            agent=spec["agent"]["en"],
            role=spec["role"],
            title=f"{spec['agent']['en']} ({dim}){label}",
            config=config,
        )

    reports = await asyncio.gather(*(one(d) for d in dims))
    return dict(zip(dims, reports))


async def arbitrate(
    board: dict,
    language: str,
    attempts: int,
    query: str,
    reply: str,
    scores: dict[str, float | None],
    rationales: dict[str, str],
    weights: dict[str, float],
    eq_formula: float,
    label: str = "",
    config: GenerateConfig = JUDGE_CONFIG,
) -> Report:
    """LLM Chief Arbitrator (ca_mode=llm; docs/pace.md, 'The board'): sees the reports, weights and the weighted sum."""
    lang = _lang(language)
    spec = board["arbitrator"]
    names = {d: board["agents"][d]["agent"][lang] for d in DIMENSIONS}
    reports = "\n".join(
        f"- {names[d]} ({d}): "
        + (f"{scores[d]:g}/10. {rationales.get(d, '')}" if scores.get(d) is not None else "missing")
        for d in scores
    )
    values = {"weights": ", ".join(f"{d}={w:.3f}" for d, w in weights.items()), "formula": f"{eq_formula:.3f}"}
    messages = [
        ChatMessageSystem(content=spec["system"][lang].strip()),
        ChatMessageUser(content=fill(spec["user"][lang], values, {"query": query, "reply": reply, "reports": reports})),
    ]
    return await call(
        role_model(spec["role"]),
        messages,
        parse_arbitration,
        attempts,
        board["retry"][lang],
        dimension="eq",
        agent="Chief Arbitrator",
        role=spec["role"],
        title=f"Chief Arbitrator (LLM){label}",
        config=config,
    )


async def prefer(
    board: dict,
    language: str,
    attempts: int,
    query: str,
    reply_a: str,
    reply_b: str,
    label: str = "",
    config: GenerateConfig = JUDGE_CONFIG,
) -> Report:
    """The independent overall-preference judgement (role pace_overall): no dimension scores shown."""
    lang = _lang(language)
    spec = board["overall"]
    messages = [
        ChatMessageSystem(content=spec["system"][lang].strip()),
        ChatMessageUser(content=fill(spec["user"][lang], {}, {"query": query, "reply_a": reply_a, "reply_b": reply_b})),
    ]
    return await call(
        role_model(spec["role"]),
        messages,
        parse_preference,
        attempts,
        board["retry"][lang],
        dimension="overall",
        agent="Overall preference",
        role=spec["role"],
        title=f"Overall preference{label}",
        config=config,
    )
