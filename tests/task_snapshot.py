"""A canonical description of every built task, to show that rewriting declarations (e.g. moving shared keys
into included fragments, docs/adding-a-task.md) leaves each Inspect Task exactly as it was.

For every declaration it records the declaration as the engine reads it (every key, parameters in order) and,
for the task built through its registered Inspect function with its defaults and with each ``language``
choice, the dataset (name, location, sample ids, a hash of inputs, targets, choices and metadata), the solver
chain and scorers (registry names and arguments), the metrics, epochs, GenerateConfig, version and metadata.

Data that is not in the repository is never read: the adapters that read generation logs (``-T logs``) or
the LongEmotion release from the Hub are replaced by a stub that records the arguments they were called
with; LongEmotion is also built with ``-T fixtures=true`` (project-written data).

    python -m tests.task_snapshot            # compare the current build with the committed snapshot
    python -m tests.task_snapshot --write    # write tests/fixtures/built_tasks.json
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import sys
from pathlib import Path
from typing import Any, Iterator

SNAPSHOT = Path(__file__).parent / "fixtures" / "built_tasks.json"
PLACEHOLDER = "<required>"  # the value given to a required parameter (e.g. -T logs)
LOG_ADAPTERS = {"pairwise_matchups", "heart_replies"}  # build their samples from -T logs


def _needs_stub(adapter: str, kwargs: dict[str, Any]) -> bool:
    return adapter in LOG_ADAPTERS or (adapter == "longemotion" and not kwargs.get("fixtures"))


@contextlib.contextmanager
def _stubbed_adapters() -> Iterator[None]:
    from inspect_ai.dataset import Sample

    from eq_evals import components

    originals = dict(components.DATASETS)

    def wrap(name: str, real: Any) -> Any:
        def adapter(**kwargs: Any) -> Any:
            if _needs_stub(name, kwargs):
                _stubbed_adapters.calls.append({"adapter": name, "args": kwargs})  # type: ignore[attr-defined]
                return [Sample(id="stub", input="stub", metadata={})]  # Inspect refuses an empty dataset
            return real(**kwargs)

        for attr in ("validate_declaration",):
            if hasattr(real, attr):
                setattr(adapter, attr, getattr(real, attr))
        return adapter

    _stubbed_adapters.calls = []  # type: ignore[attr-defined]
    components.DATASETS.update({name: wrap(name, fn) for name, fn in originals.items()})
    try:
        yield
    finally:
        components.DATASETS.clear()
        components.DATASETS.update(originals)


_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def _plain(value: Any) -> Any:
    """JSON-ready, with no machine paths or object addresses."""
    from pydantic import BaseModel

    if isinstance(value, BaseModel):
        value = value.model_dump(exclude_none=True, exclude={"id"} if hasattr(value, "role") else None)
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return _scrub(value) if isinstance(value, str) else value
    if callable(value):
        from inspect_ai._util.registry import is_registry_object

        if is_registry_object(value):
            return {"registry": _name(value)}
        return {"callable": getattr(value, "__qualname__", type(value).__name__)}
    return _scrub(_ADDRESS.sub("", repr(value)))


def _scrub(text: str) -> str:
    from eq_evals.resources import declarative_root

    return text.replace(str(declarative_root()), "<root>")


def _name(obj: Any) -> str:
    """The registry name without the package namespace, which Inspect adds only when eq_evals is installed
    (``eq_evals/facet_objective`` installed, ``facet_objective`` from a source folder on PYTHONPATH)."""
    from inspect_ai._util.registry import registry_log_name

    name = registry_log_name(obj)
    return name.split("/", 1)[1] if name.startswith("eq_evals/") else name


def _registry(obj: Any) -> dict[str, Any]:
    from inspect_ai._util.registry import has_registry_params, registry_params

    return {"name": _name(obj), "args": _plain(registry_params(obj)) if has_registry_params(obj) else None}


def _digest(value: Any) -> str:
    blob = json.dumps(_plain(value), sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def _dataset(task: Any) -> dict[str, Any]:
    from inspect_ai.dataset import Dataset

    ds = task.dataset
    if not isinstance(ds, Dataset):  # a sample source (pairwise judging's rounds) makes its samples later
        return {"source": type(ds).__name__}
    samples = list(ds)
    rows = [
        {
            "id": s.id,
            "input": s.input,
            "target": s.target,
            "choices": s.choices,
            "metadata": s.metadata,
            "files": s.files,
            "setup": s.setup,
            "sandbox": s.sandbox,
        }
        for s in samples
    ]
    return {
        "name": ds.name,
        "location": _plain(ds.location),
        "shuffled": ds.shuffled,
        "count": len(samples),
        "first_ids": [s.id for s in samples[:3]],
        "ids_sha256": _digest([s.id for s in samples]),
        "content_sha256": _digest(rows),
    }


def _metrics(metrics: Any) -> Any:
    if metrics is None:
        return None
    if isinstance(metrics, dict):
        return {k: _metrics(v) for k, v in metrics.items()}
    if isinstance(metrics, list):
        return [_metrics(m) for m in metrics]
    return _registry(metrics)


def describe_task(task: Any) -> dict[str, Any]:
    from inspect_ai._util.registry import registry_info

    solvers = list(task.solver) if hasattr(task.solver, "__len__") else [task.solver]
    scorers = task.scorer or []
    return {
        "name": task.name.split("/", 1)[-1],
        "version": task.version,
        "dataset": _dataset(task),
        "solver": [_registry(s) for s in solvers],
        "scorer": [{**_registry(s), "metrics": _metrics(registry_info(s).metadata.get("metrics"))} for s in scorers],
        "metrics": _metrics(task.metrics),
        "epochs": task.epochs,
        "epochs_reducer": [_registry(r) for r in task.epochs_reducer or []],
        "config": task.config.model_dump(exclude_none=True),
        "metadata": _plain(task.metadata),
        "limits": {
            k: getattr(task, k, None)
            for k in (
                "message_limit",
                "token_limit",
                "time_limit",
                "working_limit",
                "fail_on_error",
                "sandbox",
                "approval",
            )
        },
    }


def _builds(decl: Any) -> list[dict[str, Any]]:
    params = decl.spec.parameters
    base = {n: PLACEHOLDER for n, p in params.items() if p.required}
    builds = [dict(base)]
    if "language" in params and params["language"].choices:
        builds += [dict(base, language=c) for c in params["language"].choices if c != params["language"].default]
    if decl.spec.benchmark == "longemotion" and "fixtures" in params:
        builds.append(dict(base, fixtures=True))
    return builds


def describe_all() -> dict[str, Any]:
    """Every task's description. Call with HF_HUB_OFFLINE=1 and LONGEMOTION_DATA_DIR unset (``main`` does)."""
    from eq_evals.engine import load_declarations, register_all

    tasks = register_all()
    decls = sorted(load_declarations(), key=lambda d: d.spec.name)
    out: dict[str, Any] = {}
    with _stubbed_adapters():
        for decl in decls:
            name = decl.spec.name
            builds = {}
            for kwargs in _builds(decl):
                _stubbed_adapters.calls.clear()  # type: ignore[attr-defined]
                described = describe_task(tasks[name](**kwargs))
                if _stubbed_adapters.calls:  # type: ignore[attr-defined]
                    described["dataset"]["stubbed"] = _plain(_stubbed_adapters.calls)  # type: ignore[attr-defined]
                builds[json.dumps(kwargs, sort_keys=True)] = described
            out[name] = {
                "declaration": decl.where,
                "spec": _plain(decl.spec.model_dump(mode="json")),
                "parameter_order": list(decl.spec.parameters),
                "builds": builds,
            }
    return out


def load_snapshot() -> dict[str, Any]:
    return json.loads(SNAPSHOT.read_text(encoding="utf-8"))


def differences(expected: Any, actual: Any, where: str = "") -> list[str]:
    """Readable paths at which two descriptions differ (lists in order; mappings key by key)."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        out = []
        for key in list(expected) + [k for k in actual if k not in expected]:
            if key not in actual:
                out.append(f"{where}/{key}: missing now")
            elif key not in expected:
                out.append(f"{where}/{key}: new")
            else:
                out += differences(expected[key], actual[key], f"{where}/{key}")
        return out  # the order of mapping keys is not compared (parameter_order records the parameters')
    if expected != actual:
        return [
            f"{where}: {json.dumps(expected, ensure_ascii=False)[:200]} != "
            f"{json.dumps(actual, ensure_ascii=False)[:200]}"
        ]
    return []


def main(argv: list[str]) -> int:
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ.pop("LONGEMOTION_DATA_DIR", None)  # the fixtures build reads the project's data only
    current = json.loads(json.dumps(describe_all(), ensure_ascii=False, default=str))
    if "--write" in argv:
        # keys sorted, so a rewrite after a deliberate change diffs only where the change is
        SNAPSHOT.write_text(json.dumps(current, indent=1, ensure_ascii=False, sort_keys=True) + "\n", encoding="utf-8")
        print(f"written {SNAPSHOT} ({len(current)} tasks)")
        return 0
    diff = differences(load_snapshot(), current)
    print("\n".join(diff) or "identical")
    return 1 if diff else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
