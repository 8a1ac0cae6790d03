"""Comments, docs and task text cite the papers' sections or the project's own docs, never a document that does
not ship with the project (the implementation specs "spec §N.M", "spec A24", "spec pace.md", the peer-benchmark
notes "peers.md"): a reader of the repository or of an installed copy could not follow such a citation.

Every text file under the shipped and tracked folders is read (tracked and not ignored files when this is a
checkout, the folders themselves otherwise), including the task snapshot and the golden leaderboards, which copy task text and
report labels. A hit names the file, the line and the text, so the fix is to cite the paper (e.g. "FACET paper
§4.2", "PACE paper Def. 3.2") or a project doc (docs/<page>.md with the heading, or datasets/<bench>/README.md).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCANNED = (
    "src",
    "tests",
    "docs",
    "tasks",
    "scorers",
    "solvers",
    "datasets",
    "benchmarks",
    "scripts",
    "register",
    "README.md",
)
THIS_FILE = Path(__file__).resolve()

UNSHIPPED = re.compile(
    r"\b[Ss]pec §"  # spec §4.2, Spec §12.5
    r"|\b[Ss]pec [A-Z]\d+\b"  # spec A24 (the specs' ambiguity ids)
    r"|\b[Ss]pecs?[ ,(]+`?(?:facet|heart|pace|sage|longemotion)\.md"  # spec pace.md §4, spec `facet.md`
    r"|\bimplementation spec\b"
    r"|\b[Tt]he spec(?:'s)?\b"  # the spec describes, the spec's account
    r"|(?<![\w.])specs/"  # the specs folder itself
    r"|\bpeers\.md\b"  # the peer-benchmark notes
)


def _git_files() -> list[Path] | None:
    try:
        done = subprocess.run(
            ["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", *SCANNED],
            capture_output=True,
            check=True,
        )
    except (OSError, subprocess.CalledProcessError):
        return None
    names = [n for n in done.stdout.decode("utf-8", "replace").split("\0") if n]
    return [ROOT / n for n in names] or None


def _files() -> list[Path]:
    files = _git_files()
    if files is None:  # an installed copy or an export without .git: read the folders as they are
        files = [
            p
            for name in SCANNED
            for p in ([ROOT / name] if (ROOT / name).is_file() else sorted((ROOT / name).rglob("*")))
        ]
    return [p for p in files if p.is_file() and p.resolve() != THIS_FILE and "__pycache__" not in p.parts]


def _text(path: Path) -> str | None:
    data = path.read_bytes()
    if b"\0" in data[:8192]:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def test_no_citation_of_unshipped_documents() -> None:
    files = _files()
    if not files:
        pytest.skip("no source tree next to the tests")
    hits = []
    for path in files:
        text = _text(path)
        if text is None or not UNSHIPPED.search(text):
            continue
        for number, line in enumerate(text.splitlines(), 1):
            for m in UNSHIPPED.finditer(line):
                start = max(0, m.start() - 40)
                hits.append(f"{path.relative_to(ROOT)}:{number}: ...{line[start : m.end() + 40].strip()}...")
    assert not hits, (
        "cite the paper's section or a project doc instead of a document that does not ship "
        f"({len(hits)}):\n" + "\n".join(hits[:50])
    )


@pytest.mark.parametrize(
    "text",
    [
        "(spec §4.7)",
        "Spec §12.5 step 5",
        "leak the answer (spec A24)",
        "weights (spec pace.md §4.8)",
        "spec `pace.md` §6",
        "the release the spec describes",
        "the spec's account of the judge",
        "Arena (peers.md §4.4)",
        "see ../shared/specs/facet.md",
        "the implementation spec (`facet.md` §4.4)",
    ],
)
def test_the_pattern_catches_each_form(text: str) -> None:
    assert UNSHIPPED.search(text)


@pytest.mark.parametrize(
    "text",
    [
        "spec = decl.spec",
        "importlib.util.find_spec(package)",
        "ModelSpec",
        "spec_from_file_location",
        "FACET paper §4.2",
        "docs/pace-weights.md, 'Estimating weights'",
        "can recite the specs of almost any gadget",
        "for spec in agents",
    ],
)
def test_the_pattern_spares_other_uses_of_the_word(text: str) -> None:
    assert not UNSHIPPED.search(text)
