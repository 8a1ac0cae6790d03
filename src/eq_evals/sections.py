"""The leaderboard interface: what a benchmark package contributes to ``eq-evals ratings``.

Each benchmark package owns its leaderboard section in its ``leaderboard`` module, which exposes ``SECTIONS``
(a list of :class:`Section`) and, for judging tasks whose verdicts are rated as comparisons by the shared
pairwise section, ``RATED_TASKS``. :func:`discover` finds them by walking eq_evals' subpackages, so adding a
benchmark's leaderboard is one module (docs/architecture.md, "Adding a benchmark").

The writer (``eq_evals.report``) reads every log through the gate (``eq_evals.logcheck.gate``: completeness,
retry chains, dataset and task versions), hands each section only the logs of its tasks, already checked, and
renders what the sections return to Markdown, CSV and JSON. A section never reads a log itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Callable

from inspect_ai.log import EvalLog

from eq_evals.logcheck import LogCheck


@dataclass
class Inputs:
    """What the writer hands a section: its logs (already through the gate) and the run's options."""

    logs: list[tuple[EvalLog, LogCheck]]  # complete logs, plus partial ones kept with --allow-partial
    out_dir: Path
    method: str = "bt"
    bootstrap: int = 1000
    seed: int = 0
    progress: bool = False
    allow_partial: bool = False
    shared: dict[str, Any] = field(default_factory=dict)  # what earlier sections publish (e.g. comparisons)

    @property
    def partial_paths(self) -> set[str]:
        return {info.path for _, info in self.logs if not info.complete}


@dataclass
class Result:
    """A section's output: Markdown (its own headings), JSON entries (top-level keys of leaderboard.json), CSV
    files (file name -> rows), notes for the Notes section, warnings, and files it wrote (charts)."""

    markdown: str = ""
    json: dict[str, Any] = field(default_factory=dict)
    csv: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        """Nothing to show (a section with no logs of its tasks may still put empty entries in the JSON)."""
        return not self.markdown


@dataclass(frozen=True)
class Section:
    """One leaderboard section: the tasks whose logs it reads and the function that builds it. Sections are
    built in ``order``; a later section may read what an earlier one put in ``Inputs.shared``."""

    key: str
    title: str
    tasks: frozenset[str] | Callable[[], frozenset[str]]  # a callable when it depends on other packages
    build: Callable[[Inputs], Result]
    order: int = 50

    def reads(self) -> frozenset[str]:
        return frozenset(self.tasks() if callable(self.tasks) else self.tasks)


def _benchmark_modules(name: str) -> list[Any]:
    from eq_evals.components import package_modules

    return list(package_modules(name).values())


@cache
def discover() -> tuple[Section, ...]:
    """Every package's sections, in build order (the packages are found, not listed)."""
    sections = [s for module in _benchmark_modules("leaderboard") for s in getattr(module, "SECTIONS", [])]
    keys = [s.key for s in sections]
    duplicated = sorted({k for k in keys if keys.count(k) > 1})
    if duplicated:
        raise ValueError(f"leaderboard sections declared twice: {duplicated}")
    return tuple(sorted(sections, key=lambda s: (s.order, s.key)))


@cache
def rated_tasks() -> frozenset[str]:
    """Judging tasks whose verdict records the shared pairwise section rates (each package's RATED_TASKS)."""
    return frozenset(t for module in _benchmark_modules("leaderboard") for t in getattr(module, "RATED_TASKS", ()))
