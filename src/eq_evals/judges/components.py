"""Registers the judge check's parts with the catalogue: its dataset adapter, its scorer wrapper and the scripted
judges with one known fault each (docs/judges.md)."""

from __future__ import annotations

from eq_evals.components import register
from eq_evals.judges import scripted as _scripted  # noqa: F401  (registers the jc-* scripted judges)
from eq_evals.judges.pairs import judge_check_pairs
from eq_evals.judges.scorers import judge_check

register("dataset", "judge_check_pairs")(judge_check_pairs)
register("scorer", "judge_check")(judge_check)


def _validate_pairs(benchmark: str = "", preset: str = "standard", **_: object) -> None:
    from eq_evals.judges.items import BENCHMARKS
    from eq_evals.judges.pairs import PRESETS

    if benchmark and benchmark not in BENCHMARKS:
        raise ValueError(f"benchmark={benchmark!r}: expected one of {', '.join(BENCHMARKS)}")
    if preset and not str(preset).startswith("${") and preset not in PRESETS:
        raise ValueError(f"preset={preset!r}: expected one of {', '.join(PRESETS)}")


judge_check_pairs.validate_declaration = _validate_pairs  # type: ignore[attr-defined]
