"""Preparing a known-answer pair for the benchmark's own scorer (docs/judges.md); the ``judge_check`` scorer
calls :func:`prepare` before it runs that scorer, so the tasks have no solver step of their own (as the
benchmarks' judging tasks have none).

- For a ``self`` pair it asks the judge model to write its own reply to the item (``solvers/judges/own_reply.yaml``),
  degrades it with the ``harmful`` construction and makes it the worse contestant, named after the model that
  wrote it (so the card can match the judge's family, ``eq_evals.core.text.family``).
- For HEART it puts the worse reply where HEART's scorer reads the candidate's reply (the ``HeartReply`` store and
  the output); the good reply is the sample's ``reference_response``.

The tested model (``--model``) is never called: run the tasks with ``--model none``.
"""

from __future__ import annotations

import re

from inspect_ai.model import ChatMessageUser, GenerateConfig, Model, ModelOutput, get_model, model_roles
from inspect_ai.solver import TaskState
from inspect_ai.util import store_as

from eq_evals.core.text import final_reply
from eq_evals.errors import EqEvalsError
from eq_evals.judges import degrade
from eq_evals.judges.pairs import KEY
from eq_evals.resources import load_yaml

OWN_FILE = "judges/own_reply.yaml"
BOARD_ROLES = ("pace_pa", "pace_aa", "pace_cg", "pace_gs")


def own_prompts() -> dict:
    data = load_yaml("solvers", OWN_FILE)
    for key in ("roles", "templates", "generation"):
        if key not in data:
            raise ValueError(f"solvers/{OWN_FILE}: needs '{key}'")
    for language in ("en", "zh"):
        if "{context}" not in data["templates"].get(language, ""):
            raise ValueError(f"solvers/{OWN_FILE}: templates.{language} needs a {{context}} placeholder")
    return data


def own_writer(benchmark: str) -> Model:
    """The model whose own replies the self-preference probe judges: the judge (the first ``grader``; for the
    PACE board the first agent role that is bound, else ``grader``)."""
    bound = model_roles()
    roles = (*BOARD_ROLES, "grader") if benchmark in ("pace", "pace_board") else ("grader",)
    for role in roles:
        if role in bound:
            value = bound[role]
            return value[0] if isinstance(value, list) else value
    model = get_model(role="grader")
    if str(model).startswith("none"):
        raise EqEvalsError(
            "the judge check needs a judge: --model-role grader=<model> (the tested model is not used; "
            "run with --model none)"
        )
    return model


def clean(text: str) -> str:
    """The reply without reasoning blocks or a leading label; one paragraph, whitespace collapsed."""
    text = re.sub(r"<think>.*?</think>", "", text or "", flags=re.DOTALL)
    text = final_reply(text).strip().strip('"“”')
    text = re.sub(r"^\s*(?:\[?(?:Your reply|Reply|你的回复|回复)\]?\s*[:：]?\s*)", "", text)
    return " ".join(text.split())


async def prepare(state: TaskState, benchmark: str) -> None:
    """Make the sample ready for ``benchmark``'s scorer (see the module doc)."""
    md = state.metadata
    block = md.get(KEY)
    if not isinstance(block, dict):
        raise EqEvalsError(f"sample {state.sample_id}: not a judge-check sample (no '{KEY}' metadata)")
    if block.get("probe") == "self" and "own_model" not in block:
        spec = own_prompts()
        writer = own_writer(benchmark)
        language = block["language"] if block["language"] in ("en", "zh") else "en"
        prompt = (
            spec["templates"][language]
            .replace("{role}", spec["roles"][benchmark][language])
            .replace("{context}", block.get("own_context") or str(state.input_text))
        )
        output = await writer.generate([ChatMessageUser(content=prompt)], config=GenerateConfig(**spec["generation"]))
        own = clean(output.completion)
        worse = degrade.degrade("harmful", own, block["item"], language, block.get("kind", "reply")) or ""
        md["response_a"] = " ".join(worse.split())
        md["model_a"] = str(writer)
        block.update(own_model=str(writer), own_reply=own, own_empty=not own)
    if benchmark == "heart":
        from eq_evals.heart import prompts
        from eq_evals.heart.scorer import HeartReply

        text = md["response_a"]
        reply = store_as(HeartReply)
        reply.raw = reply.text = text
        reply.length, reply.over_limit = prompts.reply_length(text, md.get("language", "en")) if text else (0, False)
        reply.empty = not text
        state.output = ModelOutput.from_content(model="judgecheck", content=text)
