"""The layers of docs/architecture.md hold: shared code imports no benchmark, the report writer names no task or
benchmark, and benchmarks are found, not listed."""

from __future__ import annotations

import ast
from pathlib import Path

import eq_evals
from eq_evals.components import benchmarks

SRC = Path(eq_evals.__file__).parent
# the shared layers: every benchmark builds on them, so they may import no benchmark package
SHARED = [
    "core",
    "pairwise",
    "providers",
    "ratings",
    "commands",
    "profile",
    "logcheck.py",
    "sections.py",
    "report.py",
    "charts.py",
    "card",
    "components.py",
    "engine.py",
    "resources.py",
    "errors.py",
    "doctor.py",
    "summary_hook.py",
    "cli.py",
    "agreement_cli.py",
    "hub.py",
    "_registry.py",
]


def imported_modules(file: Path) -> list[tuple[int, str]]:
    tree = ast.parse(file.read_text(encoding="utf-8"), filename=str(file))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.append((node.lineno, node.module))
            out += [(node.lineno, f"{node.module}.{alias.name}") for alias in node.names]
    return out


def shared_files() -> list[Path]:
    files = []
    for entry in SHARED:
        path = SRC / entry
        files += sorted(path.rglob("*.py")) if path.is_dir() else [path]
    return files


def test_the_benchmarks_are_discovered() -> None:
    assert set(benchmarks()) == {"facet", "heart", "longemotion", "pace", "sage"}


def test_shared_layers_import_no_benchmark() -> None:
    names = benchmarks()
    offending = [
        f"{file.relative_to(SRC)}:{line}: imports {module}"
        for file in shared_files()
        for line, module in imported_modules(file)
        if any(module == f"eq_evals.{b}" or module.startswith(f"eq_evals.{b}.") for b in names)
    ]
    assert offending == [], "shared layers must not import a benchmark package:\n" + "\n".join(offending)


def test_benchmarks_import_no_other_benchmark() -> None:
    """A benchmark builds on the shared layers, not on another benchmark's internals (issue 18: the item
    validators once loaded the embedding model from LongEmotion's retriever; it lives in core/embeddings.py)."""
    names = benchmarks()
    offending = [
        f"{file.relative_to(SRC)}:{line}: imports {module}"
        for own in names
        for file in sorted((SRC / own).rglob("*.py"))
        for line, module in imported_modules(file)
        if any(module == f"eq_evals.{b}" or module.startswith(f"eq_evals.{b}.") for b in names if b != own)
    ]
    assert offending == [], "a benchmark imports another benchmark's package:\n" + "\n".join(offending)


def test_the_import_walk_catches_a_benchmark_import(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("from eq_evals.facet.answers import gold_slots\nimport eq_evals.sage.rules\n", encoding="utf-8")
    assert [m for _, m in imported_modules(bad) if m.startswith("eq_evals.facet") or m.startswith("eq_evals.sage")]


def test_the_report_writer_names_no_task_and_no_benchmark() -> None:
    from eq_evals.engine import load_declarations

    text = (SRC / "report.py").read_text(encoding="utf-8").lower()
    tasks = [d.spec.name for d in load_declarations()]
    named = [n for n in [*benchmarks(), *tasks] if n.lower() in text]
    assert named == [], f"report.py names {named}"
