"""Hub dataset cards (issue 22): every card's YAML metadata checked offline the way the Hub reads it, the FACET
default config, citations, content warnings, honest provenance, and the offline-download advice naming a command
that exists.

huggingface_hub's own ``RepoCard.validate`` posts the card to the Hub (``/api/validate-yaml``), so it needs
network; offline, huggingface_hub only parses the YAML block (``DatasetCard``, ``DatasetCardData``). The checks
below parse the card with it, then apply the value lists that ship with ``datasets``
(``datasets/utils/resources``: creators, languages, multilinguality, size categories; the task ids of
``datasets.utils.metadata``) and datasets' own readers of ``configs`` and ``dataset_info``, which are what
``datasets.load_dataset`` and the Hub's viewer use."""

from __future__ import annotations

import json
import re
import shutil
import sys
from importlib import resources
from pathlib import Path

import pytest
import yaml

import eq_evals._registry  # noqa: F401  (registers the tasks, as the entry point does)
from eq_evals import hub
from eq_evals.errors import EqEvalsError
from eq_evals.resources import declarative_root

# Hub license identifiers (https://huggingface.co/docs/hub/repositories-licenses), those a card here may use
HUB_LICENSES = {
    "apache-2.0",
    "mit",
    "cc-by-4.0",
    "cc-by-sa-4.0",
    "cc-by-nc-4.0",
    "cc-by-nc-sa-4.0",
    "cc0-1.0",
    "odc-by",
    "openrail",
    "other",
    "unknown",
}
EVERY_CARD = (
    "annotations_creators",
    "language_creators",
    "license",
    "multilinguality",
    "size_categories",
    "source_datasets",
    "pretty_name",
    "tags",
    "configs",
    "dataset_info",
)
DATASET_CARD = EVERY_CARD + ("language", "task_categories")
SELF_HARM = re.compile(r"suicid|self-harm|overdose|自杀|自残|轻生|结束生命", re.IGNORECASE)


def allowed_values() -> dict[str, set[str]]:
    from datasets.utils.metadata import known_task_ids

    folder = resources.files("datasets.utils") / "resources"
    read = lambda name: json.loads((folder / name).read_text(encoding="utf-8"))  # noqa: E731
    creators = read("creators.json")
    return {
        "annotations_creators": set(creators["annotations"]),
        "language_creators": set(creators["language"]),
        "multilinguality": set(read("multilingualities.json")),
        "size_categories": set(read("size_categories.json")),
        "language": set(read("languages.json")),
        "task_categories": set(known_task_ids),
    }


def validate_card(path: Path, required: tuple[str, ...]) -> list[str]:
    """What the Hub would reject or warn about in the card's YAML metadata, checked offline (empty: none)."""
    from datasets.info import DatasetInfosDict
    from datasets.utils.metadata import MetadataConfigs, _NoDuplicateSafeLoader
    from huggingface_hub import DatasetCard
    from huggingface_hub.repocard import REGEX_YAML_BLOCK

    text = path.read_text(encoding="utf-8")
    block = REGEX_YAML_BLOCK.search(text)  # the Hub's own pattern for the metadata block
    if not block:
        return ["no YAML metadata block"]
    try:
        yaml.load(block.group(2), Loader=_NoDuplicateSafeLoader)  # the Hub refuses duplicate keys
    except TypeError as ex:
        return [str(ex)]
    problems = []
    card = DatasetCard.load(path)
    data = card.data.to_dict()
    problems += [f"{key} missing" for key in required if not data.get(key)]
    for key, allowed in allowed_values().items():
        values = data.get(key) or []
        for v in [values] if isinstance(values, str) else values:
            if v not in allowed:
                problems.append(f"{key}: {v!r} is not an allowed value")
    if data.get("license") not in HUB_LICENSES:
        problems.append(f"license {data.get('license')!r} is not a Hub license identifier")
    for v in data.get("source_datasets") or []:
        if not (v in ("original", "extended") or v.startswith("extended|")):
            problems.append(f"source_datasets: {v!r} is neither original nor extended[|<dataset>]")
    if not isinstance(data.get("tags", []), list) or not all(isinstance(t, str) for t in data.get("tags", [])):
        problems.append("tags must be a list of strings")
    configs = MetadataConfigs.from_dataset_card_data(card.data)  # raises on a malformed data_files
    try:
        if configs.get_default_config_name() is None:
            problems.append("no default config: load_dataset(repo) needs a config name")
    except ValueError as ex:
        problems.append(str(ex))
    infos = DatasetInfosDict.from_dataset_card_data(card.data)
    if set(infos) != set(configs):
        problems.append(f"dataset_info configs {sorted(infos)} differ from configs {sorted(configs)}")
    for name, info in infos.items():
        if not info.features or not info.splits:
            problems.append(f"dataset_info of {name}: features or splits missing")
        for split in info.splits.values() if info.splits else []:
            if not split.num_examples:
                problems.append(f"dataset_info of {name}: split {split.name} has no num_examples")
    if DatasetCard(str(card)).data.to_dict() != data:
        problems.append("the metadata does not survive huggingface_hub's round trip")
    return problems


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("cards")
    return {name: hub.export(name, root / name).folder for name in ("facet", "sage", "pace", "heart")}


@pytest.fixture(scope="module")
def results_card(tmp_path_factory: pytest.TempPathFactory, benchmark_logs) -> Path:
    """The card of published FACET results: from the session's FACET objective logs (tests/benchmark_logs.py)."""
    root = tmp_path_factory.mktemp("results")
    logs = [str(p) for p in benchmark_logs.paths("facet_objective")]
    return hub.export_results(logs, root / "out") / "README.md"


def test_every_card_passes_the_offline_hub_checks(exported: dict[str, Path], results_card: Path) -> None:
    for name, folder in exported.items():
        assert validate_card(folder / "README.md", DATASET_CARD) == [], name
    assert validate_card(results_card, EVERY_CARD) == []


def test_the_checks_catch_what_the_hub_would_refuse(exported: dict[str, Path], tmp_path: Path) -> None:
    text = (exported["facet"] / "README.md").read_text(encoding="utf-8")
    bad = tmp_path / "README.md"
    cases = {
        "- machine-generated\nlanguage_creators": "- written-by-hand\nlanguage_creators",  # not an allowed value
        "multilinguality:\n- multilingual": "multilinguality:\n- bilingual",
        "source_datasets:\n- original": "source_datasets:\n- copied",
        "license: apache-2.0": "license: apache",
        "  default: true\n": "",  # FACET without a default config
        "size_categories:\n- n<1K": "size_categories:\n- small",
    }
    for old, new in cases.items():
        assert old in text, old
        bad.write_text(text.replace(old, new, 1), encoding="utf-8")
        assert validate_card(bad, DATASET_CARD), f"not caught: {new!r}"
    bad.write_text(text.replace("pretty_name:", "tags: [x]\npretty_name:", 1), encoding="utf-8")
    assert validate_card(bad, DATASET_CARD) == ["Got duplicate yaml keys: ['tags']"]


def test_cards_state_the_hub_metadata_honestly(exported: dict[str, Path]) -> None:
    for name, folder in exported.items():
        from huggingface_hub import DatasetCard

        _, manifest = hub.load_manifest(name)
        data = DatasetCard.load(folder / "README.md").data.to_dict()
        # written with LLM help by the project, never labelled expert- or crowd-made, and new data
        assert data["annotations_creators"] == data["language_creators"] == ["machine-generated"], name
        assert data["source_datasets"] == ["original"]
        assert data["multilinguality"] == ["multilingual"] and data["language"] == ["en", "zh"]
        assert data["eq_evals"]["project_authored"] is True and "project-authored" in data["tags"]
        text = (folder / "README.md").read_text(encoding="utf-8")
        for needed in (
            "Project-authored by eq-evals, not the paper's data.",
            f"License: {manifest.license_name}.",
            f"**Provenance.** {manifest.provenance}",
            f"**The benchmark's own data** is not redistributed here. {manifest.official}",
        ):
            assert needed in text, (name, needed)
        assert "-T source=" in manifest.official  # how to run the official data instead


def test_dataset_info_is_what_load_dataset_returns(exported: dict[str, Path], tmp_path: Path) -> None:
    from datasets.info import DatasetInfosDict
    from huggingface_hub import DatasetCard

    import datasets

    datasets.disable_progress_bars()
    for name, folder in exported.items():
        infos = DatasetInfosDict.from_dataset_card_data(DatasetCard.load(folder / "README.md").data)
        _, manifest = hub.load_manifest(name)
        for config in manifest.configs:
            rows = datasets.load_dataset(str(folder), config, split="test", cache_dir=str(tmp_path / "cache"))
            assert rows.features == infos[config].features, (name, config)
            assert infos[config].splits["test"].num_examples == len(rows)


def test_facet_loads_offline_without_a_config_name(
    exported: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import datasets

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    datasets.disable_progress_bars()
    _, manifest = hub.load_manifest("facet")
    assert manifest.default_config == "apparent"
    folder = exported["facet"]
    rows = datasets.load_dataset(str(folder), split="test", cache_dir=str(tmp_path / "cache"))
    named = datasets.load_dataset(str(folder), "apparent", split="test", cache_dir=str(tmp_path / "cache"))
    assert rows.info.config_name == "apparent" and len(rows) == 120
    assert rows.to_list() == named.to_list()
    assert {r["dimension"] for r in rows} == {"apparent_emotion"}
    whole = datasets.load_dataset(str(folder), cache_dir=str(tmp_path / "cache"))
    assert list(whole) == ["test"] and len(whole["test"]) == 120
    for name in ("sage", "pace", "heart"):  # their default, `all`, as before
        assert (
            datasets.load_dataset(str(exported[name]), split="test", cache_dir=str(tmp_path / "cache")).info.config_name
            == "all"
        )


def test_a_manifest_without_default_config_or_citation_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    overlay = tmp_path / "overlay" / "datasets" / "facet"
    shutil.copytree(declarative_root() / "datasets" / "facet", overlay)
    monkeypatch.setenv("EQ_EVALS_PATH", str(tmp_path / "overlay"))
    manifest = (overlay / "hub.yaml").read_text(encoding="utf-8")
    (overlay / "hub.yaml").write_text(re.sub(r"\ndefault_config: .*", "", manifest), encoding="utf-8")
    with pytest.raises(EqEvalsError, match="default_config: name the config that datasets.load_dataset"):
        hub.load_manifest("facet")
    (overlay / "hub.yaml").write_text(manifest.replace("citation:", "old_citation_note:"), encoding="utf-8")
    with pytest.raises(EqEvalsError, match="old_citation_note"):  # an unknown key is refused ...
        hub.load_manifest("facet")
    raw = yaml.safe_load(manifest)
    del raw["citation"]
    (overlay / "hub.yaml").write_text(yaml.safe_dump(raw, allow_unicode=True), encoding="utf-8")
    with pytest.raises(EqEvalsError, match=r"needs citation \(BibTeX"):  # ... and so is a missing citation
        hub.load_manifest("facet")


def bibtex_entries(text: str) -> list[dict[str, str]]:
    """The entries of the ```bibtex blocks of a card: type, key and fields (braces balanced, fields named)."""
    entries = []
    for block in re.findall(r"```bibtex\n(.*?)\n```", text, re.DOTALL):
        assert block.count("{") == block.count("}"), block
        head = re.match(r"@(\w+)\{([\w:-]+),\n", block)
        assert head, block
        fields = dict(re.findall(r"^\s+(\w+)\s*=\s*\{(.*)\},?$", block, re.MULTILINE))
        entries.append({"type": head.group(1), "key": head.group(2), **fields})
    return entries


PAPERS = {  # title and first author from the papers' own first pages; arXiv ids and years as the docs cite them
    "facet": (
        "Emotional intelligence in large language models is fragmented across perception",
        "Lv, Minghao",
        "2605.24686",
        "2026",
    ),
    "sage": ("Sentient Agent as a Judge", "Zhang, Bang", "2505.02847", "2025"),
    "pace": ("At Your Own {PACE}", "Lyu, Lei", None, "2026"),
    "heart": (
        "{HEART}: A Unified Benchmark for Assessing Humans and {LLMs} in Emotional Support Dialogue",
        "Iyer, Laya",
        "2601.19922",
        "2025",
    ),
    "longemotion": ("{LongEmotion}: Measuring Emotional Intelligence", "Liu, Weichu", "2509.07403", "2025"),
}


def check_citations(text: str, bench: str) -> None:
    assert "## Citation" in text
    entries = bibtex_entries(text)
    assert [e["key"] for e in entries] == ["eq_evals", entries[1]["key"]] and len(entries) == 2
    assert entries[0]["type"] == "software" and entries[0]["title"].startswith("eq-evals")
    title, author, arxiv, year = PAPERS[bench]
    paper = entries[1]
    assert paper["title"].startswith(title) and paper["author"].startswith(author) and paper["year"] == year
    assert paper.get("eprint") == arxiv
    assert arxiv is None or paper["url"] == f"https://arxiv.org/abs/{arxiv}"  # the Hub links the paper from it


def test_every_card_cites_eq_evals_and_the_benchmark_paper(exported: dict[str, Path], results_card: Path) -> None:
    for name, folder in exported.items():
        check_citations((folder / "README.md").read_text(encoding="utf-8"), name)
    # LongEmotion's card is not exported (the release is the authors'), so it carries the section itself
    longemotion = (declarative_root() / "datasets" / "longemotion" / "README.md").read_text(encoding="utf-8")
    check_citations(longemotion, "longemotion")
    assert hub.project_bibtex() in longemotion
    assert hub.benchmark_citation("longemotion").strip() in longemotion
    results = bibtex_entries(results_card.read_text(encoding="utf-8"))  # the logs' benchmark: FACET
    assert [e["key"] for e in results] == ["eq_evals", "lv2026facet"]


def test_content_warnings_where_items_discuss_suicide_or_self_harm(exported: dict[str, Path]) -> None:
    for name, folder in exported.items():
        _, manifest = hub.load_manifest(name)
        rows = [
            line
            for f in sorted({f for fs in manifest.configs.values() for f in fs})
            for line in (folder / f).read_text(encoding="utf-8").splitlines()
        ]
        hits = sum(1 for line in rows if SELF_HARM.search(line))
        text = (folder / "README.md").read_text(encoding="utf-8")
        assert manifest.content_warning and f"> **Content warning.** {manifest.content_warning}" in text, name
        assert text.index("**Content warning.**") < text.index("\n# ")  # at the top, before the items' card
        assert "self-harm" in manifest.content_warning, name
        if hits:
            assert re.search(r"suicid", manifest.content_warning, re.IGNORECASE), (name, hits)
        else:  # said in so many words, so that readers need not guess
            assert re.search(r"\bno\b[^.]*(suicide|self-harm)", manifest.content_warning, re.IGNORECASE), name
    assert (
        sum(
            1
            for line in (exported["facet"] / "crisis.jsonl").read_text(encoding="utf-8").splitlines()
            if SELF_HARM.search(line)
        )
        >= 40
    )  # the crisis vignettes: the reason for FACET's warning
    longemotion = (declarative_root() / "datasets" / "longemotion" / "README.md").read_text(encoding="utf-8")
    assert "**Content warning.**" in longemotion


def test_offline_advice_names_a_command_that_is_installed() -> None:
    from eq_evals.longemotion import data

    hint = data._hint()
    assert "huggingface-cli" not in hint and f"`hf download {data.HF_REPO} --repo-type dataset" in hint
    hf = Path(sys.executable).parent / "hf"
    assert hf.exists() or shutil.which("hf"), "huggingface_hub's `hf` command is not installed"
    for folder in ("src", "docs", "datasets", "tasks"):
        for path in (declarative_root() / folder).rglob("*"):
            if path.is_file() and path.suffix in (".py", ".md", ".yaml", ".txt"):
                assert "huggingface-cli" not in path.read_text(encoding="utf-8", errors="replace"), path
