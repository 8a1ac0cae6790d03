"""docs/architecture.md, "Adding a benchmark", followed step by step: a toy benchmark (declaration and data in an
EQ_EVALS_PATH folder, one package with parts, a leaderboard section and a CLI verb) is found without touching
eq-evals, its task runs through Inspect, `eq-evals ratings` shows its section and its verb runs."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval

import eq_evals
from eq_evals import components, sections
from eq_evals.cli import main

DECLARATION = """\
name: toy_echo
description: "A toy benchmark: does the reply contain the item's keyword?"
benchmark: toy
paper: "docs/architecture.md, Adding a benchmark"
version: 1
parameters: {}
dataset:
  adapter: toy_items
  args: {file: toy/items.jsonl}
solver:
  - generate: {}
scorer:
  - toy_exact: {}
metrics: [mean]
epochs: {count: 1, reducer: mean}
config: {max_tokens: 32}
"""

COMPONENTS = """
from inspect_ai.dataset import Sample
from inspect_ai.scorer import Score, Target, mean, scorer

from eq_evals.components import register
from eq_evals.core.limits import unscored_if_cut
from eq_evals.core.text import check_text, final_reply, read_jsonl
from eq_evals.resources import display_path, resource


@register("dataset", "toy_items")
def toy_items(file: str) -> list[Sample]:
    path = resource("datasets", file)
    return [Sample(id=row["id"], input=check_text(row["input"], display_path(path), n, "input"), target=row["keyword"])
            for n, row in read_jsonl(path, display_path(path), objects=True)]


@scorer(metrics=[mean()])
def toy_exact():
    async def score(state, target: Target) -> Score:
        cut = unscored_if_cut()
        if cut is not None:
            return cut
        return Score(value=float(target.text in final_reply(state.output.completion)))

    return score


register("scorer", "toy_exact")(toy_exact)
"""

LEADERBOARD = """
from eq_evals.core.text import fmt, markdown_table
from eq_evals.sections import Inputs, Result, Section


def build(inputs: Inputs) -> Result:
    rows = []
    for log, info in inputs.logs:
        values = [s.scores["toy_exact"].value for s in log.samples or []]
        rows.append({"model": info.model, "accuracy": 100 * sum(values) / len(values), "partial": not info.complete})
    if not rows:
        return Result()
    table = markdown_table(["model", "accuracy %"], [[r["model"], fmt(r["accuracy"])] for r in rows])
    return Result(markdown="## Toy\\n\\n" + table + "\\n", json={"toy": rows}, csv={"toy.csv": rows})


SECTIONS = [Section(key="toy", title="Toy", tasks=frozenset({"toy_echo"}), build=build, order=70)]
"""

CLI = """
from eq_evals import logcheck
from eq_evals.commands import add_group, add_parser


def cmd_count(args) -> int:
    selection = logcheck.gate(args.logs, tasks={"toy_echo"}, what="eq-evals toy count")
    print(f"{len(selection.kept)} toy log(s)")
    return 0


def register(sub) -> None:
    group = add_group(sub, "toy", help="the toy benchmark", examples=["eq-evals toy count logs/"])
    p = add_parser(group, "count", help="count the toy logs", examples=["eq-evals toy count logs/"])
    p.add_argument("logs", nargs="+")
    p.set_defaults(func=cmd_count)
"""


@pytest.fixture
def toy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    # 1. declarations and data, in an EQ_EVALS_PATH folder
    decl = tmp_path / "declarative"
    (decl / "tasks" / "toy").mkdir(parents=True)
    (decl / "tasks" / "toy" / "toy_echo.yaml").write_text(DECLARATION, encoding="utf-8")
    (decl / "datasets" / "toy").mkdir(parents=True)
    items = [
        {"id": "t1", "input": "say sunshine please", "keyword": "sunshine"},
        {"id": "t2", "input": "a quiet evening", "keyword": "storm"},
    ]
    (decl / "datasets" / "toy" / "items.jsonl").write_text(
        "".join(json.dumps(i) + "\n" for i in items), encoding="utf-8"
    )
    monkeypatch.setenv("EQ_EVALS_PATH", str(decl))
    # 2-5. one package: parts, a leaderboard section, a CLI verb (a folder on eq_evals' package path, as
    # src/eq_evals/toy/ would be)
    package = tmp_path / "packages" / "toy"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text('"""The toy benchmark."""\n', encoding="utf-8")
    (package / "components.py").write_text(textwrap.dedent(COMPONENTS), encoding="utf-8")
    (package / "leaderboard.py").write_text(textwrap.dedent(LEADERBOARD), encoding="utf-8")
    (package / "cli.py").write_text(textwrap.dedent(CLI), encoding="utf-8")
    monkeypatch.setattr(eq_evals, "__path__", [*eq_evals.__path__, str(package.parent)])
    sections.discover.cache_clear()
    sections.rated_tasks.cache_clear()
    yield tmp_path
    sections.discover.cache_clear()
    sections.rated_tasks.cache_clear()


def test_a_toy_benchmark_added_as_the_architecture_doc_says(toy: Path, capsys: pytest.CaptureFixture) -> None:
    from eq_evals.engine import register_all

    assert "toy" in components.benchmarks()
    assert "toy" in [s.key for s in sections.discover()]
    task = register_all()["toy_echo"]
    # the scripted echo model repeats the prompt: it "answers" t1's keyword, not t2's
    [log] = inspect_eval(task(), model="eq_evals/scripted-echo", log_dir=str(toy / "logs"), display="none")
    assert log.status == "success"
    assert {s.id: s.scores["toy_exact"].value for s in log.samples} == {"t1": 1.0, "t2": 0.0}
    assert main(["ratings", str(toy / "logs"), "--out", str(toy / "out"), "--quiet"]) == 0
    md = (toy / "out" / "leaderboard.md").read_text(encoding="utf-8")
    assert "## Toy" in md and "| eq_evals/scripted-echo | 50.0 |" in md
    assert json.loads((toy / "out" / "leaderboard.json").read_text(encoding="utf-8"))["toy"][0]["accuracy"] == 50.0
    assert (toy / "out" / "toy.csv").is_file()
    capsys.readouterr()
    assert main(["toy", "count", str(toy / "logs")]) == 0
    assert "1 toy log(s)" in capsys.readouterr().out
