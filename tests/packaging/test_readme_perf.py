"""README.md's performance table is generated from benchmarks/results/ and must be current."""

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _module():
    spec = importlib.util.spec_from_file_location("readme_table", ROOT / "benchmarks" / "readme_table.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_readme_performance_table_is_current():
    mod = _module()
    block = mod.current_block((ROOT / "README.md").read_text())
    assert block is not None, "README.md lacks the generated performance table markers"
    assert block == mod.render(), "run: python benchmarks/readme_table.py"


def test_every_row_names_its_date_and_machine():
    for row in _module().rows():
        assert len(row) == 7 and row[5] and row[6], row
