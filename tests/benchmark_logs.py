"""Logs of every benchmark, built once per test session through ``inspect_ai.eval`` with the scripted models
(README, "Models shipped with eq-evals"), for tests that read logs: the golden ``eq-evals ratings`` test first.

The fixture ``benchmark_logs`` is a :class:`BenchmarkLogs`. Its ``ratings_dir`` holds only logs that
``eq-evals ratings`` reads (FACET objective, ``facet_pairwise`` judgments, SAGE, PACE pointwise,
``pace_pairwise`` battles, HEART); the FACET interaction generations that ``facet_pairwise`` judged sit in
``generations_dir`` beside it, because ratings refuses generation logs (they are not rateable on their own).

LongEmotion is left out: its tasks need LongEmotion's data (the tests that read LongEmotion logs run its tasks on
the project's fixtures themselves: tests/longemotion/, tests/card/).

Every log is moved, under the file name Inspect gave it, into a folder of its own named after the log's
stable label (``<task>/<model>``). ``eq-evals ratings`` reads a folder's logs in path order, and Inspect's
names start with a one-second timestamp followed by a random id, so logs made in the same second (several
models of one ``inspect_ai.eval`` call) would otherwise be read in a random order, and that order reaches the
output: it orders the models in leaderboard.json's objective section and the ``logs`` lists of its PACE
section (the ratings themselves did not change when the logs were read in reverse).
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from inspect_ai import eval as inspect_eval
from inspect_ai.model import get_model

import eq_evals._registry  # noqa: F401  (registers the eq_evals tasks and models, as the entry point does)

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
PACE_ITEMS = TESTS / "fixtures" / "pace" / "items.jsonl"  # 4 items, 2 English and 2 Chinese
HEART_HISTORIES = TESTS / "fixtures" / "heart_histories.jsonl"  # 3 histories, one adversarial

S = "eq_evals/scripted-"
FIVE = ["apparent_emotion", "hidden_emotion", "emotion_prediction", "social_adequacy", "crisis_recognition"]
# FACET objective: right, wrong, half-credit, and two that never answer in the expected form. echo, malformed
# and oracle are also the three interaction models, so the subjective-objective gap has a cohort of 3.
OBJECTIVE_MODELS = [S + m for m in ("oracle", "wrong", "half", "echo", "malformed")]
INTERACTION_MODELS = [S + m for m in ("echo", "malformed", "oracle")]
FACET_JUDGES = [S + "judge", S + "judge-first"]  # a consistent judge and a position-biased one (all conflicted)
SAGE_MODELS = [S + "heart-warm", S + "echo"]  # the sage-user rewards the warm replies (+5), echo gets 0
SAGE_SCENARIOS = ["pa-sage-e01-en", "pa-sage-e01-zh", "pa-sage-r01-en"]
PACE_MODELS = [S + "echo", S + "heart-warm"]
PACE_AGENT = S + "pace-agent"
HEART_PANEL = [S + "hjudge", S + "hjudge-mild", S + "heart-judge"]  # heart-judge shares the supporters' family
HEART_SYSTEMS = [S + "heart-warm", S + "heart-terse"]  # the warm one wins, the terse one loses


@dataclass(frozen=True)
class LogEntry:
    label: str  # stable across runs: "<task>/<model>", e.g. "facet_objective/scripted-oracle"
    path: Path
    task: str  # without the eq_evals/ prefix
    model: str  # the tested model as Inspect names it ("none/none" for judging logs: judges are roles)
    rated: bool  # under ratings_dir (read by eq-evals ratings)


@dataclass(frozen=True)
class BenchmarkLogs:
    root: Path
    ratings_dir: Path
    generations_dir: Path
    entries: tuple[LogEntry, ...]

    def paths(self, task: str | None = None) -> list[Path]:
        return [e.path for e in self.entries if task is None or e.task == task]

    def placeholders(self) -> list[tuple[str, str]]:
        """(text, placeholder) pairs that make output independent of where and when the logs were built: each
        log's path becomes ``<log:LABEL>``, then the root folder ``<logs>`` and the repository ``<repo>``."""
        pairs = [(str(e.path), f"<log:{e.label}>") for e in self.entries]
        pairs += [(str(self.root), "<logs>"), (str(REPO), "<repo>")]
        return sorted(pairs, key=lambda pair: -len(pair[0]))  # longest first: a log path before its folder

    def normalise(self, text: str) -> str:
        for old, new in self.placeholders():
            text = text.replace(old, new)
        return text


def objective_ids(per_dimension: int = 2) -> list[str]:
    """The first ``per_dimension`` sample ids of each FACET objective dimension in each language."""
    from eq_evals.facet.data import facet_items
    from eq_evals.resources import resource

    ids: list[str] = []
    for dim in FIVE:
        for lang in ("en", "zh"):
            ids += [str(s.id) for s in facet_items(resource("datasets", "facet"), [dim], lang)][:per_dimension]
    return ids


class _Builder:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.entries: list[LogEntry] = []

    def run(self, folder: str, task: str, model, *, label_model: str | None = None, **kwargs) -> list[LogEntry]:
        """Run one task through Inspect and file each of its logs under ``folder/<task>/<model>/``."""
        staging = self.root / "staging"
        logs = inspect_eval(f"eq_evals/{task}", model=model, log_dir=str(staging), display="none", **kwargs)
        made = []
        for log in logs:
            assert log.status == "success", (task, log.eval.model, log.error)
            name = (label_model or log.eval.model).removeprefix("eq_evals/")
            label = f"{task}/{name}"
            assert label not in {e.label for e in self.entries}, f"two logs labelled {label}"
            target = self.root / folder / task / name / Path(log.location).name
            target.parent.mkdir(parents=True)
            shutil.move(log.location, target)
            made.append(LogEntry(label, target, task, log.eval.model, rated=folder == "ratings"))
        assert not any(staging.iterdir())
        self.entries += made
        return made


def build_benchmark_logs(root: Path) -> BenchmarkLogs:
    b = _Builder(root)
    # FACET objective: 2 items per dimension and language = 20 samples per model, one epoch
    b.run(
        "ratings",
        "facet_objective",
        OBJECTIVE_MODELS,
        task_args={"language": "all"},
        epochs=1,
        sample_id=objective_ids(2),
    )
    # FACET interaction: 12 naturalness prompts (EN and ZH) per model; every pair judged on every prompt in both
    # orders by each judge of the panel
    b.run("generations", "facet_naturalness", INTERACTION_MODELS, task_args={"language": "all"}, limit=12)
    b.run(
        "ratings",
        "facet_pairwise",
        None,
        label_model="panel",
        model_roles={"grader": FACET_JUDGES},
        task_args={"logs": str(root / "generations"), "pairing": "round_robin"},
    )
    # SAGE: 3 dialogues per model (an emotional scenario in EN and ZH, a rational one in EN)
    b.run(
        "ratings",
        "sage",
        SAGE_MODELS,
        sample_id=SAGE_SCENARIOS,
        task_args={"language": "all"},
        model_roles={"simulated_user": get_model(S + "sage-user")},
    )
    # PACE: the PACE-AB board pointwise on 4 items, then battles between the two models' logs
    pace = b.run(
        "ratings",
        "pace",
        PACE_MODELS,
        model_roles={"grader": PACE_AGENT},
        task_args={"source": str(PACE_ITEMS), "language": "all"},
    )
    b.run(
        "ratings",
        "pace_pairwise",
        None,
        label_model="board",
        model_roles={"grader": PACE_AGENT},
        task_args={"logs": ",".join(str(e.path) for e in pace), "overall": True},
    )
    # HEART: each system against the reference and the earlier systems' logs (`-T opponents`, docs/heart.md),
    # both orders, 3 histories (the adversarial one has no reference, so the first system leaves it unscored)
    opponents = ["reference"]
    for system in HEART_SYSTEMS:
        [heart] = b.run(
            "ratings",
            "heart",
            system,
            model_roles={"grader": HEART_PANEL},
            task_args={"source": str(HEART_HISTORIES), "opponents": ",".join(opponents), "order": "both"},
        )
        opponents.append(str(heart.path))
    (root / "staging").rmdir()
    return BenchmarkLogs(root, root / "ratings", root / "generations", tuple(b.entries))
