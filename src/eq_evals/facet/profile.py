"""FACET's part of a profile (docs/profile.md): the five objective dimensions and the interaction replies in both
languages, then the interaction replies judged pairwise (both orders) by the judge, every pair of models."""

from __future__ import annotations

from eq_evals.profile.spec import MODEL, Calls, ProfileTask, text_of, tokens

# Typical output per call (tokens): an objective answer is a label in <answer> tags; an interaction reply a few
# paragraphs; a judge verdict reasons before its JSON (docs/pairwise.md, '2. The judging task').
ANSWER, REPLY, VERDICT = 30, 300, 350
RUBRIC = 1650  # the pairwise rubric, dimension and length penalty around the two replies (scorers/facet/pairwise.yaml)


def _objective(sample, ctx):
    return [Calls(MODEL, 1, tokens(text_of(sample)), ctx.reply(ANSWER))]


def _interaction(sample, ctx):
    return [Calls(MODEL, 1, tokens(text_of(sample)), ctx.reply(REPLY))]


def _pairwise(sample, ctx):
    # per judged dimension and pair of models: the judge in both orders, seeing the prompt and both replies
    return [Calls("judge", 2, RUBRIC + tokens(text_of(sample)) + 2 * ctx.reply(REPLY), ctx.helper(VERDICT))]


PROFILE = [
    ProfileTask(
        benchmark="facet",
        task="facet_objective",
        args={"language": "all"},
        group_by=("language", "dimension"),
        per_group={"quick": 2, "standard": 10, "full": None},
        estimate=_objective,
        label="perception and cognition (objective items)",
    ),
    ProfileTask(
        benchmark="facet",
        task="facet_interaction",
        args={"language": "all"},
        group_by=("language", "pool"),
        per_group={"quick": 1, "standard": 5, "full": None},
        estimate=_interaction,
        label="interaction replies",
    ),
    ProfileTask(
        benchmark="facet",
        task="facet_pairwise",
        args={"pairing": "round_robin"},
        roles=("judge",),
        judges="facet_interaction[language=all]",
        units=lambda sample: len((sample.metadata or {}).get("judge_dimensions") or [None]),
        estimate=_pairwise,
        label="interaction, judged pairwise",
    ),
]
