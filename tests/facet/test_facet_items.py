"""The bundled FACET perception/cognition items and interaction pools at the paper's size (issue 11).

FACET paper §4.2 and Fig. 6b: 60 items per objective dimension per language with single/multi splits 41/19 (apparent),
40/20 (hidden), 47/13 (prediction), and three interaction pools of 60 prompts. The validators
(src/eq_evals/facet/validate.py) run on the files; figures they produce are quoted in the dataset card.
"""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest
from support import REPO, shared_file

from eq_evals.facet.answers import gold_slots
from eq_evals.facet.validate import run

DATA = REPO / "datasets" / "facet"
SPLITS = {
    "apparent": ("apparent_emotion", 41, 19),
    "hidden": ("hidden_emotion", 40, 20),
    "prediction": ("emotion_prediction", 47, 13),
}
POOLS = {"shared": "User: ", "deepening": "User: ", "naturalness": None}


def records(name: str) -> list[dict]:
    return [json.loads(line) for line in (DATA / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("name", list(SPLITS))
def test_objective_files_have_the_papers_size_and_split(name: str) -> None:
    dimension, single, multi = SPLITS[name]
    rows = records(name)
    for language in ("en", "zh"):
        rows_l = [r for r in rows if r["language"] == language]
        assert [r["item_id"] for r in rows_l] == [f"pa-{name}-{i:03d}" for i in range(1, 61)]
        assert all(r["dimension"] == dimension for r in rows_l)
        formats = Counter(r["format"] for r in rows_l)
        assert formats == {"single_select": single, "multi_select": multi}
        # the format follows the gold: two slots exactly for mixed items
        for r in rows_l:
            assert len(gold_slots(r["answer"])) == (2 if r["format"] == "multi_select" else 1), r["id"]


def test_objective_files_pass_the_validators() -> None:
    authors = shared_file("facet", "samples_dataset.json")
    files = [DATA / f"{name}.jsonl" for name in SPLITS]
    checks = [
        "schema",
        "leakage",
        "stage_directions",
        "proportions",
        "predictive_ngrams",
        "near_duplicates",
        "templates",
        "authors_overlap",
        "alignment",
    ]
    report = run(files, authors=authors, checks=checks)
    assert not report.errors, "\n".join(map(str, report.errors))
    assert not [f for f in report.findings if f.check == "templates"]
    assert report.figures["alignment"]["unpaired"] == 0
    for name, (dimension, single, multi) in SPLITS.items():
        for language in ("en", "zh"):
            figures = report.figures["proportions"][f"{dimension}:{language}"]
            assert (figures["single"], figures["multi"]) == (single, multi)


def test_hidden_dialogues_have_no_stage_directions() -> None:
    for r in records("hidden"):
        dialogue = re.split(r"(?:Dialogue|对话)[:：]", r["input"], maxsplit=1)[1]
        assert not re.search(r"[(（][^)）]+[)）]|\*[^*]+\*", dialogue), r["id"]


def test_golds_the_issue_cited_now_accept_a_second_label() -> None:
    """pa-hidden-025-en (disappointment only), pa-hidden-027-zh (屈辱 only), pa-prediction-015-zh (崩溃 only)."""
    by_id = {r["id"]: r for name in SPLITS for r in records(name)}
    for item in ("pa-hidden-025-en", "pa-hidden-027-zh", "pa-prediction-015-zh"):
        slots = gold_slots(by_id[item]["answer"])
        assert len(slots[0]) >= 2, (item, by_id[item]["answer"])
    # a majority of items list an alternative (``/``) or a half-credit label, in both languages alike
    for name in SPLITS:
        rows = records(name)
        with_alternatives = [r for r in rows if "/" in r["answer"] or r["secondary_answer"]]
        assert len(with_alternatives) > len(rows) / 2, name


@pytest.mark.parametrize("pool", list(POOLS))
def test_interaction_pools_have_60_prompts_per_language(pool: str) -> None:
    rows = records(pool)
    for language in ("en", "zh"):
        rows_l = [r for r in rows if r["language"] == language]
        assert [r["item_id"] for r in rows_l] == [f"pa-{pool}-{i:03d}" for i in range(1, 61)]
        assert all(r["pool"] == pool and r["answer"] is None and r["format"] == "generative" for r in rows_l)
        prefix = POOLS[pool] if language == "en" else ("用户：" if POOLS[pool] else None)
        for r in rows_l:
            assert r["input"].startswith(prefix) if prefix else not r["input"].startswith(("User:", "用户：")), r["id"]
    if pool == "shared":
        # pool S is judged on all three of its dimensions; the record's own dimension cycles evenly
        assert Counter(r["dimension"] for r in rows if r["language"] == "en") == {
            "emotion_matching": 20,
            "empathetic_understanding": 20,
            "emotion_regulation": 20,
        }


def test_pools_pass_alignment_duplicates_and_overlap() -> None:
    authors = shared_file("facet", "samples_dataset.json")
    report = run(
        [DATA / f"{pool}.jsonl" for pool in POOLS],
        authors=authors,
        checks=["schema", "near_duplicates", "authors_overlap", "alignment"],
    )
    assert not report.errors, "\n".join(map(str, report.errors))
    assert report.figures["alignment"]["pairs"] == 180
