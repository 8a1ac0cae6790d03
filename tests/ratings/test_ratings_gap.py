"""Subjective-Objective gap (FACET paper §3, Fig. 3d), checked against the paper's own table values."""

import math

import pytest

from eq_evals.ratings import delta_z, profile, profiles, zscores

# FACET paper Fig. 2: Objective Average and Subjective Average rows, transcribed.
OBJ = {
    "zh": {
        "GPT-5": 63.02,
        "Gemini-2.5-pro": 64.30,
        "Claude-sonnet-4": 57.58,
        "Grok-4": 57.52,
        "Kimi-k2": 51.78,
        "Qwen3-235b": 47.11,
        "DeepSeek-r1": 55.85,
        "GLM-4.5": 46.67,
        "Doubao-seed-1.6": 54.19,
    },
    "en": {
        "GPT-5": 53.78,
        "Gemini-2.5-pro": 57.44,
        "Claude-sonnet-4": 53.39,
        "Grok-4": 47.06,
        "Kimi-k2": 46.89,
        "Qwen3-235b": 39.78,
        "DeepSeek-r1": 44.00,
        "GLM-4.5": 43.67,
        "Doubao-seed-1.6": 49.67,
    },
}
SUB = {
    "zh": {
        "GPT-5": 824.90,
        "Gemini-2.5-pro": 1087.87,
        "Claude-sonnet-4": 994.48,
        "Grok-4": 975.49,
        "Kimi-k2": 1213.84,
        "Qwen3-235b": 995.83,
        "DeepSeek-r1": 1054.37,
        "GLM-4.5": 996.70,
        "Doubao-seed-1.6": 1251.65,
    },
    "en": {
        "GPT-5": 949.23,
        "Gemini-2.5-pro": 1040.63,
        "Claude-sonnet-4": 1078.68,
        "Grok-4": 1089.20,
        "Kimi-k2": 1262.93,
        "Qwen3-235b": 891.36,
        "DeepSeek-r1": 1164.09,
        "GLM-4.5": 1149.76,
        "Doubao-seed-1.6": 1079.55,
    },
}
# FACET paper §3 (values it quotes) and Fig. 2 (the rest, derived): (Z_obj, Z_sub, Delta Z) per language, and the profile.
EXPECTED = {
    "GPT-5": ((1.317, -1.797, -3.114), (1.005, -1.227, -2.232), "cognitive-dominant"),
    "Gemini-2.5-pro": ((1.537, 0.361, -1.176), (1.689, -0.359, -2.048), "cognitive-dominant"),
    "Claude-sonnet-4": ((0.385, -0.405, -0.790), (0.932, 0.003, -0.929), "cognitive-dominant"),
    "Grok-4": ((0.375, -0.561, -0.936), (-0.252, 0.103, 0.355), "context-dependent"),
    "Kimi-k2": ((-0.610, 1.394, 2.004), (-0.284, 1.753, 2.037), "interactive-dominant"),
    "Qwen3-235b": ((-1.410, -0.394, 1.016), (-1.614, -1.777, -0.163), "context-dependent"),
    "DeepSeek-r1": ((0.088, 0.086, -0.002), (-0.825, 0.814, 1.639), "context-dependent"),
    "GLM-4.5": ((-1.486, -0.387, 1.098), (-0.886, 0.678, 1.564), "interactive-dominant"),
    "Doubao-seed-1.6": ((-0.196, 1.704, 1.901), (0.236, 0.011, -0.225), "context-dependent"),
}


def test_delta_z_reproduces_every_spec_value_to_3_decimals():
    rows = {lang: delta_z(OBJ[lang], SUB[lang]) for lang in ("zh", "en")}
    for model, (zh, en, _) in EXPECTED.items():
        for lang, exp in (("zh", zh), ("en", en)):
            row = rows[lang][model]
            got = (round(row.z_obj, 3), round(row.z_sub, 3), round(row.delta_z, 3))
            assert got == pytest.approx(exp, abs=1e-9), (model, lang, got, exp)


def test_profiles_match_the_paper_rule():
    rows = {lang: delta_z(OBJ[lang], SUB[lang]) for lang in ("zh", "en")}
    got = profiles(rows)
    assert got == {m: e[2] for m, e in EXPECTED.items()}
    # epsilon = 0.25 does not change any assignment (docs/ratings.md, '9. The Subjective–Objective gap')
    assert profiles(rows, epsilon=0.25) == got


def test_population_sd_not_sample_sd():
    z = zscores(SUB["zh"])
    # with ddof=1 GPT-5 ZH Delta Z would be -2.94; ddof=0 gives the paper's -3.11
    zo = zscores(OBJ["zh"])
    assert round(z["GPT-5"] - zo["GPT-5"], 2) == -3.11
    # the ZH subjective cohort statistics of the paper's values: mean 1043.90, SD 121.89
    vals = list(SUB["zh"].values())
    mean = sum(vals) / len(vals)
    sd = math.sqrt(sum((v - mean) ** 2 for v in vals) / len(vals))
    assert (round(mean, 2), round(sd, 2)) == (1043.90, 121.89)
    assert z["GPT-5"] == pytest.approx((824.90 - mean) / sd)


def test_degenerate_cohorts():
    with pytest.raises(ValueError, match="at least 3"):
        zscores({"a": 1.0, "b": 2.0})
    with pytest.raises(ValueError, match="same value"):
        zscores({"a": 1.0, "b": 1.0, "c": 1.0})
    with pytest.raises(ValueError, match="different models"):
        delta_z({"a": 1, "b": 2, "c": 3}, {"a": 1, "b": 2, "d": 3})
    with pytest.raises(ValueError, match="two languages"):
        profile([0.5])
    assert profile([0.1, -0.1]) == "context-dependent"
    assert profile([0.1, 0.3], epsilon=0.2) == "context-dependent"  # 0.1 is "balanced"
