"""Bad declarations and task arguments are clear errors naming what is wrong, never a silent run (issue 12, items
3, 4 and 8): a misspelt task parameter, a broken overlay file, a prompt template lacking a dimension. (The bad
data rows of that issue are tested with their packages: tests/facet/test_facet_bad_rows.py, tests/ratings/
test_agreement_command.py, tests/longemotion/test_longemotion_data.py.)"""

from __future__ import annotations

from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval

import eq_evals._registry  # noqa: F401
from eq_evals.engine import parse_declaration
from eq_evals.errors import DeclarationError, EqEvalsError


def test_a_misspelled_task_parameter_is_an_error_listing_the_valid_ones(tmp_path: Path) -> None:
    with pytest.raises(EqEvalsError) as ex:
        inspect_eval(
            "eq_evals/facet_hidden",
            model="eq_evals/scripted-oracle",
            task_args={"langauge": "zh"},
            limit=1,
            log_dir=str(tmp_path),
            display="none",
        )
    message = str(ex.value)
    assert "unknown parameter(s) -T langauge (did you mean language?)" in message
    assert "valid parameters: language, source, normalize_labels" in message and "eq-evals list" in message
    assert not list(tmp_path.glob("*.eval"))  # nothing ran
    # declared parameters still work, typed
    [log] = inspect_eval(
        "eq_evals/facet_hidden",
        model="eq_evals/scripted-oracle",
        task_args={"language": "zh"},
        limit=1,
        epochs=1,
        log_dir=str(tmp_path),
        display="none",
    )
    assert log.status == "success" and log.samples[0].metadata["language"] == "zh"


OVERLAY_TASK = """
name: {name}
description: "A test task."
benchmark: facet
paper: "FACET §4.2"
parameters:
  language: {{type: str, default: en, choices: [en, zh, all], description: "Language."}}
dataset:
  adapter: facet_items
  args: {{dimensions: [crisis_recognition, social_adequacy], language: "${{language}}"}}
solver:
  - prompt_template: {{file: {template}, template_by: dimension}}
  - generate: {{}}
scorer:
  - facet_objective: {{}}
metrics: [mean]
"""


def test_a_broken_overlay_file_fails_alone_and_loudly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from eq_evals.cli import main as cli
    from eq_evals.engine import register_all

    (tmp_path / "tasks").mkdir()
    (tmp_path / "tasks" / "honest_ok.yaml").write_text(
        OVERLAY_TASK.format(name="honest_ok", template="facet/objective.yaml"), encoding="utf-8"
    )
    (tmp_path / "tasks" / "honest_broken.yaml").write_text("name: honest_broken\nsolver: [\n", encoding="utf-8")
    monkeypatch.setenv("EQ_EVALS_PATH", str(tmp_path))
    tasks = register_all()
    assert {"honest_ok", "facet_hidden", "sage", "honest_broken"} <= set(tasks)
    assert any(
        "honest_broken.yaml: line" in r.getMessage() and "invalid YAML" in r.getMessage()
        for r in caplog.records
        if r.levelname == "ERROR"
    )
    with pytest.raises(EqEvalsError, match=r"task honest_broken cannot be built: .*honest_broken.yaml: line \d+"):
        inspect_eval(
            "eq_evals/honest_broken", model="eq_evals/scripted-oracle", display="none", log_dir=str(tmp_path / "logs")
        )
    [log] = inspect_eval(
        "eq_evals/honest_ok", model="eq_evals/scripted-oracle", limit=2, log_dir=str(tmp_path / "logs"), display="none"
    )
    assert log.status == "success"
    assert cli(["list", "--benchmark", "sage"]) == 1  # the listing still lists, and says what is broken


def test_a_template_file_lacking_a_dimension_fails_before_any_sample_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from eq_evals.engine import register_all

    (tmp_path / "tasks").mkdir()
    (tmp_path / "solvers").mkdir()
    (tmp_path / "solvers" / "only_crisis.yaml").write_text(
        "templates:\n  crisis_recognition:\n    en: '{input} Level?'\n    zh: '{input} 几级？'\n", encoding="utf-8"
    )
    (tmp_path / "tasks" / "honest_tmpl.yaml").write_text(
        OVERLAY_TASK.format(name="honest_tmpl", template="only_crisis.yaml"), encoding="utf-8"
    )
    monkeypatch.setenv("EQ_EVALS_PATH", str(tmp_path))
    # the dataset lists its dimensions literally: caught when the declaration loads
    with pytest.raises(
        DeclarationError,
        match=r"honest_tmpl.yaml: solver\[0\]: only_crisis.yaml has no template for "
        r"dimension social_adequacy",
    ):
        parse_declaration(tmp_path / "tasks" / "honest_tmpl.yaml")
    # where the template names come from the data (here: each item's format), every sample is checked when the
    # task is built, before any model call
    (tmp_path / "solvers" / "by_format.yaml").write_text(
        "templates:\n  level_classification:\n    en: '{input} Level?'\n    zh: '{input} 几级？'\n", encoding="utf-8"
    )
    (tmp_path / "tasks" / "honest_tmpl.yaml").write_text(
        OVERLAY_TASK.format(name="honest_tmpl", template="by_format.yaml").replace(
            "template_by: dimension", "template_by: format"
        ),
        encoding="utf-8",
    )
    fn = register_all()["honest_tmpl"]
    with pytest.raises(
        EqEvalsError,
        match=r"honest_tmpl.yaml: solver\[0\]: .*by_format.yaml lacks template "
        r"'multiple_choice' \(needed by \d+ sample\(s\), e.g. ",
    ):
        fn()
