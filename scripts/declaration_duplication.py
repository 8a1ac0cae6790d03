"""How much of each benchmark's task YAML repeats a sibling's: the share of non-blank, non-comment lines of
tasks/<benchmark>/*.yaml (declarations and fragments) that occur verbatim, indentation included, in another
file of the same folder (docs/adding-a-task.md, Fragments).

    python scripts/declaration_duplication.py [benchmark ...]
"""

from __future__ import annotations

import sys
from pathlib import Path

TASKS = Path(__file__).resolve().parents[1] / "tasks"


def lines(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    return [line.rstrip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def duplication(folder: Path) -> tuple[int, int, int]:
    """(files, lines, lines that occur in a sibling file)."""
    files = {f: lines(f) for f in sorted(folder.glob("*.yaml"))}
    total = repeated = 0
    for f, own in files.items():
        others = {line for g, theirs in files.items() if g != f for line in theirs}
        total += len(own)
        repeated += sum(line in others for line in own)
    return len(files), total, repeated


def main(argv: list[str]) -> int:
    for name in argv or sorted(p.name for p in TASKS.iterdir() if p.is_dir()):
        n, total, repeated = duplication(TASKS / name)
        print(f"{name}: {n} files, {total} lines, {repeated} in a sibling ({100 * repeated / max(total, 1):.1f}%)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
