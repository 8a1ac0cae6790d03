"""The FACET item validators (src/eq_evals/facet/validate.py) and ``eq-evals validate``."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from support import REPO, shared_file

from eq_evals.facet.validate import CHECKS, Thresholds, chi_square_p, folds_of, hypergeom_tail, run

DATA = REPO / "datasets" / "facet"
FILLER = (
    "he she they said work home late week month money sleep friend family talk call night morning school "
    "office plan trip phone doctor drink walk tired quiet still often again never always maybe told asked"
).split()


def crisis(item: int, level: int, language: str, text: str) -> dict:
    answer = f"Level {level}" if language == "en" else "一二三四五"[level - 1] + "级"
    return {
        "id": f"t-crisis-{item:03d}-{language}",
        "item_id": f"t-crisis-{item:03d}",
        "dimension": "crisis_recognition",
        "branch": "cognition",
        "language": language,
        "format": "level_classification",
        "input": text,
        "answer": answer,
        "secondary_answer": None,
    }


def emotion(
    item: int, language: str, text: str, answer: str, dimension: str = "apparent_emotion", fmt: str = "single_select"
) -> dict:
    return {
        "id": f"t-emo-{item:03d}-{language}",
        "item_id": f"t-emo-{item:03d}",
        "dimension": dimension,
        "branch": "perception",
        "language": language,
        "format": fmt,
        "input": text,
        "answer": answer,
        "secondary_answer": None,
    }


def write(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


def filler(rng: random.Random, n: int = 30) -> str:
    return " ".join(rng.choice(FILLER) for _ in range(n)) + "."


def crisis_set(tmp_path: Path, giveaway: bool) -> Path:
    rng = random.Random(7)
    records = []
    for i in range(40):
        level = i % 5 + 1
        text = filler(rng) + (
            f" He mentioned the {['blue', 'green', 'red', 'white', 'black'][level - 1]} notebook." if giveaway else ""
        )
        records.append(crisis(i, level, "en", text))
    return write(tmp_path / "crisis.jsonl", records)


def by_check(report, check: str):
    return [f for f in report.findings if f.check == check]


def test_statistics_match_known_values() -> None:
    # P(X >= 6) drawing 6 from 30 with 6 successes = 1 / C(30, 6)
    assert hypergeom_tail(30, 6, 6, 6) == pytest.approx(1 / 593775)
    assert hypergeom_tail(30, 6, 6, 0) == pytest.approx(1.0)
    # chi-square upper tail: 3.841 at 1 dof and 11.07 at 5 dof are the 5% critical values
    assert chi_square_p([60, 40], [50, 50]) == pytest.approx(0.0455, abs=1e-3)
    assert chi_square_p([16, 4, 10, 10, 10, 10], [10] * 6) == pytest.approx(
        0.2062, abs=1e-3
    )  # scipy.stats.chi2.sf(7.2, 5)
    assert chi_square_p([10] * 5, [10] * 5) == 1.0


def test_a_phrase_that_gives_the_level_away_is_caught(tmp_path: Path) -> None:
    report = run([crisis_set(tmp_path, giveaway=True)], checks=["predictive_ngrams", "text_classifier"])
    flagged = " ".join(f.message for f in by_check(report, "predictive_ngrams"))
    assert (
        "'blue'" in flagged
        and "labelled 1" in flagged
        and "crisis.jsonl" in by_check(report, "predictive_ngrams")[0].file
    )
    fig = report.figures["shortcuts"]["crisis_recognition:en"]["detectors"]["bow"]
    assert fig["accuracy"] >= 0.9 and fig["majority"] == 0.2 and fig["result"] == "FAIL"
    assert any("detector bow" in f.message for f in by_check(report, "shortcuts"))


def test_the_same_set_without_the_phrase_passes(tmp_path: Path) -> None:
    report = run([crisis_set(tmp_path, giveaway=False)], checks=["predictive_ngrams", "text_classifier", "positions"])
    assert not report.errors, [str(f) for f in report.errors]
    assert report.figures["shortcuts"]["crisis_recognition:en"]["detectors"]["bow"]["accuracy"] <= 0.4
    assert report.figures["positions"]["crisis_recognition:en"]["p"] == 1.0


def test_folds_are_stratified_seeded_and_differ_between_seeds() -> None:
    labels = [f"L{i % 5}" for i in range(60)]
    a, b = folds_of(labels, 5, 0), folds_of(labels, 5, 1)
    assert a == folds_of(labels, 5, 0) and a != b
    for fold in (a, b):  # 12 items per fold, each label spread as evenly as the counts allow
        assert sorted(fold.count(f) for f in range(5)) == [12] * 5
        for label in set(labels):
            per_fold = [sum(1 for x, y in zip(fold, labels) if x == f and y == label) for f in range(5)]
            assert max(per_fold) - min(per_fold) <= 1


def test_the_classifier_figure_is_a_mean_over_random_splits(tmp_path: Path) -> None:
    """Issue 11: one fixed split can be tuned against while a set is written, so the figure is the mean over
    seeded random splits, with its range; --repeats sets how many."""
    file = crisis_set(tmp_path, giveaway=False)
    fig = run([file], checks=["text_classifier"])
    one = run([file], checks=["text_classifier"], thresholds=Thresholds(repeats=1))
    fig, one = (
        fig.figures["shortcuts"]["crisis_recognition:en"]["detectors"]["bow"],
        one.figures["shortcuts"]["crisis_recognition:en"]["detectors"]["bow"],
    )
    assert fig["repeats"] == 30 and one["repeats"] == 1
    assert fig["accuracy_min"] <= fig["accuracy"] <= fig["accuracy_max"] and fig["accuracy_min"] < fig["accuracy_max"]
    assert one["accuracy_min"] == one["accuracy"] == one["accuracy_max"]


def test_gold_words_inflections_and_synonyms_are_caught(tmp_path: Path) -> None:
    file = write(
        tmp_path / "apparent.jsonl",
        [
            emotion(1, "en", "I keep checking the door and I feel so anxious all the time.", "anxiety"),
            emotion(1, "zh", "我一直在检查门锁，整个人坐立不安。", "焦虑"),
            emotion(2, "en", "The house is empty since the kids moved out.", "loneliness"),
            emotion(2, "zh", "孩子们搬走以后，屋里空荡荡的，我一个人孤孤单单。", "孤独"),
        ],
    )
    leaks = by_check(run([file], checks=["leakage"]), "leakage")
    assert [(f.item, f.row) for f in leaks] == [("t-emo-001-en", "line 1"), ("t-emo-002-zh", "line 4")]
    assert "'anxious'" in leaks[0].message and "'孤单'" in leaks[1].message


def test_stage_directions_option_annotations_and_level_names(tmp_path: Path) -> None:
    hidden = emotion(
        1,
        "en",
        "Background: A visit.\nDialogue:\nAnn: Hi.\nBen: (smiling) Fine, thanks.\n"
        "Question: What emotion is hidden behind Ben's final statement?",
        "resentment",
        "hidden_emotion",
    )
    social = {
        "id": "t-social-001-en",
        "item_id": "t-social-001",
        "dimension": "social_adequacy",
        "branch": "cognition",
        "language": "en",
        "format": "multiple_choice",
        "answer": 2,
        "secondary_answer": None,
        "input": "A dilemma. What should you do?\n1. Say nothing.\n2. Ask her privately (Optimal Adequacy).\n3. Leave.",
    }
    level = crisis(1, 3, "en", "She has a plan; her counsellor rated it Level 3 last week.")
    report = run([write(tmp_path / "mixed.jsonl", [hidden, social, level])], checks=["leakage", "stage_directions"])
    assert [f.item for f in by_check(report, "stage_directions")] == ["t-emo-001-en"]
    assert {f.item for f in by_check(report, "leakage")} == {"t-social-001-en", "t-crisis-001-en"}


def test_alignment_catches_missing_partners_and_different_golds(tmp_path: Path) -> None:
    file = write(
        tmp_path / "a.jsonl",
        [
            emotion(1, "en", "A long story about a day.", "sadness"),
            emotion(1, "zh", "一整天的长故事，说来话长。", "愤怒"),
            emotion(2, "en", "Another story about a week.", "worry/anxiety"),
            emotion(2, "zh", "又一个一周的故事。", "焦虑/担忧"),
            emotion(3, "en", "An unpaired story.", "hope"),
        ],
    )
    report = run([file], checks=["alignment"])
    messages = {(f.item, f.message.split(" ")[0]) for f in by_check(report, "alignment") if f.severity == "error"}
    assert messages == {("t-emo-001-zh", "answer"), ("t-emo-003-en", "item")}
    assert report.figures["alignment"]["pairs"] == 2 and report.figures["alignment"]["unpaired"] == 1


def test_near_duplicates_and_unbalanced_positions(tmp_path: Path) -> None:
    rng = random.Random(3)
    base = filler(rng, 80)
    records = [crisis(1, 1, "en", base), crisis(2, 1, "en", base.replace("friend", "cousin", 1))]
    records += [crisis(i, 1, "en", filler(rng)) for i in range(3, 30)]
    report = run([write(tmp_path / "c.jsonl", records)], checks=["near_duplicates", "positions"])
    assert [f.item for f in by_check(report, "near_duplicates")] == ["t-crisis-002-en"]
    assert by_check(report, "positions") and report.figures["positions"]["crisis_recognition:en"]["p"] < 0.01


def test_schema_errors_name_file_and_line(tmp_path: Path) -> None:
    good = emotion(1, "en", "Some text.", "sadness")
    bad = emotion(2, "en", "Other text.", "melancholy")
    path = tmp_path / "bad.jsonl"
    path.write_text(
        json.dumps(good) + "\n{not json\n" + json.dumps(bad) + "\n" + json.dumps(good) + "\n", encoding="utf-8"
    )
    errors = by_check(run([path], checks=["schema"]), "schema")
    assert [(f.row, f.item) for f in errors] == [("line 2", ""), ("line 3", ""), ("line 4", "t-emo-001-en")]
    assert (
        "invalid JSON" in errors[0].message and "'melancholy'" in errors[1].message and "duplicate" in errors[2].message
    )


def test_authors_file_is_validated_and_overlap_is_measured(tmp_path: Path) -> None:
    authors = shared_file("facet", "samples_dataset.json")
    report = run([authors], authors=authors, checks=["schema", "authors_overlap"])
    assert not by_check(report, "schema")
    assert report.figures["authors_overlap"]["en"]["max_share"] == 1.0  # each sample overlaps itself
    sample = json.loads(authors.read_text(encoding="utf-8"))["samples"][8]
    copied = crisis(1, 2, "en", sample["en"]["question"][:600] + " Extra sentence about the weekend.")
    report = run([write(tmp_path / "copy.jsonl", [copied])], authors=authors, checks=["authors_overlap"])
    assert [f.item for f in by_check(report, "authors_overlap")] == ["t-crisis-001-en"]


def test_bundled_files_pass_schema_leakage_alignment_duplicates_and_overlap() -> None:
    authors = shared_file("facet", "samples_dataset.json")
    checks = ["schema", "leakage", "positions", "near_duplicates", "authors_overlap", "alignment"]
    report = run([DATA], authors=authors, checks=checks)
    assert not report.errors, "\n".join(map(str, report.errors))
    assert report.figures["alignment"]["unpaired"] == 0


def test_cli_reports_findings_and_exit_codes(tmp_path: Path) -> None:
    file = write(
        tmp_path / "apparent.jsonl",
        [emotion(1, "en", "I am so anxious.", "anxiety"), emotion(1, "zh", "我坐立不安。", "焦虑")],
    )
    cmd = [sys.executable, "-m", "eq_evals.cli", "validate", str(file), "--json", str(tmp_path / "r.json")]
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert result.returncode == 1, result.stderr
    assert f"{file}, line 1 (t-emo-001-en): gold label 'anxiety'" in result.stdout
    assert json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["findings"][0]["check"] == "leakage"
    ok = subprocess.run(cmd[:-2] + ["--skip", "leakage"], capture_output=True, text=True, timeout=120)
    assert ok.returncode == 0 and "0 error(s)" in ok.stdout
    assert set(CHECKS) >= {"leakage", "alignment"} and Thresholds().margin == 0.2


def test_bundled_crisis_and_social_sets_have_the_papers_size_and_balance() -> None:
    """Issue 11: 60 items per language, levels and option positions balanced, no strategy labels or level names
    in the text, EN/ZH pairs aligned. The text-only baseline figures are measured and reported in the card."""
    authors = shared_file("facet", "samples_dataset.json")
    files = [DATA / "crisis.jsonl", DATA / "social.jsonl"]
    checks = ["schema", "leakage", "proportions", "positions", "near_duplicates", "authors_overlap", "alignment"]
    report = run(files, authors=authors, checks=checks)
    assert not report.errors, "\n".join(map(str, report.errors))
    for key in ("crisis_recognition", "social_adequacy"):
        for language in ("en", "zh"):
            assert report.figures["proportions"][f"{key}:{language}"]["items"] == 60
    assert report.figures["positions"]["crisis_recognition:en"]["observed"] == {1: 12, 2: 12, 3: 12, 4: 12, 5: 12}
    assert report.figures["positions"]["social_adequacy:en"]["p"] > 0.5


def test_no_fixed_phrase_of_the_old_crisis_set_maps_onto_one_level() -> None:
    """The phrases the issue found ("no date" only in Level 3, 没(有)定 only in 三级, "not tried / no attempt" only in
    Level 4) no longer single out a level."""
    import re
    from collections import defaultdict

    levels: dict[str, set] = defaultdict(set)
    for line in (DATA / "crisis.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        for pattern in (r"\bno date\b", r"没有?定", r"\bnot tried\b", r"\bno attempt\b"):
            if re.search(pattern, record["input"]):
                levels[pattern].add(record["answer"])
    for pattern in (r"\bno date\b", r"没有?定"):
        assert len(levels[pattern]) != 1, pattern
    assert not levels[r"\bnot tried\b"] and not levels[r"\bno attempt\b"]


def task_version(name: str) -> int:
    return int(yaml.safe_load((REPO / "tasks" / "facet" / f"facet_{name}.yaml").read_text(encoding="utf-8"))["version"])


# Issue 23: detectors added after version 3 was written find what it was not revised against. Until the items
# are revised (task version 4), the bundled sets must fail exactly these and nothing else; from version 4 on,
# nothing. Figures: benchmarks/results/facet_validation_v3.md.
KNOWN_V3 = {
    "crisis": {("zh", "char_ngrams")},
    "social": {
        ("en", "options_char_ngrams"),
        ("en", "options_model"),
        ("en", "length_rank"),
        ("en", "form_rule"),
        ("zh", "options_char_ngrams"),
        ("zh", "options_model"),
        ("zh", "length_rank"),
    },
}


def failing_detectors(report) -> set[tuple[str, str]]:
    return {
        (key.split(":")[1], name)
        for key, group in report.figures["shortcuts"].items()
        for name, d in group.get("detectors", {}).items()
        if d["result"] == "FAIL"
    }


def test_bundled_crisis_set_has_no_lexical_shortcut() -> None:
    """Issue 11: no n-gram predicts a crisis level and the detectors that read the vignette stay within the margin
    of the majority class (the level turns on how the CASE cues combine, not on wording); issue 23: character
    n-grams read Chinese version-3 vignettes too well, which the version-4 rewrite must fix."""
    report = run([DATA / "crisis.jsonl"], checks=["predictive_ngrams", "shortcuts"])
    expected = KNOWN_V3["crisis"] if task_version("crisis") <= 3 else set()
    assert failing_detectors(report) == expected, "\n".join(map(str, report.errors))
    assert len(report.errors) == len(expected)
    for language in ("en", "zh"):
        group = report.figures["shortcuts"][f"crisis_recognition:{language}"]
        assert group["items"] == 60 and group["detectors"]["bow"]["limit"] == group["majority"] + Thresholds().margin
        assert report.figures["predictive_ngrams"][f"crisis_recognition:{language}"]["flagged"] == 0


def test_bundled_social_set_passes_every_other_check() -> None:
    """Social Adequacy: no n-gram picks the gold option and every check but the shortcut detectors passes. Issue
    23: options-only models and the gold's length rank find the version-3 gold far above chance (the cue the
    naive Bayes that version 3 was revised against does not see); from version 4 on, every detector must pass."""
    report = run(
        [DATA / "social.jsonl"],
        authors=shared_file("facet", "samples_dataset.json"),
        checks=[c for c in CHECKS if c != "same_scenario"],
    )
    expected = KNOWN_V3["social"] if task_version("social") <= 3 else set()
    assert failing_detectors(report) == expected
    others = [f for f in report.errors if f.check != "shortcuts"]
    assert not others, "\n".join(map(str, others))
    group = report.figures["shortcuts"]["social_adequacy:en"]
    assert group["chance"] == 0.183 and group["detectors"]["options_bow"]["limit"] == 0.3


def test_a_one_character_full_width_stage_direction_is_found(tmp_path: Path) -> None:
    laugh = emotion(
        1,
        "zh",
        "背景：聚会。\n对话：\n小王：你好。\n小李：（笑）挺好的。\n问题：小李最后一句话背后隐藏着什么情绪？",
        "怨恨",
        "hidden_emotion",
    )
    marker = emotion(
        2,
        "en",
        "Background: A visit.\nDialogue:\nAnn: Pick (a) or (b).\nBen: Fine, thanks.\n"
        "Question: What emotion is hidden behind Ben's final statement?",
        "resentment",
        "hidden_emotion",
    )
    report = run([write(tmp_path / "h.jsonl", [laugh, marker])], checks=["stage_directions"])
    assert [f.item for f in by_check(report, "stage_directions")] == ["t-emo-001-zh"]
