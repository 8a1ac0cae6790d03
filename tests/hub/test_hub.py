"""Datasets on the Hub (issue 10): export, card metadata, datasets.load_dataset round trip, tasks from the
exported folder and from hf://, the push (up to huggingface_hub's commit operations), refusals, pinning,
the offline time bound, dataset versions in logs and the ratings check."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.model import get_model
from support import FakeHub

import eq_evals._registry  # noqa: F401  (registers the tasks, as the entry point does)
from eq_evals import __version__, hub, report
from eq_evals.cli import main as cli_main
from eq_evals.core import sources
from eq_evals.errors import EqEvalsError
from eq_evals.facet.data import read_rows
from eq_evals.resources import declarative_root

REQUIRED = ("license", "language", "pretty_name", "task_categories", "size_categories", "configs")
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def facet_sha() -> str:
    return sources.content_hash(r for _, _, r in read_rows(declarative_root() / "datasets" / "facet"))


def exportable() -> list[str]:
    names = []
    for name in sorted(hub.dataset_folders()):
        try:
            hub.load_manifest(name)
        except EqEvalsError:
            continue
        names.append(name)
    return names


def plain(row: dict) -> dict:
    return {k: v for k, v in row.items() if v is not None}


def bundled_rows(name: str, files: list[str]) -> list[dict]:
    folder = declarative_root() / "datasets" / name
    return [
        plain(json.loads(line))
        for f in files
        for line in (folder / f).read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("exported")
    return {name: hub.export(name, root / name).folder for name in exportable()}


def test_project_sets_are_exportable_and_longemotion_is_refused() -> None:
    assert {"facet", "sage", "pace", "heart"} <= set(exportable())
    with pytest.raises(EqEvalsError, match="longemotion may not be published: the LongEmotion release is the authors'"):
        hub.load_manifest("longemotion")
    with pytest.raises(EqEvalsError, match="no dataset 'nope'"):
        hub.load_manifest("nope")


def test_cards_parse_with_huggingface_hub_and_have_the_required_fields(exported: dict[str, Path]) -> None:
    from huggingface_hub import DatasetCard

    for name, folder in exported.items():
        card = DatasetCard.load(folder / "README.md")
        data = card.data.to_dict()
        for key in REQUIRED:
            assert data.get(key), f"{name}: {key} missing"
        _, manifest = hub.load_manifest(name)
        assert data["license"] == manifest.license
        assert [c["config_name"] for c in data["configs"]] == list(manifest.configs)
        for c in data["configs"]:
            [files] = c["data_files"]
            assert files["split"] == "test"
        assert data["size_categories"] == ["n<1K"]
        # one source of truth: the bundled card's text is in the Hub card verbatim, with the statement
        body = (declarative_root() / "datasets" / name / "README.md").read_text(encoding="utf-8")
        assert body.rstrip() in card.text
        assert "Project-authored by eq-evals, not the paper's data." in card.text and manifest.statement in body
        assert data["eq_evals"]["sha256"] == sources.content_hash(
            bundled_rows(name, sorted({f for fs in manifest.configs.values() for f in fs}))
        )


def test_language_counts_in_the_card(exported: dict[str, Path]) -> None:
    for name in ("pace", "heart", "sage"):
        _, manifest = hub.load_manifest(name)
        rows = bundled_rows(name, manifest.configs["all"])
        en = sum(1 for r in rows if r[manifest.language_column] == "en")
        assert 0 < en < len(rows)
        row = f"| {len(rows)} | {en} | {len(rows) - en} |"
        text = (exported[name] / "README.md").read_text(encoding="utf-8")
        [line] = [x for x in text.splitlines() if x.startswith("| `all` (default) |")]
        assert line.endswith(row), (name, line)


def test_facet_configs_are_the_item_pools(exported: dict[str, Path]) -> None:
    _, manifest = hub.load_manifest("facet")
    assert list(manifest.configs) == [
        "apparent",
        "hidden",
        "prediction",
        "social",
        "crisis",
        "deepening",
        "shared",
        "naturalness",
    ]  # one per item pool (docs/hub.md)


def test_load_dataset_returns_exactly_the_bundled_rows_for_every_config(
    exported: dict[str, Path], tmp_path: Path
) -> None:
    import datasets

    datasets.disable_progress_bars()
    for name, folder in exported.items():
        _, manifest = hub.load_manifest(name)
        for config, files in manifest.configs.items():
            rows = datasets.load_dataset(str(folder), config, split="test", cache_dir=str(tmp_path / "cache"))
            assert [plain(dict(r)) for r in rows] == bundled_rows(name, files), f"{name}/{config}"


def test_export_refuses_a_non_empty_folder_and_a_card_that_disagrees(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "x").write_text("x")
    with pytest.raises(EqEvalsError, match="not empty"):
        hub.export("sage", tmp_path / "busy")
    overlay = tmp_path / "overlay" / "datasets" / "sage"
    shutil.copytree(declarative_root() / "datasets" / "sage", overlay)
    text = (overlay / "README.md").read_text(encoding="utf-8")
    (overlay / "README.md").write_text(text.replace("Apache License 2.0", "CC0"), encoding="utf-8")
    monkeypatch.setenv("EQ_EVALS_PATH", str(tmp_path / "overlay"))
    with pytest.raises(EqEvalsError, match="does not contain the manifest's license_name 'Apache License 2.0'"):
        hub.export("sage", tmp_path / "out")


def test_rows_that_are_not_project_authored_are_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    overlay = tmp_path / "overlay" / "datasets" / "facet"
    shutil.copytree(declarative_root() / "datasets" / "facet", overlay)
    lines = (overlay / "crisis.jsonl").read_text(encoding="utf-8").splitlines()
    row = json.loads(lines[2])
    row["id"] = (
        "facet-009-zh"  # the authors' id scheme (datasets/facet/README.md, 'Schema'): their items have no license
    )
    lines[2] = json.dumps(row, ensure_ascii=False)
    (overlay / "crisis.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    monkeypatch.setenv("EQ_EVALS_PATH", str(tmp_path / "overlay"))
    with pytest.raises(EqEvalsError, match=r"crisis.jsonl, row 3: id 'facet-009-zh' .* not project-authored"):
        hub.export("facet", tmp_path / "out")


# --- push, intercepted at huggingface_hub's commit operations -------------------------------------------


def test_push_uploads_the_folder_in_one_commit_and_tags_it(
    exported: dict[str, Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    fake = FakeHub(monkeypatch)
    monkeypatch.setenv("HF_TOKEN", "hf_doNotPrintThisToken")
    folder = exported["facet"]
    assert cli_main(["hub", "push", str(folder), "--repo", "me/eq-facet", "--private", "--tag", "v1"]) == 0
    out = capsys.readouterr()
    sha = "c0ffee" * 6 + "c0ff"
    assert [c[0] for c in fake.calls] == ["create_repo", "create_commit", "create_tag"]
    assert fake.calls[0][1:] == ("me/eq-facet", {"repo_type": "dataset", "private": True, "exist_ok": True})
    _, repo, ops, kw = fake.calls[1]
    assert repo == "me/eq-facet" and kw["repo_type"] == "dataset"
    assert sorted(op.path_in_repo for op in ops) == sorted(p.name for p in folder.iterdir())
    assert {op.path_in_repo: Path(op.path_or_fileobj).read_bytes() for op in ops}["social.jsonl"] == (
        declarative_root() / "datasets" / "facet" / "social.jsonl"
    ).read_bytes()
    assert kw["commit_message"] == f"eq-evals {__version__}: facet (sha256 {facet_sha()[:12]})"
    assert fake.calls[2][1] == "me/eq-facet" and fake.calls[2][2]["tag"] == "v1" and fake.calls[2][2]["revision"] == sha
    assert f"commit: {sha} (tag v1)" in out.out and f"-T source=hf://me/eq-facet@{sha}" in out.out
    assert "hf_doNotPrintThisToken" not in out.out + out.err


def test_push_by_name_exports_first(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    fake = FakeHub(monkeypatch)
    assert cli_main(["hub", "push", "sage", "--repo", "me/eq-sage"]) == 0
    _, _, ops, kw = fake.calls[1]
    assert sorted(op.path_in_repo for op in ops) == [
        "README.md",
        "scenarios_emotional.jsonl",
        "scenarios_rational.jsonl",
    ]
    assert [c[0] for c in fake.calls] == ["create_repo", "create_commit"]  # no --tag, no tag
    out = capsys.readouterr().out
    assert "hf://me/eq-sage@" in out
    # what was pushed and where, and no name of the temporary folder (deleted by then)
    assert (
        out.startswith("pushed datasets/sage (64 rows, content sha256 ")
        and "that is now deleted): 3 file(s) to https://huggingface.co/datasets/me/eq-sage in one commit" in out
    )
    assert "is ready" not in out and "/sage/README.md" not in out


class TempDirs:
    """tempfile.TemporaryDirectory, recording the folders it made (to check that no message names them)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        import tempfile

        self.made: list[str] = []
        real = tempfile.TemporaryDirectory
        made = self.made

        class Recording(real):  # type: ignore[misc, valid-type]
            def __init__(self, *args, **kwargs) -> None:
                super().__init__(*args, **kwargs)
                made.append(self.name)

        monkeypatch.setattr(tempfile, "TemporaryDirectory", Recording)

    def named_in(self, text: str) -> list[str]:
        return [d for d in self.made if d in text]


def test_push_refuses_edited_and_foreign_folders(
    exported: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = FakeHub(monkeypatch)
    edited = tmp_path / "edited"
    shutil.copytree(exported["sage"], edited)
    with (edited / "scenarios_rational.jsonl").open("a", encoding="utf-8") as fh:
        row = json.loads((edited / "scenarios_rational.jsonl").read_text(encoding="utf-8").splitlines()[0])
        fh.write(json.dumps(dict(row, id="pa-sage-r99-en"), ensure_ascii=False) + "\n")
    with pytest.raises(EqEvalsError, match="changed after export"):
        hub.push(str(edited), "me/x")
    added = tmp_path / "added"
    shutil.copytree(exported["sage"], added)
    (added / "samples_dataset.json").write_text("{}")  # e.g. the FACET authors' samples slipped in
    with pytest.raises(EqEvalsError, match=r"files were added or removed after export \(\['samples_dataset.json'\]\)"):
        hub.push(str(added), "me/x")
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "samples_dataset.json").write_text("{}")
    with pytest.raises(EqEvalsError, match="not a folder written by `eq-evals hub export`"):
        hub.push(str(foreign), "me/x")
    assert fake.calls == []


def test_push_without_network_fails_at_once_and_names_no_deleted_folder(
    exported: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = FakeHub(monkeypatch)
    temp = TempDirs(monkeypatch)
    monkeypatch.setattr(hub, "hub_unreachable", lambda endpoint: "ConnectError: [Errno 111] Connection refused")
    folder = exported["sage"]
    with pytest.raises(
        EqEvalsError,
        match=f"not reachable .*Connection refused.*Nothing was uploaded; the folder "
        f"{folder} is unchanged: push it where there is network",
    ):
        hub.push(str(folder), "me/x")
    assert folder.is_dir()  # the folder the message names is there
    # by name: exported to a temporary folder that is gone when the message is read, so it is not named
    with pytest.raises(EqEvalsError) as info:
        hub.push("sage", "me/x")
    message = str(info.value)
    assert temp.made and not any(Path(d).exists() for d in temp.made)
    assert temp.named_in(message) == [] and "is ready" not in message
    assert (
        "Nothing was uploaded, and no folder was kept: run `eq-evals hub push sage --repo me/x` again where "
        "there is network, or write the folder now with `eq-evals hub export sage --out DIR` and push DIR "
        "(`eq-evals hub push DIR --repo me/x`) later." in message
    )
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(EqEvalsError, match="HF_HUB_OFFLINE is set"):
        hub.push(str(folder), "me/x")
    with pytest.raises(EqEvalsError, match="expected OWNER/NAME"):
        hub.push(str(folder), "not a repo")
    assert fake.calls == []


def test_a_failed_tag_still_reports_the_commit(exported: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    from huggingface_hub import HfApi

    FakeHub(monkeypatch)

    def create_tag(api, repo_id, **kw):
        raise RuntimeError("tag v1 already exists")

    monkeypatch.setattr(HfApi, "create_tag", create_tag)
    with pytest.raises(EqEvalsError, match=r"as commit c0ffee.*tagging it 'v1' failed: RuntimeError: tag v1 already"):
        hub.push(str(exported["sage"]), "me/x", tag="v1")


# --- sources: pinning, Hub loading through datasets, offline ----------------------------------------------


def test_unpinned_and_moving_hub_sources_are_refused() -> None:
    with pytest.raises(EqEvalsError, match="not pinned.*hf://me/eq-facet@<sha or tag>"):
        sources.parse_hub("hf://me/eq-facet")
    with pytest.raises(EqEvalsError, match="'main' is a branch"):
        sources.parse_hub("hf://me/eq-facet@main")
    assert str(sources.parse_hub("hf://me/eq-facet@v1")) == "hf://me/eq-facet@v1"
    with pytest.raises(EqEvalsError, match="write -T source=hf://me/eq-facet@<sha or tag>"):
        sources.resolve("me/eq-facet", Path("."))


def test_offline_hub_source_fails_in_seconds_with_advice(tmp_path: Path) -> None:
    # HF_HUB_OFFLINE unset, the Hub endpoint a closed local port, an empty cache: no retries, the advice
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if k not in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE")}
    env.update(HF_ENDPOINT=f"http://127.0.0.1:{port}", HF_HOME=str(tmp_path / "hf"))
    code = (
        "from eq_evals.errors import EqEvalsError\n"
        "from eq_evals.facet.components import facet_dataset\n"
        "try:\n    facet_dataset(['crisis_recognition'], source='hf://me/eq-facet@v1')\n"
        "except EqEvalsError as ex:\n    print(ex)\n"
    )
    start = time.monotonic()
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    elapsed = time.monotonic() - start
    assert "cannot be reached" in out.stdout, out.stderr
    assert "hf download me/eq-facet --repo-type dataset --revision v1 --local-dir DIR" in out.stdout
    assert "-T source=DIR" in out.stdout
    # no retries with back-off (which take minutes): the probe is 3 s at most; the bound is loose for a busy machine
    assert elapsed < 60, f"took {elapsed:.1f} s"


def test_hf_hub_offline_fails_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    start = time.monotonic()
    with pytest.raises(EqEvalsError, match="offline .*hf download me/eq-sage"):
        sources.load_hub_rows(sources.parse_hub("hf://me/eq-sage@abc123"), None, "test")
    assert time.monotonic() - start < 10


def fake_hub_datasets(monkeypatch: pytest.MonkeyPatch, repos: dict[str, Path], cache: Path) -> list[tuple]:
    """datasets.load_dataset, with each Hub repo id served from a local exported folder (the real loader)."""
    import datasets

    real, calls = datasets.load_dataset, []

    def load_dataset(path, name=None, revision=None, split=None, **kw):
        calls.append((path, name, revision, split))
        return real(str(repos[path]), name, split=split, cache_dir=str(cache))

    monkeypatch.setattr(datasets, "load_dataset", load_dataset)
    monkeypatch.setattr(sources, "hub_unreachable", lambda endpoint: None)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("HF_DATASETS_OFFLINE", raising=False)
    return calls


# --- tasks from the exported folder and from hf:// give the bundled scores --------------------------------


def scores(log) -> dict:
    return {(s.id, s.epoch): {k: v.value for k, v in s.scores.items()} for s in log.samples}


def metrics(log) -> dict:
    return {(r.name, k): m.value for r in log.results.scores for k, m in r.metrics.items()}


def built_samples(task) -> list[tuple]:
    """Everything a scorer sees of each sample of a built task (id, input, target, choices, metadata)."""
    return [
        (s.id, str(s.input), s.target, s.choices, json.dumps(s.metadata, sort_keys=True, default=str))
        for s in task.dataset
    ]


# Every one of the 600 items is compared as built from the three sources (cheap: no model call); the runs score a
# spread subset (every 15th item: each dimension and language) through Inspect. The full runs on all 600 items, for
# the half-credit model (three score values) and the oracle (every score 1), prove nothing more and run with the
# slow tests.
@pytest.mark.parametrize(
    "model,full",
    [
        ("eq_evals/scripted-half", False),
        pytest.param("eq_evals/scripted-half", True, marks=pytest.mark.slow),
        pytest.param("eq_evals/scripted-oracle", True, marks=pytest.mark.slow),
    ],
)
def test_facet_objective_scores_the_same_from_bundled_exported_and_hub(
    exported: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, model: str, full: bool
) -> None:
    from eq_evals.engine import register_all

    task = register_all()["facet_objective"]
    sources_args = {
        "bundled": {},
        "folder": {"source": str(exported["facet"])},
        "hub": {"source": "hf://me/eq-facet@v1"},
    }
    calls = fake_hub_datasets(monkeypatch, {"me/eq-facet": exported["facet"]}, tmp_path / "cache")
    # the same samples (the Hub loader reads the configs in the manifest's order; samples are keyed by id)
    built = {name: sorted(built_samples(task(language="all", **args))) for name, args in sources_args.items()}
    assert built["bundled"] == built["folder"] == built["hub"]
    ids = [row[0] for row in built["bundled"]]
    subset = None if full else ids[::15]

    def run(**task_args):
        [log] = inspect_eval(
            "eq_evals/facet_objective",
            model=model,
            task_args=dict(language="all", **task_args),
            log_dir=str(tmp_path / "logs"),
            display="none",
            epochs=1,
            sample_id=subset,
        )
        assert log.status == "success", log.error
        return log

    bundled, folder, from_hub = (run(**args) for args in sources_args.values())
    assert [c[1] for c in calls] == list(hub.load_manifest("facet")[1].configs) * 2  # built once, then run once
    assert all(c[0] == "me/eq-facet" and c[2] == "v1" and c[3] == "test" for c in calls)
    assert (
        len(built["bundled"])
        == sum(1 for _, _, r in read_rows(declarative_root() / "datasets" / "facet") if r["format"] != "generative")
        >= 300
    )
    assert len(bundled.samples) == (len(ids) if full else len(subset)) and len({s.id for s in bundled.samples}) > 30
    assert scores(bundled) == scores(folder) == scores(from_hub)
    assert len({v for sc in scores(bundled).values() for v in sc.values()}) > 1 or model.endswith("oracle")
    assert metrics(bundled) == metrics(folder) == metrics(from_hub)
    [v_b], [v_f], [v_h] = (log.eval.metadata["datasets"] for log in (bundled, folder, from_hub))
    assert v_b["sha256"] == v_f["sha256"] == v_h["sha256"]
    assert (v_b["origin"], v_f["origin"], v_h["origin"]) == ("bundled", "local", "hub")
    assert (v_h["location"], v_h["revision"]) == ("me/eq-facet", "v1")


def test_sage_scores_the_same_from_bundled_exported_and_hub(
    exported: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def run(**task_args):
        roles = {"simulated_user": get_model("eq_evals/scripted-sage-user")}
        [log] = inspect_eval(
            "eq_evals/sage",
            model="eq_evals/scripted-echo",
            model_roles=roles,
            limit=3,
            task_args=dict(language="all", **task_args),
            log_dir=str(tmp_path / "logs"),
            display="none",
        )
        assert log.status == "success", log.error
        return log

    bundled = run()
    folder = run(source=str(exported["sage"]))
    fake_hub_datasets(monkeypatch, {"me/eq-sage": exported["sage"]}, tmp_path / "cache")
    from_hub = run(source="hf://me/eq-sage@v1")
    assert len(bundled.samples) == 3
    assert scores(bundled) == scores(folder) == scores(from_hub)
    assert len({log.eval.metadata["datasets"][0]["sha256"] for log in (bundled, folder, from_hub)}) == 1


# --- ratings refuse mixed dataset versions; results publishing -------------------------------------------


def test_ratings_refuse_logs_made_on_different_dataset_versions(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    changed = tmp_path / "changed"
    shutil.copytree(declarative_root() / "datasets" / "facet", changed)
    lines = (changed / "naturalness.jsonl").read_text(encoding="utf-8").splitlines()
    row = json.loads(lines[0])
    row["input"] += " (edited)"
    (changed / "naturalness.jsonl").write_text(
        "\n".join([json.dumps(row, ensure_ascii=False)] + lines[1:]) + "\n", encoding="utf-8"
    )
    logs = tmp_path / "logs"
    for source in (None, str(changed)):
        inspect_eval(
            "eq_evals/facet_crisis",
            model="eq_evals/scripted-oracle",
            log_dir=str(logs),
            display="none",
            epochs=1,
            limit=5,
            task_args={"source": source} if source else {},
        )
    with pytest.raises(EqEvalsError, match=r"different dataset versions.*--allow-mixed-datasets") as info:
        report.run([str(logs)], str(tmp_path / "r"), progress=False)
    assert "facet: " in str(info.value) and f"bundled datasets/facet (sha256 {facet_sha()[:12]}" in str(info.value)
    assert f"local {changed} (sha256" in str(info.value)  # the order of the two follows the log file names
    assert cli_main(["ratings", str(logs), "--out", str(tmp_path / "r2"), "--quiet"]) == 2
    assert "different dataset versions" in capsys.readouterr().err
    assert cli_main(["ratings", str(logs), "--out", str(tmp_path / "r3"), "--quiet", "--allow-mixed-datasets"]) == 0


def test_push_results_publishes_scores_leaderboard_and_a_card(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    from huggingface_hub import DatasetCard

    logs = tmp_path / "logs"
    for model in ("eq_evals/scripted-oracle", "eq_evals/scripted-wrong"):
        inspect_eval(
            "eq_evals/facet_crisis",
            model=model,
            log_dir=str(logs),
            display="none",
            epochs=1,
            task_args={"language": "all"},
        )
    folder = hub.export_results([str(logs)], tmp_path / "results", repo="me/eq-results")
    card = DatasetCard.load(folder / "README.md")
    assert card.data.to_dict()["configs"][0]["config_name"] == "scores"
    for text in (
        "facet_crisis",
        "eq_evals/scripted-oracle",
        "eq_evals/scripted-wrong",
        "datasets/facet",
        facet_sha(),
        f"eq-evals | {__version__}",
    ):
        assert text in card.text
    rows = [json.loads(line) for line in (folder / "scores.jsonl").read_text(encoding="utf-8").splitlines()]
    crisis = sum(
        1 for _, _, r in read_rows(declarative_root() / "datasets" / "facet") if r["dimension"] == "crisis_recognition"
    )
    assert len(rows) == 2 * crisis and {r["value"] for r in rows if r["model"].endswith("oracle")} == {1.0}
    assert {p.name for p in (folder / "leaderboard").iterdir()} >= {
        "leaderboard.md",
        "leaderboard.csv",
        "leaderboard.json",
    }
    import datasets

    loaded = datasets.load_dataset(str(folder), "scores", split="test", cache_dir=str(tmp_path / "cache"))
    assert len(loaded) == len(rows) and set(loaded.column_names) >= {"value", "value_json", "unscored_reason"}
    assert loaded.features["value"].dtype == "float64"  # numeric: the Hub viewer sorts by it
    fake = FakeHub(monkeypatch)
    temp = TempDirs(monkeypatch)
    monkeypatch.setattr(hub, "hub_unreachable", lambda endpoint: "ConnectError: [Errno 111] Connection refused")
    with pytest.raises(EqEvalsError) as info:
        hub.push_results([str(logs)], "me/eq-results")
    assert temp.made and temp.named_in(str(info.value)) == [] and "is ready" not in str(info.value)
    assert (
        f"the results folder was not kept: write it with `eq-evals hub push-results {logs} --repo me/eq-results "
        "--out DIR` and push DIR (`eq-evals hub push DIR --repo me/eq-results`) where there is network"
        in str(info.value)
    )
    assert fake.calls == []
    monkeypatch.setattr(hub, "hub_unreachable", lambda endpoint: None)
    capsys.readouterr()
    assert cli_main(["hub", "push-results", str(logs), "--repo", "me/eq-results", "--tag", "run-1"]) == 0
    _, repo, ops, kw = fake.calls[1]
    assert repo == "me/eq-results" and kw["commit_message"] == f"eq-evals {__version__}: results"
    assert {"README.md", "scores.jsonl", "leaderboard/leaderboard.md"} <= {op.path_in_repo for op in ops}
    assert fake.calls[2][2]["tag"] == "run-1"
    out = capsys.readouterr().out
    assert out.startswith(f"pushed results of {logs} ({len(rows)} scores): ") and temp.named_in(out) == []


def test_score_values_are_numbers_wherever_they_have_one() -> None:
    assert hub._values(0.25) == {"value": 0.25, "value_key": None, "value_json": None}
    assert hub._values(float("nan")) == {"value": None, "value_key": None, "value_json": None}
    # Inspect's letter grades (LongEmotion classification and detection), as its metrics count them
    assert [hub._values(v)["value"] for v in ("C", "I", "P", "N", "yes", "2.5")] == [1.0, 0.0, 0.5, 0.0, 1.0, 2.5]
    assert hub._values("C") == {"value": 1.0, "value_key": None, "value_json": '"C"'}
    assert hub._values("maybe")["value"] is None
    # several entries: the headline one, named in value_key; the whole value stays in value_json
    assert hub._values({"outcome": 1.0, "margin": 2.0}) == {
        "value": 1.0,
        "value_key": "outcome",
        "value_json": '{"margin":2.0,"outcome":1.0}',
    }
    assert hub._values({"P": 3.0, "A": 4.0, "eq": 3.4})["value_key"] == "eq"
    assert hub._values({"H": 0.0, "overall": 1.0, "margin": 0.6})["value_key"] == "overall"
    assert hub._values({"length": 120.0, "bullets": 0.0})["value"] is None  # descriptive, no headline
    assert hub._values({"only": 2})["value"] == 2.0
    assert hub._values([1, 2])["value"] is None


def test_results_card_names_the_models_and_judges_of_judging_logs(tmp_path: Path) -> None:
    gen, judged = tmp_path / "gen", tmp_path / "judged"
    for model in ("eq_evals/scripted-echo", "eq_evals/scripted-oracle"):
        inspect_eval(
            "eq_evals/facet_naturalness",
            model=model,
            log_dir=str(gen),
            display="none",
            limit=2,
            task_args={"language": "en"},
        )
    [log] = inspect_eval(
        "eq_evals/facet_pairwise",
        model=None,
        model_roles={"grader": "eq_evals/scripted-judge"},
        task_args={"logs": str(gen)},
        log_dir=str(judged),
        display="none",
    )
    assert log.status == "success" and log.eval.model == "none/none"  # a judging log has roles, no model
    panel = ["eq_evals/scripted-hjudge", "eq_evals/scripted-hjudge-mild"]
    [log] = inspect_eval(
        "eq_evals/heart",
        model="eq_evals/scripted-heart-warm",
        model_roles={"grader": panel},
        task_args={"source": str(FIXTURES / "heart_histories.jsonl")},
        log_dir=str(tmp_path / "heart"),
        display="none",
        limit=2,
    )
    assert log.status == "success", log.error
    [log] = inspect_eval(
        "eq_evals/longemotion_classification",
        model="eq_evals/scripted-le_oracle",
        task_args={"fixtures": True},
        log_dir=str(tmp_path / "le"),
        display="none",
        epochs=1,
    )
    assert log.status == "success", log.error
    folder = hub.export_results([str(judged), str(tmp_path / "heart"), str(tmp_path / "le")], tmp_path / "out")
    text = (folder / "README.md").read_text(encoding="utf-8")
    assert "none/none" not in text
    assert (
        "| models | eq_evals/scripted-echo, eq_evals/scripted-heart-warm, eq_evals/scripted-le_oracle, "
        "eq_evals/scripted-oracle |"
    ) in text
    assert "| judges | eq_evals/scripted-hjudge, eq_evals/scripted-hjudge-mild, eq_evals/scripted-judge |" in text
    assert "grader=eq_evals/scripted-hjudge+eq_evals/scripted-hjudge-mild" in text
    rows = [json.loads(line) for line in (folder / "scores.jsonl").read_text(encoding="utf-8").splitlines()]
    pairwise = [r for r in rows if r["task"] == "facet_pairwise"]
    assert pairwise and all(r["model"] is None and r["model_a"] and r["model_b"] for r in pairwise)
    assert all(r["value_key"] == "outcome" and r["value"] in (0.0, 0.5, 1.0) for r in pairwise)
    heart = [r for r in rows if r["task"] == "heart"]
    assert heart and all(r["value_key"] == "overall" and isinstance(r["value"], float) for r in heart)
    accuracy = [r for r in rows if r["task"] == "longemotion_classification"]
    assert accuracy and all(r["value"] == {'"C"': 1.0, '"I"': 0.0}[r["value_json"]] for r in accuracy)
    assert all(r["model_a"] is None and r["model"] == "eq_evals/scripted-le_oracle" for r in accuracy)
    # two histories: the bootstrap interval misses the Elo estimate, and the HEART plot still draws
    only_heart = hub.export_results([str(tmp_path / "heart")], tmp_path / "heart-only")
    assert (only_heart / "leaderboard" / "heart_leaderboard.png").is_file()


# --- LongEmotion through the same source syntax ------------------------------------------------------------


def test_longemotion_source_is_a_local_folder_or_a_pinned_hub_copy(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import hashlib

    import huggingface_hub

    from eq_evals.longemotion import data
    from eq_evals.longemotion.components import longemotion_dataset
    from eq_evals.resources import resource

    fixtures = resource("datasets", "longemotion/fixtures")
    local = longemotion_dataset("qa", source=str(fixtures))
    assert [s.target for s in local] == [s.target for s in longemotion_dataset("qa", data_dir=str(fixtures))]
    v = local[0].metadata[sources.VERSION_KEY]
    assert (v["name"], v["origin"], v["revision"]) == ("longemotion/qa", "local", None)
    content = (fixtures / "Emotion_QA.jsonl").read_bytes()
    assert v["sha256"] == sources.content_hash([{"file": "Emotion_QA.jsonl", "md5": hashlib.md5(content).hexdigest()}])

    asked = []

    def fake_download(repo_id: str, filename: str, **kwargs) -> str:
        asked.append((repo_id, filename, kwargs.get("revision")))
        path = tmp_path / "hub" / filename
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
        return str(path)

    monkeypatch.setattr(huggingface_hub, "hf_hub_download", fake_download)
    monkeypatch.setitem(data.HUB_MD5, "Emotion_QA.jsonl", hashlib.md5(content).hexdigest())
    from_hub = longemotion_dataset("qa", source="hf://me/longemotion-mirror@0a1b2c3")
    assert asked[0] == ("me/longemotion-mirror", "Emotion QA/Emotion_QA.jsonl", "0a1b2c3")
    v = from_hub[0].metadata[sources.VERSION_KEY]
    assert (v["origin"], v["location"], v["revision"]) == ("hub", "me/longemotion-mirror", "0a1b2c3")
    assert [s.target for s in from_hub] == [s.target for s in local]
    with pytest.raises(EqEvalsError, match="not pinned"):
        longemotion_dataset("qa", source="hf://LongEmotion/LongEmotion")
    with pytest.raises(EqEvalsError, match="replaces -T data_dir"):
        longemotion_dataset("qa", source=str(fixtures), data_dir=str(fixtures))


def test_a_data_file_in_no_config_stops_the_export(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    overlay = tmp_path / "overlay" / "datasets" / "facet"
    shutil.copytree(declarative_root() / "datasets" / "facet", overlay)
    shutil.copyfile(overlay / "crisis.jsonl", overlay / "crisis_more.jsonl")
    monkeypatch.setenv("EQ_EVALS_PATH", str(tmp_path / "overlay"))
    with pytest.raises(EqEvalsError, match=r"\['crisis_more.jsonl'\] are in no config of hub.yaml"):
        hub.export("facet", tmp_path / "out")


def test_judgment_logs_carry_the_generations_dataset_versions(tmp_path: Path) -> None:
    changed = tmp_path / "changed"
    shutil.copytree(declarative_root() / "datasets" / "facet", changed)
    with (changed / "apparent.jsonl").open("a", encoding="utf-8") as fh:  # a change outside the judged pool
        row = json.loads((changed / "apparent.jsonl").read_text(encoding="utf-8").splitlines()[0])
        fh.write(json.dumps(dict(row, id="pa-apparent-999-en"), ensure_ascii=False) + "\n")

    def judged(name: str, second_source: str | None, pairing: str = "round_robin", **args):
        gen = tmp_path / name
        if not gen.exists():
            for model, source in (("eq_evals/scripted-echo", None), ("eq_evals/scripted-oracle", second_source)):
                inspect_eval(
                    "eq_evals/facet_naturalness",
                    model=model,
                    log_dir=str(gen),
                    display="none",
                    limit=4,
                    task_args={"language": "en", **({"source": source} if source else {})},
                )
        [log] = inspect_eval(
            "eq_evals/facet_pairwise",
            model=None,
            model_roles={"grader": "eq_evals/scripted-judge"},
            task_args={"logs": str(gen), "pairing": pairing, **args},
            log_dir=str(tmp_path / f"{name}-{pairing}-judged"),
            display="none",
        )
        assert log.status == "success", log.error
        return log

    same = judged("same", None)
    [version] = same.eval.metadata["datasets"]
    assert (version["name"], version["origin"], version["sha256"]) == ("facet", "bundled", facet_sha())
    # the generation logs keep the version once, in their header, not in every sample (issue 14)
    from inspect_ai.log import list_eval_logs, read_eval_log

    for gen_log in (read_eval_log(p) for p in list_eval_logs(str(tmp_path / "same"))):
        assert gen_log.eval.metadata["datasets"] == [version]
        assert not any(sources.VERSION_KEY in (s.metadata or {}) for s in gen_log.samples)
    # judging with rounds (a sample source) names the data in its header too, so ratings can compare versions
    assert judged("same", None, "active").eval.metadata["datasets"] == [version]
    # generations on different data versions answered different prompts: judging them is refused before any judge
    # call (naming the logs), unless asked for
    with pytest.raises(Exception, match="different dataset versions"):
        judged("mixed", str(changed), "active")
    mixed_ok = judged("mixed", str(changed), "active", allow_mixed_datasets=True)
    assert sorted(v["origin"] for v in mixed_ok.eval.metadata["datasets"]) == ["bundled", "local"]
    report.run([str(tmp_path / "same-round_robin-judged")], str(tmp_path / "r1"), bootstrap=10, progress=False)
    mixed = judged("mixed", str(changed), allow_mixed_datasets=True)
    assert sorted(v["origin"] for v in mixed.eval.metadata["datasets"]) == ["bundled", "local"]
    with pytest.raises(EqEvalsError, match="different dataset versions"):
        report.run([str(tmp_path / "mixed-round_robin-judged")], str(tmp_path / "r2"), bootstrap=10, progress=False)


# --- HEART's project set through the same resolver ------------------------------------------------------------


@pytest.mark.parametrize("language", ["en", "zh"])
def test_heart_loads_the_same_from_bundled_exported_and_hub(
    exported: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, language: str
) -> None:
    from eq_evals.heart.data import heart_samples

    def view(samples):
        return [
            (s.id, s.input, s.target, s.metadata["dialogue_history"], s.metadata["escalation_profile"]) for s in samples
        ]

    bundled = heart_samples(None, language)
    from_folder = heart_samples(str(exported["heart"]), language)
    calls = fake_hub_datasets(monkeypatch, {"me/eq-heart": exported["heart"]}, tmp_path / "cache")
    from_hub = heart_samples("hf://me/eq-heart@v1", language)
    assert calls == [("me/eq-heart", language, "v1", "test")]
    assert view(bundled) == view(from_folder) == view(from_hub) and len(bundled) >= 60
    versions = [s.metadata[sources.VERSION_KEY] for s in (bundled[0], from_folder[0], from_hub[0])]
    assert [v["origin"] for v in versions] == ["bundled", "local", "hub"]
    assert len({v["sha256"] for v in versions}) == 1
    with pytest.raises(EqEvalsError, match="refused|pinned|REVISION|revision"):
        heart_samples("hf://me/eq-heart", language)


@pytest.mark.parametrize("language", ["en", "zh", "all"])
def test_pace_loads_the_same_from_bundled_exported_and_hub(
    exported: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, language: str
) -> None:
    from eq_evals.pace.data import pace_items

    def view(samples):
        return sorted((s.id, s.input, s.metadata["scenario"]) for s in samples)

    bundled = pace_items(None, language)
    from_folder = pace_items(str(exported["pace"]), language)
    calls = fake_hub_datasets(monkeypatch, {"me/eq-pace": exported["pace"]}, tmp_path / "cache")
    from_hub = pace_items("hf://me/eq-pace@v1", language)
    assert calls == [("me/eq-pace", language, "v1", "test")]
    assert view(bundled) == view(from_folder) == view(from_hub) and len(bundled) >= 60
    versions = [s.metadata[sources.VERSION_KEY] for s in (bundled[0], from_folder[0], from_hub[0])]
    assert [v["origin"] for v in versions] == ["bundled", "local", "hub"]
    assert len({v["sha256"] for v in versions}) == 1
