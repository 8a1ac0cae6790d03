"""report.html in a real browser (tests/browser.py: Playwright driving Debian's Chromium), opened from disk with
every request off ``file://`` blocked: every section renders, the console has no errors, nothing is fetched from
the network, and the item explorer's filters change the rows shown. Screenshots go to tests/screenshots/."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from browser import open_page

from eq_evals.card import write_card

pytestmark = pytest.mark.browser

SECTIONS = ("summary", "profile", "benchmarks", "judges", "data", "usage", "explorer", "notes")


@pytest.fixture(scope="module")
def report(benchmark_logs, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("card-browser")
    paths = write_card(
        [str(benchmark_logs.ratings_dir), str(benchmark_logs.generations_dir)],
        out,
        title="Scripted models: a report card",
        bootstrap=50,
        plan={
            "models": [],
            "rows": [],
            "skipped": [{"benchmark": "longemotion", "reason": "no data", "fix": "hf download"}],
        },
    )
    return paths["html"]


def visible_rows(page) -> list[dict[str, str]]:
    return page.eval_on_selector_all(
        "#items tbody tr.item",
        "rows => rows.filter(r => r.offsetParent !== null).map(r => ({benchmark: r.dataset.benchmark, outcome: r.dataset.outcome}))",
    )


def test_report_renders_offline(report: Path) -> None:
    with open_page(report.as_uri(), offline=True) as seen:
        page = seen.page
        page.wait_for_selector("#items tbody tr.item")
        for section in SECTIONS:
            box = page.locator(f"section#{section}").bounding_box()
            assert box is not None and box["height"] > 40, section
        assert page.locator("#profile-chart svg").count() == 1
        assert page.locator("#benchmarks svg").count() >= 5
        assert page.locator("article.benchmark").count() == 5
        assert "judge not checked" in page.locator("section#judges").inner_text()
        seen.screenshot("card_full")
        seen.screenshot("card_top", full_page=False)
        assert not seen.errors, seen.errors
        assert not seen.requests, seen.requests  # nothing left file://
    html = report.read_text(encoding="utf-8")
    assert not re.findall(r"""(?:src|href)\s*=\s*["']?\s*(?:https?:)?//""", html, flags=re.I)


def test_explorer_filters(report: Path) -> None:
    data = json.loads(report.with_suffix(".json").read_text(encoding="utf-8"))
    total = len(data["items"])
    with open_page(report.as_uri(), offline=True) as seen:
        page = seen.page
        page.wait_for_selector("#items tbody tr.item")
        assert page.locator("#items-count").inner_text().startswith(f"{total} of {total} items")
        page.select_option("#f-benchmark", "sage")
        rows = visible_rows(page)
        sage = [i for i in data["items"] if i["benchmark"] == "sage"]
        assert len(rows) == len(sage) > 0 and {r["benchmark"] for r in rows} == {"sage"}
        page.select_option("#f-benchmark", "facet")
        page.select_option("#f-outcome", "incorrect")
        rows = visible_rows(page)
        wrong = [i for i in data["items"] if i["benchmark"] == "facet" and i["outcome"] == "incorrect"]
        assert len(rows) == min(len(wrong), 100) > 0
        assert {(r["benchmark"], r["outcome"]) for r in rows} == {("facet", "incorrect")}
        dims = page.eval_on_selector_all("#f-dimension option", "os => os.map(o => o.value).filter(Boolean)")
        assert "hidden_emotion" in dims and "Sentient" not in " ".join(dims)
        page.select_option("#f-outcome", "")
        page.fill("#f-text", "scripted-oracle")
        rows = visible_rows(page)
        oracle = [
            i
            for i in data["items"]
            if i["benchmark"] == "facet"
            and "scripted-oracle" in " ".join([i["model"], i["id"], i["reply"], i["explanation"], i["input"]]).lower()
        ]
        assert len(rows) == min(len(oracle), 100) > 0
        page.locator("#items tbody tr.item details summary").first.click()
        seen.screenshot("card_explorer_filtered", full_page=False)
        assert not seen.errors, seen.errors
        assert not seen.requests, seen.requests
