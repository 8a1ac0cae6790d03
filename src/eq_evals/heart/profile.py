"""HEART's part of a profile (docs/profile.md): one supporter turn per history in each language, judged by the
judge against the reference reply, and against the replies of earlier profiles' models (``--opponents``)."""

from __future__ import annotations

from eq_evals.profile.spec import MODEL, Calls, ProfileTask, text_of, tokens

REPLY, VERDICT = 50, 250  # a supporter turn of at most 40 words; the judge's H/E/A/R/T verdicts
JUDGE_PROMPT = 1250  # the judge's rubric around the history and the two replies


def _heart(sample, ctx):
    history = tokens(text_of(sample))
    reply = ctx.reply(REPLY)
    has_reference = bool((sample.metadata or {}).get("reference_response"))
    comparisons = int(has_reference) + ctx.opponents
    return [
        Calls(MODEL, 1, history + 300, reply),  # the generation prompt around the history
        Calls("judge", comparisons, JUDGE_PROMPT + history + 2 * reply, ctx.helper(VERDICT)),
    ]


PROFILE = [
    ProfileTask(
        benchmark="heart",
        task="heart",
        args={"language": language},
        group_by=("subset",),
        per_group={"quick": 2, "standard": 10, "full": None},
        roles=("judge",),
        estimate=_heart,
        opponents_arg="opponents",
        label=f"supporter turn, judged against the reference ({language})",
    )
    for language in ("en", "zh")
]
