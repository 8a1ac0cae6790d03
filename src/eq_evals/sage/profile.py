"""SAGE's part of a profile (docs/profile.md): dialogues with the simulated user in both languages; the score is
the simulated user's final emotion."""

from __future__ import annotations

from eq_evals.profile.spec import MODEL, Calls, ProfileTask, tokens

REPLY, USER_REPLY, UPDATE = 150, 60, 120  # the model's turn; the user's next message; an emotion update
TURNS = 10  # the task's max_turns: the plan assumes every dialogue runs to the end (an early end costs less)
USER_PROMPT = 960  # persona, hidden intention and instructions of the simulated user (solvers/sage/simulator.yaml)


def _sage(sample, ctx):
    meta = sample.metadata or {}
    first = tokens(meta.get("first_talk") or "")
    reply, user_reply = ctx.reply(REPLY), ctx.helper(USER_REPLY)
    turn = reply + user_reply
    # the model sees its system prompt, the first message and the dialogue so far (on average half of it); the
    # simulated user its instructions, persona, scene and the dialogue so far
    model_in = 50 + first + turn * (TURNS - 1) / 2
    user_in = USER_PROMPT + first + tokens(meta.get("player") or "", meta.get("scene") or "") + turn * (TURNS - 2) / 2
    return [
        Calls(MODEL, TURNS, model_in, reply),
        Calls("simulated_user", 2 * (TURNS - 1), user_in, (ctx.helper(UPDATE) + user_reply) / 2),
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
