"""The validators' shared helpers in core/itemcheck.py: the same-scenario check (one text per item, findings
naming the language versions, reviewed pairs kept out of the findings with their reason) and the duplicate-id rule."""

from __future__ import annotations

import numpy as np
from support import ItemRow as Row

from eq_evals.core.itemcheck import Report, check_same_scenario, limits, reviewed_pairs


def topic_embed(texts: list[str]) -> np.ndarray:
    """A stand-in model: one axis per first word, so texts opening with the same word are the same story."""
    words = sorted({t.split()[0] for t in texts})
    v = np.array([[1.0 if t.split()[0] == w else 0.0 for w in words] for t in texts])
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def rows() -> list[Row]:
    return [
        Row("a", "en", "bridge story one"),
        Row("a", "zh", "桥的故事"),
        Row("b", "en", "bridge story two"),
        Row("b", "zh", "又一个桥的故事"),
        Row("c", "en", "garden story"),
    ]


def test_a_flagged_pair_names_the_item_and_its_language_versions() -> None:
    report = Report(["items.jsonl"])
    check_same_scenario(rows(), report, lambda r: r.text, limits("facet"), embed=topic_embed)
    (finding,) = report.findings
    assert (
        finding.item == "b-en"
        and "tells the same story as a" in finding.message
        and "en/zh versions" in finding.message
    )
    assert report.figures["same_scenario"]["en"]["texts"] == 3  # one text per item, English first


def test_a_reviewed_pair_is_no_finding_but_is_listed_with_its_reason() -> None:
    report = Report(["items.jsonl"])
    reviewed = {frozenset(("a", "b")): "different bridges"}
    check_same_scenario(rows(), report, lambda r: r.text, limits("facet"), reviewed=reviewed, embed=topic_embed)
    assert report.findings == []
    assert report.figures["same_scenario"]["reviewed_distinct"] == ["a ~ b: different bridges"]


def test_without_the_model_the_check_says_so() -> None:
    report = Report(["items.jsonl"])
    check_same_scenario(rows(), report, lambda r: r.text, limits("facet"), embed=None)
    assert any("without the embedding model" in f.message for f in report.findings)


def test_the_bundled_reviewed_pairs_have_reasons() -> None:
    for section in ("pace", "heart"):
        pairs = reviewed_pairs(section)
        assert pairs and all(len(p) == 2 and len(reason) > 20 for p, reason in pairs.items())


def test_a_repeated_id_is_a_schema_error_naming_the_first() -> None:
    from eq_evals.core.itemcheck import add_unique

    report, kept, seen = Report([]), [], {}
    for r in [Row("a", "en", "x", "one.jsonl"), Row("a", "en", "y", "two.jsonl"), Row("b", "en", "z")]:
        add_unique(kept, r, seen, report)
    assert [r.text for r in kept] == ["x", "z"]
    (finding,) = report.findings
    assert finding.check == "schema" and finding.file == "two.jsonl" and "first at one.jsonl, line a" in finding.message
