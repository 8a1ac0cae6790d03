"""LongEmotion's part of a profile (docs/profile.md): its six tasks with the Base method, the judged ones
(conversation, summary, expression) by the judge. It needs the release's data: ``--longemotion-data DIR`` (a local
copy), ``hub`` (download it), ``fixtures`` (the project's small fixtures: a smoke test, not the benchmark), or the
LONGEMOTION_DATA_DIR environment variable; without any, it is listed as not run."""

from __future__ import annotations

import json
import os
from typing import Any

from eq_evals.longemotion.data import ENV_DATA_DIR
from eq_evals.profile.spec import MODEL, Calls, ProfileTask, Unavailable, text_of, tokens

SHORT, LONG, VERDICT = 60, 600, 200  # a label or short answer; a summary, counsellor reply or narrative; a verdict
JUDGE_PROMPT = 600
STAGE_PROMPT = 150  # the instructions of one stage of the expression conversation
JUDGED = {"conversation", "summary", "expression"}
# the model calls of one sample: expression is one conversation (PANAS ratings, then the narrative's stages)
MODEL_CALLS = {"expression": 6}


def _context(sample, *fields: str) -> int:
    meta = sample.metadata or {}
    skip = ("data_source", "task", "reference", "choices", "labels")
    values = [meta.get(f) for f in fields] if fields else [v for k, v in meta.items() if k not in skip]
    return tokens(*(v if isinstance(v, str) else json.dumps(v, ensure_ascii=False) for v in values if v))


def _estimate(kind: str):
    def estimate(sample, ctx):
        size = _context(sample) + tokens(text_of(sample)) + 150
        out = ctx.reply(LONG if kind in JUDGED else SHORT)
        if kind == "expression":  # one conversation: each stage sees the earlier ones
            n = MODEL_CALLS[kind]
            return [
                Calls(MODEL, n, size + (n - 1) / 2 * (STAGE_PROMPT + out), out),
                Calls("judge", 1, JUDGE_PROMPT + n * out, ctx.helper(VERDICT)),
            ]
        calls = [Calls(MODEL, 1, size, out)]
        if kind == "summary":  # the judge compares the summary with the expert reference
            calls.append(Calls("judge", 1, JUDGE_PROMPT + _context(sample, "reference") + out, ctx.helper(VERDICT)))
        elif kind in JUDGED:
            calls.append(Calls("judge", 1, JUDGE_PROMPT + size + out, ctx.helper(VERDICT)))
        return calls

    return estimate


def _data(options: dict[str, Any]) -> Unavailable | None:
    if options.get("longemotion_data") or os.environ.get(ENV_DATA_DIR):
        return None
    return Unavailable(
        "no LongEmotion data given (the release is not bundled)",
        f"--longemotion-data DIR (a copy of the release), --longemotion-data hub (download it), or set {ENV_DATA_DIR}",
    )


def _args(options: dict[str, Any]) -> dict[str, Any]:
    where = options.get("longemotion_data")
    if where == "fixtures":
        return {"fixtures": True}
    if where and where != "hub":
        return {"data_dir": where}
    return {}


PROFILE = [
    ProfileTask(
        benchmark="longemotion",
        task=f"longemotion_{kind}",
        group_by=(),
        per_group={"quick": 2, "standard": 10, "full": None},
        roles=("judge",) if kind in JUDGED else (),
        estimate=_estimate(kind),
        available=_data,
        args_for=_args,
        label=f"long context: {kind}",
    )
    for kind in ("classification", "detection", "qa", "conversation", "summary", "expression")
]
