"""The Inspect Evals register entries, register/<benchmark>/eval.yaml (register/README.md): each follows the
register's entry schema (the fields of the inspect-evals package's external-eval model, version 0.26.0), and
every task, version, sample count and pin in it is what the bundled declarations build."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
import yaml
from support import SHARED_DATA

ROOT = Path(__file__).resolve().parents[2]
REGISTER = ROOT / "register"
ENTRIES = {path.parent.name: path for path in sorted(REGISTER.glob("*/eval.yaml"))}
SHA = re.compile(r"^[0-9a-f]{40}$")

# The register's entry fields; anything else is refused by its loader.
TOP_REQUIRED = {"common_title", "description", "contributors", "tasks", "source"}  # and full_title (or title)
TOP_FIELDS = TOP_REQUIRED | {"full_title", "title", "paper_title", "arxiv", "tags", "metadata", "evaluation_report"}
TASK_FIELDS = {"name", "task_path", "dataset_samples", "human_baseline", "comment", "kind"}
SOURCE_FIELDS = {"repository_url", "repository_commit", "maintainers", "comment"}
METADATA_FIELDS = {"fast", "sandbox", "requires", "environment", "supports_k8s", "extras"}
REQUIRES_FIELDS = {"internet", "gpu"}
# What eq-evals keeps under metadata.extras (register/README.md): the in-repository evals' group and assets,
# and per-task versions and per-language counts.
EXTRAS_FIELDS = {"group", "task_versions", "samples_per_language", "external_assets"}
GROUPS = {
    "Assistants",
    "Bias",
    "Coding",
    "Cybersecurity",
    "Knowledge",
    "Mathematics",
    "Multimodal",
    "Personality",
    "Reasoning",
    "Safeguards",
    "Scheming",
    "Writing",
}
ASSET_FIELDS = {"type", "source", "fetch_method", "state", "comment"}
ASSET_TYPES = {"huggingface", "git_clone", "direct_url", "git_dependency"}
ASSET_STATES = {"floating", "pinned", "controlled"}
FETCH_METHODS = {
    "git_clone",
    "curl",
    "wget",
    "requests",
    "urllib",
    "wget_py",
    "gdown",
    "hf_dataset",
    "load_dataset",
    "snapshot_download",
    "hf_hub_download",
    "download_and_verify",
    "gdown_and_verify",
    "pip_install_git",
    "pyproject_toml",
    "other",
}

# LongEmotion's release is not bundled. Tasks that make one sample per record of one release file, and that file.
LONGEMOTION_ONE_PER_RECORD = {
    "classification": "Emotion_Classification_Emobench.jsonl",
    "detection": "Emotion_Detection.jsonl",
    "qa": "Emotion_QA.jsonl",
    "summary": "Emotion_Summary_origin.jsonl",
}


def load(name: str) -> dict:
    return yaml.safe_load(ENTRIES[name].read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def declarations() -> dict:
    """The bundled task declarations by name (no EQ_EVALS_PATH overlay)."""
    import os

    from eq_evals.engine import load_declarations
    from eq_evals.resources import declarative_root

    saved = os.environ.pop("EQ_EVALS_PATH", None)
    try:
        decls = load_declarations()
    finally:
        if saved is not None:
            os.environ["EQ_EVALS_PATH"] = saved
    root = declarative_root()
    return {d.spec.name: d for d in decls if root in d.file.parents}


def test_one_entry_per_benchmark(declarations: dict) -> None:
    assert set(ENTRIES) == {d.spec.benchmark for d in declarations.values()}


@pytest.mark.parametrize("name", sorted(ENTRIES))
def test_entry_follows_the_register_schema(name: str) -> None:
    entry = load(name)
    assert isinstance(entry, dict)
    assert not set(entry) - TOP_FIELDS, f"{name}: fields the register refuses: {set(entry) - TOP_FIELDS}"
    assert TOP_REQUIRED <= set(entry) and ("full_title" in entry or "title" in entry), name
    assert "id" not in entry  # the register takes the id from the folder name
    for key in ("full_title", "common_title", "paper_title"):
        assert key not in entry or (isinstance(entry[key], str) and entry[key].strip()), (name, key)
    assert isinstance(entry["description"], str) and entry["description"].strip() and "\n" not in entry["description"]
    assert isinstance(entry["contributors"], list) and all(isinstance(c, str) for c in entry["contributors"])
    assert isinstance(entry.get("tags", []), list)
    if "arxiv" in entry:  # a URL of the paper the benchmark's page cites
        match = re.fullmatch(r"https://arxiv\.org/abs/(\d{4}\.\d{4,5})", entry["arxiv"])
        assert match, entry["arxiv"]
        assert match.group(1) in (ROOT / "docs" / f"{name}.md").read_text(encoding="utf-8")

    source = entry["source"]
    assert not set(source) - SOURCE_FIELDS and {"repository_url", "repository_commit"} <= set(source)
    assert re.fullmatch(r"https://github\.com/[\w.-]+/[\w.-]+", source["repository_url"]), source["repository_url"]
    assert SHA.match(source["repository_commit"]), source["repository_commit"]

    assert isinstance(entry["tasks"], list) and entry["tasks"]
    for task in entry["tasks"]:
        assert not set(task) - TASK_FIELDS, (name, task)
        assert isinstance(task["name"], str) and task["name"]
        assert task.get("task_path"), f"{name}: register entries need task_path on every task"
        assert (ROOT / task["task_path"]).is_file(), task["task_path"]
        samples = task.get("dataset_samples")
        assert samples is None or (isinstance(samples, int) and samples > 0)
        assert task.get("kind", "benchmark") in ("benchmark", "maintenance")

    metadata = entry["metadata"]
    assert not set(metadata) - METADATA_FIELDS, set(metadata) - METADATA_FIELDS
    assert not set(metadata.get("requires") or {}) - REQUIRES_FIELDS
    extras = metadata["extras"]
    assert set(extras) == EXTRAS_FIELDS, set(extras) ^ EXTRAS_FIELDS
    assert extras["group"] in GROUPS
    for asset in extras["external_assets"]:
        assert not set(asset) - ASSET_FIELDS and {"type", "source", "fetch_method", "state"} <= set(asset), asset
        assert (
            asset["type"] in ASSET_TYPES and asset["state"] in ASSET_STATES and asset["fetch_method"] in FETCH_METHODS
        )
        if asset["state"] == "pinned":  # a pinned asset names its commits
            assert re.search(r"\b[0-9a-f]{40}\b", asset.get("comment", "") + asset["source"]), asset


def test_every_bundled_task_is_registered_once(declarations: dict) -> None:
    registered = [(name, task["name"]) for name in ENTRIES for task in load(name)["tasks"]]
    names = [task for _, task in registered]
    assert len(names) == len(set(names)), "a task is registered twice"
    assert set(names) == set(declarations), {
        "not registered": set(declarations) - set(names),
        "not a bundled task": set(names) - set(declarations),
    }
    for entry, task in registered:
        assert declarations[task].spec.benchmark == entry, f"{task} is registered under {entry}"


@pytest.mark.parametrize("name", sorted(ENTRIES))
def test_versions_are_the_declarations(name: str, declarations: dict) -> None:
    entry = load(name)
    versions = entry["metadata"]["extras"]["task_versions"]
    assert set(versions) == {task["name"] for task in entry["tasks"]}
    for task, version in versions.items():
        assert version == declarations[task].spec.version, f"{task}: registered version {version}"


def _longemotion_counts(decl) -> dict[str, int] | None:
    """LongEmotion's counts without the Hub: the task built on a local copy of the release when one is there, else
    the record count the loader expects of the task's file (one sample per record, as the fixtures show)."""
    from eq_evals.commands.listing import default_samples
    from eq_evals.longemotion.data import RELEASE_RECORDS
    from eq_evals.resources import resource

    local = SHARED_DATA / "longemotion"
    if local.is_dir():
        built = default_samples(decl, {"data_dir": str(local)})
        if built and not isinstance(built["all"], Exception):
            return {"all": len(built["all"])}
    file = LONGEMOTION_ONE_PER_RECORD.get(decl.spec.dataset.args.get("task"))
    if file is None:
        return None
    [fixtures] = default_samples(decl, {"fixtures": True}).values()
    records = resource("datasets", f"longemotion/fixtures/{file}").read_text(encoding="utf-8").splitlines()
    assert len(fixtures) == len([line for line in records if line.strip()]), f"{file}: not one sample per record"
    return {"all": RELEASE_RECORDS[file]}


@pytest.mark.parametrize("name", sorted(ENTRIES))
def test_sample_counts_are_what_the_tasks_build(name: str, declarations: dict) -> None:
    from eq_evals.commands.listing import default_samples

    entry = load(name)
    per_language = entry["metadata"]["extras"]["samples_per_language"]
    unchecked = []
    for task in entry["tasks"]:
        decl = declarations[task["name"]]
        built = default_samples(decl)
        if built is None:  # built from -T logs: no fixed count
            assert task.get("dataset_samples") is None and task["name"] not in per_language, task["name"]
            continue
        counts = {lang: len(s) for lang, s in built.items() if not isinstance(s, Exception)}
        if len(counts) < len(built) and decl.spec.benchmark == "longemotion":
            counts = _longemotion_counts(decl)
        if counts is None or len(counts) < len(built):
            unchecked.append(task["name"])
            continue
        assert per_language[task["name"]] == counts, f"{task['name']}: registered {per_language[task['name']]}"
        language = decl.spec.parameters.get("language")
        default = counts[language.default] if language else counts["all"]
        assert task["dataset_samples"] == default, f"{task['name']}: dataset_samples {task['dataset_samples']}"
    if unchecked:
        pytest.skip(f"no data here to count {', '.join(unchecked)} (the release is not on this machine)")


def test_pinned_assets_are_the_loaders_pins() -> None:
    from eq_evals.heart.data import RELEASE_FILES
    from eq_evals.longemotion.data import HF_REPO, HF_REVISION

    [heart] = load("heart")["metadata"]["extras"]["external_assets"]
    assert heart["state"] == "pinned"
    pinned = set(re.findall(r"(\S+) at ([0-9a-f]{40})", heart["comment"]))
    assert pinned == {(path, commit) for path, commit, _ in RELEASE_FILES.values()}
    assert heart["source"].startswith("https://raw.githubusercontent.com/Hippocratic-AI-Research/HEART/")

    [longemotion] = load("longemotion")["metadata"]["extras"]["external_assets"]
    assert longemotion["source"] == HF_REPO
    assert longemotion["state"] == ("pinned" if SHA.match(HF_REVISION) else "floating")


def _git(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True)


def test_pinned_commit_has_the_registered_versions() -> None:
    if _git("rev-parse", "--is-inside-work-tree").stdout.strip() != "true":
        pytest.skip("not a git checkout")
    commits = {load(name)["source"]["repository_commit"] for name in ENTRIES}
    for commit in commits:
        if _git("cat-file", "-e", f"{commit}^{{commit}}").returncode != 0:
            if _git("rev-parse", "--is-shallow-repository").stdout.strip() == "true":
                pytest.skip("a shallow clone: the pinned commit may be older than its history")
            pytest.fail(f"the pinned commit {commit} is not in this repository's history")
        at_commit = {}
        for path in _git("ls-tree", "-r", "--name-only", commit, "--", "tasks").stdout.split():
            if path.endswith(".yaml") and not Path(path).name.startswith("_"):  # fragments are not tasks
                spec = yaml.safe_load(_git("show", f"{commit}:{path}").stdout)
                version = spec.get("version")
                includes = spec.get("include") or []
                for name in [includes] if isinstance(includes, str) else includes:  # a version set in a fragment
                    if version is None:
                        fragment = yaml.safe_load(_git("show", f"{commit}:{Path(path).parent / name}").stdout) or {}
                        version = fragment.get("version")
                at_commit[spec["name"]] = version if version is not None else 1
        for name in ENTRIES:
            entry = load(name)
            if entry["source"]["repository_commit"] != commit:
                continue
            for task, version in entry["metadata"]["extras"]["task_versions"].items():
                assert at_commit.get(task) == version, f"{task} at {commit[:7]}: version {at_commit.get(task)}"


def test_the_engine_does_not_read_register_entries() -> None:
    from eq_evals.engine import declaration_files

    files = declaration_files()
    assert files and not [f for f in files if REGISTER in f.parents or f.name == "eval.yaml"]


def test_a_registered_task_runs_from_its_task_path(tmp_path: Path) -> None:
    """The register runs `inspect eval <task_path>@<task>`; once the package is installed Inspect names the task
    eq_evals/<task>, from a bare source path <task> (register/README.md)."""
    from inspect_ai import eval as inspect_eval

    task = load("facet")["tasks"][0]
    path = ROOT / task["task_path"]
    errors = []
    for name in (f"eq_evals/{task['name']}", task["name"]):
        try:
            [log] = inspect_eval(
                f"{path}@{name}",
                model="eq_evals/scripted-oracle",
                limit=1,
                epochs=1,
                log_dir=str(tmp_path / "logs"),
                display="none",
            )
        except Exception as ex:  # noqa: BLE001 - the other name is tried
            errors.append(f"{name}: {ex}")
            continue
        assert log.status == "success" and log.results.scores[0].metrics["mean"].value == 1.0
        return
    pytest.fail("; ".join(errors))


def test_entries_are_valid_json_types() -> None:
    """YAML that would not survive a JSON round trip (dates, sets) is not in an entry."""
    for name in ENTRIES:
        entry = load(name)
        assert json.loads(json.dumps(entry)) == entry
