"""Declarations that include fragments (docs/adding-a-task.md, "Shared keys: fragments"): every bundled task
builds exactly as the committed snapshot says, and the merge rules and their errors."""

from __future__ import annotations

import pytest
import task_snapshot


def test_every_built_task_matches_the_committed_snapshot(monkeypatch: pytest.MonkeyPatch) -> None:
    """A rewrite of the declarations (e.g. into fragments) must not change any built task. After a deliberate
    change, regenerate the snapshot with `python -m tests.task_snapshot --write` and review its diff."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.delenv("LONGEMOTION_DATA_DIR", raising=False)
    monkeypatch.delenv("EQ_EVALS_PATH", raising=False)
    import json

    current = json.loads(json.dumps(task_snapshot.describe_all(), ensure_ascii=False, default=str))
    diff = task_snapshot.differences(task_snapshot.load_snapshot(), current)
    assert not diff, "built tasks differ from tests/fixtures/built_tasks.json:\n" + "\n".join(diff[:40])


# ---------------------------------------------------------------------------------------------------------------
# the merge rules


def test_merge_nested_mappings_key_by_key_and_replaces_lists_and_scalars() -> None:
    from eq_evals.engine import merge

    base = {
        "a": 1,
        "config": {"max_tokens": 128, "stop_seqs": ["</answer>"]},
        "metrics": ["mean", "stderr"],
        "parameters": {"language": {"type": "str", "default": "en", "choices": ["en", "zh"]}},
    }
    override = {
        "config": {"max_tokens": 4096},
        "metrics": ["accuracy"],
        "b": 2,
        "parameters": {"language": {"default": "zh", "choices": ["zh"]}, "split": {"type": "str"}},
    }
    merged = merge(base, override)
    assert merged == {
        "a": 1,
        "config": {"max_tokens": 4096, "stop_seqs": ["</answer>"]},
        "metrics": ["accuracy"],
        "parameters": {"language": {"type": "str", "default": "zh", "choices": ["zh"]}, "split": {"type": "str"}},
        "b": 2,
    }
    assert list(merged) == ["a", "config", "metrics", "parameters", "b"]  # the base's order, new keys after
    assert list(merged["parameters"]) == ["language", "split"]
    assert base["config"] == {"max_tokens": 128, "stop_seqs": ["</answer>"]}  # the inputs are left as they were
    # a mapping over a non-mapping (or the reverse) replaces it: only two mappings merge
    assert merge({"x": [1]}, {"x": {"k": 1}}) == {"x": {"k": 1}}
    assert merge({"x": {"k": 1}}, {"x": None}) == {"x": None}


FRAGMENT = """
benchmark: facet
parameters:
  language: {type: str, default: en, choices: [en, zh, all], description: "Language."}
  normalize_labels: {type: bool, default: true, description: "Normalise."}
dataset:
  adapter: facet_items
  args: {dimensions: [crisis_recognition], language: "${language}"}
solver:
  - prompt_template: {file: facet/objective.yaml, template_by: dimension}
  - generate: {}
scorer:
  - facet_objective: {normalize: "${normalize_labels}"}
metrics: [mean, stderr]
epochs: {count: 3, reducer: mean}
config: {max_tokens: 128, stop_seqs: ["</answer>"]}
"""


def _write(folder, name: str, text: str):
    import textwrap

    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return path


def _task(name: str, include: str, extra: str = "") -> str:
    return f'include: {include}\nname: {name}\ndescription: "A test task."\npaper: "FACET §4.2"\n{extra}'


def test_a_declaration_extends_and_overrides_its_fragment(tmp_path) -> None:
    from eq_evals.engine import build_task, parse_declaration

    _write(tmp_path, "_base.yaml", FRAGMENT)
    path = _write(
        tmp_path,
        "my_task.yaml",
        _task(
            "my_task",
            "_base.yaml",
            """
parameters:
  language: {default: zh}
  split: {type: str, default: all, choices: [all, single, multi], description: "Split."}
metrics: [mean]
epochs: {count: 1}
config: {max_tokens: 64}
""",
        ),
    )
    decl = parse_declaration(path)
    spec = decl.spec
    assert list(spec.parameters) == ["language", "normalize_labels", "split"]
    assert spec.parameters["language"].default == "zh" and spec.parameters["language"].choices == ["en", "zh", "all"]
    assert spec.metrics == ["mean"]  # a list replaces the fragment's whole
    assert spec.epochs.count == 1 and spec.epochs.reducer == "mean"
    assert spec.config == {"max_tokens": 64, "stop_seqs": ["</answer>"]}
    assert [f.name for f, _ in decl.layers] == ["_base.yaml", "my_task.yaml"]
    task = build_task(decl)
    assert {s.metadata["language"] for s in task.dataset} == {"zh"} and task.epochs == 1


def test_includes_in_a_list_apply_in_order_and_fragments_include_fragments(tmp_path) -> None:
    from eq_evals.engine import parse_declaration, read_declaration

    _write(tmp_path, "_root.yaml", FRAGMENT)
    _write(tmp_path, "_short.yaml", "include: _root.yaml\nconfig: {max_tokens: 32}\nepochs: {count: 2}\n")
    _write(tmp_path, "_long.yaml", "config: {max_tokens: 999, temperature: 0.5}\n")
    path = _write(tmp_path, "my_task.yaml", _task("my_task", "[_short.yaml, _long.yaml]", "epochs: {count: 5}\n"))
    merged = read_declaration(path)
    assert "include" not in merged
    assert merged["config"] == {"max_tokens": 999, "stop_seqs": ["</answer>"], "temperature": 0.5}
    assert merged["epochs"] == {"count": 5, "reducer": "mean"}
    decl = parse_declaration(path)
    assert [f.name for f, _ in decl.layers] == ["_root.yaml", "_short.yaml", "_long.yaml", "my_task.yaml"]


def test_fragments_are_never_tasks(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    from eq_evals.engine import declaration_files, load_declarations_tolerant

    _write(tmp_path / "tasks" / "mine", "_base.yaml", FRAGMENT)
    _write(tmp_path / "tasks" / "mine", "my_overlay_task.yaml", _task("my_overlay_task", "_base.yaml"))
    monkeypatch.setenv("EQ_EVALS_PATH", str(tmp_path))
    files = declaration_files()
    assert not [f for f in files if f.name.startswith("_")]  # neither the user's nor the bundled fragments
    decls, broken = load_declarations_tolerant()
    assert "my_overlay_task" in {d.spec.name for d in decls} and not broken


def test_a_user_overlay_includes_the_bundled_fragments(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A declaration in an EQ_EVALS_PATH folder finds ``_objective.yaml`` in the package's tasks/facet/ (the same
    folder below tasks/), or by its path below tasks/ (``facet/_objective.yaml``); a fragment of the same name
    beside it wins."""
    from eq_evals.engine import build_task, parse_declaration
    from eq_evals.resources import declarative_root

    monkeypatch.setenv("EQ_EVALS_PATH", str(tmp_path))
    extra = "version: 1\ndataset:\n  args: {dimensions: [crisis_recognition]}\n"
    same_folder = _write(tmp_path / "tasks" / "facet", "my_crisis.yaml", _task("my_crisis", "_objective.yaml", extra))
    decl = parse_declaration(same_folder)
    assert decl.layers[-2][0] == declarative_root() / "tasks" / "facet" / "_objective.yaml"
    assert decl.spec.scorer == [
        {
            "facet_objective": {
                "rules": "facet/objective.yaml",
                "normalize": "${normalize_labels}",
                "cross_language": "${cross_language_labels}",
            }
        }
    ]
    assert len(build_task(decl, language="zh").dataset) == 60
    by_path = _write(tmp_path / "tasks", "my_crisis2.yaml", _task("my_crisis2", "facet/_objective.yaml", extra))
    assert parse_declaration(by_path).spec.epochs.count == 3
    _write(tmp_path / "tasks" / "facet", "_objective.yaml", FRAGMENT.replace("count: 3", "count: 7"))
    assert parse_declaration(same_folder).spec.epochs.count == 7  # the user's own fragment beside it


# ---------------------------------------------------------------------------------------------------------------
# errors name the file, the key and the problem


def test_a_missing_fragment_is_named(tmp_path) -> None:
    from eq_evals.engine import parse_declaration
    from eq_evals.errors import DeclarationError

    path = _write(tmp_path, "my_task.yaml", _task("my_task", "_nope.yaml"))
    with pytest.raises(DeclarationError) as info:
        parse_declaration(path)
    assert info.value.file == str(path) and info.value.key == "include"
    assert info.value.problem.startswith("_nope.yaml does not exist (looked in ")
    path = _write(tmp_path, "my_task.yaml", _task("my_task", "[_base.yaml, _nope.yaml]"))
    _write(tmp_path, "_base.yaml", FRAGMENT)
    with pytest.raises(DeclarationError, match=r"my_task.yaml: include\[1\]: _nope.yaml does not exist"):
        parse_declaration(path)


def test_an_include_cycle_is_named_with_its_chain(tmp_path) -> None:
    from eq_evals.engine import parse_declaration
    from eq_evals.errors import DeclarationError

    _write(tmp_path, "_a.yaml", "include: _b.yaml\nbenchmark: facet\n")
    _write(tmp_path, "_b.yaml", "include: _a.yaml\n")
    path = _write(tmp_path, "my_task.yaml", _task("my_task", "_a.yaml"))
    with pytest.raises(DeclarationError) as info:
        parse_declaration(path)
    assert info.value.file == str(tmp_path / "_b.yaml") and info.value.key == "include"
    assert "include cycle " in info.value.problem
    assert info.value.problem.endswith(
        "my_task.yaml -> " + " -> ".join(str(tmp_path / n) for n in ("_a.yaml", "_b.yaml", "_a.yaml"))
    )
    itself = _write(tmp_path, "my_task.yaml", _task("my_task", "my_task.yaml"))
    with pytest.raises(DeclarationError, match="my_task.yaml: include: my_task.yaml is already being included"):
        parse_declaration(itself)


@pytest.mark.parametrize("fragment", ["- a list\n", "just text\n", ""])
def test_a_fragment_that_is_not_a_mapping_is_named(tmp_path, fragment: str) -> None:
    from eq_evals.engine import parse_declaration
    from eq_evals.errors import DeclarationError

    (tmp_path / "_base.yaml").write_text(fragment, encoding="utf-8")
    path = _write(tmp_path, "my_task.yaml", _task("my_task", "_base.yaml"))
    with pytest.raises(DeclarationError) as info:
        parse_declaration(path)
    assert info.value.file == str(tmp_path / "_base.yaml") and info.value.key == "(top level)"
    assert info.value.problem == f"an included file must be a YAML mapping (included from {path})"


def test_bad_include_values_and_broken_fragments(tmp_path) -> None:
    from eq_evals.engine import parse_declaration
    from eq_evals.errors import DeclarationError

    for value in ("3", "[]", "{a: 1}", "[_base.yaml, 4]"):
        path = _write(tmp_path, "my_task.yaml", _task("my_task", value))
        with pytest.raises(DeclarationError, match=r"my_task.yaml: include: expected a file name or a list"):
            parse_declaration(path)
    _write(tmp_path, "_base.yaml", "benchmark: facet\nsolver: [\n")
    path = _write(tmp_path, "my_task.yaml", _task("my_task", "_base.yaml"))
    with pytest.raises(DeclarationError, match=r"_base.yaml: line \d+: invalid YAML"):
        parse_declaration(path)


def test_an_error_in_an_included_key_names_the_fragment_that_set_it(tmp_path) -> None:
    from eq_evals.engine import parse_declaration
    from eq_evals.errors import DeclarationError

    _write(
        tmp_path,
        "_base.yaml",
        FRAGMENT.replace("- generate: {}", "- generat: {}").replace("default: en,", "default: fr,"),
    )
    path = _write(tmp_path, "my_task.yaml", _task("my_task", "_base.yaml", "parameters:\n  language: {default: zh}\n"))
    with pytest.raises(DeclarationError) as info:
        parse_declaration(path)
    assert info.value.file == str(path) and info.value.key == "solver[1]"
    assert info.value.problem.endswith(f"(set in {tmp_path / '_base.yaml'})")
    # a key the declaration itself sets is its own: no note
    _write(tmp_path, "_base.yaml", FRAGMENT)
    path = _write(tmp_path, "my_task.yaml", _task("my_task", "_base.yaml", "parameters:\n  language: {default: fr}\n"))
    with pytest.raises(DeclarationError) as info:
        parse_declaration(path)
    assert info.value.key == "parameters.language.default" and "set in" not in info.value.problem
    # a pydantic error in a fragment's key
    _write(tmp_path, "_base.yaml", FRAGMENT.replace("type: bool", "type: boolean"))
    path = _write(tmp_path, "my_task.yaml", _task("my_task", "_base.yaml"))
    with pytest.raises(DeclarationError) as info:
        parse_declaration(path)
    assert info.value.key == "parameters.normalize_labels.type" and "(set in " in info.value.problem


def test_the_documented_overlay_example_includes_the_bundled_fragment(
    tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/adding-a-task.md, "Fragments": the user's variant of facet_crisis, in an EQ_EVALS_PATH folder."""
    import re
    from pathlib import Path

    from eq_evals.engine import build_task, load_declarations

    doc = (Path(__file__).resolve().parents[2] / "docs" / "adding-a-task.md").read_text(encoding="utf-8")
    [(name, text)] = re.findall(r"<!-- include-example: (\S+) -->\n```yaml\n(.*?)```", doc, flags=re.DOTALL)
    (tmp_path / name).parent.mkdir(parents=True)
    (tmp_path / name).write_text(text, encoding="utf-8")
    monkeypatch.setenv("EQ_EVALS_PATH", str(tmp_path))
    [decl] = [d for d in load_declarations() if d.spec.name == "facet_crisis_long"]
    assert decl.spec.config == {"max_tokens": 1024, "stop_seqs": ["</answer>"]}
    assert decl.spec.epochs.count == 1 and decl.spec.epochs.reducer == "mean"
    task = build_task(decl, language="zh")
    assert len(task.dataset) == 60 and task.config.max_tokens == 1024 and task.epochs == 1
