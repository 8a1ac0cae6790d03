"""List-like task parameters (``list: true``, docs/adding-a-task.md): ``inspect eval -T x=a,b`` passes a Python
list, a Python caller or a YAML default a comma-separated string; both reach the components as "a,b". Through
the real `inspect eval` command line for facet_pairwise (logs, dimensions), heart (judge_roles, opponents) and
longemotion_expression (emotions, top_k)."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import read_eval_log
from support import inspect_here

import eq_evals._registry  # noqa: F401
from eq_evals.engine import ParamDecl, coerce, comma_list, parse_declaration, register_all
from eq_evals.errors import DeclarationError, EqEvalsError
from eq_evals.heart.leaderboard import score_records

HEART_FIXTURE = str(Path(__file__).resolve().parents[1] / "fixtures" / "heart_histories.jsonl")
LIST_PARAMETERS = {
    "facet_pairwise": {"logs", "dimensions", "reuse"},
    "heart": {"opponents", "judge_roles"},
    "heart_strategies": {"logs"},
    "pace": {"field_map", "drop"},
    "pace_pairwise": {"logs", "drop"},
    "longemotion_conversation": {"stages"},
    "longemotion_expression": {"top_k", "top_k_initial", "emotions"},
}


@pytest.mark.parametrize(
    "value, expected",
    [
        (["a", "b"], "a,b"),  # -T x=a,b
        ("a,b", "a,b"),  # Python, YAML default
        (" a , b,", "a,b"),  # spaces and empty items dropped
        (["reference", "logs/"], "reference,logs/"),
        ([2, 4, 4, 4], "2,4,4,4"),  # -T top_k='[2, 4, 4, 4]'
        (["2", "4", "4", "4"], "2,4,4,4"),  # -T top_k=2,4,4,4
        (4, "4"),  # -T stages=4 arrives as an int
        ("", ""),
        ([], ""),
    ],
)
def test_a_list_parameter_has_one_form(value, expected) -> None:
    assert comma_list(value) == expected
    assert coerce(ParamDecl(type="str", description="x", list=True), value) == expected


def test_list_parameter_errors() -> None:
    p = ParamDecl(type="str", description="x", list=True, choices=["en", "zh"])
    assert coerce(p, ["zh", "en"]) == "zh,en"
    with pytest.raises(ValueError, match=r"'fr' not among \['en', 'zh'\]"):
        coerce(p, "en,fr")
    with pytest.raises(ValueError, match="expected a comma-separated list: a,b or \\[a, b\\]"):
        coerce(p, [["en"]])
    # a plain str parameter still refuses a list: only declared list parameters take one
    with pytest.raises(ValueError, match="expected str"):
        coerce(ParamDecl(type="str", description="x"), ["a", "b"])


def test_a_list_parameter_is_a_str(tmp_path: Path) -> None:
    from test_engine import VALID

    text = VALID.format(name="tmp_task").replace(
        'description: "Language."}', 'description: "Language."}\n  n: {type: int, list: true, description: "N."}'
    )
    (tmp_path / "tmp_task.yaml").write_text(text, encoding="utf-8")
    with pytest.raises(DeclarationError) as info:
        parse_declaration(tmp_path / "tmp_task.yaml")
    assert info.value.key == "parameters.n.list" and "a list parameter has type str" in info.value.problem


def test_the_bundled_list_parameters() -> None:
    from eq_evals.engine import DECLARATIONS

    register_all()
    found = {name: {p for p, d in decl.spec.parameters.items() if d.is_list} for name, decl in DECLARATIONS.items()}
    assert {name: params for name, params in found.items() if params} == LIST_PARAMETERS


def test_a_list_reaches_the_scorer_as_a_comma_separated_string() -> None:
    from inspect_ai._util.registry import registry_params

    heart = register_all()["heart"]
    for value in (["judge_one", "judge_two"], "judge_one, judge_two"):
        task = heart(source=HEART_FIXTURE, judge_roles=value)
        assert registry_params(task.scorer[0])["judge_roles"] == "judge_one,judge_two"
    with pytest.raises(EqEvalsError, match=r"parameter -T language=\['en', 'zh'\]: expected str"):
        heart(language=["en", "zh"])  # not a list parameter


def test_list_shows_the_form(capsys: pytest.CaptureFixture) -> None:
    from eq_evals.cli import main

    assert main(["list", "facet_pairwise"]) == 0
    out = capsys.readouterr().out
    assert "-T dimensions=None (str, comma-separated list: a,b or [a, b]): Comma-separated subset" in out
    assert "-T language='all' (str ['en', 'zh', 'all'])" in out


# ---------------------------------------------------------------------------------------------------------------
# the real command line


def inspect_cli(cwd: Path, *args: str) -> Path:
    """``inspect eval ...`` as a user types it in folder ``cwd`` (Inspect's click command, in this process); returns
    the one log it wrote."""
    logs = cwd / "cli-logs"
    with contextlib.chdir(cwd):
        code, output = inspect_here("eval", *args, "--log-dir", str(logs), "--display", "plain")
    assert code == 0, output[-3000:]
    [path] = list(logs.glob("*.eval"))
    path = path.rename(cwd / path.name)
    return path


def test_facet_pairwise_logs_and_dimensions_from_the_command_line(tmp_path: Path) -> None:
    gen = inspect_eval(
        "eq_evals/facet_interaction",
        model=["eq_evals/scripted-echo", "eq_evals/scripted-oracle"],
        sample_id=["pa-shared-001-en", "pa-shared-002-en"],
        log_dir=str(tmp_path / "gen"),
        display="none",
    )
    a, b = (Path(log.location) for log in gen)
    path = inspect_cli(
        tmp_path,
        "eq_evals/facet_pairwise",
        "-T",
        f"logs={a},{b}",
        "-T",
        "dimensions=emotion_matching,empathetic_understanding",
        "-T",
        "pairing=round_robin",
        "--model",
        "none",
        "--model-role",
        "grader=eq_evals/scripted-judge",
    )
    log = read_eval_log(str(path))
    assert log.status == "success" and log.eval.task == "eq_evals/facet_pairwise"
    assert log.eval.task_args["dimensions"] == ["emotion_matching", "empathetic_understanding"]  # as Inspect got it
    # two prompts x two dimensions x one pair of models
    assert (
        sorted(s.metadata["dimension"] for s in log.samples)
        == ["emotion_matching"] * 2 + ["empathetic_understanding"] * 2
    )
    from eq_evals.logcheck import check

    assert check(log, str(path)).task_args["dimensions"] == "emotion_matching,empathetic_understanding"


def test_heart_judge_roles_and_opponents_from_the_command_line(tmp_path: Path) -> None:
    [earlier] = inspect_eval(
        "eq_evals/heart",
        model="eq_evals/scripted-heart-warm",
        model_roles={"grader": "eq_evals/scripted-hjudge"},
        limit=2,
        task_args={"source": HEART_FIXTURE, "subset": "regular"},
        log_dir=str(tmp_path / "gen"),
        display="none",
    )
    assert earlier.status == "success", earlier.error
    path = inspect_cli(
        tmp_path,
        "eq_evals/heart",
        "-T",
        f"source={HEART_FIXTURE}",
        "-T",
        "subset=regular",
        "-T",
        "judge_roles=judge_one,judge_two",
        "-T",
        f"opponents=reference,{earlier.location}",
        "--model",
        "eq_evals/scripted-heart-plain",
        "--limit",
        "2",
        "--model-role",
        "judge_one=eq_evals/scripted-hjudge",
        "--model-role",
        "judge_two=eq_evals/scripted-hjudge-mild",
    )
    log = read_eval_log(str(path))
    assert log.status == "success", log.error
    records = [r for s in log.samples for r in score_records(s.scores["heart_pairwise"])]
    assert {r["judge"] for r in records} == {"eq_evals/scripted-hjudge", "eq_evals/scripted-hjudge-mild"}
    assert {r["system_b"] for r in records} == {"reference", "eq_evals/scripted-heart-warm"}


def test_longemotion_expression_emotions_from_the_command_line(tmp_path: Path) -> None:
    path = inspect_cli(
        tmp_path,
        "eq_evals/longemotion_expression",
        "-T",
        "fixtures=true",
        "-T",
        "emotions=Embarrassment,Guilt",
        "-T",
        "top_k=2,4,4,4",
        "--epochs",
        "1",
        "--model",
        "eq_evals/scripted-le_oracle",
        "--model-role",
        "grader=eq_evals/scripted-le_judge",
    )
    log = read_eval_log(str(path))
    assert log.status == "success", log.error
    assert [s.metadata["emotion"] for s in log.samples] == ["Embarrassment"]  # of Anger x3, Embarrassment x1
