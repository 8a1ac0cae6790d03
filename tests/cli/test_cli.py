"""The eq-evals console script: one command tree (docs/cli.md), found by walking the packages, every command with
examples in its --help, old spellings as aliases that say so, a listing that behaves in a pipe, and warnings
without Python source lines (issue 13)."""

from __future__ import annotations

import argparse
import contextlib
import io
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from eq_evals.cli import build_parser, main

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "datasets").glob("*/README.md"))]


def run_cli(*args: str) -> subprocess.CompletedProcess:
    """The console script's ``main`` in this process (what ``eq-evals ARGS`` runs), its exit status and output; the
    real entry point in a process of its own is exercised by the closed-pipe test below and tests/packaging."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(list(args))
        except SystemExit as ex:  # argparse: --version, usage errors
            status = ex.code if isinstance(ex.code, int) else 1
    return subprocess.CompletedProcess(["eq-evals", *args], status, out.getvalue(), err.getvalue())


def _children(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _tree(
    parser: argparse.ArgumentParser, path: tuple[str, ...] = ()
) -> list[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    out = [(path, parser)]
    for name, child in _children(parser).items():
        out += _tree(child, (*path, name))
    return out


def documented_spellings() -> set[tuple[str, ...]]:
    """The command words of every `eq-evals ...` in a code block or code span of the README and docs/."""
    parser, found = build_parser(), set()
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        text = re.sub(r"```bibtex\n.*?```", "", text, flags=re.DOTALL)  # citations name eq-evals, not a command
        code = re.findall(r"```[a-z]*\n(.*?)```", text, flags=re.DOTALL) + re.findall(r"`([^`\n]+)`", text)
        for snippet in code:
            for words in re.findall(r"(?<![\w/-])eq-evals((?: +[a-z][a-z0-9_-]*)+)", snippet):
                node, spelling = parser, []
                for word in words.split():
                    child = _children(node).get(word)
                    if child is None:
                        break
                    node, spelling = child, [*spelling, word]
                assert spelling, f"{doc.name}: `eq-evals{words}` names no command"
                found |= {tuple(spelling[:n]) for n in range(1, len(spelling) + 1)}  # `hub push`: `hub` too
    return found


def test_every_documented_spelling_parses_and_the_tree_is_documented(capsys: pytest.CaptureFixture) -> None:
    spellings = documented_spellings()
    # every command of the tree is documented (docs/cli.md), and every documented spelling gives its help
    tree = {path for path, _ in _tree(build_parser()) if path}
    assert tree <= spellings, f"undocumented: {sorted(tree - spellings)}"
    for spelling in sorted(spellings):
        with pytest.raises(SystemExit) as done:
            main([*spelling, "--help"])
        assert done.value.code == 0, spelling
        assert "examples:\n  eq-evals" in capsys.readouterr().out, spelling


def test_every_help_shows_an_example() -> None:
    for path, parser in _tree(build_parser()):
        help_text = parser.format_help()
        assert "examples:" in help_text and "  eq-evals " in help_text.split("examples:")[1], path


def test_version() -> None:
    from importlib.metadata import version

    result = run_cli("--version")
    assert result.returncode == 0 and result.stdout.strip() == f"eq-evals {version('eq-evals')}"


def test_benchmark_groups_are_discovered_not_listed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    """A new benchmark package with a cli module gets its group without an edit to the top-level CLI."""
    import eq_evals
    from eq_evals.commands import benchmark_modules

    assert set(benchmark_modules()) == {"facet", "heart", "longemotion", "pace", "sage"}
    package = tmp_path / "zzbench"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "cli.py").write_text(
        "from eq_evals.commands import add_group, add_parser\n\n"
        "def register(sub):\n"
        "    group = add_group(sub, 'zzbench', help='a test benchmark', examples=['eq-evals zzbench hello'])\n"
        "    p = add_parser(group, 'hello', help='say hello', examples=['eq-evals zzbench hello'])\n"
        "    p.set_defaults(func=lambda args: print('hello from zzbench') or 0)\n",
        encoding="utf-8",
    )
    monkeypatch.setattr(eq_evals, "__path__", [*eq_evals.__path__, str(tmp_path)])
    try:
        assert main(["zzbench", "hello"]) == 0
        assert capsys.readouterr().out == "hello from zzbench\n"
    finally:
        for name in ("eq_evals.zzbench.cli", "eq_evals.zzbench"):
            sys.modules.pop(name, None)


def test_generic_validate_runs_facet_and_old_options_are_a_deprecated_alias(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    file = tmp_path / "items.jsonl"
    file.write_text('{"id": "x"}\n', encoding="utf-8")
    assert main(["validate", str(file)]) == 1  # FACET's validator ran: a schema error
    captured = capsys.readouterr()
    assert "missing field 'dimension'" in captured.out and "deprecated" not in captured.err
    assert main(["facet", "validate", str(file), "--skip", "text_classifier"]) == 1
    assert "deprecated" not in capsys.readouterr().err
    # the spelling from before the facet group: FACET's options on the generic command still work, with a note
    assert main(["validate", str(file), "--skip", "text_classifier", "--margin", "0.3"]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err == [
        "eq-evals: note: `eq-evals validate` with facet's options (--skip, --margin) is deprecated; "
        "use `eq-evals facet validate`"
    ]


def test_facet_validate_options_reach_the_thresholds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each FACET limit option sets its own ``Thresholds`` field; the others keep the limits file's values."""
    from dataclasses import replace

    import eq_evals.facet.validate as validate

    seen = []

    def run(files, authors, thresholds, checks):  # stop before any check runs
        seen.append(thresholds)
        raise KeyboardInterrupt

    monkeypatch.setattr(validate, "run", run)
    argv = ["facet", "validate", str(tmp_path), "--margin", "0.31", "--folds", "7", "--same-scenario", "9.5"]
    with pytest.raises(KeyboardInterrupt):
        main([*argv, "--same-scenario-bilingual", "4.5", "--length-ratio", "1.5", "2.5", "--min-items", "11"])
    expected = replace(
        validate.Thresholds(),
        margin=0.31,
        folds=7,
        same_scenario_z=9.5,
        same_scenario_z_bilingual=4.5,
        length_ratio=(1.5, 2.5),
        min_items=11,
    )
    assert seen == [expected]


def test_doctor_alias_check(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["check", str(tmp_path)]) == 2  # the doctor's own message for a folder without logs
    assert f"no Inspect logs found at {tmp_path}" in capsys.readouterr().err


def test_list_is_one_line_per_task_by_default() -> None:
    from eq_evals.engine import load_declarations

    names = sorted(d.spec.name for d in load_declarations())
    result = run_cli("list")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert sorted(line.split()[0] for line in lines) == [f"eq_evals/{n}" for n in names]
    assert len(lines) == len(names)
    facet = run_cli("list", "--benchmark", "facet").stdout.splitlines()
    assert facet and all(line.split()[1] == "facet" for line in facet)


def test_list_task_and_long_print_parameters_and_sample_counts() -> None:
    result = run_cli("list", "--long", "--benchmark", "facet")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    for name in ("facet_apparent", "facet_hidden", "facet_prediction", "facet_social", "facet_crisis"):
        assert f"eq_evals/{name}" in out
    assert "-T language='en' (str ['en', 'zh', 'all'])" in out
    assert "samples: en: 60 (level_classification 60); zh: 60 (level_classification 60)" in out
    assert "unavailable" not in out
    one = run_cli("list", "eq_evals/facet_crisis", "sage").stdout
    assert one.startswith("eq_evals/facet_crisis  [facet]\n") and "\neq_evals/sage  [sage]\n" in one
    assert "-T language=" in one and "eq_evals/facet_hidden" not in one


def test_list_explains_tasks_built_from_logs_and_counts_sage() -> None:
    out = run_cli("list", "--long").stdout
    assert "eq_evals/facet_pairwise" in out and "samples: built from -T logs;" in out
    sage = out.split("eq_evals/sage ")[1]
    assert "samples: zh: 32; en: 32;" in sage


def test_list_unknown_benchmark_or_task_is_an_error_naming_the_known_ones() -> None:
    result = run_cli("list", "--benchmark", "nosuch")
    assert result.returncode == 2 and result.stdout == ""
    assert (
        result.stderr == "eq-evals: error: unknown benchmark 'nosuch'; known benchmarks: facet, heart, judges, "
        "longemotion, pace, sage\n"
    )
    assert run_cli("list", "--benchmark", "FACET").returncode == 0
    task = run_cli("list", "facet_hiden")
    assert task.returncode == 2 and "unknown task 'facet_hiden'; did you mean eq_evals/facet_hidden" in task.stderr


def test_a_closed_pipe_ends_the_listing_quietly() -> None:
    """`eq-evals list | head`: the reader is gone before the listing writes; no traceback."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "eq_evals.cli", "list"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    proc.stdout.close()  # before the child has written anything (its imports take a second)
    err = proc.stderr.read()
    assert proc.wait(timeout=120) == 141
    assert "Traceback" not in err and "BrokenPipeError" not in err and "Exception ignored" not in err, err


def test_unknown_command_fails_cleanly() -> None:
    result = run_cli("frobnicate")
    assert result.returncode == 2 and "invalid choice" in result.stderr


def test_cli_warning_without_source_line_and_clean_paths(
    tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    import eq_evals.commands.listing as listing

    def noisy(args) -> int:  # noqa: ANN001
        warnings.warn("bradley_terry: perfect separation (never lost: ['a'])", RuntimeWarning, stacklevel=1)
        return 0

    monkeypatch.setattr(listing, "cmd_list", noisy)
    assert main(["list"]) == 0
    err = capsys.readouterr().err
    assert err == "eq-evals: warning: bradley_terry: perfect separation (never lost: ['a'])\n"
