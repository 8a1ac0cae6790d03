"""PACE's part of a profile (docs/profile.md): one reply per item in both languages, rated by the PACE-AB board
(four agents; the Chief Arbitrator's deterministic weighted sum gives the composite EQ) bound to the judge."""

from __future__ import annotations

from eq_evals.profile.spec import MODEL, Calls, ProfileTask, text_of, tokens

REPLY, AGENT_REPLY = 250, 150  # a reply to the query; an agent's JSON score with its short rationale
AGENT_PROMPT = 280  # an agent's rubric around the query and the reply (scorers/pace/)


def _pace(sample, ctx):
    query = tokens(text_of(sample))
    reply = ctx.reply(REPLY)
    return [Calls(MODEL, 1, query, reply), Calls("judge", 4, AGENT_PROMPT + query + reply, ctx.helper(AGENT_REPLY))]


PROFILE = [
    ProfileTask(
        benchmark="pace",
        task="pace",
        args={"language": "all"},
        group_by=("language",),
        per_group={"quick": 2, "standard": 10, "full": None},
        roles=("judge",),
        estimate=_pace,
        label="four dimensions and the composite EQ (PACE-AB board)",
    ),
]
