"""The declarative engine: valid declarations register typed tasks; broken ones fail with file, key, problem."""

from __future__ import annotations

import inspect
import textwrap
from pathlib import Path

import pytest

from eq_evals.engine import build_task, load_declarations, parse_declaration, register_all
from eq_evals.errors import DeclarationError, EqEvalsError

FACET_TASKS = {"facet_apparent", "facet_hidden", "facet_prediction", "facet_social", "facet_crisis", "facet_objective"}

VALID = """
name: {name}
description: "A test task."
benchmark: facet
paper: "FACET §4.2"
parameters:
  language: {{type: str, default: en, choices: [en, zh, all], description: "Language."}}
dataset:
  adapter: facet_items
  args: {{dimensions: [crisis_recognition], language: "${{language}}"}}
solver:
  - prompt_template: {{file: facet/objective.yaml, template_by: dimension}}
  - generate: {{}}
scorer:
  - facet_objective: {{}}
metrics: [mean, stderr]
epochs: {{count: 2, reducer: mean}}
"""


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / f"{name}.yaml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def test_every_bundled_declaration_registers_a_task() -> None:
    tasks = register_all()
    assert FACET_TASKS <= set(tasks)
    assert {d.spec.name for d in load_declarations()} <= set(tasks)


def test_registered_task_has_typed_parameters_and_namespace() -> None:
    from inspect_ai._util.registry import registry_info

    fn = register_all()["facet_hidden"]
    assert registry_info(fn).name == "eq_evals/facet_hidden"
    params = inspect.signature(fn).parameters
    assert params["language"].default == "en" and params["language"].annotation is str
    assert params["normalize_labels"].annotation is bool


def test_valid_declaration_builds_a_task(tmp_path: Path) -> None:
    decl = parse_declaration(write(tmp_path, "tmp_task", VALID.format(name="tmp_task")))
    task = build_task(decl, language="zh")
    assert task.epochs == 2
    assert {s.metadata["language"] for s in task.dataset} == {"zh"}
    assert all(s.metadata["dimension"] == "crisis_recognition" for s in task.dataset)


@pytest.mark.parametrize(
    "mutate, key, problem",
    [
        (lambda t: t.replace("benchmark: facet\n", "benchmark: facet\nextra_key: 1\n"), "extra_key", "Extra inputs"),
        (lambda t: t.replace('description: "A test task."\n', ""), "description", "Field required"),
        (lambda t: t.replace("- generate: {}", "- generat: {}"), "solver[1]", "unknown solver 'generat'"),
        (lambda t: t.replace("facet_objective: {}", "facet_objectiv: {}"), "scorer[0]", "unknown scorer"),
        (
            lambda t: t.replace('"${language}"', '"${lang}"'),
            "dataset.adapter",
            "${lang} does not name a declared parameter",
        ),
        (lambda t: t.replace("default: en,", "default: [en],"), "parameters.language.default", "expected str"),
        (lambda t: t.replace("default: en,", "default: fr,"), "parameters.language.default", "is not one of"),
        (lambda t: t.replace("facet/objective.yaml", "facet/nope.yaml"), "solver[0]", "does not exist"),
        (
            lambda t: t.replace("metrics: [mean, stderr]", "config: {temperatur: 1}\nmetrics: [mean]"),
            "config",
            "invalid generate config",
        ),
        (lambda t: t.replace("template_by: dimension", "template: nope"), "solver[0]", "has no template 'nope'"),
        (
            lambda t: t.replace("template_by: dimension}", "template_by: dimension, bogus: 1}"),
            "solver[0]",
            "bad arguments",
        ),
        (lambda t: t.replace("metrics: [mean, stderr]", "metrics: [meen]"), "metrics[0]", "unknown metric"),
        (lambda t: t.replace("reducer: mean", "reducer: avg"), "epochs.reducer", "not one of"),
        (lambda t: t.replace("count: 2", "count: 0"), "epochs.count", "greater than or equal to 1"),
        (lambda t: t.replace("name: tmp_task", "name: other"), "name", "must equal the file name"),
        (lambda t: t.replace("type: str,", "type: string,"), "parameters.language.type", "Input should be"),
    ],
)
def test_broken_declaration_names_file_key_and_problem(tmp_path: Path, mutate, key: str, problem: str) -> None:
    path = write(tmp_path, "tmp_task", mutate(VALID.format(name="tmp_task")))
    with pytest.raises(DeclarationError) as info:
        parse_declaration(path)
    err = info.value
    assert str(path) in str(err)
    assert err.key == key, str(err)
    assert problem in err.problem, str(err)


def test_invalid_yaml_reports_the_line(tmp_path: Path) -> None:
    path = write(tmp_path, "tmp_task", "name: tmp_task\nsolver: [\n  - generate: {}\n description: x\n")
    with pytest.raises(DeclarationError, match=r"tmp_task.yaml: line \d+: invalid YAML"):
        parse_declaration(path)


def test_duplicate_task_names_are_rejected(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "tasks").mkdir()
    (tmp_path / "tasks" / "facet_hidden.yaml").write_text(VALID.format(name="facet_hidden"), encoding="utf-8")
    monkeypatch.setenv("EQ_EVALS_PATH", str(tmp_path))
    with pytest.raises(DeclarationError, match="also declared in"):
        load_declarations()


def test_extra_declaration_folder_adds_a_task(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "tasks").mkdir()
    write(tmp_path / "tasks", "my_crisis", VALID.format(name="my_crisis"))
    monkeypatch.setenv("EQ_EVALS_PATH", str(tmp_path))
    assert "my_crisis" in {d.spec.name for d in load_declarations()}


def test_bad_task_argument_is_a_clear_error() -> None:
    fn = register_all()["facet_crisis"]
    with pytest.raises(EqEvalsError, match=r"facet_crisis: parameter -T language='fr'"):
        fn(language="fr")
    with pytest.raises(EqEvalsError, match=r"-T normalize_labels=3: expected bool"):
        fn(normalize_labels=3)
    task = fn(normalize_labels="false", language="zh")  # CLI strings are coerced
    assert len(task.dataset) > 0


def test_required_parameter(tmp_path: Path) -> None:
    text = VALID.format(name="tmp_task").replace(
        'description: "Language."}',
        'description: "Language."}\n  logs: {type: str, required: true, description: "Logs."}',
    )
    decl = parse_declaration(write(tmp_path, "tmp_task", text))
    with pytest.raises(EqEvalsError, match=r"tmp_task: parameter -T logs=\.\.\. is required: Logs\."):
        build_task(decl)
    bad = text.replace("required: true,", "required: true, default: x,")
    with pytest.raises(DeclarationError, match="a required parameter cannot have a default"):
        parse_declaration(write(tmp_path, "tmp_task", bad))
