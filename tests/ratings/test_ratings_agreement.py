"""Agreement statistics against hand-computed small examples."""

import math

import numpy as np
import pytest

from eq_evals.ratings import cohen_kappa, fleiss_kappa, krippendorff_alpha, percent_agreement, stability


def test_cohen_kappa_hand_example():
    # pairs: (A,A) x4, (A,B) x2, (B,A) x1, (B,B) x3 -> n = 10
    # p_o = (4 + 3) / 10 = 0.7
    # rater a: A 6, B 4; rater b: A 5, B 5 -> p_e = 0.6*0.5 + 0.4*0.5 = 0.5
    # kappa = (0.7 - 0.5) / (1 - 0.5) = 0.4
    pairs = [("A", "A")] * 4 + [("A", "B")] * 2 + [("B", "A")] + [("B", "B")] * 3
    a, b = zip(*pairs)
    assert cohen_kappa(a, b) == pytest.approx(0.4)
    assert percent_agreement(a, b) == pytest.approx(0.7)
    assert cohen_kappa(a, a) == pytest.approx(1.0)


def test_cohen_kappa_with_draw_category_and_errors():
    # judge uses DRAW: a = [A, B, DRAW, A], b = [A, B, A, A]; p_o = 3/4
    # marginals a: A 2/4, B 1/4, DRAW 1/4; b: A 3/4, B 1/4 -> p_e = 6/16 + 1/16 = 7/16
    # kappa = (12/16 - 7/16) / (9/16) = 5/9
    assert cohen_kappa(["A", "B", "DRAW", "A"], ["A", "B", "A", "A"], labels=["A", "B", "DRAW"]) == pytest.approx(5 / 9)
    with pytest.raises(ValueError, match="label space"):
        cohen_kappa(["A", "C"], ["A", "B"], labels=["A", "B"])
    with pytest.raises(ValueError):
        cohen_kappa(["A"], ["A", "B"])
    assert math.isnan(cohen_kappa(["A", "A"], ["A", "A"]))  # p_e = 1: undefined


def test_fleiss_kappa_hand_example():
    # 3 instances x 3 raters: [A,A,A], [A,A,B], [B,B,B]
    # P_i = (sum n_ij^2 - n) / (n(n-1)): (9-3)/6 = 1, (4+1-3)/6 = 1/3, 1 -> mean 7/9
    # p_A = 5/9, p_B = 4/9 -> P_e = 41/81; kappa = (63/81 - 41/81) / (40/81) = 22/40 = 0.55
    labels = [["A", "A", "A"], ["A", "A", "B"], ["B", "B", "B"]]
    assert fleiss_kappa(labels) == pytest.approx(0.55)
    table = np.array([[3, 0], [2, 1], [0, 3]])
    assert fleiss_kappa(table) == pytest.approx(0.55)
    assert fleiss_kappa(table=[[3, 0], [2, 1], [0, 3]]) == pytest.approx(0.55)
    with pytest.raises(ValueError, match="same number of raters"):
        fleiss_kappa(table=[[3, 0], [1, 1]])


def test_krippendorff_alpha_nominal_with_missing():
    # units (coders' values, None = missing): [A, A, -], [A, B, B], [B, B, -], [-, A, -] (not pairable)
    # coincidences: unit1 (m=2): o_AA += 2; unit2 (m=3): o_AB += 1*2/2 = 1, o_BA += 1, o_BB += 2*1/2 = 1;
    # unit3 (m=2): o_BB += 2 -> o_AA 2, o_AB 1, o_BA 1, o_BB 3; n_A = 3, n_B = 4, n = 7
    # D_o = o_AB + o_BA = 2; sum_{c!=k} n_c n_k = 2*3*4 = 24; alpha = 1 - (7-1)*2/24 = 0.5
    units = [["A", "A", None], ["A", "B", "B"], ["B", "B", float("nan")], [None, "A", None]]
    assert krippendorff_alpha(units) == pytest.approx(0.5)
    assert krippendorff_alpha([["A", "A"], ["B", "B"]]) == pytest.approx(1.0)
    assert math.isnan(krippendorff_alpha([["A", "A"], ["A", "A"]]))
    with pytest.raises(ValueError, match="two or more"):
        krippendorff_alpha([["A", None]])


def test_stability_matches_spec_table_for_gemini():
    s = stability([0.664, 0.771, 0.741, 0.723, 0.570])  # Table 3, Gemini-2.5-Pro
    assert round(s["mean"], 3) == 0.694
    assert round(s["sd"], 4) == 0.0711
    assert round(s["cv"], 4) == 0.1024
    assert s["min"] == 0.570
