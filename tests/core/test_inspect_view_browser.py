"""What a person sees in Inspect View (a real ``inspect view`` server, Chromium through Playwright): each judge,
agent and arbitrator call of a scorer is labelled in the sample's transcript (core/view.py), HEART's input says who
spoke, the log list shows each run's headline (rounded; none for a generation run), and LongEmotion's log header
keeps its metric names short. One sample per benchmark from the session's logs (tests/benchmark_logs.py) plus a
small LongEmotion run. Screenshots go to tests/screenshots/ (look at them: a DOM check alone can pass on an
unreadable page). Inspect View draws text-transform: uppercase titles, so text is compared case-insensitively."""

from __future__ import annotations

import re
import shutil
import urllib.parse
from pathlib import Path

import pytest
from browser import inspect_view, open_page
from inspect_ai import eval as inspect_eval
from inspect_ai.log import headline_metric, read_eval_log

pytestmark = pytest.mark.browser

WAIT = 60_000  # ms: the first page of a single-page app on a loaded 2-core machine
LOGS = {  # file name in the view folder -> the benchmark_logs label
    "facet_naturalness.eval": "facet_naturalness/scripted-echo",
    "facet_pairwise.eval": "facet_pairwise/panel",
    "pace.eval": "pace/scripted-heart-warm",
    "pace_pairwise.eval": "pace_pairwise/board",
    "heart.eval": "heart/scripted-heart-terse",
    "sage.eval": "sage/scripted-heart-warm",
}
LONGEMOTION = "longemotion_conversation.eval"


@pytest.fixture(scope="module")
def view_dir(benchmark_logs, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One log per benchmark in one folder, so the log list shows them side by side."""
    out = tmp_path_factory.mktemp("view")
    by_label = {e.label: e for e in benchmark_logs.entries}
    for name, label in LOGS.items():
        shutil.copy(by_label[label].path, out / name)
    [log] = inspect_eval(
        "eq_evals/longemotion_conversation",
        model="eq_evals/scripted-le_oracle",
        task_args={"fixtures": True, "retriever": "bm25", "stages": "all"},
        model_roles={"grader": "eq_evals/scripted-le_judge", "helper": "eq_evals/scripted-le_helper"},
        log_dir=str(out / "le"),
        display="none",
    )
    assert log.status == "success", log.error
    shutil.move(log.location, out / LONGEMOTION)
    shutil.rmtree(out / "le")
    return out


def transcript_url(base: str, log: Path, pick=None) -> tuple[str, object]:
    """The sample's Transcript scrolled to its first labelled INFO block (a deep link to the event)."""
    sample = next(s for s in read_eval_log(str(log)).samples if pick is None or pick(s))
    event = next(e for e in sample.events if e.event == "info" and e.source)
    sid = urllib.parse.quote(str(sample.id), safe="")
    return f"{base}/#/logs/{log.name}/samples/sample/{sid}/1/transcript?event={event.uuid}", sample


CASES = {
    "facet_pairwise.eval": (None, ["Info: scripted-judge judges ", ": A=scripted-", " → "]),
    "pace.eval": (
        None,
        [
            "Info: Perceptive Analyst (P) → ",
            "Info: Guidance Strategist (E) → ",
            "Info: Chief Arbitrator: EQ = ",
            "0.430",
        ],
    ),
    "pace_pairwise.eval": (
        None,
        ["Info: Conviction Guardian (C): A=scripted-echo, B=scripted-heart-warm → A ", "Info: Chief Arbitrator: EQ "],
    ),
    "heart.eval": (
        lambda s: len(s.scores["heart_pairwise"].metadata.get("opponents", [])) == 2,
        ["Info: scripted-hjudge: scripted-heart-terse vs reference, A=", "vs scripted-heart-warm, A="],
    ),
    "sage.eval": (None, ["Info: sentient_agent", "Turn 1 · emotion"]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_transcript_names_the_speaker(view_dir: Path, name: str) -> None:
    pick, labels = CASES[name]
    with inspect_view(view_dir) as base:
        url, sample = transcript_url(base, view_dir / name, pick)
        with open_page(url, viewport=(1400, 1600)) as page:
            page.page.get_by_text(labels[0].removeprefix("Info: "), exact=False).first.wait_for(timeout=WAIT)
            page.page.wait_for_timeout(1500)
            page.screenshot(f"transcript-{name.removesuffix('.eval')}", full_page=False)
            text = page.page.inner_text("body").lower()
            for label in labels:
                assert label.lower() in text, (name, label)
            assert not page.errors, page.errors
            if name == "pace.eval":
                assert not re.search(r"0\.\d{6,}", text), "the arbitrator's weights are rounded"


def test_heart_scoring_tab_and_input(view_dir: Path) -> None:
    log = view_dir / "heart.eval"
    with inspect_view(view_dir) as base:
        url, sample = transcript_url(base, log, CASES["heart.eval"][0])
        with open_page(url.split("/transcript?")[0] + "/scoring", viewport=(1400, 1200)) as page:
            page.page.get_by_text("opponent", exact=True).first.wait_for(timeout=WAIT)
            page.page.wait_for_timeout(1000)
            page.screenshot("scoring-heart", full_page=False)
            text = page.page.inner_text("body")
            # the input labels who spoke; the verdicts are one table (a row per judge call), not Object(...) rows
            assert "Seeker: " in text and "Supporter: " in text
            for head in ("opponent", "judge", "order", "overall"):
                assert head in text
            assert "scripted-hjudge-mild" in text and "loss+" in text
            assert not page.errors, page.errors


def _rows(page) -> dict[str, list[str]]:
    rows = {}
    for row in page.page.locator("[role=row]").all():
        cells = [c.strip() for c in row.locator("[role=gridcell]").all_inner_texts()]
        task = next((c for c in cells if c.startswith("eq_evals/")), None)
        if task:
            rows[task] = cells
    return rows


def test_log_list_shows_each_headline(view_dir: Path) -> None:
    heads = {}
    for name in LOGS:
        resolved = headline_metric(read_eval_log(str(view_dir / name), header_only=True))
        heads[name.removesuffix(".eval")] = None if resolved is None else resolved.metric.value
    with inspect_view(view_dir) as base:
        with open_page(base + "/", viewport=(1600, 800)) as page:
            page.page.get_by_text("eq_evals/pace_pairwise", exact=True).first.wait_for(timeout=WAIT)
            page.page.wait_for_timeout(3000)
            page.screenshot("log-list", full_page=False)
            rows = _rows(page)
            # the log list asks for an optional file the server does not have (a 404 with every log folder)
            assert not [e for e in page.errors if "status of 404" not in e], page.errors
    for task, value in heads.items():
        cells = rows[f"eq_evals/{task}"]
        if value is None:  # a generation run: no score in the Score column
            assert task == "facet_naturalness"
            assert not any(re.fullmatch(r"-?\d+\.\d+", c) for c in cells), cells
        else:
            shown = [c for c in cells if re.fullmatch(r"-?\d+\.\d+", c)]
            assert shown and float(shown[0]) == pytest.approx(value, abs=5e-4), (task, cells, value)
    assert heads["heart"] is not None and heads["pace"] is not None
    assert not any(re.search(r"\d\.\d{6,}", c) for cells in rows.values() for c in cells)


def test_longemotion_header_keeps_metric_names_short(view_dir: Path) -> None:
    with inspect_view(view_dir) as base:
        with open_page(f"{base}/#/logs/{LONGEMOTION}", viewport=(1400, 900)) as page:
            page.page.get_by_text("eq_evals/longemotion_conversation", exact=False).first.wait_for(timeout=WAIT)
            page.page.get_by_text("DATASET", exact=False).first.wait_for(timeout=WAIT)
            page.page.wait_for_timeout(1500)
            page.screenshot("header-longemotion", full_page=False)
            # the title bar: the task, the model, and the first metrics beside them (the "SCORER" field below lists
            # the sample-level score names)
            header = page.page.locator("body").inner_text().split("DATASET")[0]
            assert "longemotion_conversation" in header and "score" in header.lower()
            assert "checkpoint:1-1" in header.lower()
            assert "Consolidating Change Outcomes" not in header and "Therapeutic Alliance" not in header
            assert not page.errors, page.errors
