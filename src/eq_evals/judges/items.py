"""The known-answer items of each judged benchmark: a prompt from the benchmark's bundled data and a good reply
to it (datasets/judges/README.md).

- FACET interaction: 8 project-authored prompts of ``datasets/facet`` (naturalness, deepening and the shared pool)
  in English and Chinese, with good replies written for eq-evals (``datasets/judges/facet.jsonl``).
- HEART: the bundled histories (``datasets/heart``) with their reference replies, English and Chinese.
- PACE: 8 bundled items (``datasets/pace``) per language with good replies written for eq-evals
  (``datasets/judges/pace.jsonl``).
- LongEmotion: the project-written fixtures (``datasets/longemotion/fixtures``): counsellor replies and
  self-narratives written for eq-evals (``datasets/judges/longemotion.jsonl``); for Emotion Summary the
  fixture's reference summary is the good reply.

Each item is an :class:`Item`; a reply file row that names no item of the benchmark's data, or an item without a
good reply, is an error naming the file and the row.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import Any

from eq_evals.core.sources import content_hash
from eq_evals.core.text import read_jsonl
from eq_evals.errors import DataError, EqEvalsError
from eq_evals.resources import resource

BENCHMARKS = ("facet", "heart", "pace", "pace_board", "longemotion")
HEART_CRITERIA = ("H", "E", "A", "R", "T", "overall")
PACE_DIMENSIONS = ("P", "A", "C", "E")


@dataclass
class Item:
    """One prompt with its good reply, as one benchmark's judge sees it."""

    benchmark: str
    item: str  # the benchmark's sample id
    language: str
    good: str  # the good reply
    prompt: str  # what the person said (the generation prompt's content)
    echo: str  # the text the echo null output copies (the person's last message)
    own_context: str  # the conversation shown when the judge writes its own reply
    dimensions: list[str]  # the criteria the benchmark's judge rates
    kind: str = "reply"  # reply | summary | narrative
    parallel: str | None = None  # the same item's good reply in the other language
    input: Any = ""  # the benchmark sample's input
    target: Any = ""  # the benchmark sample's target (LongEmotion Emotion Summary)
    metadata: dict[str, Any] = field(default_factory=dict)  # the benchmark sample's metadata


def _replies(name: str) -> dict[str, tuple[int, dict]]:
    path = resource("datasets", f"judges/{name}.jsonl")
    where = f"datasets/judges/{name}.jsonl"
    out: dict[str, tuple[int, dict]] = {}
    for line, row in read_jsonl(path, where, objects=True):
        for key in ("id", "language", "reply"):
            if not isinstance(row.get(key), str) or not row[key].strip():
                raise DataError(where, f"line {line}", f"field {key!r} must be a non-empty string")
        if row["id"] in out:
            raise DataError(
                where, f"line {line}", f"id {row['id']!r} appears twice (first on line {out[row['id']][0]})"
            )
        out[row["id"]] = (line, row)
    return out


def _other(sample_id: str) -> str:
    return sample_id[:-3] + ("-zh" if sample_id.endswith("-en") else "-en")


def _check_all_used(name: str, replies: dict[str, tuple[int, dict]], known: set[str]) -> None:
    for rid, (line, _) in replies.items():
        if rid not in known:
            raise DataError(
                f"datasets/judges/{name}.jsonl",
                f"line {line}",
                f"id {rid!r} is not an item of the benchmark's bundled data",
            )


def facet_items() -> list[Item]:
    from eq_evals.pairwise.judge import bare_user_input

    replies = _replies("facet")
    rows: dict[str, dict] = {}
    for pool in ("naturalness", "deepening", "shared"):
        for _, row in read_jsonl(
            resource("datasets", f"facet/{pool}.jsonl"), f"datasets/facet/{pool}.jsonl", objects=True
        ):
            rows[row["id"]] = row
    _check_all_used("facet", replies, set(rows))
    out = []
    for rid, (_, reply) in replies.items():
        row = rows[rid]
        user = bare_user_input(row["input"])
        other = replies.get(_other(rid))
        out.append(
            Item(
                "facet",
                rid,
                row["language"],
                reply["reply"].strip(),
                user,
                user,
                user,
                list(row.get("judge_dimensions") or [row["dimension"]]),
                parallel=other[1]["reply"].strip() if other else None,
                input=row["input"],
                metadata={"item_id": row["item_id"]},
            )
        )
    return out


def heart_items() -> list[Item]:
    from eq_evals.heart.data import heart_samples
    from eq_evals.heart.prompts import generation_prompts, transcript

    by_id: dict[str, Any] = {}
    for language in ("en", "zh"):
        for s in heart_samples(None, language, "all"):
            by_id[str(s.id)] = s
    labels = generation_prompts()["speakers"]
    out = []
    for sid, s in by_id.items():
        md = dict(s.metadata or {})
        good = (md.get("reference_response") or "").strip()
        if not good:
            continue  # a history without a reference reply (the release's adversarial items)
        language = md.get("language", "en")
        history = md["dialogue_history"]
        last_seeker = next(
            (t for t, who in zip(reversed(history), reversed(md["speakers"])) if who == "seeker"), history[-1]
        )
        context = transcript(
            history,
            md["speakers"],
            language,
            labels[language],
            "{speaker}: {text}" if language == "en" else "{speaker}：{text}",
        )
        other = by_id.get(_other(sid))
        parallel = (other.metadata or {}).get("reference_response") if other is not None else None
        md.pop("dataset_version", None)
        out.append(
            Item(
                "heart",
                sid,
                language,
                good,
                last_seeker,
                last_seeker,
                context,
                list(HEART_CRITERIA),
                parallel=(parallel or "").strip() or None,
                input=s.input,
                metadata=md,
            )
        )
    return out


def pace_items() -> list[Item]:
    from eq_evals.pace.data import pace_items as load

    replies = _replies("pace")
    samples = {str(s.id): s for language in ("en", "zh") for s in load(None, language)}
    _check_all_used("pace", replies, set(samples))
    out = []
    for rid, (_, reply) in replies.items():
        s = samples[rid]
        query = s.input if isinstance(s.input, str) else s.input[-1].text
        other = replies.get(_other(rid))
        md = {k: v for k, v in (s.metadata or {}).items() if k != "dataset_version"}
        out.append(
            Item(
                "pace",
                rid,
                md.get("language", reply["language"]),
                reply["reply"].strip(),
                query,
                query,
                query,
                list(PACE_DIMENSIONS),
                parallel=other[1]["reply"].strip() if other else None,
                input=query,
                metadata=md,
            )
        )
    return out


def longemotion_items() -> list[Item]:
    from eq_evals.components import DATASETS, load_all
    from eq_evals.longemotion.data import render_dialogue

    load_all()
    replies = _replies("longemotion")
    samples = {}
    for task in ("conversation", "summary", "expression"):
        for s in DATASETS["longemotion"](task=task, fixtures=True):
            samples[str(s.id)] = (task, s)
    _check_all_used("longemotion", replies, set(samples))
    out = []
    for sid, (task, s) in samples.items():
        md = {k: v for k, v in (s.metadata or {}).items() if k not in ("dataset_version", "data_source")}
        if task == "summary":
            good, kind, dims = (
                str(s.target.text if hasattr(s.target, "text") else s.target).strip(),
                "summary",
                ["score"],
            )
            echo = s.input if isinstance(s.input, str) else ""
            context = echo
        else:
            if sid not in replies:
                raise DataError(
                    "datasets/judges/longemotion.jsonl", "(file)", f"no good reply for fixture sample {sid!r}"
                )
            good = replies[sid][1]["reply"].strip()
            if task == "conversation":
                kind = "reply"
                clients = [m["context"] for m in md["history"] if m["role"].lower() == "client"]
                echo = clients[-1] if clients else ""
                context = render_dialogue(md["history"][-8:]).strip()
            else:
                kind = "narrative"
                echo = md.get("scenario", "")
                context = echo
            dims = ["score"]
        out.append(
            Item(
                "longemotion",
                sid,
                "en",
                good,
                echo,
                echo,
                context,
                dims,
                kind=kind,
                input=s.input,
                target=s.target,
                metadata={**md, "task": task},
            )
        )
    return out


LOADERS = {
    "facet": facet_items,
    "heart": heart_items,
    "pace": pace_items,
    "pace_board": pace_items,
    "longemotion": longemotion_items,
}


@cache
def _items(benchmark: str) -> tuple[Item, ...]:
    if benchmark not in LOADERS:
        raise EqEvalsError(f"no judge check for {benchmark!r}; expected one of {', '.join(BENCHMARKS)}")
    items = LOADERS[benchmark]()
    if not items:
        raise EqEvalsError(f"no known-answer items for {benchmark}")
    return tuple(items)


def items(benchmark: str, language: str = "all") -> list[Item]:
    """The known-answer items of ``benchmark`` in ``language`` (en, zh or all)."""
    if language not in ("en", "zh", "all"):
        raise EqEvalsError(f"-T language={language}: expected en, zh or all")
    return [i for i in _items(benchmark) if language == "all" or i.language == language]


def data_version(benchmark: str) -> dict[str, Any]:
    """The dataset version a judge-check log records: a hash over every item (prompt, good reply, parallel reply)
    and the degradation banks, whatever the preset selects."""
    from eq_evals.judges import degrade

    rows = [
        {
            "item": i.item,
            "language": i.language,
            "good": i.good,
            "prompt": i.prompt,
            "parallel": i.parallel,
            "kind": i.kind,
        }
        for i in _items(benchmark)
    ]
    rows.append(
        {
            "banks": degrade.BANKS,
            "filler": degrade.FILLER,
            "injections": degrade.INJECTIONS,
            "constant": degrade.CONSTANT,
        }
    )
    return {
        "name": f"judges/{benchmark}",
        "origin": "bundled",
        "location": "datasets/judges",
        "revision": None,
        "sha256": content_hash(rows),
        "rows": len(rows) - 1,
    }
