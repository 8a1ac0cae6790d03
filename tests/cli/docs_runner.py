"""Running the command lines printed in README.md and docs/*.md through the real command-line parsers (issue 22);
the tests are tests/cli/test_docs_commands.py (README and the checks of this machinery), test_docs_benchmarks.py
and test_docs_guides.py.

Each fenced ``bash`` block of those files is one test: its lines (``\\`` continuations joined, ``#`` comments
dropped) run in order in a fresh folder, as a reader would paste them. ``inspect eval`` / ``inspect score`` lines
go through Inspect's own click command (``inspect_ai._cli.main.inspect``, the group the ``inspect`` script
calls) and ``eq-evals`` lines through ``eq_evals.cli.main(argv)``, the function the ``eq-evals`` script calls:
the same argument parsing, in this process (a subprocess per line costs seconds of imports each).
``test_the_console_scripts_run`` keeps two runs of the installed scripts for the entry points themselves.

Only what cannot run here offline is substituted, and every substitution is a row of ``SUBSTITUTIONS`` below,
shown in the failure message of the block that used it:

- a model that needs a key or a download (``openai/...``, ``<model>``, ``M``, the embedded ``eq_evals/smollm2``)
  becomes a scripted model of the right kind for its task and role (``STAND_INS``), the same one for the same
  name throughout a block, and its ``-M`` options are dropped; such a run is cut to ``--limit 2`` (and a judge
  check to ``--preset quick``) unless the line sets its own;
- a Hub dataset (``hf://...``, ``-T source=release``, LongEmotion without ``data_dir``) becomes the local
  equivalent (the folder ``eq-evals hub export`` writes, the project fixtures); the authors' files named
  ``path/to/...`` come from ``../shared/data`` (the block is skipped with a reason when that folder is absent);
- logs or label files a line reads but its block did not write (``judged/``, ``logs/heart.eval``,
  ``labels.csv``) come from the session's ``benchmark_logs`` or are written for the line;
- ``hub push`` talks to a recording stand-in of the Hub (``support.FakeHub``) instead of huggingface.co;
- ``[optional parts]`` of a synopsis line are dropped.

A block marked ``<!-- example: no-keys -->`` is a workflow a reader runs without keys: it must need no
substitution at all, and its results are checked (``CHECKS``). A line that is not an ``inspect`` or
``eq-evals`` command must be listed in ``NOT_RUN`` with the reason, so a new printed command cannot escape;
``text`` blocks are not commands, and an untagged block is an error (tag it ``bash`` or ``text``).
"""

from __future__ import annotations

import csv
import glob
import json
import re
import shlex
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import pytest
from support import SHARED_DATA, FakeHub, inspect_here

from eq_evals.cli import main as eq_evals_main

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^(<!-- example: (?P<marker>\S+) -->\n)?```(?P<lang>[\w-]*)\n(?P<body>.*?)^```", re.M | re.S)
SCRIPTED = "eq_evals/scripted-"
LE_FIXTURES = ROOT / "datasets" / "longemotion" / "fixtures"
HEART_FIXTURE = ROOT / "tests" / "fixtures" / "heart_histories.jsonl"

# Lines that are not run, with the reason. A printed line that is neither here nor an inspect / eq-evals command
# fails test_every_printed_line_is_classified.
NOT_RUN = {
    "bash scripts/demo.sh": "installs eq-evals into .venv and runs the embedded model for minutes (scripts/demo.sh)",
    "bash scripts/test.sh": "runs this test suite",
    "bash scripts/test.sh -m slow": "runs this test suite's slow tests",
    "python benchmarks/facet_difficulty.py --per-language 20": "a benchmark, run on demand: the embedded model on "
    "40 items (minutes); benchmarks/ is not part of the test suite",
}

# The scripted model standing in for a model that needs a key or a download, by the task's kind and the role;
# distinct names in one block get distinct scripted models (in this order), so a round robin still has rivals.
SCRIPTED_BY_KIND = {
    ("facet", "model"): ["oracle", "half", "wrong"],
    ("facet_generation", "model"): ["echo", "oracle", "malformed"],
    ("facet_judging", "grader"): ["judge", "judge-first"],
    ("sage", "model"): ["echo", "heart-warm"],
    ("sage", "simulated_user"): ["sage-user"],
    ("sage_generate", "model"): ["sage-writer"],
    ("longemotion", "model"): ["le_oracle", "echo"],
    ("longemotion", "grader"): ["le_judge"],
    ("longemotion", "helper"): ["le_helper"],
    ("pace", "model"): ["echo", "oracle"],
    ("pace", "agent"): ["pace-agent"],
    ("heart", "model"): ["heart-warm", "heart-terse"],
    ("heart", "grader"): ["hjudge", "hjudge-mild", "heart-judge"],
    ("heart_strategies", "model"): ["hstrategy"],
    ("judge_check", "judge"): ["jc-honest", "jc-long"],
}
STAND_INS = {key: [f"eq_evals/scripted-{m}" for m in modes] for key, modes in SCRIPTED_BY_KIND.items()}

# Everything substituted, by name: (what is printed, what runs instead). Each row is used by some printed line
# (test_every_substitution_is_used), and a block's failure message lists the rows it used.
SUBSTITUTIONS = {
    "model": ("a model needing a key or a download, or a placeholder", "a scripted model of its kind (STAND_INS)"),
    "model options": ("-M options of a substituted model", "dropped"),
    "limit": ("a run of a substituted model without --limit", "--limit 2"),
    "preset": ("a judge check of a substituted judge without --preset", "--preset quick"),
    "hub dataset": ("-T source=hf://OWNER/NAME@REVISION", "the folder `eq-evals hub export NAME` writes"),
    "heart release": (
        "-T source=release (HEART: downloads the authors' files)",
        "tests/fixtures/heart_histories.jsonl",
    ),
    "longemotion data": (
        "LongEmotion from the Hub (no data_dir), data_dir=PATH or source=hf://LongEmotion/...",
        "the project fixtures, datasets/longemotion/fixtures",
    ),
    "authors' file": ("path/to/<the authors' released file>", "../shared/data (skipped when absent)"),
    "logs": (
        "logs the block did not write (judged/, objective/, logs/, LOGS...)",
        "the session's benchmark_logs (LongEmotion: two scripted models on the fixtures)",
    ),
    "named log": ("a log file the block did not write (logs/heart.eval, logs/X.eval)", "the newest log there"),
    "human labels": ("--human labels.csv", "one rater labelling every matchup of the logs 'A'"),
    "pace labels": ("eq-evals pace weights labels.csv", "the worked example's counts (tests/support.py COUNTS)"),
    "pace alpha": (
        "eq-evals pace weights on battles the block did not write",
        "--alpha 1: the session's 4-item battles leave strata empty (positivity), which a real battle set fills",
    ),
    "hub": ("hub push to huggingface.co", "a recording stand-in (support.FakeHub)"),
    "prices": ("--model-cost-config FILE the block did not write", "a price file naming the block's models"),
    "optional": ("[optional parts] of a synopsis", "dropped"),
}

# The benchmark logs a folder name stands for when the block did not write it: by name, then by the doc's
# benchmark for the generic logs/ (README: any rateable logs).
LOG_FOLDERS = {
    "judged/": ["facet_pairwise"],
    "objective/": ["facet_objective"],
    "facet-objective/": ["facet_objective"],
    "facet-logs/": ["facet_objective"],
    "sage-logs/": ["sage"],
    "heart-logs/": ["heart"],
    "battles/": ["pace_pairwise"],
    "le-logs/": ["longemotion"],
}
LOGS_BY_DOC = {
    "heart.md": ["heart"],
    "pace.md": ["pace"],
    "sage.md": ["sage"],
    "judges.md": ["facet_pairwise"],
    "hub.md": ["facet_objective"],
    "README.md": ["facet_objective", "sage"],
    "profile.md": ["facet_objective", "sage"],
}


def kind_of(task: str) -> str:
    task = task.removeprefix("eq_evals/")
    if task == "facet_pairwise":
        return "facet_judging"
    if task in ("facet_interaction", "facet_naturalness"):
        return "facet_generation"
    for prefix in ("judge_check", "heart_strategies", "heart", "longemotion", "pace", "sage", "facet"):
        if task.startswith(prefix):
            return prefix
    raise AssertionError(f"no kind for task {task!r}: add it to kind_of")


# --- reading the docs -------------------------------------------------------------------------------------------


@dataclass
class Block:
    doc: str
    index: int
    marker: str | None
    lines: list[str]  # logical lines: continuations joined, comments and blank lines dropped

    @property
    def id(self) -> str:
        return f"{self.doc}#{self.index}"


def logical_lines(body: str) -> list[str]:
    joined, out = body.replace("\\\n", " "), []
    for raw in joined.splitlines():
        words = shlex.split(raw, comments=True)
        if words:
            out.append(shlex.join(words) if raw.strip() else "")
    return out


def blocks() -> list[Block]:
    found = []
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        for i, m in enumerate(FENCE.finditer(text)):
            if m.group("lang") in ("bash", "sh", "shell", "console"):
                found.append(Block(doc.name, i, m.group("marker"), logical_lines(m.group("body"))))
    return found


def untagged_blocks() -> list[str]:
    return [
        f"{doc.name}: a block starting {m.group('body')[:40]!r}"
        for doc in DOCS
        for m in FENCE.finditer(doc.read_text(encoding="utf-8"))
        if not m.group("lang")
    ]


def shell_words(line: str) -> list[str]:
    """The words a shell sees, with its operators (<, >, |, ;, &) as words of their own."""
    lexer = shlex.shlex(line, posix=True, punctuation_chars="<>|;&")
    lexer.whitespace_split = True
    return list(lexer)


def classify(line: str) -> str:
    if line in NOT_RUN:
        return "not run"
    argv = shlex.split(line)
    if argv[:2] in (["inspect", "eval"], ["inspect", "score"]):
        return "inspect"
    if argv[0] == "eq-evals":
        return "eq-evals"
    if argv[0] == "export" and len(argv) == 2 and "=" in argv[1]:
        return "export"
    if line in NOT_RUN:
        return "not run"
    return "unclassified"


# --- the substitutions ------------------------------------------------------------------------------------------


@dataclass
class Workspace:
    """One block's folder, its model stand-ins, and the substitutions used so far."""

    cwd: Path
    doc: str
    request: pytest.FixtureRequest  # the session's benchmark_logs, asked for only when a line needs logs
    monkeypatch: pytest.MonkeyPatch
    models: dict[tuple[str, str, str], str] = field(default_factory=dict)
    used: dict[str, list[str]] = field(default_factory=dict)

    def note(self, row: str, what: str) -> None:
        assert row in SUBSTITUTIONS, row
        self.used.setdefault(row, []).append(what)

    def model(self, name: str, kind: str, role: str) -> str:
        """A printed model name, or the scripted stand-in of its kind and role."""
        if name == "none" or name.startswith(SCRIPTED):
            return name
        role = "agent" if kind == "pace" and role != "model" else "judge" if kind == "judge_check" else role
        key = (kind, role, name)
        if key not in self.models:
            pool = STAND_INS[(kind, role)]
            taken = [v for (k, r, _), v in self.models.items() if (k, r) == (kind, role)]
            self.models[key] = pool[len(taken) % len(pool)]
            self.note("model", f"{name} -> {self.models[key]}")
        return self.models[key]

    def models_in(self, value: str, kind: str, role: str) -> str:
        if value.startswith("{"):  # --model-role 'role={model: X, temperature: 0.5}'
            return re.sub(r"(model:\s*)([^,}\s]+)", lambda m: m.group(1) + self.model(m.group(2), kind, role), value)
        return ",".join(self.model(name, kind, role) for name in value.split(","))

    def log_folder(self, name: str) -> Path:
        """The session's logs of the tasks a folder name stands for, copied into this block's folder."""
        tasks = LOG_FOLDERS.get(name) or (LOGS_BY_DOC[self.doc] if name.rstrip("/") in ("logs", "LOGS...") else None)
        assert tasks, f"{self.doc}: no logs stand for {name!r}: add it to LOG_FOLDERS"
        target = self.cwd / ("logs" if name == "LOGS..." else name.rstrip("/"))
        target.mkdir(parents=True, exist_ok=True)
        for task in tasks:
            if task == "longemotion":
                paths = longemotion_logs(self.cwd.parent)
            else:
                paths = self.request.getfixturevalue("benchmark_logs").paths(task)
            for path in paths:
                shutil.copy2(path, target / path.name)
        self.note("logs", f"{name} -> benchmark_logs {', '.join(tasks)}")
        return target

    def input_path(self, token: str, task: str = "") -> str:
        """A path a line reads: as printed when it exists in the block's folder, else its stand-in."""
        if token.endswith("/") or token == "LOGS...":
            if not (self.cwd / token).exists():
                return str(self.log_folder(token).relative_to(self.cwd)) + "/"
            return token
        if "*" in token:
            folder = token.split("*")[0]
            if folder.endswith("/") and not (self.cwd / folder).exists():
                self.log_folder(folder)
            found = sorted(glob.glob(token, root_dir=self.cwd))
            assert found, f"{token}: nothing matches"
            return " ".join(found)
        if token.endswith(".eval") and not (self.cwd / token).exists():
            folder = self.cwd / Path(token).parent
            if not folder.exists():
                self.log_folder(str(Path(token).parent) + "/")
            logs = list(folder.rglob("*.eval"))
            stem = Path(token).stem if Path(token).stem != "X" else task  # logs/heart.eval; X: the scorer's task
            named = [p for p in logs if f"_{stem.replace('_', '-')}_" in p.name]
            newest = max(named or logs, key=lambda p: p.stat().st_mtime)
            self.note("named log", f"{token} -> {newest.relative_to(self.cwd)}")
            return str(newest.relative_to(self.cwd))
        return token


def longemotion_logs(root: Path) -> list[Path]:
    """LongEmotion logs (the session's benchmark_logs have none): two scripted models on the fixtures."""
    from inspect_ai import eval as inspect_eval

    folder = root / "longemotion-logs"
    if not folder.exists():
        logs = inspect_eval(
            "eq_evals/longemotion_classification",
            model=[SCRIPTED + "le_oracle", SCRIPTED + "echo"],
            task_args={"fixtures": True},
            epochs=1,
            limit=2,
            log_dir=str(folder),
            display="none",
        )
        assert all(log.status == "success" for log in logs)
    return sorted(folder.glob("*.eval"))


def substitute(argv: list[str], ws: Workspace) -> list[str]:
    """The argv that runs here: the printed one with the substitutions of the module docstring applied."""
    argv = drop_optional(argv, ws)
    out: list[str] = []
    if argv[0] == "inspect":
        tasks = [a for a in argv if a.startswith("eq_evals/")]
        scorer = argv[argv.index("--scorer") + 1] if "--scorer" in argv else None
        kind = kind_of(scorer or tasks[0])
        substituted, i = False, 0
        has_data = any(a.startswith(("data_dir=", "source=", "fixtures=")) for a in argv)
        while i < len(argv):
            a = argv[i]
            nxt = argv[i + 1] if i + 1 < len(argv) else ""
            if a == "--model":
                new = ws.models_in(nxt, kind, "model")
                substituted |= new != nxt
                out += [a, new]
                i += 2
                continue
            if a == "--model-role":
                role, value = nxt.split("=", 1)
                new = ws.models_in(value, kind, role)
                substituted |= new != value
                out += [a, f"{role}={new}"]
                i += 2
                continue
            if a in ("-T", "-S"):
                out += [a, task_arg(nxt, kind, ws)]
                i += 2
                continue
            if a.endswith(".eval") and argv[1] == "score":
                out.append(ws.input_path(a, kind))
                i += 1
                continue
            out.append(a)
            i += 1
        if substituted:
            out = drop_model_options(out, ws)
            if argv[1] == "eval" and "--limit" not in out:
                out += ["--limit", "2"]
                ws.note("limit", " ".join(tasks))
        if kind == "longemotion" and not has_data:
            out += ["-T", "fixtures=true"]
            ws.note("longemotion data", "no data given (the Hub) -> -T fixtures=true")
        if kind == "judge_check" and substituted and "preset=" not in " ".join(out):
            out += ["-T", "preset=quick"]
            ws.note("preset", " ".join(tasks))
        return out
    # eq-evals: the options and their arity from its own parser
    parser, words = eq_evals_parser(), []
    for a in argv[1:]:
        child = _children(parser).get(a)
        if child is None:
            break
        parser, words = child, [*words, a]
    options = parser._option_string_actions
    out, i, substituted = ["eq-evals", *words], 1 + len(words), False
    while i < len(argv):
        a = argv[i]
        if a.startswith("-"):
            action = options.get(a)
            assert action is not None, f"eq-evals {' '.join(words)}: no option {a}"
            if action.nargs == 0:
                out.append(a)
                i += 1
                continue
            value = argv[i + 1]
            if a == "--judge" or (a == "--model" and words == ["sage", "generate"]):
                kind, role = ("judge_check", "judge") if a == "--judge" else ("sage_generate", "model")
                new = ws.model(value, kind, role)
            elif a == "--role":
                role, model = value.split("=", 1)
                new = f"{role}={ws.model(model, 'judge_check', 'judge')}"
            elif a == "--human" and not (ws.cwd / value).exists():
                new = human_labels(out, ws)
            elif a == "--model-cost-config" and not (ws.cwd / value).exists():
                new = price_file(argv, ws)
            else:
                new = value
            substituted |= a not in ("--human", "--model-cost-config") and new != value
            out += [a, new]
            i += 2
            continue
        if words == ["pace", "weights"] and a == "labels.csv" and not (ws.cwd / a).exists():
            out.append(pace_labels(ws))
        else:
            out += ws.input_path(a).split(" ")
        i += 1
    if words == ["pace", "weights"] and "--alpha" not in out and any("battles" in u for u in ws.used.get("logs", [])):
        out += ["--alpha", "1"]
        ws.note("pace alpha", "--alpha 1")
    if substituted:
        out = drop_model_options(out, ws)
        if words[0] == "judge-check" and "--preset" not in out:
            out += ["--preset", "quick"]
            ws.note("preset", "judge-check")
    return out


def eq_evals_parser():
    from eq_evals.cli import build_parser

    return build_parser()


def _children(parser) -> dict:
    import argparse

    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def drop_optional(argv: list[str], ws: Workspace) -> list[str]:
    out, depth = [], 0
    for a in argv:
        if a.startswith("[") and not a.startswith("[]"):
            depth += 1
        if depth:
            ws.note("optional", a)
        else:
            out.append(a)
        if depth and a.endswith("]"):
            depth -= 1
    return out


def drop_model_options(argv: list[str], ws: Workspace) -> list[str]:
    out, i = [], 0
    while i < len(argv):
        if argv[i] == "-M":
            ws.note("model options", f"-M {argv[i + 1]}")
            i += 2
            continue
        out.append(argv[i])
        i += 1
    return out


def task_arg(arg: str, kind: str, ws: Workspace) -> str:
    key, _, value = arg.partition("=")
    if key == "source" and value.startswith("hf://"):
        if kind == "longemotion":
            ws.note("longemotion data", value)
            return f"source={LE_FIXTURES}"
        name = {"facet": "facet", "sage": "sage", "pace": "pace", "heart": "heart"}[kind]
        folder = ws.cwd.parent / "hub-copies" / name
        if not folder.exists():
            from eq_evals import hub

            hub.export(name, folder)
        ws.note("hub dataset", f"{value} -> eq-evals hub export {name}")
        return f"source={folder}"
    if key == "source" and value == "release" and kind == "heart":
        ws.note("heart release", value)
        return f"source={HEART_FIXTURE}"
    if key == "data_dir" and kind == "longemotion":
        ws.note("longemotion data", f"data_dir={value}")
        return f"data_dir={LE_FIXTURES}"
    if key == "source" and value.startswith("path/to/"):
        ws.note("authors' file", value)
        parts = {
            "samples_dataset.json": ("facet", "samples_dataset.json"),
            "simulator_profile_withfirsttalk.jsonl": ("sage", "profiles", "simulator_profile_withfirsttalk.jsonl"),
        }[Path(value).name]
        path = SHARED_DATA.joinpath(*parts)
        if not path.exists():
            pytest.skip(f"{value}: the authors' file {path} is not available (the ../shared folder is absent)")
        return f"source={path}"
    if key in ("logs", "opponents"):
        return f"{key}=" + ",".join(v if v == "reference" else ws.input_path(v) for v in value.split(","))
    return arg


def human_labels(argv: list[str], ws: Workspace) -> str:
    """One rater labelling every matchup of the line's logs 'A' (the format of docs/pairwise.md)."""
    from eq_evals.agreement_cli import read_judgments

    paths = [str(ws.cwd / a) for a in argv[2:] if (ws.cwd / a).exists()]
    pairs = read_judgments(paths).pairs
    path = ws.cwd.parent / "stand-ins" / "human-labels.csv"  # outside the block's folder: the printed name stays free
    path.parent.mkdir(exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["sample_id", "rater", "label"])
        writer.writerows([sid, "r1", "A"] for sid in sorted(pairs))
    ws.note("human labels", f"{len(pairs)} matchups")
    return str(path)


def price_file(argv: list[str], ws: Workspace) -> str:
    """The price file a printed command names (docs/profile.md shows it as a YAML block): the block's models."""
    models = [argv[i + 1] for i, a in enumerate(argv[:-1]) if a in ("--model", "--judge", "--simulated-user")]
    path = ws.cwd.parent / "stand-ins" / "prices.yaml"
    path.parent.mkdir(exist_ok=True)
    zero = "input_cache_write: 0, input_cache_read: 0"
    path.write_text("".join(f"{m}: {{input: 2.5, output: 10.0, {zero}}}\n" for m in models), encoding="utf-8")
    ws.note("prices", "--model-cost-config")
    return str(path)


def pace_labels(ws: Workspace) -> str:
    from support import COUNTS

    lines = ["P,A,C,E,Y,count"] + [
        ",".join(map(str, (*key, y, n))) for key, ns in COUNTS.items() for y, n in enumerate(ns)
    ]
    path = ws.cwd.parent / "stand-ins" / "pace-labels.csv"
    path.parent.mkdir(exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    ws.note("pace labels", "labels.csv")
    return str(path)


# --- running a line ---------------------------------------------------------------------------------------------


def run_inspect(argv: list[str]) -> tuple[int, str]:
    return inspect_here(*argv[1:])


def run_eq_evals(argv: list[str], capsys: pytest.CaptureFixture) -> tuple[int, str, str]:
    try:
        code = eq_evals_main(argv[1:])
    except SystemExit as done:  # argparse: --help, a usage error
        code = done.code if isinstance(done.code, int) else 1
    captured = capsys.readouterr()
    return code or 0, captured.out, captured.err


def run_block(block: Block, ws: Workspace, capsys: pytest.CaptureFixture) -> list[tuple[str, list[str], str]]:
    """Every line of the block, in order; returns (printed line, argv run, stdout) for each run line."""
    done = []
    for line in block.lines:
        how = classify(line)
        assert how != "unclassified", f"{block.id}: {line!r} is not a command this test knows: add it to NOT_RUN"
        if how == "not run":
            continue
        if how == "export":
            name, value = shlex.split(line)[1].split("=", 1)
            ws.monkeypatch.setenv(name, value.replace("$PWD", str(ws.cwd)))
            continue
        argv = substitute(shlex.split(line), ws)
        where = f"{block.id}: {line}\nran: {shlex.join(argv)}\nsubstitutions: {ws.used}"
        if argv[0] == "inspect":
            from eq_evals.engine import register_all

            register_all()  # a new inspect process registers eq-evals' tasks again, EQ_EVALS_PATH included
            code, out = run_inspect(argv)
            assert code == 0, f"{where}\n{out[-3000:]}"
            done.append((line, argv, out))
        else:
            code, out, err = run_eq_evals(argv, capsys)
            assert code == 0, f"{where}\n{out[-2000:]}\n{err[-2000:]}"
            assert "error" not in err.lower(), f"{where}\n{err}"
            done.append((line, argv, out))
    return done


# --- the result checks of the keyless workflows -----------------------------------------------------------------


def _pairwise(cwd: Path, outs: list[str]) -> None:
    assert (cwd / "ratings" / "leaderboard.md").stat().st_size > 0
    assert (cwd / "ratings" / "charts" / "en_expression_naturalness.png").exists()
    assert "written: ratings/leaderboard.md" in outs[-1] and "//" not in outs[-1]  # --out ratings/


def _facet(cwd: Path, outs: list[str]) -> None:
    assert "reference: chance" in outs[-1] and "reference: majority" in outs[-1]


def _hub(cwd: Path, outs: list[str]) -> None:
    if (cwd / "pace-hub").exists():
        assert (cwd / "pace-hub" / "README.md").read_text(encoding="utf-8").startswith("---")
    else:
        rows = (cwd / "build" / "results" / "scores.jsonl").read_text(encoding="utf-8").splitlines()
        assert len(rows) == 2 * 6 and (cwd / "build" / "results" / "README.md").exists()


def _ratings(cwd: Path, outs: list[str]) -> None:
    for out in ("ts", "eq3", "elo", "tm"):
        assert (cwd / out / "leaderboard.md").stat().st_size > 0, out
    assert "eq_evals/scripted-oracle" in (cwd / "ts" / "leaderboard.md").read_text(encoding="utf-8")
    assert "facet_pairwise" in outs[-1] and "complete" in outs[-1].lower()  # the doctor's report


def _pace_weights(cwd: Path, outs: list[str]) -> None:
    import json

    fitted = json.loads((cwd / "weights.json").read_text(encoding="utf-8"))
    assert fitted["source"] == "estimated" and set(fitted["weights"]) == {"P", "A", "C", "E"}
    assert "0.430" in outs[-1]  # the paper's weights, printed without data


def _heart(cwd: Path, outs: list[str]) -> None:
    assert "| Model | H | E | A | R | T | Overall Win Rate | Elo Rating |" in outs[-1]
    assert any(cwd.glob("*/heart_leaderboard.png"))


def _pace(cwd: Path, outs: list[str]) -> None:
    assert "## PACE composite EQ" in outs[-1] and "Thurstone-Mosteller" in outs[-1]


def _longemotion(cwd: Path, outs: list[str]) -> None:
    if "le-logs" in {p.name for p in cwd.iterdir()} and len(list((cwd / "le-logs").glob("*.eval"))) == 6:
        assert "| eq_evals/scripted-le_oracle | coem | fixtures |" in outs[-1] and "not on LongEmotion" in outs[-1]
        assert "| eq_evals/scripted-echo | rag | fixtures |" in outs[-1]
    assert "eq_evals/scripted-le_oracle" in outs[-1]


def _sage(cwd: Path, outs: list[str]) -> None:
    assert "eq_evals/scripted-echo" in outs[-1]


def _judges(cwd: Path, outs: list[str]) -> None:
    assert any((cwd / "cards").iterdir())


def _profile(cwd: Path, outs: list[str]) -> None:
    """docs/profile.md's keyless card example: the card names its file and scores what ran."""
    assert "report card: card/report.html" in outs[-1]
    card = json.loads((cwd / "card" / "report.json").read_text(encoding="utf-8"))
    status = {b["benchmark"]: b["status"] for b in card["benchmarks"]}
    assert status["facet"] == status["sage"] == "scored" and status["heart"] == "not run"
    assert (cwd / "card" / "report.html").stat().st_size > 0


CHECKS: dict[str, Callable[[Path, list[str]], None]] = {
    "profile.md": _profile,
    "pairwise.md": _pairwise,
    "facet.md": _facet,
    "hub.md": _hub,
    "ratings.md": _ratings,
    "pace-weights.md": _pace_weights,
    "heart.md": _heart,
    "pace.md": _pace,
    "longemotion.md": _longemotion,
    "sage.md": _sage,
    "judges.md": _judges,
}


# --- running a printed block ------------------------------------------------------------------------------------


# The benchmarks' own documents (tests/cli/test_docs_benchmarks.py); the other docs are test_docs_guides.py's.
BENCHMARK_DOCS = ("facet.md", "sage.md", "longemotion.md", "pace.md", "pace-weights.md", "heart.md")

# Blocks that take minutes on 2 shared cores: each judge check runs five tasks per judge (docs/judges.md).
SLOW_DOCS = {
    "judges.md": "judge-check runs five tasks per judge",
    "profile.md": "a profile runs every benchmark (about 25 logs per run)",
}


def block_params(docs: Callable[[str], bool]) -> list:
    """The blocks of the documents ``docs`` selects, as pytest parameters (those of SLOW_DOCS marked slow). The blocks
    are split over a few test modules (test_docs_*.py) so pytest-xdist can spread them over the cores."""
    return [pytest.param(b, marks=pytest.mark.slow) if b.doc in SLOW_DOCS else b for b in blocks() if docs(b.doc)]


def printed_block_test(docs: Callable[[str], bool]) -> Callable[..., None]:
    """The test of every printed block of the documents ``docs`` selects; a test module binds it to a name starting
    with ``test_`` (``test_printed_block_runs = printed_block_test(...)``) and pytest collects it there."""

    @pytest.mark.parametrize("block", block_params(docs), ids=lambda b: b.id)
    def test_printed_block_runs(
        block: Block,
        tmp_path: Path,
        request: pytest.FixtureRequest,
        monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture,
    ) -> None:
        run_printed_block(block, tmp_path, request, monkeypatch, capsys)

    return test_printed_block_runs


def run_printed_block(
    block: Block,
    tmp_path: Path,
    request: pytest.FixtureRequest,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture,
) -> None:
    if all(classify(line) == "not run" for line in block.lines):
        pytest.skip(f"{block.id}: only lines that are not run ({', '.join(NOT_RUN[line] for line in block.lines)})")
    cwd = tmp_path / "w"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    monkeypatch.delenv("INSPECT_LOG_DIR", raising=False)  # Inspect's default, ./logs, as for a reader
    monkeypatch.delenv("INSPECT_EVAL_MODEL", raising=False)
    monkeypatch.setenv("INSPECT_DISPLAY", "none")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    if block.doc == "adding-a-task.md":  # the worked example's files, as the doc has the reader write them
        text = (ROOT / "docs" / "adding-a-task.md").read_text(encoding="utf-8")
        for name, body in re.findall(r"<!-- example: (\S+) -->\n```yaml\n(.*?)```", text, flags=re.DOTALL):
            (cwd / "my_evals" / name).parent.mkdir(parents=True, exist_ok=True)
            (cwd / "my_evals" / name).write_text(body, encoding="utf-8")
    if any(" hub push" in f" {line}" for line in block.lines):
        FakeHub(monkeypatch)
    ws = Workspace(cwd, block.doc, request, monkeypatch)
    if any("hub push" in line for line in block.lines):
        ws.note("hub", "push")
    try:
        done = run_block(block, ws, capsys)
    finally:
        from eq_evals.engine import register_all

        monkeypatch.delenv("EQ_EVALS_PATH", raising=False)
        register_all()
    if block.marker == "no-keys":
        assert set(ws.used) <= {"hub"}, f"{block.id} is marked no-keys but needed substitutions: {ws.used}"
        if block.doc in CHECKS:
            CHECKS[block.doc](cwd, [out for _, _, out in done])
    if block.doc == "adding-a-task.md":
        from inspect_ai.log import list_eval_logs, read_eval_log

        [info] = list_eval_logs(str(cwd / "logs"))
        log = read_eval_log(info)
        assert log.status == "success" and log.eval.task == "eq_evals/facet_crisis_nodefs"
        assert log.results.scores[0].metrics["mean"].value == 1.0
        prompt = log.samples[0].messages[0].text
        assert "从一级（最低）到五级（最高）" in prompt and "被动自杀意念" not in prompt
        assert "eq_evals/facet_crisis_nodefs" in done[0][2]  # eq-evals list shows the new task
