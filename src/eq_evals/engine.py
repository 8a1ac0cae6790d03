"""The declarative engine: one YAML file under ``tasks/`` becomes one registered Inspect task.

A declaration names its dataset adapter, solver steps, scorers, metrics, epochs and typed parameters
(see docs/adding-a-task.md). Values of the form ``${param}`` are replaced by the task parameter's
value. A declaration may ``include`` fragments (files named ``_*.yaml``, never tasks themselves) whose keys
it extends or overrides. Everything is validated when the plugin loads: a broken declaration fails with its
file, the key and what is wrong.
"""

from __future__ import annotations

import inspect
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Literal

import yaml
from inspect_ai import Epochs, SampleSource, Task, task
from inspect_ai.dataset import MemoryDataset
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from eq_evals import components
from eq_evals.core.sources import VERSION_KEY, versions_of
from eq_evals.errors import DeclarationError, EqEvalsError
from eq_evals.resources import display_path, roots

NAME = re.compile(r"^[a-z][a-z0-9_]*$")
REF = re.compile(r"^\$\{([a-z_][a-z0-9_]*)\}$")
PARAM_TYPES: dict[str, type] = {"str": str, "int": int, "float": float, "bool": bool}
RESERVED = {"model", "epochs", "limit", "name"}


class ParamDecl(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)
    type: Literal["str", "int", "float", "bool"]
    default: Any = None
    choices: list[Any] | None = None
    required: bool = False
    description: str = Field(min_length=1)
    # ``list: true`` (type str): a comma-separated list. ``inspect eval -T x=a,b`` passes a Python list; the
    # parameter accepts that and a comma-separated string alike and hands components the string "a,b".
    is_list: bool = Field(default=False, alias="list")


class DatasetDecl(BaseModel):
    model_config = ConfigDict(extra="forbid")
    adapter: str
    args: dict[str, Any] = Field(default_factory=dict)


class EpochsDecl(BaseModel):
    model_config = ConfigDict(extra="forbid")
    count: int = Field(ge=1)
    reducer: str = "mean"


class TaskDecl(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    description: str = Field(min_length=1)
    benchmark: str
    paper: str = Field(min_length=1, description="citation of the paper section the task implements")
    version: int = 1
    parameters: dict[str, ParamDecl] = Field(default_factory=dict)
    dataset: DatasetDecl
    solver: list[dict[str, dict[str, Any] | None]] = Field(default_factory=list)
    scorer: list[dict[str, dict[str, Any] | None]] = Field(default_factory=list)
    metrics: list[Any] | None = None
    epochs: EpochsDecl = EpochsDecl(count=1)
    config: dict[str, Any] = Field(default_factory=dict)


@dataclass
class Declaration:
    file: Path
    spec: TaskDecl
    # the files that make up the declaration, in merge order (included fragments first, the file itself last)
    layers: tuple[tuple[Path, dict], ...] = ()

    @property
    def where(self) -> str:
        return display_path(self.file)

    def fail(self, key: str, problem: str) -> DeclarationError:
        origin = origin_of(self.layers, key)
        if origin is not None and origin != self.file:
            problem = f"{problem} (set in {display_path(origin)})"
        return DeclarationError(self.where, key, problem)


def _pydantic_key(error: dict) -> str:
    return ".".join(str(part) for part in error["loc"]) or "(top level)"


# ---------------------------------------------------------------------------------------------
# includes: a declaration (or a fragment) may say ``include: _fragment.yaml`` or ``include: [_a.yaml, _b.yaml]``


def is_fragment(file: Path) -> bool:
    """A file named ``_*.yaml`` holds keys for declarations to include; it is never a task itself."""
    return file.name.startswith("_")


def merge(base: dict, override: dict) -> dict:
    """``override`` on top of ``base``: nested mappings merge key by key (the override's keys win); any other
    value, a list included, replaces the base's. Keys keep the base's order; new keys follow."""
    out = dict(base)
    for key, value in override.items():
        out[key] = merge(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


def _read_yaml(file: Path) -> Any:
    try:
        return yaml.safe_load(file.read_text(encoding="utf-8"))
    except yaml.YAMLError as ex:
        mark = getattr(ex, "problem_mark", None)
        at = f"line {mark.line + 1}" if mark else "(yaml)"
        raise DeclarationError(display_path(file), at, f"invalid YAML: {getattr(ex, 'problem', ex)}") from None


def _include_candidates(name: str, file: Path) -> list[Path]:
    """Where ``include: name`` in ``file`` may be: beside the file; then, for a file under some root's tasks/
    folder, the same folder of every root (EQ_EVALS_PATH folders first, then the package), so a user's
    declaration in ``my_evals/tasks/facet/`` can include the bundled ``_objective.yaml``; then ``name`` as a path
    below every root's tasks/ (``facet/_objective.yaml``)."""
    tasks_dirs = [root / "tasks" for root in roots()]
    below = None
    for tasks_dir in tasks_dirs:
        try:
            below = file.parent.relative_to(tasks_dir)
            break
        except ValueError:
            continue
    candidates = [file.parent / name]
    if below is not None:
        candidates += [tasks_dir / below / name for tasks_dir in tasks_dirs]
    candidates += [tasks_dir / name for tasks_dir in tasks_dirs]
    return [Path(os.path.normpath(c)) for c in candidates]


def read_layers(file: Path, _chain: tuple[Path, ...] = ()) -> list[tuple[Path, dict]]:
    """The mappings a declaration is made of, in merge order: its included files (each with its own includes,
    depth first) and then the file itself, each without its ``include`` key."""
    where = display_path(file)
    raw = _read_yaml(file)
    if not isinstance(raw, dict):
        if _chain:
            raise DeclarationError(
                where,
                "(top level)",
                f"an included file must be a YAML mapping (included from {display_path(_chain[-1])})",
            )
        raise DeclarationError(where, "(top level)", "a task declaration must be a YAML mapping")
    includes = raw.pop("include", None)
    if includes is None:
        return [(file, raw)]
    names = [includes] if isinstance(includes, str) else includes
    if not isinstance(names, list) or not names or not all(isinstance(n, str) and n.strip() for n in names):
        raise DeclarationError(where, "include", f"expected a file name or a list of file names, got {includes!r}")
    chain = _chain + (file,)
    layers: list[tuple[Path, dict]] = []
    for i, name in enumerate(names):
        key = "include" if isinstance(includes, str) else f"include[{i}]"
        candidates = _include_candidates(name, file)
        found = next((c for c in candidates if c.is_file()), None)
        if found is None:
            looked = ", ".join(dict.fromkeys(display_path(c.parent) for c in candidates))
            raise DeclarationError(where, key, f"{name} does not exist (looked in {looked})")
        if any(found.resolve() == f.resolve() for f in chain):
            cycle = " -> ".join(display_path(f) for f in chain + (found,))
            raise DeclarationError(where, key, f"{name} is already being included: include cycle {cycle}")
        layers += read_layers(found, chain)
    return layers + [(file, raw)]


def _merged(layers: Iterable[tuple[Path, dict]]) -> dict:
    out: dict = {}
    for _, mapping in layers:
        out = merge(out, mapping)
    return out


def read_declaration(file: Path) -> dict:
    """The mapping a declaration file stands for: its includes merged in order, its own keys on top."""
    return _merged(read_layers(file))


def origin_of(layers: Iterable[tuple[Path, dict]], key: str) -> Path | None:
    """The file that sets the value at ``key`` (``parameters.language.default``, ``solver[1]``, ``solver.1``):
    the last layer in which that path exists; a list is set whole, so ``solver[1]`` comes from where ``solver``
    does."""
    parts = [p for p in re.split(r"[.\[]", key) if p]
    for file, mapping in reversed(list(layers)):
        node: Any = mapping
        for part in parts:
            if isinstance(node, list):
                break  # the list (and everything in it) comes from this layer
            if not isinstance(node, dict) or part not in node:
                break
            node = node[part]
        else:
            if parts:
                return file
            continue
        if isinstance(node, list):
            return file
    return None


def parse_declaration(file: Path) -> Declaration:
    components.load_all()
    where = display_path(file)
    layers = tuple(read_layers(file))
    raw = _merged(layers)
    try:
        spec = TaskDecl.model_validate(raw)
    except ValidationError as ex:
        first = ex.errors()[0]
        key = _pydantic_key(first)
        origin = origin_of(layers, key)
        note = f" (set in {display_path(origin)})" if origin is not None and origin != file else ""
        raise DeclarationError(where, key, first["msg"] + note) from None
    decl = Declaration(file, spec, layers)
    check(decl)
    return decl


# ---------------------------------------------------------------------------------------------
# validation


def _refs(value: Any) -> list[str]:
    if isinstance(value, str):
        m = REF.match(value)
        return [m.group(1)] if m else []
    if isinstance(value, dict):
        return [r for v in value.values() for r in _refs(v)]
    if isinstance(value, list):
        return [r for v in value for r in _refs(v)]
    return []


def _check_params(decl: Declaration) -> None:
    spec = decl.spec
    if not NAME.match(spec.name):
        raise decl.fail("name", f"{spec.name!r} must be lower_snake_case")
    if decl.file.stem != spec.name:
        raise decl.fail("name", f"{spec.name!r} must equal the file name {decl.file.stem!r}")
    for pname, p in spec.parameters.items():
        key = f"parameters.{pname}"
        if not NAME.match(pname) or pname in RESERVED:
            raise decl.fail(key, f"invalid parameter name (lower_snake_case, not one of {sorted(RESERVED)})")
        if p.default is not None:
            try:
                coerce(p, p.default)
            except ValueError as ex:
                raise decl.fail(f"{key}.default", str(ex)) from None
        if p.is_list and p.type != "str":
            raise decl.fail(
                f"{key}.list", f"a list parameter has type str (its value is a comma-separated string), not {p.type}"
            )
        if p.required and p.default is not None:
            raise decl.fail(f"{key}.required", "a required parameter cannot have a default")
        if p.choices is not None and p.default is not None and not p.is_list and p.default not in p.choices:
            raise decl.fail(f"{key}.default", f"{p.default!r} is not one of the choices {p.choices}")


def _check_call(decl: Declaration, key: str, catalogue: dict[str, Callable], name: str, args: dict) -> None:
    if name not in catalogue:
        raise decl.fail(key, f"unknown {key.split('[')[0]} {name!r}; available: {sorted(catalogue)}")
    for ref in _refs(args):
        if ref not in decl.spec.parameters:
            raise decl.fail(key, f"${{{ref}}} does not name a declared parameter")
    try:
        inspect.signature(catalogue[name]).bind(**args)
    except TypeError as ex:
        raise decl.fail(key, f"bad arguments for {name!r}: {ex}") from None
    validator = getattr(catalogue[name], "validate_declaration", None)
    if validator is not None:
        try:
            validator(**{k: v for k, v in args.items() if not _refs(v)})
        except Exception as ex:  # noqa: BLE001 - surface any reference problem with its location
            raise decl.fail(key, str(ex)) from None


def _steps(decl: Declaration, section: str) -> list[tuple[str, str, dict]]:
    out = []
    for i, step in enumerate(getattr(decl.spec, section)):
        key = f"{section}[{i}]"
        if len(step) != 1:
            raise decl.fail(key, "each step is a mapping with exactly one component name")
        [(name, args)] = step.items()
        out.append((key, name, dict(args or {})))
    return out


def check(decl: Declaration) -> None:
    _check_params(decl)
    spec = decl.spec
    _check_call(decl, "dataset.adapter", components.DATASETS, spec.dataset.adapter, spec.dataset.args)
    literal_dataset_args = {k: v for k, v in spec.dataset.args.items() if not _refs(v)}
    for key, name, args in _steps(decl, "solver"):
        _check_call(decl, key, components.SOLVERS, name, args)
        # a solver may check its arguments against the dataset's literal arguments (e.g. a template per dimension)
        hook = getattr(components.SOLVERS[name], "validate_with_dataset", None)
        if hook is not None and not _refs(args):
            try:
                hook(literal_dataset_args, **args)
            except Exception as ex:  # noqa: BLE001 - surface any reference problem with its location
                raise decl.fail(key, str(ex)) from None
    for key, name, args in _steps(decl, "scorer"):
        _check_call(decl, key, components.SCORERS, name, args)
    for i, entry in enumerate(spec.metrics or []):
        try:
            components.build_metric(entry)
        except (ValueError, TypeError) as ex:
            raise decl.fail(f"metrics[{i}]", str(ex)) from None
    try:
        components.generate_config(spec.config)
    except ValueError as ex:
        raise decl.fail("config", str(ex)) from None
    if spec.epochs.reducer not in components.REDUCERS:
        raise decl.fail("epochs.reducer", f"{spec.epochs.reducer!r} is not one of {sorted(components.REDUCERS)}")


# ---------------------------------------------------------------------------------------------
# construction


LIST_FORM = "comma-separated list: a,b or [a, b]"


def comma_list(value: Any) -> str:
    """A list parameter's one form: its items, stripped, empty ones dropped, joined by commas. Accepts a
    comma-separated string (``"a, b"``), the list ``inspect eval -T x=a,b`` makes of it (``["a", "b"]``), a YAML
    list (``-T x='[a, b]'``) or one scalar (``-T stages=4`` arrives as the int 4)."""
    items = value if isinstance(value, (list, tuple)) else [value]
    parts: list[str] = []
    for item in items:
        if isinstance(item, (dict, list, tuple, set)) or item is None:
            raise ValueError(f"expected a {LIST_FORM}, got {value!r}")
        text = ("true" if item else "false") if isinstance(item, bool) else str(item)
        parts += [part.strip() for part in text.split(",") if part.strip()]
    return ",".join(parts)


def coerce(p: ParamDecl, value: Any) -> Any:
    if value is None:
        return None
    if p.is_list:
        value = comma_list(value)
        if p.choices is not None:
            wrong = [item for item in value.split(",") if item and item not in p.choices]
            if wrong:
                raise ValueError(f"{', '.join(map(repr, wrong))} not among {p.choices}")
        return value
    kind = PARAM_TYPES[p.type]
    if kind is bool and isinstance(value, str) and value.lower() in ("true", "false"):
        value = value.lower() == "true"
    elif kind is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    elif kind is str and isinstance(value, (int, float)) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise ValueError(f"expected {p.type}, got {value!r}")
    if p.choices is not None and value not in p.choices:
        raise ValueError(f"{value!r} is not one of {p.choices}")
    return value


def substitute(value: Any, params: dict[str, Any]) -> Any:
    if isinstance(value, str):
        m = REF.match(value)
        return params[m.group(1)] if m else value
    if isinstance(value, dict):
        return {k: substitute(v, params) for k, v in value.items()}
    if isinstance(value, list):
        return [substitute(v, params) for v in value]
    return value


def check_arguments(spec: TaskDecl, kwargs: dict[str, Any]) -> None:
    """An argument the task does not declare is an error listing the valid ones (Inspect itself only warns and
    runs with the default, e.g. a misspelled ``-T langauge=zh`` would run in English). ``model`` is passed by
    Inspect to every task."""
    import difflib

    unknown = sorted(set(kwargs) - set(spec.parameters) - {"model"})
    if unknown:
        hints = [
            f"{name} (did you mean {close[0]}?)"
            if (close := difflib.get_close_matches(name, spec.parameters, 1))
            else name
            for name in unknown
        ]
        valid = ", ".join(spec.parameters) or "none"
        raise EqEvalsError(
            f"task {spec.name}: unknown parameter(s) -T {', -T '.join(hints)}; valid parameters: "
            f"{valid} (see `eq-evals list`)"
        )


def build_task(decl: Declaration, **kwargs: Any) -> Task:
    spec = decl.spec
    check_arguments(spec, kwargs)
    params: dict[str, Any] = {}
    for pname, p in spec.parameters.items():
        if p.required and kwargs.get(pname) is None:
            raise EqEvalsError(f"task {spec.name}: parameter -T {pname}=... is required: {p.description}")
        try:
            params[pname] = coerce(p, kwargs.get(pname, p.default))
        except ValueError as ex:
            raise EqEvalsError(f"task {spec.name}: parameter -T {pname}={kwargs.get(pname)!r}: {ex}") from None
    samples = components.DATASETS[spec.dataset.adapter](**substitute(spec.dataset.args, params))
    steps = _steps(decl, "solver")
    if not isinstance(samples, SampleSource):
        for key, name, args in steps:  # e.g. every sample's prompt template exists
            validator = getattr(components.SOLVERS[name], "validate_samples", None)
            if validator is not None:
                try:
                    validator(samples, **substitute(args, params))
                except ValueError as ex:
                    raise decl.fail(key, str(ex)) from None
        # a first step that only depends on the sample (prompt_template) is applied now, not once per sample run
        at_build = getattr(components.SOLVERS[steps[0][1]], "at_build", None) if steps else None
        if at_build is not None:
            samples = at_build(samples, **substitute(steps[0][2], params))
            steps = steps[1:]
    # a sample source (pairwise judging's rounds) names its data itself: its samples come later
    datasets = versions_of(samples) if isinstance(samples, list) else list(getattr(samples, "dataset_versions", list)())
    if isinstance(samples, list):  # the data's origin, revision and hash go once into the log header, not into
        for sample in samples:  # every sample (each metadata field is written again per sample, issue 14)
            if sample.metadata and VERSION_KEY in sample.metadata:
                sample.metadata = {k: v for k, v in sample.metadata.items() if k != VERSION_KEY}
    dataset = samples if isinstance(samples, SampleSource) else MemoryDataset(samples, name=spec.name)
    solver = [components.SOLVERS[n](**substitute(a, params)) for _, n, a in steps]
    scorer = [components.SCORERS[n](**substitute(a, params)) for _, n, a in _steps(decl, "scorer")]
    metrics = [components.build_metric(m) for m in spec.metrics] if spec.metrics else None
    components.generate_config(spec.config)
    task = Task(
        dataset=dataset,
        solver=solver,
        scorer=scorer or None,
        metrics=metrics,
        epochs=Epochs(spec.epochs.count, spec.epochs.reducer),
        config=components.generate_config(spec.config),
        version=spec.version,
        metadata={
            "benchmark": spec.benchmark,
            "paper": spec.paper,
            "declaration": decl.where,
            # origin, revision and content hash of the data (core/sources.py), kept in the log header
            "datasets": datasets,
            # a sample source that reports its stops at the end of the run (pairwise/stop_hook.py)
            **({"source_run": samples.run_key} if hasattr(samples, "stop_report") else {}),
        },
    )
    if isinstance(samples, SampleSource) and hasattr(samples, "plan"):
        # Inspect announces a sample source's task with the count of its first batch ("facet_pairwise (3
        # samples)") and then writes every batch; its "dataset:" line, printed under that count, says so
        task.dataset = MemoryDataset(list(task.dataset), name=samples.plan(len(task.dataset)))
    return task


def param_form(p: ParamDecl) -> str:
    """How a parameter is written, for `eq-evals list` and the task's docstring: ``str``, ``bool``, or
    ``str, comma-separated list: a,b or [a, b]``."""
    return f"{p.type}, {LIST_FORM}" if p.is_list else p.type


def _annotation(p: ParamDecl) -> Any:
    kind: Any = PARAM_TYPES[p.type] | list[str] if p.is_list else PARAM_TYPES[p.type]
    return kind | None if p.default is None else kind


def _task_function(decl: Declaration) -> Callable[..., Task]:
    spec = decl.spec

    def factory(**kwargs: Any) -> Task:
        BUILT.add(spec.name)  # the package's Inspect hook joins runs of eq_evals tasks only
        from eq_evals import summary_hook

        summary_hook.activate()
        return build_task(decl, **kwargs)

    factory.__name__ = factory.__qualname__ = spec.name
    factory.__module__ = __name__
    factory.__doc__ = (
        spec.description
        + "\n\nArgs:\n"
        + "".join(f"    {n} ({param_form(p)}): {p.description}\n" for n, p in spec.parameters.items())
    )
    factory.__signature__ = inspect.Signature(
        [  # type: ignore[attr-defined]
            inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY, default=p.default, annotation=_annotation(p))
            for n, p in spec.parameters.items()
        ]
        + [inspect.Parameter("kwargs", inspect.Parameter.VAR_KEYWORD)],  # so unknown -T names reach check_arguments
        return_annotation=Task,
    )
    return task(name=spec.name, benchmark=spec.benchmark)(factory)


def declaration_files() -> list[Path]:
    """Every ``tasks/**/*.yaml`` of the user's EQ_EVALS_PATH folders and of the bundled root, except fragments
    (``_*.yaml``, which declarations include): root by root in ``roots()`` order (the overlays first), sorted
    within a root. A task declared in an overlay and in the package is thus the overlay's however
    EQ_EVALS_PATH is written (docs/adding-a-task.md: an overlay's files "are found before the bundled ones")."""
    return [f for root in roots() for f in sorted((root / "tasks").rglob("*.yaml")) if not is_fragment(f)]


def load_declarations_tolerant() -> tuple[list[Declaration], dict[Path, EqEvalsError]]:
    """Every valid declaration, and for each broken file (bad YAML, failed checks, a name declared twice) its
    error: one broken file, e.g. in an EQ_EVALS_PATH folder, fails alone and the other tasks still load."""
    decls: list[Declaration] = []
    broken: dict[Path, EqEvalsError] = {}
    seen: dict[str, Declaration] = {}
    for file in declaration_files():
        try:
            d = parse_declaration(file)
            if d.spec.name in seen:
                raise d.fail(
                    "name",
                    f"task {d.spec.name!r} is also declared in {seen[d.spec.name].where}, which "
                    "is used (EQ_EVALS_PATH folders come first, in order, then the package)",
                )
        except EqEvalsError as ex:
            broken[file] = ex
            continue
        seen[d.spec.name] = d
        decls.append(d)
    return decls, broken


def load_declarations() -> list[Declaration]:
    """Every declaration; the first broken one raises (``load_declarations_tolerant`` reports them all)."""
    decls, broken = load_declarations_tolerant()
    if broken:
        raise next(iter(broken.values()))
    return decls


TASKS: dict[str, Callable[..., Task]] = {}
BUILT: set[str] = set()  # tasks built in this process through the registry (an Inspect run of them)
DECLARATIONS: dict[str, Declaration] = {}
BROKEN: dict[str, EqEvalsError] = {}


def _broken_task(name: str, error: EqEvalsError) -> Callable[..., Task]:
    """A task that only raises its declaration's error, so ``inspect eval eq_evals/<name>`` says what is wrong
    instead of "not found"."""

    def factory(**kwargs: Any) -> Task:
        raise EqEvalsError(f"task {name} cannot be built: {error}")

    factory.__name__ = factory.__qualname__ = name
    factory.__module__ = __name__
    factory.__doc__ = f"BROKEN declaration: {error}"
    return task(name=name)(factory)


def register_all() -> dict[str, Callable[..., Task]]:
    """Register one Inspect task per declaration (idempotent). A broken declaration is logged as an error
    naming its file and registered as a task that raises that error; every other task still loads."""
    import logging

    decls, broken = load_declarations_tolerant()
    for decl in decls:
        if decl.spec.name not in TASKS:
            TASKS[decl.spec.name] = _task_function(decl)
            DECLARATIONS[decl.spec.name] = decl
    for file, error in broken.items():
        name = file.stem
        if name in BROKEN or not NAME.match(name):
            continue
        BROKEN[name] = error
        logging.getLogger(__name__).error("eq_evals: %s (task %s is unavailable; the other tasks load)", error, name)
        if name not in TASKS:
            TASKS[name] = _broken_task(name, error)
    return TASKS
