"""Where a task's data comes from: the one resolver behind every dataset adapter's ``source`` parameter.

A ``source`` is one of
- empty: the bundled files under ``datasets/`` (the offline default);
- a local file or folder (e.g. a copy made with ``hf download``, or a folder written by ``eq-evals hub export``);
- ``hf://OWNER/NAME@REVISION``: a Hugging Face Hub dataset pinned to a commit sha or a tag, read with
  ``datasets.load_dataset``. An unpinned Hub source (no ``@REVISION``, or a moving branch such as ``main``) is
  refused with advice, and without network the load fails in seconds with the ``hf download`` command to run
  where there is network.

How an adapter uses it (FACET and SAGE do; PACE and HEART adapters should too)::

    resolved = resolve(source, bundled=resource("datasets", "facet"))
    if resolved.hub:                                   # rows of the Hub dataset, config by config
        rows = [(f"{resolved.hub}/{config}", i, r) for config in CONFIGS
                for i, r in enumerate(load_hub_rows(resolved.hub, config))]
    else:                                              # read resolved.path as before
        ...
    samples = stamp(samples, dataset_version(resolved, [record for _, _, record in rows]))

``stamp`` records the origin, revision and a content hash of the rows in each sample's metadata
(``dataset_version``); the engine moves the distinct versions into the task's metadata (and out of the samples,
where they would be written again with every sample), so every log header says which data it was made on and
``eq-evals ratings`` can refuse to mix versions. The hash is over the rows'
content, independent of their order and of the file layout, so the bundled files, an exported folder and the
Hub copy of the same data have the same hash.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Iterable, Literal

from eq_evals.errors import EqEvalsError

HUB_SCHEME = "hf://"
HUB_SOURCE = re.compile(r"^hf://(?P<repo>[A-Za-z0-9][\w.-]*/[A-Za-z0-9][\w.-]*)(?:@(?P<revision>.*))?$")
REVISION = re.compile(r"^[\w][\w.\-/]*$")
MOVING_BRANCHES = {"main", "master", "refs/heads/main", "refs/heads/master", "head"}
VERSION_KEY = "dataset_version"  # sample metadata key holding the dataset's origin, revision and hash
PROBE_TIMEOUT = 3.0


@dataclass(frozen=True)
class HubRef:
    """A Hub dataset pinned to a revision (commit sha or tag)."""

    repo: str
    revision: str

    def __str__(self) -> str:
        return f"{HUB_SCHEME}{self.repo}@{self.revision}"

    def download_advice(self) -> str:
        return (
            f"Download it where there is network: `hf download {self.repo} --repo-type dataset --revision "
            f"{self.revision} --local-dir DIR`, then run with -T source=DIR."
        )


@dataclass(frozen=True)
class Resolved:
    kind: Literal["bundled", "local", "hub"]
    path: Path | None = None
    hub: HubRef | None = None

    @property
    def location(self) -> str:
        return str(self.hub) if self.hub else str(self.path)


def parse_hub(source: str) -> HubRef:
    """``hf://OWNER/NAME@REVISION`` -> HubRef. Refuses an unpinned source or a moving branch, with advice."""
    m = HUB_SOURCE.match(source.strip())
    if not m:
        raise EqEvalsError(
            f"-T source={source}: a Hub source is written hf://OWNER/NAME@REVISION (REVISION a commit sha or a tag)"
        )
    repo, revision = m.group("repo"), m.group("revision")
    if not revision:
        raise EqEvalsError(
            f"-T source={source}: the Hub revision is not pinned, so the data could change under the results. "
            f"Pin a commit sha or a tag: -T source=hf://{repo}@<sha or tag> (the commit sha is shown on the "
            f"dataset's 'Files and versions' page, or printed by `eq-evals hub push`)."
        )
    if not REVISION.match(revision):
        raise EqEvalsError(f"-T source={source}: {revision!r} is not a commit sha or a tag")
    if revision.lower() in MOVING_BRANCHES:
        raise EqEvalsError(
            f"-T source={source}: '{revision}' is a branch that moves with every upload; pin a commit sha or a tag "
            f"instead (-T source=hf://{repo}@<sha or tag>)."
        )
    return HubRef(repo, revision)


def resolve(source: str | None, bundled: Path) -> Resolved:
    """The bundled path (no source), a local file/folder, or a pinned Hub dataset (``hf://...``)."""
    if not source:
        return Resolved("bundled", path=bundled)
    if source.strip().startswith(HUB_SCHEME):
        return Resolved("hub", hub=parse_hub(source))
    path = Path(source).expanduser()
    if path.exists():
        return Resolved("local", path=path)
    hint = ""
    if re.match(r"^[A-Za-z0-9][\w.-]*/[A-Za-z0-9][\w.-]*(@.*)?$", source) and not source.startswith((".", "~")):
        hint = f" For a Hugging Face Hub dataset write -T source=hf://{source if '@' in source else source + '@<sha or tag>'}."
    raise EqEvalsError(f"-T source={source}: no such file or folder.{hint}")


def _truthy(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on")


def offline() -> bool:
    return _truthy("HF_HUB_OFFLINE") or _truthy("HF_DATASETS_OFFLINE")


@cache
def hub_unreachable(endpoint: str) -> str | None:
    """None when one quick request to the Hub endpoint gets an answer, else why not (no retries)."""
    try:
        import httpx

        httpx.head(endpoint, timeout=PROBE_TIMEOUT)
    except Exception as ex:  # noqa: BLE001 - any failure means: do not start huggingface_hub's retries
        return f"{type(ex).__name__}: {ex}"
    return None


def hub_endpoint() -> str:
    return os.environ.get("HF_ENDPOINT", "https://huggingface.co").rstrip("/")


def load_hub_rows(ref: HubRef, config: str | None = None, split: str = "test") -> list[dict[str, Any]]:
    """The rows of one config and split of a pinned Hub dataset, via ``datasets.load_dataset``.

    With HF_HUB_OFFLINE/HF_DATASETS_OFFLINE set only the local cache is tried (instant); otherwise one quick
    request decides whether the Hub is reachable before ``datasets`` starts its retries. Any failure is an
    EqEvalsError naming the dataset, config and revision, with the ``hf download`` advice.
    """
    where = f"{ref}" + (f" (config {config}, split {split})" if config else f" (split {split})")
    if not offline():
        problem = hub_unreachable(hub_endpoint())
        if problem:
            raise EqEvalsError(
                f"-T source={ref}: the Hugging Face Hub ({hub_endpoint()}) cannot be reached "
                f"({problem}). {ref.download_advice()}"
            )
    try:
        import datasets
    except ImportError:
        raise EqEvalsError("a hf:// source needs the 'datasets' package (pip install datasets)") from None
    try:
        rows = datasets.load_dataset(ref.repo, config, revision=ref.revision, split=split)
    except Exception as ex:  # noqa: BLE001 - offline, missing config, auth: one message with the fix
        first = str(ex).splitlines()[0] if str(ex) else ""
        why = (
            "offline (HF_HUB_OFFLINE is set) and not in the local cache"
            if offline()
            else f"{type(ex).__name__}: {first}"
        )
        raise EqEvalsError(f"-T source={ref}: {where} could not be loaded: {why}. {ref.download_advice()}") from None
    return [_plain(dict(r)) for r in rows]


def _plain(record: dict[str, Any]) -> dict[str, Any]:
    """A row as read from JSON: the columns a row did not have (None in the Arrow table) are dropped."""
    return {k: v for k, v in record.items() if v is not None}


def canonical(record: Any) -> str:
    return json.dumps(
        _plain(record) if isinstance(record, dict) else record,
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
    )


def content_hash(records: Iterable[Any]) -> str:
    """sha256 over the rows' canonical JSON (keys sorted, null fields dropped), independent of row order and
    file layout: the bundled files, an exported folder and its Hub copy hash alike."""
    digest = hashlib.sha256()
    for line in sorted(canonical(r) for r in records):
        digest.update(line.encode("utf-8") + b"\n")
    return digest.hexdigest()


def dataset_version(resolved: Resolved, records: list[Any], name: str | None = None) -> dict[str, Any]:
    """What a log records about its data: origin (bundled/local/hub), location, revision, content hash."""
    from eq_evals.resources import display_path

    location = str(resolved.hub.repo) if resolved.hub else display_path(resolved.path) if resolved.path else ""
    return {
        "name": name,
        "origin": resolved.kind,
        "location": location,
        "revision": resolved.hub.revision if resolved.hub else None,
        "sha256": content_hash(records),
        "rows": len(records),
    }


def stamp(samples: list, version: dict[str, Any]) -> list:
    """Record ``version`` in every sample's metadata (the engine moves it into the task's metadata)."""
    for s in samples:
        s.metadata = {**(s.metadata or {}), VERSION_KEY: version}
    return samples


def versions_of(samples: Iterable[Any]) -> list[dict[str, Any]]:
    """The distinct dataset versions recorded in ``samples`` (in first-seen order)."""
    seen: dict[str, dict[str, Any]] = {}
    for s in samples:
        v = (getattr(s, "metadata", None) or {}).get(VERSION_KEY)
        for one in v if isinstance(v, list) else [v]:  # a list: samples built from several (e.g. a matchup)
            if isinstance(one, dict):
                seen.setdefault(canonical(one), one)
    return list(seen.values())


def mixed_versions(logs: Iterable[tuple[str, dict[str, Any] | None]]) -> str | None:
    """Why logs cannot be ranked together, or None: given (log path, task metadata) pairs, the datasets (by
    name, e.g. facet, sage, longemotion/qa) that logs used in more than one version (content hash). Logs
    without a record (made before versions were recorded) are not compared."""
    by_benchmark: dict[str, dict[str, tuple[dict[str, Any], list[str]]]] = {}
    for path, metadata in logs:
        metadata = metadata or {}
        for v in metadata.get("datasets") or []:
            if isinstance(v, dict) and v.get("sha256"):
                entry = by_benchmark.setdefault(str(v.get("name") or metadata.get("benchmark")), {})
                entry.setdefault(v["sha256"], (v, []))[1].append(str(path))
    problems = []
    for benchmark, hashes in sorted(by_benchmark.items()):
        if len(hashes) > 1:
            parts = [
                f"{v.get('origin')} {v.get('location')}{'@' + v['revision'] if v.get('revision') else ''} "
                f"(sha256 {sha[:12]}, {len(paths)} log(s), e.g. {paths[0]})"
                for sha, (v, paths) in hashes.items()
            ]
            problems.append(f"{benchmark}: " + "; ".join(parts))
    return (
        (
            "these logs were made on different dataset versions, so their scores are not comparable: "
            + " | ".join(problems)
        )
        if problems
        else None
    )
