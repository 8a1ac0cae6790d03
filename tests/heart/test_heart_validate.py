"""Issue 23: the HEART item validator (src/eq_evals/heart/validate.py): the references' style against the HEART
release's human replies, bot insults in adversarial histories, EN/ZH alignment, and routing by
``eq-evals validate``."""

from __future__ import annotations

import json
from pathlib import Path

from support import REPO, shared_file

from eq_evals.core.itemcheck import limits
from eq_evals.heart.validate import run, sentences, style

DATA = REPO / "datasets" / "heart"


def rows(language: str) -> list[dict]:
    return [
        json.loads(line) for line in (DATA / f"histories_{language}.jsonl").read_text(encoding="utf-8").splitlines()
    ]


def write(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


def test_the_release_targets_are_the_releases_own_figures() -> None:
    """The limits file's targets (43% with a question, 36% ending with one, the sentence counts) are what the
    release's 280 human replies give, and the release itself passes the style check."""
    release = json.loads(shared_file("heart", "dialogues_regular.json").read_text(encoding="utf-8"))
    fig = style([d["vanilla_completion"] for d in release if d.get("vanilla_completion")])
    lim = limits("heart")
    assert fig["replies"] == 280
    assert round(fig["question_share"], 2) == lim["release_question_share"]
    assert round(fig["question_ending_share"], 2) == lim["release_question_ending_share"]
    for count, share in lim["release_sentence_counts"].items():
        assert abs(fig["sentence_counts"][count] - share) < 0.006, count


def test_references_restyled_like_the_release_pass_and_formulaic_ones_fail(tmp_path: Path) -> None:
    base = [r for r in rows("en") if r["subset"] == "regular"][:50]
    kinds = {  # reply: how many of the 50 (1-4 sentences, 18 ending with a question, 3 more with one inside)
        "That sounds exhausting.": 7,
        "How are you holding up?": 7,
        "I'm sorry it has been this hard. You have carried a lot on your own.": 12,
        "It makes sense you feel stuck. What would help most this week?": 7,
        "That is a lot. Anyone would be tired. You are still here, though.": 5,
        "Did he say why? That must have hurt. I'm glad you told me.": 3,
        "It has been months. You kept going anyway. That matters. Who else knows?": 2,
        "It has been months. You kept going anyway. That matters. Be kind to yourself.": 5,
    }
    replies = [reply for reply, count in kinds.items() for _ in range(count)]
    restyled = [dict(r, reference_response=reply) for r, reply in zip(base, replies)]
    report = run([write(tmp_path / "ok.jsonl", restyled)], checks=["reference_style"])
    figures = report.figures["reference_style"]["en"]
    assert figures["question_share"]["result"] == "PASS", figures
    assert figures["sentence_counts"]["result"] == "PASS", figures
    formulaic = [dict(r, reference_response="I hear you. That is hard. What would help right now?") for r in base]
    report = run([write(tmp_path / "bad.jsonl", formulaic)], checks=["reference_style"])
    failed = {f.message.split(":")[1].strip().split(" ")[0] for f in report.errors}
    assert {"question", "sentence"} <= failed, [str(f) for f in report.errors]


def test_bundled_references_are_measured() -> None:
    """The version the issue reviewed: 60 of 64 references with a question, 55 ending with one, 53 of three
    sentences. The figures are reported whatever they are; the revision must bring them into the limits."""
    report = run([DATA], checks=["reference_style", "alignment"])
    en = report.figures["reference_style"]["en"]
    assert 0 <= en["question_share"]["references"] <= 1 and en["question_share"]["release"] == 0.43
    assert report.figures["alignment"]["unpaired"] == 0
    assert not [f for f in report.errors if f.check == "alignment"]


def test_sentences_split_english_and_chinese() -> None:
    assert len(sentences("That is hard. Are you okay? I'm here!")) == 3
    assert len(sentences("这很难。你还好吗？我在这里。")) == 3


def test_bot_insults_and_alignment_are_caught(tmp_path: Path) -> None:
    adversarial = [r for r in rows("en") if r["subset"] == "adversarial"]
    insulting = []
    for r in adversarial:
        history = list(r["dialogue_history"])
        history[-1] = "You're just a bot reading a script."
        insulting.append(dict(r, dialogue_history=history))
    zh = [r for r in rows("zh") if r["subset"] == "adversarial"][1:]  # one partner missing
    files = [write(tmp_path / "a_en.jsonl", insulting), write(tmp_path / "a_zh.jsonl", zh)]
    report = run(files, checks=["schema", "reference_style", "alignment"])
    messages = [f.message for f in report.errors]
    assert any("calls the supporter a bot" in m for m in messages)
    assert any("has no zh version" in m for m in messages)


def test_generic_validate_routes_heart_and_pace_files(tmp_path: Path, capsys) -> None:
    from eq_evals.cli import main

    heart = write(tmp_path / "h.jsonl", rows("en")[:1])  # one history: no embedding model to load
    pace = tmp_path / "p.jsonl"
    pace.write_text((REPO / "datasets" / "pace" / "items_en.jsonl").read_text(encoding="utf-8").splitlines()[0] + "\n")
    main(["validate", str(heart), str(pace)])
    out = capsys.readouterr().out
    assert "== heart" in out and "HEART validation of 1 file(s)" in out
    assert "== pace" in out and "PACE validation of 1 file(s)" in out and "FACET validation" not in out
