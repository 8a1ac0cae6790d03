"""The catalogue of building blocks a task declaration can name.

Each benchmark package registers its parts with the decorators below in its ``components`` module
(``eq_evals.<benchmark>.components``); the packages are found, not listed (:func:`packages`). Declarations refer to parts by name; the
engine checks names and arguments at load time. A task that reuses existing parts is YAML only; a new
data format or scoring rule adds one registered function.

A registered function may carry ``validate_declaration(**args)``, called at load time with the
declaration's literal arguments, to check referenced files (templates, rubrics, data) early.
"""

from __future__ import annotations

from typing import Any, Callable

from inspect_ai.model import GenerateConfig
from inspect_ai.scorer import Metric, accuracy, mean, stderr
from inspect_ai.solver import generate, system_message

# The shared layers that register parts every benchmark can use; every other subpackage with a ``components``
# module is a benchmark (docs/architecture.md).
SHARED = ("core", "pairwise")
# Packages built on the benchmarks, across them (docs/architecture.md): registered after them, not benchmarks.
ACROSS = ("judges",)

DATASETS: dict[str, Callable[..., list]] = {}
SOLVERS: dict[str, Callable[..., Any]] = {"generate": generate, "system_message": system_message}
SCORERS: dict[str, Callable[..., Any]] = {}
METRICS: dict[str, Callable[..., Metric]] = {"mean": mean, "stderr": stderr, "accuracy": accuracy}
REDUCERS = {"mean", "median", "mode", "max", "majority"}
_CATALOGUES = {"dataset": DATASETS, "solver": SOLVERS, "scorer": SCORERS, "metric": METRICS}


def register(kind: str, name: str | None = None) -> Callable[[Callable], Callable]:
    """Decorator: make a dataset adapter, solver, scorer or metric nameable in declarations."""
    catalogue = _CATALOGUES[kind]

    def add(fn: Callable) -> Callable:
        key = name or fn.__name__
        if key.endswith("_wrapper"):
            raise ValueError(f"name the decorated {kind} explicitly: register({kind!r}, '<name>')")
        if key in catalogue and catalogue[key] is not fn:
            raise ValueError(f"{kind} {key!r} is registered twice")
        catalogue[key] = fn
        return fn

    return add


def package_modules(module: str) -> dict[str, Any]:
    """Package name -> its imported ``eq_evals.<package>.<module>``, for every subpackage of eq_evals that has one
    (the one way packages are found: components, leaderboard sections, command groups)."""
    import importlib.util
    import pkgutil

    import eq_evals

    out = {}
    for info in sorted(pkgutil.iter_modules(eq_evals.__path__), key=lambda i: i.name):
        if (
            info.ispkg
            and not info.name.startswith("_")
            and importlib.util.find_spec(f"eq_evals.{info.name}.{module}") is not None
        ):
            out[info.name] = importlib.import_module(f"eq_evals.{info.name}.{module}")
    return out


def packages() -> list[str]:
    """The shared layers, then every benchmark package (a subpackage of eq_evals with a ``components`` module), then
    the packages across benchmarks."""
    found = sorted(package_modules("components"))
    return (
        [p for p in SHARED if p in found]
        + [p for p in found if p not in SHARED + ACROSS]
        + [p for p in ACROSS if p in found]
    )


def benchmarks() -> list[str]:
    """The benchmark packages (discovered): every package with components that is not a shared layer."""
    return [p for p in packages() if p not in SHARED + ACROSS]


def load_all() -> None:
    """Import every package's components module (idempotent)."""
    package_modules("components")


def build_metric(entry: Any) -> Metric:
    """``mean`` | ``{grouped: {metric: mean, by: language}}`` | ``{<metric>: {args}}``."""
    if isinstance(entry, str):
        if entry not in METRICS:
            raise ValueError(f"unknown metric {entry!r}; available: {sorted(METRICS)} or grouped")
        return METRICS[entry]()
    if isinstance(entry, dict) and len(entry) == 1:
        [(name, args)] = entry.items()
        args = dict(args or {})
        if name == "grouped":  # per-group values with readable names (mean_en, stderr_en): core.metrics.by_group
            inner, by, label = args.pop("metric", "mean"), args.pop("by", None), args.pop("label", "")
            if inner not in METRICS or not by or args:
                raise ValueError("grouped takes {metric: <name>, by: <metadata field>, label: <name part>}")
            return METRICS["by_group"](metric=inner, by=by, label=label or "")
        if name in METRICS:
            return METRICS[name](**args)
    raise ValueError(f"cannot read metric entry {entry!r}")


def generate_config(config: dict[str, Any]) -> GenerateConfig:
    try:
        return GenerateConfig(**config)
    except Exception as ex:  # pydantic validation error
        raise ValueError(f"invalid generate config {config}: {ex}") from None
