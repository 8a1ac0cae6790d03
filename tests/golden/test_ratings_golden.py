"""Golden files for `eq-evals ratings`: the Markdown, CSV and JSON it writes for the logs of every benchmark
(``benchmark_logs``, tests/benchmark_logs.py), byte for byte after normalisation, per rating method.

They pin the output of the code that generated them, so a refactor of the leaderboards (src/eq_evals/report.py
and the benchmark packages' leaderboard modules) can be shown not to change it. When a change of output is
intended, regenerate them and review the diff of tests/golden/expected/ like code:

    EQ_EVALS_UPDATE_GOLDEN=1 python -m pytest tests/golden

Normalised: the paths of the logs (a temporary folder, and file names with Inspect's creation time and random
id) become ``<log:TASK/MODEL>``, the rest of the temporary folder ``<logs>``, the repository ``<repo>``. Nothing
else varies between runs: bootstrap and the ratings use a fixed seed (``--seed``, default 0), and the logs are
read in a fixed order (see tests/benchmark_logs.py). The PNG charts are not compared (matplotlib's rendering is not ours).
"""

from __future__ import annotations

import difflib
import json
import os
import re
from pathlib import Path

import pytest

from eq_evals.cli import main as cli_main

EXPECTED = Path(__file__).parent / "expected"
UPDATE = os.environ.get("EQ_EVALS_UPDATE_GOLDEN") == "1"
# bt and thurstone are fitted with an item bootstrap; trueskill rates sequentially (FACET's own method), with
# a normal-approximation interval instead
METHODS = ["bt", "trueskill", "thurstone"]
COMPARED = (".md", ".csv", ".json")
BOOTSTRAP = "200"
# what a log name made by Inspect looks like: <created>_<task>_<id>.eval, e.g. 2026-11-26T23-16-35-00-00_sage_Lr2v...
INSPECT_LOG_NAME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}[-:]\d{2}[-:]\d{2}[^\s\"']*\.(eval|json)")


def ratings(benchmark_logs, out: Path, method: str) -> dict[str, str]:
    code = cli_main(
        [
            "ratings",
            str(benchmark_logs.ratings_dir),
            "--out",
            str(out),
            "--method",
            method,
            "--bootstrap",
            BOOTSTRAP,
            "--quiet",
        ]
    )
    assert code == 0
    files = {
        p.name: benchmark_logs.normalise(p.read_text(encoding="utf-8"))
        for p in sorted(out.iterdir())
        if p.suffix in COMPARED
    }
    # JSON is compared as data: keys sorted, so a section's key order is not a difference
    files = {
        name: json.dumps(json.loads(text), indent=1, ensure_ascii=False, sort_keys=True) + "\n"
        if name.endswith(".json")
        else text
        for name, text in files.items()
    }
    for name, text in files.items():
        for leftover in (str(benchmark_logs.root), str(out)):
            assert leftover not in text, f"{name}: a path left after normalisation: {leftover}"
        assert not INSPECT_LOG_NAME.search(text), f"{name}: a log name left after normalisation"
    return files


def diff(expected: str, actual: str, path: Path) -> str:
    lines = list(
        difflib.unified_diff(
            expected.splitlines(keepends=True),
            actual.splitlines(keepends=True),
            fromfile=f"{path} (expected)",
            tofile=f"{path.name} (written now)",
            n=2,
        )
    )
    shown = lines[:300] + ([f"... {len(lines) - 300} more diff lines\n"] if len(lines) > 300 else [])
    return "".join(shown)


@pytest.mark.parametrize("method", METHODS)
def test_ratings_output_matches_the_golden_files(
    benchmark_logs, tmp_path: Path, method: str, capsys: pytest.CaptureFixture[str]
) -> None:
    files = ratings(benchmark_logs, tmp_path / "out", method)
    capsys.readouterr()  # the Markdown printed on stdout is leaderboard.md, compared below
    assert {
        "leaderboard.md",
        "leaderboard.csv",
        "leaderboard.json",
        "heart_leaderboard.md",
        "heart_leaderboard.csv",
        "heart_leaderboard.json",
    } <= set(files)
    folder = EXPECTED / method
    if UPDATE:
        folder.mkdir(parents=True, exist_ok=True)
        for stale in folder.iterdir():
            if stale.name not in files:
                stale.unlink()
        for name, text in files.items():
            (folder / name).write_text(text, encoding="utf-8", newline="\n")
        return
    expected_names = sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []
    assert expected_names == sorted(files), (
        f"files written for --method {method} differ from {folder}: expected {expected_names}, written "
        f"{sorted(files)} (EQ_EVALS_UPDATE_GOLDEN=1 regenerates them)"
    )
    problems = [
        diff(expected, files[name], folder / name)
        for name in expected_names
        if (expected := (folder / name).read_text(encoding="utf-8")) != files[name]
    ]
    if problems:
        pytest.fail(
            f"eq-evals ratings --method {method} output differs from the golden files "
            "(EQ_EVALS_UPDATE_GOLDEN=1 regenerates them if the change is intended):\n" + "\n".join(problems),
            pytrace=False,
        )
