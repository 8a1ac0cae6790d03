"""The project-authored PACE items (datasets/pace/items_{en,zh}.jsonl) and their dataset card.

Every check is a function of a folder that returns the problems it finds, so the same checks run on the
bundled files and, in ``test_checks_catch_broken_copies``, on deliberately broken copies (proof that each
check can fail). ``python tests/pace/test_pace_items.py`` prints the counts table the card must contain.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
from collections import Counter
from itertools import combinations
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PACE_DIR = REPO / "datasets" / "pace"
LANGS = ("en", "zh")

# The schema agreed with the PACE loader (issue 8): exactly these keys, these values.
KEYS = {"id", "query", "lang", "scenario", "provocation", "triggers", "source"}
SCENARIOS = ("venting_self_doubt", "conflict_retaliation", "work_academic", "advice_solutions", "diary_reflection")
PROVOCATIONS = ("sarcasm", "misplaced_intensity", "harm_endorsement", "self_blame", "other")
TRIGGER_KEYS = ("P", "A", "C", "E")
ID_RE = re.compile(r"^pace-proj-(\d{3})-(en|zh)$")
CJK_RE = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")

MIN_PER_SCENARIO = 10
MIN_PER_PROVOCATION = 8
MIN_ITEMS = 60
MAX_QUERY_CHARS = {"en": 600, "zh": 300}
MAX_SENTENCES = 6  # one to six sentences (datasets/pace/README.md, 'How the items were written'), counted by a naive split on end punctuation
SENTENCE_END_RE = re.compile(r"(?<=[.!?。！？])\s*")
NGRAM = 5
MAX_JACCARD = 0.5

# Distinctive fragments of the nine example prompts printed in the PACE paper (Table 4 and Figure 14),
# with Chinese renderings of the same cues. No project item may contain any of them.
PAPER_FRAGMENTS = (
    "highlight of my life",
    "blue screen",
    "round of applause",
    "forgot my umbrella",
    "paper got rejected",
    "taking credit for my work",
    "dirty laundry",
    "company group chat",
    "freezing newcomers",
    "workplace is brutal",
    "watches videos out loud",
    "fatty liver",
    "fried chicken and beer",
    "takeout every day",
    "lost my wallet",
    "scolded by a client",
    "got drenched",
    "spilled the coffee",
    "spilled coffee",
    "feel like a sinner",
    "texting his ex",
    "blew my top",
    "expensive hands",
    "total failure",
    "rusting machine",
    "can't be repaired",
    "蓝屏",
    "论文被拒",
    "给自己鼓掌",
    "抢我的功劳",
    "黑料",
    "公司群",
    "排挤新人",
    "职场太残酷",
    "外放视频",
    "脂肪肝",
    "炸鸡和啤酒",
    "炸鸡配啤酒",
    "天天吃外卖",
    "钱包丢了",
    "丢了钱包",
    "被客户骂",
    "淋成落汤鸡",
    "咖啡洒",
    "洒了咖啡",
    "罪人",
    "和前女友聊天",
    "生锈的机器",
    "彻底的失败者",
    "修不好",
)

COUNTS_BEGIN = "<!-- counts:begin -->"
COUNTS_END = "<!-- counts:end -->"


def load(folder: Path, lang: str) -> tuple[list[dict], list[str]]:
    """The rows of items_<lang>.jsonl and the problems met while parsing them."""
    path = folder / f"items_{lang}.jsonl"
    rows, problems = [], []
    if not path.exists():
        return rows, [f"{path.name}: missing"]
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            problems.append(f"{path.name}:{n}: blank line")
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as e:
            problems.append(f"{path.name}:{n}: not JSON ({e})")
            continue
        if not isinstance(row, dict):
            problems.append(f"{path.name}:{n}: not a JSON object")
            continue
        rows.append(row)
    return rows, problems


def schema_problems(rows: list[dict], lang: str) -> list[str]:
    out = []
    for row in rows:
        rid = row.get("id", "<no id>")
        if set(row) != KEYS:
            out.append(f"{rid}: keys {sorted(row)} != {sorted(KEYS)}")
        m = ID_RE.match(str(row.get("id", "")))
        if not m or m.group(2) != lang:
            out.append(f"{rid}: id does not match pace-proj-NNN-{lang}")
        if row.get("lang") != lang:
            out.append(f"{rid}: lang {row.get('lang')!r} in items_{lang}.jsonl")
        if row.get("scenario") not in SCENARIOS:
            out.append(f"{rid}: unknown scenario {row.get('scenario')!r}")
        if row.get("provocation") not in PROVOCATIONS:
            out.append(f"{rid}: unknown provocation {row.get('provocation')!r}")
        if row.get("source") != "project-authored":
            out.append(f"{rid}: source {row.get('source')!r} is not 'project-authored'")
        query = row.get("query")
        if not isinstance(query, str) or not query.strip():
            out.append(f"{rid}: empty or non-string query")
        elif len(query) > MAX_QUERY_CHARS[lang]:
            out.append(f"{rid}: query longer than {MAX_QUERY_CHARS[lang]} characters")
        elif len([x for x in SENTENCE_END_RE.split(query) if x.strip()]) > MAX_SENTENCES:
            out.append(f"{rid}: query has more than {MAX_SENTENCES} sentences")
        trig = row.get("triggers")
        if not isinstance(trig, dict) or set(trig) != set(TRIGGER_KEYS):
            out.append(f"{rid}: triggers must have exactly the keys P, A, C, E")
        else:
            for k in TRIGGER_KEYS:
                note = trig[k]
                if not isinstance(note, str) or not note.strip():
                    out.append(f"{rid}: trigger {k} is empty")
                elif CJK_RE.search(note):
                    out.append(f"{rid}: trigger {k} should be an English note")
    ids = Counter(row.get("id") for row in rows)
    out += [f"{i}: duplicate id ({c} times)" for i, c in ids.items() if c > 1]
    return out


def script_problems(rows: list[dict], lang: str) -> list[str]:
    out = []
    for row in rows:
        has_cjk = bool(CJK_RE.search(str(row.get("query", ""))))
        if lang == "zh" and not has_cjk:
            out.append(f"{row.get('id')}: Chinese item without CJK text")
        if lang == "en" and has_cjk:
            out.append(f"{row.get('id')}: English item with CJK text")
    return out


def balance_problems(rows: list[dict], lang: str) -> list[str]:
    out = []
    if len(rows) < MIN_ITEMS:
        out.append(f"{lang}: {len(rows)} items, fewer than {MIN_ITEMS}")
    by_scenario = Counter(r.get("scenario") for r in rows)
    by_provocation = Counter(r.get("provocation") for r in rows)
    out += [
        f"{lang}: scenario {s} has {by_scenario[s]} items (< {MIN_PER_SCENARIO})"
        for s in SCENARIOS
        if by_scenario[s] < MIN_PER_SCENARIO
    ]
    out += [
        f"{lang}: provocation {p} has {by_provocation[p]} items (< {MIN_PER_PROVOCATION})"
        for p in PROVOCATIONS
        if by_provocation[p] < MIN_PER_PROVOCATION
    ]
    for s in SCENARIOS:
        seen = {r.get("provocation") for r in rows if r.get("scenario") == s}
        for p in PROVOCATIONS[:4]:
            if p not in seen:
                out.append(f"{lang}: scenario {s} has no {p} item")
    return out


def pairing_problems(en: list[dict], zh: list[dict]) -> list[str]:
    """Every EN item has its ZH localisation with the same number, scenario and provocation, and vice versa."""

    def by_number(rows: list[dict]) -> dict[str, dict]:
        return {m.group(1): r for r in rows if (m := ID_RE.match(str(r.get("id", ""))))}

    e, z = by_number(en), by_number(zh)
    out = [f"pace-proj-{n}-en has no pace-proj-{n}-zh" for n in sorted(set(e) - set(z))]
    out += [f"pace-proj-{n}-zh has no pace-proj-{n}-en" for n in sorted(set(z) - set(e))]
    for n in sorted(set(e) & set(z)):
        for field in ("scenario", "provocation"):
            if e[n].get(field) != z[n].get(field):
                out.append(f"pace-proj-{n}: {field} differs between en ({e[n].get(field)}) and zh ({z[n].get(field)})")
    return out


def ngrams(text: str, n: int = NGRAM) -> set[str]:
    text = re.sub(r"\s+", " ", text.lower()).strip()
    return {text[i : i + n] for i in range(max(len(text) - n + 1, 1))}


def jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a | b else 1.0


def duplicate_problems(rows: list[dict], lang: str) -> list[str]:
    """Near-duplicates (character 5-gram Jaccard) and shared openings (a sign of a template)."""
    out = []
    grams = [(r.get("id"), ngrams(str(r.get("query", "")))) for r in rows]
    for (ia, ga), (ib, gb) in combinations(grams, 2):
        j = jaccard(ga, gb)
        if j >= MAX_JACCARD:
            out.append(f"{ia} and {ib}: near-duplicates (5-gram Jaccard {j:.2f})")
    openings: dict[str, list[str]] = {}
    for r in rows:
        q = str(r.get("query", "")).strip().lower()
        key = " ".join(re.findall(r"[\w']+", q)[:4]) if lang == "en" else re.sub(r"\W", "", q)[:5]
        openings.setdefault(key, []).append(str(r.get("id")))
    out += [
        f"{lang}: items {', '.join(ids)} open the same way ({key!r})" for key, ids in openings.items() if len(ids) > 1
    ]
    return out


def paper_overlap_problems(rows: list[dict]) -> list[str]:
    out = []
    for r in rows:
        q = str(r.get("query", "")).lower()
        out += [
            f"{r.get('id')}: contains {frag!r} from the paper's example prompts"
            for frag in PAPER_FRAGMENTS
            if frag in q
        ]
    return out


def counts_table(folder: Path) -> str:
    """The scenario x provocation counts per language, as the Markdown table the card carries."""
    lines = []
    for lang in LANGS:
        rows, _ = load(folder, lang)
        cells = Counter((r.get("scenario"), r.get("provocation")) for r in rows)
        lines.append(f"**{lang}** ({len(rows)} items)")
        lines.append("")
        lines.append("| scenario | " + " | ".join(PROVOCATIONS) + " | total |")
        lines.append("|---" * (len(PROVOCATIONS) + 2) + "|")
        for s in SCENARIOS:
            n = [cells[(s, p)] for p in PROVOCATIONS]
            lines.append(f"| {s} | " + " | ".join(map(str, n)) + f" | {sum(n)} |")
        totals = [sum(cells[(s, p)] for s in SCENARIOS) for p in PROVOCATIONS]
        lines.append("| total | " + " | ".join(map(str, totals)) + f" | {sum(totals)} |")
        lines.append("")
    return "\n".join(lines).strip()


def card_problems(folder: Path) -> list[str]:
    card = folder / "README.md"
    if not card.exists():
        return ["README.md: missing"]
    text = card.read_text(encoding="utf-8")
    if COUNTS_BEGIN not in text or COUNTS_END not in text:
        return [f"README.md: no {COUNTS_BEGIN} ... {COUNTS_END} block"]
    block = text.split(COUNTS_BEGIN, 1)[1].split(COUNTS_END, 1)[0].strip()
    if block != counts_table(folder):
        return ["README.md: the counts table differs from the items (regenerate: python tests/pace/test_pace_items.py)"]
    return []


def all_problems(folder: Path) -> list[str]:
    out, loaded = [], {}
    for lang in LANGS:
        rows, parse = load(folder, lang)
        loaded[lang] = rows
        out += parse + schema_problems(rows, lang) + script_problems(rows, lang) + balance_problems(rows, lang)
        out += duplicate_problems(rows, lang) + paper_overlap_problems(rows)
    out += pairing_problems(loaded["en"], loaded["zh"])
    out += card_problems(folder)
    return out


# --- tests on the bundled files ----------------------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGS)
def test_rows_follow_the_schema(lang: str) -> None:
    rows, parse = load(PACE_DIR, lang)
    assert parse + schema_problems(rows, lang) == []


@pytest.mark.parametrize("lang", LANGS)
def test_script_matches_language(lang: str) -> None:
    rows, _ = load(PACE_DIR, lang)
    assert script_problems(rows, lang) == []


@pytest.mark.parametrize("lang", LANGS)
def test_scenarios_and_provocations_are_balanced(lang: str) -> None:
    rows, _ = load(PACE_DIR, lang)
    assert balance_problems(rows, lang) == []


def test_every_item_has_its_localisation() -> None:
    assert pairing_problems(load(PACE_DIR, "en")[0], load(PACE_DIR, "zh")[0]) == []


@pytest.mark.parametrize("lang", LANGS)
def test_no_near_duplicates_or_shared_openings(lang: str) -> None:
    rows, _ = load(PACE_DIR, lang)
    assert duplicate_problems(rows, lang) == []


@pytest.mark.parametrize("lang", LANGS)
def test_no_overlap_with_the_paper_examples(lang: str) -> None:
    rows, _ = load(PACE_DIR, lang)
    assert paper_overlap_problems(rows) == []


def test_card_counts_match_the_items() -> None:
    assert card_problems(PACE_DIR) == []


# --- the checks can fail --------------------------------------------------------------------------------------


def _edit(folder: Path, lang: str, index: int, **changes: object) -> None:
    path = folder / f"items_{lang}.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    row = json.loads(lines[index])
    for key, value in changes.items():
        if value is None:
            row.pop(key, None)
        else:
            row[key] = value
    lines[index] = json.dumps(row, ensure_ascii=False)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _copy(tmp_path: Path) -> Path:
    folder = tmp_path / "pace"
    shutil.copytree(PACE_DIR, folder)
    return folder


BREAKAGES = {
    "missing field": (lambda f: _edit(f, "en", 0, provocation=None), "keys"),
    "extra field": (lambda f: _edit(f, "zh", 3, emotion="sad"), "keys"),
    "unknown scenario": (lambda f: _edit(f, "en", 1, scenario="romance"), "unknown scenario"),
    "unknown provocation": (lambda f: _edit(f, "zh", 1, provocation="anger"), "unknown provocation"),
    "wrong source": (lambda f: _edit(f, "en", 2, source="PACE-2700"), "source"),
    "trigger missing": (lambda f: _edit(f, "en", 4, triggers={"P": "x", "A": "y", "C": "z"}), "triggers must"),
    "chinese trigger": (
        lambda f: _edit(f, "zh", 4, triggers={"P": "讽刺", "A": "a", "C": "c", "E": "e"}),
        "English note",
    ),
    "duplicate id": (lambda f: _edit(f, "en", 5, id="pace-proj-001-en"), "duplicate id"),
    "unpaired id": (lambda f: _edit(f, "zh", 6, id="pace-proj-999-zh"), "has no pace-proj"),
    "pair disagrees": (lambda f: _edit(f, "zh", 7, scenario="diary_reflection"), "differs between en"),
    "english in zh file": (lambda f: _edit(f, "zh", 8, query="This has no Chinese at all."), "without CJK"),
    "chinese in en file": (lambda f: _edit(f, "en", 8, query="I feel 很好 today."), "with CJK"),
    "near duplicate": (
        lambda f: _edit(f, "en", 10, query=load(f, "en")[0][11]["query"] + " Really."),
        "near-duplicates",
    ),
    "paper fragment": (
        lambda f: _edit(f, "en", 12, query="My laptop died with a blue screen again."),
        "from the paper",
    ),
    "too many sentences": (lambda f: _edit(f, "zh", 9, query="一。二。三。四。五。六。七。"), "more than 6 sentences"),
    "not json": (
        lambda f: (f / "items_en.jsonl").write_text(
            (f / "items_en.jsonl").read_text(encoding="utf-8") + "{oops\n", encoding="utf-8"
        ),
        "not JSON",
    ),
    "card out of date": (
        lambda f: (f / "README.md").write_text(
            (f / "README.md").read_text(encoding="utf-8").replace("| total |", "| total | 0 |", 1), encoding="utf-8"
        ),
        "counts table differs",
    ),
    "too few in a scenario": (
        lambda f: (f / "items_en.jsonl").write_text(
            "\n".join(
                line
                for line in (f / "items_en.jsonl").read_text(encoding="utf-8").splitlines()
                if '"work_academic"' not in line
            )
            + "\n",
            encoding="utf-8",
        ),
        "scenario work_academic has 0",
    ),
}


@pytest.mark.parametrize("name", sorted(BREAKAGES))
def test_checks_catch_broken_copies(name: str, tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    assert all_problems(folder) == [], "the bundled files should be clean before breaking a copy"
    breaker, expected = BREAKAGES[name]
    breaker(folder)
    problems = all_problems(folder)
    assert any(expected in p for p in problems), problems


if __name__ == "__main__":
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else PACE_DIR
    print(counts_table(folder))
