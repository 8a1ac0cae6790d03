"""SAGE's part of a profile (docs/profile.md): dialogues with the simulated user in both languages; the score is
the simulated user's final emotion."""

from __future__ import annotations

from eq_evals.profile.spec import MODEL, Calls, ProfileTask, tokens

REPLY, USER_REPLY, UPDATE = 150, 60, 120  # the model's turn; the user's next message; an emotion update
TURNS = 10  # the task's max_turns: the plan assumes every dialogue runs to the end (an early end costs less)
USER_PROMPT = 900  # persona, hidden intention and instructions of the simulated user (solvers/sage/simulator.yaml)


def _sage(sample, ctx):
    meta = sample.metadata or {}
    first = tokens(meta.get("first_talk") or "")
    turn = REPLY + USER_REPLY
    # the model sees the dialogue so far: on average half of it, plus its system prompt
    model_in = 100 + first + turn * (TURNS - 1) / 2
    user_in = USER_PROMPT + tokens(meta.get("player") or "", meta.get("scene") or "") + turn * TURNS / 2
    return [
        Calls(MODEL, TURNS, model_in, min(REPLY, ctx.max_tokens or REPLY)),
        Calls("simulated_user", 2 * (TURNS - 1), user_in, (UPDATE + USER_REPLY) / 2),
    ]


PROFILE = [
    ProfileTask(
        benchmark="sage",
        task="sage",
        args={"language": "all"},
        group_by=("language",),
        per_group={"quick": 1, "standard": 5, "full": None},
        roles=("simulated_user",),
        estimate=_sage,
        label="multi-turn dialogue with a simulated user",
    ),
]
