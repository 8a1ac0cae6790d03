"""`eq-evals agreement` as in docs/pairwise.md, '4. eq-evals agreement': instances, per-dimension and Total kappa,
conflicts, stability, Fleiss; a human label file with extra columns or cells is an error (issue 12)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

import eq_evals._registry  # noqa: F401
from eq_evals.agreement_cli import Instance, agreement, human_fleiss, human_labels, judge_agreement, read_judgments
from eq_evals.cli import main as cli
from eq_evals.errors import EqEvalsError


def _instances(dimension: str, spec: list[tuple[str, str, int]]) -> list[Instance]:
    return [Instance(dimension, h, j, j == "DRAW") for h, j, n in spec for _ in range(n)]


# d1, 10 instances (human, judge): (A,A)x4 (B,B)x3 (A,B)x1 (B,A)x1 (A,DRAW)x1, the DRAW a position conflict
D1 = _instances("d1", [("A", "A", 4), ("B", "B", 3), ("A", "B", 1), ("B", "A", 1), ("A", "DRAW", 1)])
# d2, 6 instances: (A,A)x1 (B,B)x3 (B,A)x1 (A,DRAW)x1
D2 = _instances("d2", [("A", "A", 1), ("B", "B", 3), ("B", "A", 1), ("A", "DRAW", 1)])


def test_kappas_by_hand() -> None:
    r = judge_agreement(D1 + D2)
    d1, d2, total = r["per_dimension"]["d1"], r["per_dimension"]["d2"], r["total"]
    # d1: p_o = 7/10; human marginals A 6, B 4, DRAW 0; judge A 5, B 4, DRAW 1
    #     p_e = (6*5 + 4*4 + 0*1)/100 = 0.46; kappa = (0.70 - 0.46)/(1 - 0.46) = 0.24/0.54 = 4/9
    assert d1["kappa"] == pytest.approx(4 / 9) and d1["n"] == 10
    assert d1["percent_agreement"] == pytest.approx(0.7) and d1["conflict_rate"] == pytest.approx(0.1)
    # d1 without the conflicted instance: 9, p_o = 7/9; human A 5 B 4, judge A 5 B 4; p_e = 41/81
    #     kappa = (63/81 - 41/81)/(40/81) = 22/40 = 0.55
    assert d1["kappa_non_conflicted"] == pytest.approx(0.55) and d1["n_non_conflicted"] == 9
    # d2: p_o = 4/6; human A 2, B 4; judge A 2, B 3, DRAW 1; p_e = (2*2 + 4*3)/36 = 16/36
    #     kappa = (24/36 - 16/36)/(20/36) = 8/20 = 0.4
    assert d2["kappa"] == pytest.approx(0.4)
    # d2 non-conflicted: 5, p_o = 4/5; human A 1 B 4, judge A 2 B 3; p_e = (2 + 12)/25; kappa = (20-14)/(25-14) = 6/11
    assert d2["kappa_non_conflicted"] == pytest.approx(6 / 11)
    # Total, all 16 pooled: p_o = 11/16; human A 8, B 8; judge A 7, B 7, DRAW 2; p_e = (8*7 + 8*7)/256 = 112/256
    #     kappa = (176 - 112)/(256 - 112) = 64/144 = 4/9, NOT the mean of the dimensions ((4/9 + 0.4)/2 = 0.4222)
    assert total["kappa"] == pytest.approx(4 / 9) and total["kappa"] != pytest.approx((4 / 9 + 0.4) / 2)
    assert total["n"] == 16 and total["conflict_rate"] == pytest.approx(2 / 16)
    assert total["percent_agreement"] == pytest.approx(11 / 16)
    # Total non-conflicted: 14, p_o = 11/14; human A 6 B 8, judge A 7 B 7; p_e = (42 + 56)/196 = 0.5
    #     kappa = (11/14 - 0.5)/0.5 = 8/14
    assert total["kappa_non_conflicted"] == pytest.approx(8 / 14)
    # stability over [4/9, 0.4]: mean 0.42222, population SD |4/9 - 0.4|/2 = 0.02222, CV = 0.02222/0.42222 = 1/19
    s = r["stability"]
    assert s["mean"] == pytest.approx(19 / 45) and s["sd"] == pytest.approx(1 / 45)
    assert s["cv"] == pytest.approx(1 / 19) and s["min"] == pytest.approx(0.4)


def test_undefined_kappa_is_left_out_of_stability() -> None:
    same = _instances("d3", [("A", "A", 3)])  # both raters always A: p_e = 1, kappa undefined
    r = judge_agreement(D1 + same)
    assert r["per_dimension"]["d3"]["kappa"] is None
    assert r["stability"]["min"] == pytest.approx(4 / 9) and "d3" in r["stability_note"]


def test_fleiss_among_humans_by_hand() -> None:
    # 3 raters, 4 matchups: [A,A,A] [B,B,B] [A,A,B] [B,B,A]; P_i = 1, 1, (2^2+1^2-3)/(3*2) = 1/3, 1/3 -> mean 2/3
    # p_A = p_B = 6/12 -> P_e = 0.5; kappa = (2/3 - 1/2)/(1/2) = 1/3. A fifth matchup only h1 labelled is ignored.
    rows = {"s1": "AAA", "s2": "BBB", "s3": "AAB", "s4": "BBA"}
    humans = {f"human:h{k + 1}": {s: v[k] for s, v in rows.items()} for k in range(3)}
    humans["human:h1"]["s5"] = "A"
    f = human_fleiss(humans, {"s1": "d1", "s2": "d1", "s3": "d2", "s4": "d2", "s5": "d2"})
    assert f["n"] == 4 and f["raters"] == 3 and f["kappa"] == pytest.approx(1 / 3)
    assert f["per_dimension"]["d1"] == {"kappa": 1.0, "n": 2}
    assert human_fleiss({"human:h1": {"s1": "A"}}, {}) is None


def _write(path: Path, rows: list[list[str]], header: list[str]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as handle:
        w = csv.writer(handle)
        w.writerow(header)
        w.writerows(rows)
    return path


def test_agreement_on_judgment_logs(judged_by_one_judge: Path, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    logs = read_judgments([str(judged_by_one_judge)])
    [judge] = logs.labels
    labels = logs.labels[judge]
    ids = sorted(labels)
    assert len(set(labels.values())) >= 2, labels  # otherwise kappa is undefined and the test proves nothing
    rows = []
    for sid in ids:
        rows.append([sid, "h1", labels[sid], logs.dimensions[sid]])  # agrees with the judge
        flipped = {"A": "B", "B": "A", "DRAW": "A"}[labels[sid]]
        rows.append([sid, "h2", flipped, ""])  # never agrees, dimension blank
    human = _write(tmp_path / "h.csv", rows, ["sample_id", "rater", "label", "dimension"])
    report = agreement([str(judged_by_one_judge)], str(human))
    d = report["judges"][judge]
    assert d["total"]["n"] == 2 * len(ids)  # one instance per human annotation
    assert d["total"]["percent_agreement"] == pytest.approx(0.5)
    assert set(d["per_dimension"]) == {"expression_naturalness"}
    # the judge's DRAWs are exactly its conflicted verdicts
    n_conflicted = sum(logs.conflicted[judge][s] for s in ids)
    assert d["total"]["conflict_rate"] == pytest.approx(n_conflicted / len(ids))
    assert report["cohen"][judge]["per_human"]["human:h1"]["kappa"] == pytest.approx(1.0)
    assert report["fleiss_humans"]["n"] == len(ids) and report["fleiss_humans"]["kappa"] < 0
    out = tmp_path / "agreement.json"
    assert cli(["agreement", str(judged_by_one_judge), "--human", str(human), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "| **Total** |" in printed and "Stability over the 1 per-dimension kappas" in printed
    assert json.loads(out.read_text(encoding="utf-8"))["judges"][judge]["total"]["n"] == 2 * len(ids)


def test_dimension_column_must_match(judged_by_one_judge: Path, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    logs = read_judgments([str(judged_by_one_judge)])
    sid = sorted(logs.pairs)[0]
    human = _write(
        tmp_path / "h.csv",
        [[sid, "h1", "A", "expression_naturalness"], [sid, "h2", "B", "emotion_regulation"]],
        ["sample_id", "rater", "label", "dimension"],
    )
    assert cli(["agreement", str(judged_by_one_judge), "--human", str(human)]) == 2
    err = capsys.readouterr().err
    assert (
        "row 3: dimension 'emotion_regulation' does not match the matchup's dimension 'expression_naturalness'" in err
    )


PAIRS = {"m|i1|e1|a|b": ("a", "b"), "m|i2|e1|a|b": ("a", "b")}


def _csv(tmp_path: Path, text: str) -> str:
    path = tmp_path / "human.csv"
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_agreement_rejects_extra_columns_and_cells(tmp_path: Path) -> None:
    ok = human_labels(_csv(tmp_path, "sample_id,rater,label\nm|i1|e1|a|b,r1,A\nm|i2|e1|a|b,r1,b\n"), PAIRS)
    assert ok == {"human:r1": {"m|i1|e1|a|b": "A", "m|i2|e1|a|b": "B"}}
    with pytest.raises(EqEvalsError, match=r"human.csv: unknown column\(s\) \['lable'\]"):
        human_labels(_csv(tmp_path, "sample_id,rater,label,lable\nm|i1|e1|a|b,r1,A,B\n"), PAIRS)
    with pytest.raises(EqEvalsError, match=r"human.csv, row 3: 1 more cell\(s\) than the header has columns: \['B'\]"):
        human_labels(_csv(tmp_path, "sample_id,rater,label\nm|i1|e1|a|b,r1,A\nm|i2|e1|a|b,r1,A,B\n"), PAIRS)
    with pytest.raises(EqEvalsError, match=r"human.csv, row 2: fewer cells"):
        human_labels(_csv(tmp_path, "sample_id,rater,label,dimension\nm|i1|e1|a|b,r1,A\n"), PAIRS)
