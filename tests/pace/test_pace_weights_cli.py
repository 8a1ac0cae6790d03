"""``eq-evals pace weights``: CSV and JSONL end to end, bad rows named by line, the JSON shape."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import COUNTS, count_rows

from eq_evals.cli import main as cli
from eq_evals.pace.cli import load_observations

SPEC_WEIGHTS = {"P": 0.661244, "A": 0.056527, "C": 0.166591, "E": 0.115638}


def write_csv(path: Path, counts=COUNTS) -> Path:
    lines = ["P,A,C,E,Y,count"] + [
        ",".join(map(str, (*key, y, n))) for key, ns in counts.items() for y, n in enumerate(ns)
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def write_jsonl(path: Path) -> Path:
    """The worked example as one JSON object per response, graded 0-10 scores, spread over 50 items."""
    lines = []
    k = 0
    for key, ns in COUNTS.items():
        for y, n in enumerate(ns):
            for _ in range(n):
                scores = {d: (8 if v else 2) for d, v in zip("PACE", key)}
                lines.append(json.dumps({**scores, "Y": y, "item": f"q{k % 50}"}))
                k += 1
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_csv_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "w.json"
    assert (
        cli(["pace", "weights", str(write_csv(tmp_path / "labels.csv")), "--out", str(out), "--bootstrap", "100"]) == 0
    )
    printed = capsys.readouterr().out
    assert "32 records (1600 observations)" in printed and "0.661244" in printed and "rows; 0 skipped" in printed
    data = json.loads(out.read_text())
    assert set(data["weights"]) == set("PACE")
    for d, v in SPEC_WEIGHTS.items():
        assert data["weights"][d]["value"] == pytest.approx(v, abs=1e-6)
        lo, hi = data["weights"][d]["ci"]
        assert lo < v < hi
    assert data["raw"]["P"]["value"] == pytest.approx(0.11543821, abs=1e-8)
    assert data["naive"]["normalized"]["A"] == pytest.approx(0.187673, abs=1e-6)
    assert (data["n_rows"], data["n_records"], data["n_boot"], data["n_skipped"]) == (1600, 32, 100, 0)
    assert data["options"]["alpha"] == 0 and data["options"]["discretize"] == "none"
    assert data["options"]["cluster"] is None and data["source"] == "estimated"
    assert data["do_distributions"]["E"]["1"]["1"] == pytest.approx(0.625, abs=1e-12)


def test_jsonl_graded_scores_clustered_by_item(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "w.json"
    path = write_jsonl(tmp_path / "labels.jsonl")
    assert cli(["pace", "weights", str(path), "--discretize", "binary@6", "--bootstrap", "50", "--out", str(out)]) == 0
    assert "clusters: item" in capsys.readouterr().out
    data = json.loads(out.read_text())
    for d, v in SPEC_WEIGHTS.items():
        assert data["weights"][d]["value"] == pytest.approx(v, abs=1e-6)
    assert data["options"]["cluster"] == "item" and data["options"]["discretize"] == "binary@6"
    assert data["n_records"] == 1600
    # without discretisation the graded labels 2/8 are just two states: same weights
    assert cli(["pace", "weights", str(path), "--bootstrap", "0", "--out", str(out)]) == 0
    assert json.loads(out.read_text())["weights"]["P"]["value"] == pytest.approx(SPEC_WEIGHTS["P"], abs=1e-6)
    assert json.loads(out.read_text())["weights"]["P"]["ci"] is None


def test_csv_and_jsonl_values_agree(tmp_path: Path) -> None:
    csv_rows = load_observations([str(write_csv(tmp_path / "a.csv"))])
    (tmp_path / "b.jsonl").write_text("\n".join(json.dumps(r) for r in count_rows()) + "\n")
    assert csv_rows == load_observations([str(tmp_path / "b.jsonl")])


@pytest.mark.parametrize(
    ("name", "text", "args", "message"),
    [
        ("bad.csv", "P,A,C,E,Y\n1,0,1,1,2\n1,0,,1,0\n", [], "bad.csv:3: column 'C' is missing or empty"),
        ("bad.csv", "P,A,C,Y\n1,0,1,2\n", [], "bad.csv:1: the header lacks column(s) E"),
        ("bad.csv", "P,A,C,E,Y,count\n1,0,1,1,2,3\n1,0,1,1,2,many\n", [], "bad.csv:3: column 'count' must be a number"),
        ("bad.csv", "P,A,C,E,Y\n1,0,1,1,2\n1,0,1,1,2,9\n", [], "bad.csv:3: more values than header columns"),
        ("bad.jsonl", '{"P":1,"A":0,"C":1,"E":1,"Y":2}\n\n{"P":1,"A":0,\n', [], "line 3: invalid JSON"),
        (
            "bad.jsonl",
            '{"P":7,"A":0,"C":1,"E":1,"Y":2}\n{"P":"high","A":0,"C":1,"E":1,"Y":2}\n',
            ["--discretize", "tertiles"],
            "bad.jsonl:2: column 'P': 'high' is not a number",
        ),
        (
            "bad.jsonl",
            '{"P":7,"A":0,"C":1,"E":12,"Y":2}\n',
            ["--discretize", "binary@6"],
            "bad.jsonl:1: column 'E': score 12",
        ),
        ("bad.jsonl", "[1, 0, 1, 1, 2]\n", [], "bad.jsonl:1: expected an object"),
        ("labels.txt", "P,A,C,E,Y\n", [], "labels.txt: unsupported file type .txt"),
        ("run.eval", "", [], "is not a readable Inspect log"),
    ],
)
def test_bad_input_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture, name: str, text: str, args: list[str], message: str
) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    assert cli(["pace", "weights", str(path), *args]) == 2
    assert message in capsys.readouterr().err


def test_estimation_errors_are_reported(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    holed = write_csv(tmp_path / "holed.csv", {k: v for k, v in COUNTS.items() if k != (1, 0, 0, 1)})
    assert cli(["pace", "weights", str(holed), "--bootstrap", "0"]) == 2
    err = capsys.readouterr().err
    assert "holed.csv" in err and "E=1 never occurs in the stratum (P=1, A=0, C=0)" in err
    assert cli(["pace", "weights", str(holed), "--bootstrap", "0", "--alpha", "1"]) == 0
    assert cli(["pace", "weights", str(holed), "--discretize", "binary@x"]) == 2
    assert "--discretize" in capsys.readouterr().err
    assert cli(["pace", "weights", str(tmp_path / "absent.csv")]) == 2
    assert "absent.csv: cannot read" in capsys.readouterr().err


def test_no_data_gives_the_paper_weights(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "paper.json"
    assert cli(["pace", "weights", "--out", str(out)]) == 0
    assert "the paper's" in capsys.readouterr().out
    data = json.loads(out.read_text())
    assert data["source"] == "paper"
    assert data["weights"]["P"]["value"] == pytest.approx(0.430 / 0.999)
    assert sum(v["value"] for v in data["weights"].values()) == pytest.approx(1.0)


def test_a_named_cluster_column(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    lines = ["P,A,C,E,Y,battle"] + [
        f"{p},{a},{c},{e},{y},b{(p + 2 * a + 4 * c + 8 * e + y) % 7}"
        for p in (0, 1)
        for a in (0, 1)
        for c in (0, 1)
        for e in (0, 1)
        for y in (0, 1, 1)
        if not (y == 1 and p + a + c + e < 2)
    ] * 3
    path = tmp_path / "b.csv"
    path.write_text("\n".join(lines) + "\n")
    out = tmp_path / "w.json"
    assert (
        cli(
            [
                "pace",
                "weights",
                str(path),
                "--cluster",
                "battle",
                "--bootstrap",
                "30",
                "--alpha",
                "0.5",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    assert "clusters: battle" in capsys.readouterr().out
    assert json.loads(out.read_text())["options"]["cluster"] == "battle"
    assert cli(["pace", "weights", str(path), "--cluster", "item"]) == 2
    assert "some rows of" in capsys.readouterr().err
