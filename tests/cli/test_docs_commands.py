"""Every command line printed in README.md runs, through the real command-line parsers (issue 22; the machinery,
its substitutions and what it checks are described in tests/cli/docs_runner.py), and the checks of that machinery:
every printed line classified, the substitutions at work and all used, the installed console scripts."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from docs_runner import (
    CHECKS,
    HEART_FIXTURE,
    NOT_RUN,
    SCRIPTED,
    SUBSTITUTIONS,
    Workspace,
    blocks,
    classify,
    drop_optional,
    logical_lines,
    printed_block_test,
    shell_words,
    substitute,
    untagged_blocks,
)

test_printed_block_runs = printed_block_test(lambda doc: doc == "README.md")


def test_every_printed_line_is_classified_and_every_block_tagged() -> None:
    assert untagged_blocks() == [], "tag each block: ```bash for commands, ```text for anything else"
    unknown = [(b.id, line) for b in blocks() for line in b.lines if classify(line) == "unclassified"]
    assert unknown == [], "a printed line this test does not run: make it an inspect/eq-evals command or NOT_RUN"
    printed = {line for b in blocks() for line in b.lines}
    assert set(NOT_RUN) <= printed, f"NOT_RUN lists lines no doc prints: {sorted(set(NOT_RUN) - printed)}"
    elided = [
        line
        for line in printed
        if "..." in re.sub(r"\[[^]]*\]", "", line).replace("LOGS...", "") and classify(line) != "not run"
    ]
    assert elided == [], "a printed command with '...' cannot be run as printed: print the whole command"
    redirects = [line for line in printed if any(t in "<>|;&" for t in shell_words(line))]
    assert redirects == [], "a <placeholder> is a shell redirection: print a runnable word (OWNER/NAME, a model)"
    keyless = {b.doc for b in blocks() if b.marker == "no-keys"}
    assert keyless >= set(CHECKS), f"no keyless example in {sorted(set(CHECKS) - keyless)}"


def test_logical_lines_join_continuations_and_drop_comments() -> None:
    body = "# a comment\ninspect eval x \\\n    --model m   # trailing\n\neq-evals list 'a b'\n"
    assert logical_lines(body) == ["inspect eval x --model m", "eq-evals list 'a b'"]


def test_the_substitutions(
    tmp_path: Path, benchmark_logs, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The substitution table at work on printed lines: models by kind and role, consistent in a block, and data."""
    ws = Workspace(tmp_path / "w", "heart.md", request, monkeypatch)
    ws.cwd.mkdir()
    line = (
        "inspect eval eq_evals/heart --model openai/gpt-4.1-mini -M n_threads=1 "
        "--model-role grader=anthropic/claude,google/gemini -T source=release"
    )
    assert substitute(shlex.split(line), ws) == [
        *["inspect", "eval", "eq_evals/heart", "--model", SCRIPTED + "heart-warm"],
        *["--model-role", f"grader={SCRIPTED}hjudge,{SCRIPTED}hjudge-mild", "-T", f"source={HEART_FIXTURE}"],
        *["--limit", "2"],
    ]
    again = substitute(
        shlex.split("inspect eval eq_evals/heart --model openai/gpt-4o --model-role grader=google/gemini"), ws
    )
    assert again[4] == SCRIPTED + "heart-terse" and again[6] == f"grader={SCRIPTED}hjudge-mild"
    assert set(ws.used) == {"model", "model options", "limit", "heart release"}
    # a scripted model and none stay as printed; no substitution, no limit added
    printed = (
        "inspect eval eq_evals/facet_pairwise -T logs=gen/ --model none --model-role grader=eq_evals/scripted-judge"
    )
    ws2 = Workspace(tmp_path / "w2", "pairwise.md", request, monkeypatch)
    (ws2.cwd / "gen").mkdir(parents=True)
    assert substitute(shlex.split(printed), ws2) == shlex.split(printed) and ws2.used == {}
    # logs the block did not write: the session's logs of the kind the name stands for
    argv = substitute(shlex.split("eq-evals ratings judged/ objective/ --out ratings/"), ws2)
    assert argv == ["eq-evals", "ratings", "judged/", "objective/", "--out", "ratings/"]
    assert len(list((ws2.cwd / "judged").glob("*.eval"))) == len(benchmark_logs.paths("facet_pairwise"))
    assert len(list((ws2.cwd / "objective").glob("*.eval"))) == len(benchmark_logs.paths("facet_objective"))
    # YAML role values and synopsis brackets
    ws3 = Workspace(tmp_path / "w3", "sage.md", request, monkeypatch)
    ws3.cwd.mkdir()
    yaml_role = (
        "inspect eval eq_evals/sage --model a/b --model-role 'simulated_user={model: deepseek/x, temperature: 0.5}'"
    )
    assert (
        substitute(shlex.split(yaml_role), ws3)[6] == f"simulated_user={{model: {SCRIPTED}sage-user, temperature: 0.5}}"
    )
    assert drop_optional(["eq-evals", "x", "[--a", "b]", "--c"], ws3) == ["eq-evals", "x", "--c"]


def test_every_substitution_is_used() -> None:
    """No dead rows: each substitution is needed by some printed line (the rows are found by a dry look at the
    lines, not by running them)."""
    text = "\n".join(line for b in blocks() for line in b.lines)
    hints = {
        "model": "openai/",
        "model options": "-M n_threads",
        "limit": "--model openai/",
        "preset": "judge-check --judge openai/",
        "hub dataset": "source=hf://me/",
        "heart release": "source=release",
        "longemotion data": "data_dir=",
        "authors' file": "source=path/to/",
        "logs": "ratings judged/",
        "named log": "logs/heart.eval",
        "human labels": "--human labels.csv",
        "pace labels": "pace weights labels.csv",
        "pace alpha": "pace weights battles/",
        "hub": "hub push ",
        "prices": "--model-cost-config prices.yaml",
        "optional": "[--",
    }
    assert set(hints) == set(SUBSTITUTIONS)
    assert [row for row, hint in hints.items() if hint not in text] == []


def test_the_console_scripts_run(tmp_path: Path) -> None:
    """The installed entry points themselves, as a shell runs them: `eq-evals` and `inspect eval` of a task of
    eq-evals (found through the package's Inspect entry point, under its eq_evals/ prefix)."""
    bindir = Path(sys.executable).parent
    env = dict(os.environ, HF_HUB_OFFLINE="1", INSPECT_LOG_DIR=str(tmp_path / "logs"), INSPECT_DISPLAY="none")
    listed = subprocess.run(
        [str(bindir / "eq-evals"), "list", "facet_crisis"], capture_output=True, text=True, env=env, timeout=300
    )
    assert listed.returncode == 0 and listed.stdout.startswith("eq_evals/facet_crisis  [facet]"), listed.stderr
    ran = subprocess.run(
        [str(bindir / "inspect"), "eval", "eq_evals/facet_crisis", "--model", "eq_evals/scripted-oracle"]
        + ["--limit", "2", "--epochs", "1"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=300,
    )
    assert ran.returncode == 0, ran.stdout[-2000:] + ran.stderr[-2000:]
    assert len(list((tmp_path / "logs").glob("*.eval"))) == 1
