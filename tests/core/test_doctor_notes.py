"""`eq-evals doctor`'s comparability notes (issue 22): a note names the task argument, role or item count that
differs and each value with its logs, never the whole argument record; arguments that only say where logs live
(HEART's growing `opponents`, docs/heart.md) do not make runs incomparable."""

from __future__ import annotations

from eq_evals.logcheck import LogCheck, comparability

PROMPT = "You are a careful, warm listener. " * 20  # a long argument that is the same in every log


def log(
    path: str, task: str = "facet_hidden", model: str = "m/a", ids: int = 60, roles: dict | None = None, **task_args
) -> LogCheck:
    return LogCheck(
        path=path,
        task=task,
        task_id=path,
        task_version="2",
        model=model,
        roles=roles or {},
        task_args={"prompt": PROMPT, "seed": 0, **task_args},
        dataset="-",
        sample_ids=[f"item-{i:03d}" for i in range(ids)],
        epochs=1,
        status="success",
    )


def test_a_note_names_the_differing_argument_and_its_values_only() -> None:
    [note] = comparability([log("a.eval", language="en"), log("b.eval", model="m/b", language="zh")])
    assert note == 'facet_hidden: logs differ in task arguments: language: "en" in a.eval; "zh" in b.eval'
    assert PROMPT.strip() not in note


def test_several_keys_an_unset_one_and_many_logs() -> None:
    logs = [log(f"{m}.eval", model=f"m/{m}", language="en") for m in "abcd"] + [log("z.eval", model="m/z", seed=1)]
    [note] = comparability(logs)
    assert note == (
        'facet_hidden: logs differ in task arguments: language: "en" in a.eval, b.eval and 2 more logs; '
        "(unset) in z.eval | seed: 0 in a.eval, b.eval and 2 more logs; 1 in z.eval"
    )


def test_item_sets_and_roles_are_summarised() -> None:
    notes = comparability([log("a.eval"), log("b.eval", model="m/b", ids=2, roles={"grader": "j/x"})])
    assert notes == [
        "facet_hidden: logs differ in item set: 60 items, 58 not in every log (e.g. item-002, item-003, "
        "item-004) in a.eval | 2 items in b.eval",
        "facet_hidden: logs differ in model roles (judge, simulated user, grader): grader: (unset) in "
        'a.eval; "j/x" in b.eval',
    ]
    assert all(len(n) < 300 for n in notes)


def test_heart_opponents_growing_with_each_system_is_comparable() -> None:
    """docs/heart.md: the first system runs against the reference, later ones with `opponents=reference,logs/`."""
    first = log("warm.eval", task="heart", model="m/warm", opponents="reference")
    later = log("terse.eval", task="heart", model="m/terse", opponents="reference,logs/warm.eval")
    assert comparability([first, later]) == []
    other = log("plain.eval", task="heart", model="m/plain", opponents="reference,logs/", rubric="paper")
    assert comparability([first, other]) == [
        'heart: logs differ in task arguments: rubric: (unset) in warm.eval; "paper" in plain.eval'
    ]
