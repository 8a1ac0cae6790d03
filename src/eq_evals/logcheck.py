"""The one gate between Inspect logs and numbers: what a log is, and whether its numbers can be trusted.

Every command and judging task that turns logs into numbers (``eq-evals ratings``, ``agreement``, every
benchmark leaderboard and table, ``pace weights``, ``hub push-results``, ``doctor``, and the judging tasks
``facet_pairwise``, ``pace_pairwise`` and ``heart``'s opponent logs) reads them through :func:`gate`, which
applies the same rules everywhere (docs/architecture.md, "The gate"):

- **Paths**: :func:`expand_log_paths` turns folders, globs and comma lists into log files; the index files
  ``inspect eval-set`` writes beside its logs (``eval-set.json``, ``logs.json``) are not logs and are skipped.
- **Tasks**: a log of a task the command does not read is an error naming the file and its task.
- **Retry chains**: ``inspect eval-retry`` writes a new log with the task id of the log it retries. Of the logs
  of one task id only one is read: the newest complete one, else the newest (partial) one, so battles, samples
  and scores are never counted twice. A retry that failed again is not complete.
- **Completeness**: a log is *complete* when Inspect finished it (status ``success``), it has results, no
  sample errored and every planned sample is there. A partial log (cancelled, stopped by an error, still being
  written, or tolerating errored samples) is skipped with a warning naming it and why, unless the user asks
  for it (``--allow-partial`` / ``-T allow_partial=true``); then every number built from it is marked partial.
- **Versions**: logs of one task made on different dataset versions (content hashes) or different task
  versions are refused, naming them, unless the user allows mixing (``--allow-mixed-datasets``).

``check(log, path)`` describes one log (task, version, model, roles, arguments, dataset, status, planned and
completed samples, errors, unscored scores per scorer and reason); ``eq-evals doctor`` prints it.
"""

from __future__ import annotations

import asyncio
import glob
import json
import math
import os
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Collection, Iterable

from inspect_ai.log import EvalLog, read_eval_log, read_eval_log_async

from eq_evals.errors import EqEvalsError

# Files ``inspect eval-set`` writes beside its logs: indexes, not logs.
# eval-set's index files, and what `eq-evals profile` writes beside its logs: its plan and, in card/, the report
# card's JSON (docs/profile.md), so a profile's folder can be given whole to every command that reads logs
NOT_LOGS = frozenset({"eval-set.json", "logs.json", "plan.json", "report.json"})
LOG_SUFFIXES = (".eval", ".json")


def _looks_like_log(path: Path) -> bool:
    """A ``.eval`` file, or a ``.json`` file that opens as an Inspect log does (its ``version`` key first): the
    leaderboards, charts and report cards written beside logs (card/files/*.json) are not logs."""
    if path.suffix != ".json":
        return True
    try:
        with path.open("rb") as f:
            head = b"".join(f.read(64).split())
    except OSError:
        return True  # let the reader name the file
    return head.startswith(b'{"version"')


def expand_log_paths(logs: str | Iterable[str]) -> list[str]:
    """Log files from folders (every ``*.eval`` / ``*.json`` log in them, without eval-set's index files), files,
    globs, or a comma-separated list of those; a name that matches nothing is an error naming it."""
    items = [p.strip() for p in (logs.split(",") if isinstance(logs, str) else logs) if p and str(p).strip()]
    paths: list[str] = []
    for item in items:
        path = Path(item).expanduser()
        if path.is_dir():
            found = sorted(
                str(p)
                for p in path.rglob("*")
                if p.suffix in LOG_SUFFIXES and p.is_file() and p.name not in NOT_LOGS and _looks_like_log(p)
            )
        else:
            found = sorted(glob.glob(str(path))) if any(c in item for c in "*?[") else [str(path)]
        if not found:
            raise EqEvalsError(f"no Inspect logs found at {item}")
        for p in found:
            if not Path(p).is_file():
                raise EqEvalsError(f"log {p} does not exist")
        paths += found
    if not paths:
        raise EqEvalsError("no logs given")
    return list(dict.fromkeys(paths))


def _loop_running() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


# full reads of unchanged files, while a command asks for it (reading_cache); None = no cache
_CACHE: dict[tuple[str, int, int], EvalLog] | None = None


@contextmanager
def reading_cache() -> Iterator[None]:
    """Within the block, a log file read in full is read from disk once: a later :func:`read` of the same file,
    unchanged (same path, size and modification time), returns the same ``EvalLog``. For a command that reads
    the same logs more than once, or reads finished logs ahead on a worker thread (``eq-evals profile``: the
    calls and tokens, then the card; ``eq_evals.profile.prefetch``). The logs are shared: readers must not
    change them."""
    global _CACHE
    outer = _CACHE
    _CACHE = {} if outer is None else outer
    try:
        yield
    finally:
        _CACHE = outer


def _cache_key(path: str) -> tuple[str, int, int] | None:
    try:
        stat = os.stat(path)
    except (OSError, ValueError):  # not a local file (a remote location): never cached
        return None
    return os.path.realpath(path), stat.st_mtime_ns, stat.st_size


def read(path: str, header_only: bool = False) -> EvalLog:
    """Read a log; an unreadable file is an error naming it. Inside :func:`reading_cache`, a full read of an
    unchanged file is served from the cache.

    Async code (scorers, hooks) reads with :func:`read_async`. Sync code called on a running event loop (a task
    built by ``inspect eval``, which builds its tasks on its loop) reads on a worker thread. The reason is in
    Inspect: its synchronous ``read_eval_log`` (``run_coroutine`` in ``inspect_ai/_util/_async.py``) re-enters a
    running loop through nest_asyncio, which it applies only at that first re-entry. The patch comes too late for
    the frame of asyncio's ``_run_once`` already running, part-way through the ready queue it has counted: the
    nested run takes those handles and the frame then fails with "IndexError: pop from an empty deque", now and
    then, depending on what else is ready (the crash of ``eq-evals profile --opponents``)."""
    cache = _CACHE
    key = _cache_key(str(path)) if cache is not None and not header_only else None
    if key is not None and key in cache:  # type: ignore[operator]
        return cache[key]  # type: ignore[index]
    try:
        if _loop_running():
            with ThreadPoolExecutor(max_workers=1) as pool:
                log = pool.submit(read_eval_log, path, header_only=header_only).result()
        else:
            log = read_eval_log(path, header_only=header_only)
        if key is not None:
            cache[key] = log  # type: ignore[index]
        return log
    except Exception as ex:  # noqa: BLE001 - any unreadable file gets a message naming it
        raise EqEvalsError(f"{path} is not a readable Inspect log: {ex}") from None


async def read_async(path: str, header_only: bool = False) -> EvalLog:
    """:func:`read` for async code, on the caller's event loop (Inspect's ``read_eval_log_async``)."""
    try:
        return await read_eval_log_async(path, header_only=header_only)
    except Exception as ex:  # noqa: BLE001 - any unreadable file gets a message naming it
        raise EqEvalsError(f"{path} is not a readable Inspect log: {ex}") from None


def task_name(log: EvalLog) -> str:
    return log.eval.task.split("/")[-1]


def _first_line(text: Any) -> str:
    lines = str(text or "").strip().splitlines()
    return lines[0][:200] if lines else ""


def is_unscored(score: Any) -> bool:
    """A score that carries no number: ``Score.unscored(...)``, a NaN value, or a dict value with no number."""
    if score is None:
        return True
    if getattr(score, "unscored", False) is True:
        return True
    value = score.value
    if isinstance(value, float) and math.isnan(value):
        return True
    if isinstance(value, dict):  # unscored when no entry has a number (a PACE EQ with one dimension missing
        # is a scored partial composite, counted apart)
        return not any(
            isinstance(v, (int, float)) and not (isinstance(v, float) and math.isnan(v)) for v in value.values()
        )
    return value is None


def unscored_reason(score: Any) -> str:
    """Why a score is unscored: its ``reason``, else a reason in its metadata, else its explanation."""
    for candidate in (
        getattr(score, "reason", None),
        (getattr(score, "metadata", None) or {}).get("reason"),
        (getattr(score, "metadata", None) or {}).get("unscored_reason"),
    ):
        if candidate:
            return str(candidate)
    explanation = _first_line(getattr(score, "explanation", None))
    return explanation or "(no reason given)"


def _roles(log: EvalLog) -> dict[str, str]:
    out = {}
    for role, cfg in (log.eval.model_roles or {}).items():
        cfgs = cfg if isinstance(cfg, list) else [cfg]
        out[role] = ",".join(str(getattr(c, "model", c)) for c in cfgs)
    return out


@dataclass
class LogCheck:
    """The facts about one log that decide whether its numbers may be reported (see the module doc)."""

    path: str
    task: str
    task_id: str
    task_version: str
    model: str
    roles: dict[str, str]
    task_args: dict[str, Any]
    dataset: str
    sample_ids: list[str]
    epochs: int
    status: str
    error: str = ""
    planned: int | None = None
    present: int = 0
    errored: int = 0
    errors: Counter = field(default_factory=Counter)  # first line of each sample error -> count
    unscored: Counter = field(default_factory=Counter)  # (scorer, reason) -> count
    scored: Counter = field(default_factory=Counter)  # scorer -> scored samples
    partial_composites: Counter = field(default_factory=Counter)  # scorer -> scores built from a subset of parts
    partial_inputs: int = 0  # samples built from partial logs (facet_pairwise -T allow_partial=true)
    data_versions: list[str] = field(default_factory=list)  # distinct data_source records of the samples
    datasets: list[str] = field(default_factory=list)  # the header's dataset versions: name@sha256 (12 digits)
    samples_read: bool = True

    @property
    def complete(self) -> bool:
        return (
            self.status == "success"
            and self.errored == 0
            and (self.planned is None or not self.samples_read or self.present >= self.planned)
        )

    @property
    def n_unscored(self) -> int:
        return sum(self.unscored.values())

    def state(self) -> str:
        """``complete``, or why not, e.g. ``partial: status cancelled, 148 of 1800 samples``."""
        if self.complete:
            return "complete"
        parts = [f"status {self.status}"]
        if self.samples_read:
            done = self.present - self.errored
            parts.append(f"{done} of {self.planned if self.planned is not None else '?'} samples completed")
        if self.errored:
            parts.append(f"{self.errored} errored")
        if self.error:
            parts.append(f"error: {self.error}")
        return "partial: " + ", ".join(parts)

    def as_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "task": self.task,
            "task_version": self.task_version,
            "model": self.model,
            "roles": self.roles,
            "task_args": self.task_args,
            "dataset": self.dataset,
            "epochs": self.epochs,
            "status": self.status,
            "complete": self.complete,
            "state": self.state(),
            "planned": self.planned,
            "present": self.present,
            "errored": self.errored,
            "errors": dict(self.errors),
            "scored": dict(self.scored),
            "partial_inputs": self.partial_inputs,
            "partial_composites": dict(self.partial_composites),
            "data_versions": self.data_versions,
            "datasets": self.datasets,
            "unscored": [{"scorer": s, "reason": r, "count": n} for (s, r), n in sorted(self.unscored.items())],
        }


def check(log: EvalLog, path: str | None = None) -> LogCheck:
    """Describe a log read with or without its samples (header only: counts come from the results)."""
    ev = log.eval
    ds = ev.dataset
    epochs = int(getattr(ev.config, "epochs", None) or 1)
    ids = [str(i) for i in (ds.sample_ids or [])]
    planned = len(ids) * epochs if ids else (ds.samples * epochs if ds.samples else None)
    results = log.results
    if results is not None and results.total_samples:
        planned = results.total_samples
    where = ds.location or ds.name or "-"
    info = LogCheck(
        path=path or str(getattr(log, "location", "") or "-"),
        task=task_name(log),
        task_id=str(ev.task_id),
        task_version=str(ev.task_version),
        model=ev.model,
        roles=_roles(log),
        task_args=_task_args(ev.task_args),
        dataset=f"{where} ({ds.samples} samples)" if ds.samples is not None else str(where),
        sample_ids=ids,
        epochs=epochs,
        status=str(log.status),
        error=_first_line(log.error.message) if log.error else "",
        planned=planned,
        samples_read=log.samples is not None,
        datasets=sorted(
            {
                f"{v.get('name') or '?'}@{str(v['sha256'])[:12]}"
                for v in (ev.metadata or {}).get("datasets") or []
                if isinstance(v, dict) and v.get("sha256")
            }
        ),
    )
    if log.samples is None:
        info.present = results.completed_samples if results is not None else 0
        return info
    versions: set[str] = set()
    for sample in log.samples:
        info.present += 1
        info.partial_inputs += bool((sample.metadata or {}).get("partial_generations"))
        if (sample.metadata or {}).get("data_source"):  # e.g. LongEmotion: file, origin, revision, md5
            versions.add(_data_version(sample.metadata["data_source"]))
        if sample.error is not None:
            info.errored += 1
            info.errors[_first_line(sample.error.message) or "(no message)"] += 1
            continue
        for name, score in (sample.scores or {}).items():
            if is_unscored(score):
                info.unscored[(name, unscored_reason(score))] += 1
            else:
                info.scored[name] += 1
                if (score.metadata or {}).get("partial_composite"):  # e.g. a PACE EQ missing a dimension
                    info.partial_composites[name] += 1
    info.data_versions = sorted(versions)
    return info


def _data_version(source: Any) -> str:
    """A short description of where a sample's data came from: file, origin, revision and md5 per file."""
    items = source if isinstance(source, list) else [source]
    parts = []
    for item in items:
        if isinstance(item, dict):
            keys = ("file", "origin", "revision", "md5", "records", "release_records")
            parts.append(" ".join(f"{k}={item[k]}" for k in keys if item.get(k) is not None))
        else:
            parts.append(str(item))
    return "; ".join(parts)


def read_checked(path: str) -> tuple[EvalLog, LogCheck]:
    log = read(path)
    return log, check(log, path)


def header_complete(header: EvalLog) -> bool:
    """Complete as far as the header tells: finished (status ``success``) with results for every planned sample.
    A run whose every sample errored has status ``success`` but no results: not complete."""
    results = header.results
    return (
        header.status == "success"
        and results is not None
        and results.total_samples > 0
        and results.completed_samples >= results.total_samples
    )


def completed_retries(paths: Iterable[str]) -> dict[str, str]:
    """task id -> path of a complete log, from the headers. ``inspect eval-retry`` writes a new log with the task id
    of the log it retries, so a partial log whose task id is here has been finished by a retry."""
    out: dict[str, str] = {}
    for path in paths:
        header = read(path, header_only=True)
        if header_complete(header):
            out.setdefault(str(header.eval.task_id), path)
    return out


def skip_warning(info: LogCheck, flag: str = "--allow-partial") -> str:
    return (
        f"warning: skipped {info.path} ({info.task}, {info.model}; {info.state()}); "
        f"rerun it or finish it with `inspect eval-retry {info.path}`, or pass {flag} to include it, marked partial"
    )


def include_warning(info: LogCheck) -> str:
    return f"warning: included {info.path} ({info.task}, {info.model}; {info.state()}); its numbers are marked partial"


@dataclass
class Selection:
    """Logs kept for a computation, the partial ones among them, and the warnings to show the user."""

    kept: list[tuple[EvalLog, LogCheck]] = field(default_factory=list)
    partial: list[LogCheck] = field(default_factory=list)
    skipped: list[LogCheck] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    retried: dict[str, str] = field(default_factory=dict)  # task id -> its complete log (completed_retries)
    mixed: list[str] = field(default_factory=list)  # version problems allowed with allow_mixed (see gate)

    @property
    def partial_paths(self) -> set[str]:
        return {i.path for i in self.partial}


def select(paths: Iterable[str], allow_partial: bool = False, flag: str = "--allow-partial") -> Selection:
    """:func:`gate` with its defaults (any task, mixed versions refused)."""
    return gate(paths, allow_partial=allow_partial, flag=flag)


def _when(header: EvalLog) -> str:
    return str(header.stats.completed_at or header.stats.started_at or header.eval.created or "")


def _version_problems(headers: list[tuple[str, EvalLog]]) -> list[str]:
    """Logs of one task on different dataset versions (content hashes) or task versions."""
    from eq_evals.core.sources import mixed_versions

    problems = []
    mixed = mixed_versions((path, h.eval.metadata) for path, h in headers)
    if mixed:
        problems.append(mixed)
    by_task: dict[str, dict[str, list[str]]] = {}
    for path, h in headers:
        by_task.setdefault(task_name(h), {}).setdefault(str(h.eval.task_version), []).append(path)
    for task, versions in sorted(by_task.items()):
        if len(versions) > 1:
            problems.append(
                f"{task} logs of different task versions: "
                + "; ".join(f"version {v} ({len(p)} log(s), e.g. {p[0]})" for v, p in sorted(versions.items()))
            )
    return problems


def gate(
    paths: str | Iterable[str],
    *,
    tasks: Collection[str] | None = None,
    allow_partial: bool = False,
    allow_mixed: bool = False,
    flag: str = "--allow-partial",
    mixed_flag: str = "--allow-mixed-datasets",
    what: str = "",
) -> Selection:
    """Read logs through the project's rules (see the module doc): expand paths, refuse logs of other tasks
    (``tasks``: the task names this caller reads, e.g. ``{"sage"}``), keep one log per retry chain, refuse mixed
    dataset or task versions unless ``allow_mixed``, and keep complete logs (partial ones skipped with a warning,
    or kept and listed in ``partial`` with ``allow_partial``). ``what`` names the caller in error messages."""
    files = expand_log_paths(paths)
    headers = [(path, read(path, header_only=True)) for path in files]
    if tasks is not None:
        wrong = [(path, h.eval.task) for path, h in headers if task_name(h) not in tasks]
        if wrong:
            raise EqEvalsError(
                f"{what + ': ' if what else ''}these logs are not logs of "
                f"{', '.join('eq_evals/' + t for t in sorted(tasks))}: "
                + "; ".join(f"{path} ({task})" for path, task in wrong)
            )
    out = Selection()
    # one log per retry chain (same task id): the newest complete one, else the newest
    chains: dict[str, list[tuple[str, EvalLog]]] = {}
    for path, h in headers:
        chains.setdefault(str(h.eval.task_id), []).append((path, h))
    chosen: dict[str, str] = {}
    for task_id, members in chains.items():
        ordered = sorted(members, key=lambda m: _when(m[1]), reverse=True)
        complete = [m for m in ordered if header_complete(m[1])]
        chosen[task_id] = (complete or ordered)[0][0]
        if complete:
            out.retried[task_id] = complete[0][0]
    kept_headers = [(path, h) for path, h in headers if chosen[str(h.eval.task_id)] == path]
    problems = _version_problems(kept_headers)
    if problems and not allow_mixed:
        raise EqEvalsError(
            f"{what + ': ' if what else ''}"
            + " | ".join(problems)
            + f". Read each version separately, or pass {mixed_flag} to put them together."
        )
    out.mixed = problems
    for path, h in headers:
        keep = chosen[str(h.eval.task_id)]
        if path != keep:
            state = "complete" if header_complete(h) else "not complete"
            out.warnings.append(
                f"note: left out {path} ({state}): the same run (task id {h.eval.task_id}) "
                f"is read from {keep}" + (", its completed retry" if keep in out.retried.values() else "")
            )
            continue
        log = read(path)
        add(out, log, check(log, path), allow_partial, flag)
    # data versions recorded per sample (LongEmotion's data_source: file, origin, revision, md5)
    by_task: dict[str, dict[str, list[str]]] = {}
    for _, info in out.kept:
        if info.data_versions:
            by_task.setdefault(info.task, {}).setdefault(" | ".join(info.data_versions), []).append(info.path)
    sample_problems = [
        f"{task} logs on different data: " + "; ".join(f"{v} ({', '.join(p)})" for v, p in versions.items())
        for task, versions in sorted(by_task.items())
        if len(versions) > 1
    ]
    if sample_problems and not allow_mixed:
        raise EqEvalsError(
            f"{what + ': ' if what else ''}these logs were made on different dataset versions, so "
            "their scores are not comparable: "
            + " | ".join(sample_problems)
            + f". Read each version separately, or pass {mixed_flag} to put them together."
        )
    out.mixed += sample_problems
    return out


def add(out: Selection, log: EvalLog, info: LogCheck, allow_partial: bool, flag: str = "--allow-partial") -> bool:
    """Put one checked log into a selection; True when it is kept."""
    if info.complete:
        out.kept.append((log, info))
        return True
    retry = out.retried.get(info.task_id)
    if (
        retry is not None and retry != info.path
    ):  # finished by `inspect eval-retry`: the retry holds every sample of this log
        out.skipped.append(info)
        out.warnings.append(f"note: left out {info.path} ({info.state()}): its retry {retry} is complete")
        return False
    if not allow_partial:
        out.skipped.append(info)
        out.warnings.append(skip_warning(info, flag))
        return False
    out.kept.append((log, info))
    out.partial.append(info)
    out.warnings.append(include_warning(info))
    return True


# Task arguments that name where logs or data live but not what was run. HEART's `opponents` grows as systems are
# added (docs/heart.md: a later run passes `-T opponents=reference,logs/`), so runs with different lists still compare.
LOCATION_ARGS = frozenset({"logs", "data_dir", "opponents"})
_SHOWN = 60  # characters of one value in a note


def _short(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, default=str, ensure_ascii=False)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…"


def _where(paths: list[str]) -> str:
    return ", ".join(paths) if len(paths) <= 3 else f"{', '.join(paths[:2])} and {len(paths) - 2} more logs"


def _differences(label: str, values: dict[str, list[str]], loaded: dict[str, Any]) -> str:
    """The note for one differing property: the keys that differ (dicts), the sizes and ids that differ (item
    sets), else the values; each value with the logs that have it."""
    parsed = [loaded[v] for v in values]
    if all(isinstance(p, dict) for p in parsed):
        keys = sorted(
            {
                k
                for p in parsed
                for k in p
                if len({json.dumps(q.get(k), sort_keys=True, default=str) for q in parsed}) > 1
            }
        )
        parts = []
        for key in keys:
            by_value: dict[str, list[str]] = {}
            for v, paths in values.items():
                shown = _short(loaded[v][key]) if key in loaded[v] else "(unset)"
                by_value.setdefault(shown, []).extend(paths)
            parts.append(f"{key}: " + "; ".join(f"{shown} in {_where(p)}" for shown, p in by_value.items()))
        return f"logs differ in {label}: " + " | ".join(parts)
    if all(isinstance(p, list) for p in parsed):  # item sets, data versions: what is not in every log
        common = set.intersection(*(set(map(str, p)) for p in parsed))
        parts = []
        for v, paths in values.items():
            extra = sorted(set(map(str, loaded[v])) - common)
            if label == "item set":
                example = f", {len(extra)} not in every log (e.g. {', '.join(extra[:3])})" if extra else ""
                parts.append(f"{len(loaded[v])} items{example} in {_where(paths)}")
            else:
                more = f" and {len(extra) - 2} more" if len(extra) > 2 else ""
                parts.append(f"{'; '.join(extra[:2]) + more if extra else '(only the common ones)'} in {_where(paths)}")
        return f"logs differ in {label}: " + " | ".join(parts)
    return f"logs differ in {label}: " + "; ".join(f"{_short(loaded[v])} in {_where(p)}" for v, p in values.items())


def _task_args(args: dict[str, Any] | None) -> dict[str, Any]:
    """A log's task arguments, a list argument in its one form: ``inspect eval -T dimensions=a,b`` records the
    list ["a", "b"], a Python caller may pass "a,b"; the engine hands both to the task as "a,b"
    (engine.comma_list), so both are shown and compared as "a,b"."""
    from eq_evals.engine import comma_list

    out = dict(args or {})
    for key, value in out.items():
        if isinstance(value, (list, tuple)):
            try:
                out[key] = comma_list(value)
            except ValueError:  # not a list of scalars: not one of ours, shown as it is
                pass
    return out


def comparability(infos: list[LogCheck]) -> list[str]:
    """Reasons the logs of one task cannot be put side by side (empty when they can): different task
    versions, arguments, item sets, epochs or model roles, or a model run twice. A note names what differs
    (the argument or role, the item count) and each value with its logs, not the whole record."""
    notes = []
    by_task: dict[str, list[LogCheck]] = {}
    for info in infos:
        by_task.setdefault(info.task, []).append(info)
    for task, group in sorted(by_task.items()):
        if len(group) < 2:
            continue

        def differs(label: str, key: Any) -> None:
            values: dict[str, list[str]] = {}
            loaded: dict[str, Any] = {}
            for g in group:
                value = key(g)
                text = json.dumps(value, sort_keys=True, default=str)
                values.setdefault(text, []).append(g.path)
                loaded[text] = json.loads(text)
            if len(values) > 1:
                notes.append(f"{task}: {_differences(label, values, loaded)}")

        differs("task version", lambda g: g.task_version)
        differs("task arguments", lambda g: {k: v for k, v in g.task_args.items() if k not in LOCATION_ARGS})
        differs("item set", lambda g: sorted(g.sample_ids))
        differs("epochs", lambda g: g.epochs)
        differs("data versions (file, origin, revision, md5)", lambda g: g.data_versions)
        differs("dataset versions (content hash)", lambda g: g.datasets)
        differs("model roles (judge, simulated user, grader)", lambda g: g.roles)
        models = Counter(g.model for g in group)
        for model, n in sorted(models.items()):
            if n > 1:
                notes.append(
                    f"{task}: model {model} appears in {n} logs "
                    f"({', '.join(g.path for g in group if g.model == model)}); a leaderboard keeps one "
                    "score per sample (the newest) where it de-duplicates, else counts both"
                )
    return notes
