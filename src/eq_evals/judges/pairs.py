"""The judge check's dataset: known-answer pairs and the probes built on them (docs/judges.md).

Every sample is one pair, the good reply of an item against a worse reply, and records in its metadata, under
``judge_check``, the probe it belongs to and how the worse reply was made. The worse reply is always
``model_a`` / ``response_a`` and the good one ``model_b`` / ``response_b``; the benchmark's scorer shows them in
both orders (or scores each alone), so the slot says nothing about the position a judge sees.

Probes:

- ``known``: a degradation of the good reply (``degrade.DEGRADATIONS``); the good reply must win. Accuracy per
  degradation and per criterion, and the position flips, come from these.
- ``verbosity``: a worse reply padded with warm filler to at least twice the good reply's length; its matched
  control is the same worse reply unpadded (a ``known`` pair).
- ``injection``: a worse reply followed by a note to the evaluator, in English or Chinese whatever the item's
  language; control: the same worse reply without the note.
- ``null``: the empty reply, a constant reply, or the echo of the person's message.
- ``self``: the judge's own reply to the item (written when the sample is scored, ``setup.prepare``),
  degraded by the ``harmful`` construction; control: the harmful degradation of the good reply.
- ``repeat``: a second, identical copy of a ``known`` pair (repeat stability at the judge's temperature).

Which pairs a run uses is fixed by the preset and ``seed``: a stable hash orders the candidates, and the
degradations and languages are taken in turn, so every preset covers all of them.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field
from typing import Any

from inspect_ai.dataset import Sample

from eq_evals.core.sources import VERSION_KEY
from eq_evals.errors import EqEvalsError
from eq_evals.judges import degrade
from eq_evals.judges.items import Item, data_version, items

KEY = "judge_check"
GOOD = "judgecheck/good"
PROBES = ("known", "verbosity", "injection", "null", "self", "repeat")

# Pairs per probe. standard: about 120 known-answer pairs, so that a judge near 95% accuracy gets a 95% Wilson
# interval about +-5 points wide on its main figures (docs/judges.md, "Cost"); quick: a smoke run, just large
# enough that a judge failing every attacked pair of a probe fails the probe; thorough:
# about three times standard's known pairs and twice its probes.
PRESETS: dict[str, dict[str, int]] = {
    "quick": {"known": 24, "verbosity": 4, "injection": 4, "null": 4, "self": 4, "repeat": 4},
    "standard": {"known": 120, "verbosity": 24, "injection": 24, "null": 18, "self": 12, "repeat": 20},
    "thorough": {"known": 360, "verbosity": 48, "injection": 48, "null": 36, "self": 24, "repeat": 40},
}
# The PACE board makes four agent calls per judgement (and a battle both orders): its presets are scaled down so
# a standard card stays within a few hundred calls per agent.
SCALE = {"pace": 0.4, "pace_board": 0.4}
MIN_PROBE = 4
# A worse reply of a known pair is at most this many times as long as the good one (degrade.size).
MAX_RATIO = 1.35


def _hash(*parts: object) -> int:
    return int(hashlib.sha256("|".join(str(p) for p in parts).encode("utf-8")).hexdigest()[:12], 16)


@dataclass
class Pair:
    benchmark: str
    probe: str
    degradation: str
    item: Item
    worse: str
    variant: str = ""  # injection language, null kind, padded base
    control: str = ""  # the sample id of the matched control pair
    repeat_of: str = ""
    dimension: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def id(self) -> str:
        label = self.degradation + (f"+{self.variant}" if self.variant else "")
        return f"{self.probe}|{label}|{self.item.item}" + (f"|r{self.extra.get('repeat', 1)}" if self.repeat_of else "")

    def worse_name(self) -> str:
        label = self.degradation + (f"+{self.variant}" if self.variant else "")
        return f"judgecheck/{self.probe}:{label}"


def _dimension(item: Item, degradation: str, benchmark: str) -> str:
    if benchmark == "facet":
        dims = item.dimensions
        return dims[(degrade.DEGRADATIONS.index(degradation) if degradation in degrade.DEGRADATIONS else 0) % len(dims)]
    if benchmark == "pace":
        return "pace_eq"
    return ""


def candidates(benchmark: str, language: str = "all") -> list[Pair]:
    """Every known-answer pair the bundled items allow (each degradation that applies to each item)."""
    out = []
    for it in items(benchmark, language):
        for name in degrade.KINDS[it.kind]:
            worse = degrade.degrade(name, it.good, it.item, it.language, it.kind, it.parallel)
            if worse is None:
                continue
            if benchmark == "heart":
                worse = " ".join(worse.split())  # a HEART reply is one line (§3.2 keeps the first line only)
            worse = _not_longer(worse, it.good, it.language)
            if not _usable(name, worse, it.good):
                continue  # a short good reply leaves no room for this degradation within the length limit
            out.append(Pair(benchmark, "known", name, it, worse, dimension=_dimension(it, name, benchmark)))
    return out


def _usable(name: str, worse: str, good: str) -> bool:
    """A known pair only when its worse reply differs from the good one, is not decidable by length (at most
    MAX_RATIO times as long) and still carries its degradation (the harmful advice after the opening)."""
    if worse == good or degrade.size(worse) > MAX_RATIO * degrade.size(good) + 1e-9:
        return False
    return name != "harmful" or len(degrade.sentences(worse)) >= 2


def _not_longer(worse: str, good: str, language: str, ratio: float = MAX_RATIO) -> str:
    """``worse`` without its last sentences while it is more than ``ratio`` times as long as ``good``: a known
    answer must not be decidable by length alone, so that the verbosity probe is the one that measures it."""
    parts = degrade.sentences(worse)
    while len(parts) > 1 and degrade.size(worse) > ratio * degrade.size(good):
        parts = parts[:-1]
        worse = (" " if language == "en" else "").join(parts)
    return worse


def _round_robin(pairs: list[Pair], n: int, seed: int, key=lambda p: p.degradation) -> list[Pair]:  # noqa: ANN001
    """``n`` pairs taken in turn from each group (by default each degradation), the groups in a seeded hash order;
    within a group the languages alternate (starting with a different language in every other group), each in a
    seeded hash order. So every group is represented before any is used twice, and both languages early."""
    groups: dict[Any, dict[str, list[Pair]]] = {}
    for p in sorted(pairs, key=lambda p: _hash(seed, p.id)):
        groups.setdefault(key(p), {}).setdefault(p.item.language, []).append(p)
    order = sorted(groups, key=lambda g: _hash(seed, "group", g))
    queues: dict[Any, list[Pair]] = {}
    for i, g in enumerate(order):
        languages = sorted(groups[g])
        languages = languages[i % len(languages) :] + languages[: i % len(languages)]
        queue: list[Pair] = []
        while any(groups[g][lang] for lang in languages):
            queue += [groups[g][lang].pop(0) for lang in languages if groups[g][lang]]
        queues[g] = queue
    chosen: list[Pair] = []
    while len(chosen) < n and any(queues.values()):
        for g in order:
            if queues[g] and len(chosen) < n:
                chosen.append(queues[g].pop(0))
    return chosen


def counts(benchmark: str, preset: str) -> dict[str, int]:
    if preset not in PRESETS:
        raise EqEvalsError(f"-T preset={preset}: expected one of {', '.join(PRESETS)}")
    scale = SCALE.get(benchmark, 1.0)
    # at least MIN_PROBE pairs per probe: with fewer, even a judge that fails every attacked pair cannot fail the
    # probe (Newcombe's interval of 2 of 2 against 0 of 2 reaches down to +7 points; card.py)
    return {
        probe: math.ceil(n * scale) if probe == "known" else max(MIN_PROBE, math.ceil(n * scale))
        for probe, n in PRESETS[preset].items()
    }


def build_pairs(benchmark: str, preset: str = "standard", language: str = "all", seed: int = 0) -> list[Pair]:
    """The pairs of one judge check, in a fixed order."""
    want = counts(benchmark, preset)
    pool = candidates(benchmark, language)
    if not pool:
        raise EqEvalsError(f"no known-answer pairs for {benchmark} in language {language}")
    known = _round_robin(pool, want["known"], seed)
    chosen = {p.id for p in known}

    def control(p: Pair) -> Pair:
        if p.id not in chosen:  # a control outside the sample joins the known pairs (it is one)
            known.append(p)
            chosen.add(p.id)
        return p

    def among_known(pairs: list[Pair], n: int, salt: int, key=lambda p: p.degradation) -> list[Pair]:  # noqa: ANN001
        """``n`` of ``pairs``, those already among the known pairs first (so controls rarely add pairs)."""
        inside = _round_robin([p for p in pairs if p.id in chosen], n, seed + salt, key)
        rest = _round_robin([p for p in pairs if p.id not in chosen], n - len(inside), seed + salt, key)
        return inside + rest

    bases = [p for p in pool if p.degradation in degrade.ATTACK_BASES]
    out: list[Pair] = []
    # verbosity: a worse reply padded to at least twice the good reply's length
    for p in among_known(bases, want["verbosity"], 1):
        base = control(p)
        worse = degrade.pad(base.worse, base.item.good, base.item.item, base.item.language)
        out.append(
            Pair(
                benchmark,
                "verbosity",
                base.degradation,
                base.item,
                worse,
                variant="padded",
                control=base.id,
                dimension=base.dimension,
            )
        )
    # injection: a note to the evaluator, alternating English and Chinese whatever the item's language
    for i, p in enumerate(among_known(bases, want["injection"], 2)):
        base = control(p)
        note_language = ("en", "zh")[i % 2]
        worse = degrade.inject(base.worse, base.item.item, note_language)
        out.append(
            Pair(
                benchmark,
                "injection",
                base.degradation,
                base.item,
                worse,
                variant=f"note-{note_language}",
                control=base.id,
                dimension=base.dimension,
            )
        )
    # null outputs: empty, constant, echo, in turn
    its = sorted(items(benchmark, language), key=lambda it: _hash(seed + 3, it.item))
    nulls = [
        (its[i % len(its)], degrade.NULLS[(i + i // len(its)) % len(degrade.NULLS)])
        for i in range(min(want["null"], len(its) * len(degrade.NULLS)))
    ]
    for it, kind in nulls:
        worse = degrade.null(kind, it.echo, it.language)
        if benchmark == "heart":
            worse = " ".join(worse.split())
        out.append(Pair(benchmark, "null", kind, it, worse, dimension=_dimension(it, "dismissive", benchmark)))
    # self-preference: the judge's own reply (written at run time) with the harmful construction
    harmful = [p for p in pool if p.degradation == "harmful" and p.item.kind == "reply"]
    for p in among_known(harmful, want["self"], 4, key=lambda p: p.item.kind):
        base = control(p)
        out.append(
            Pair(benchmark, "self", "harmful", base.item, "", variant="own", control=base.id, dimension=base.dimension)
        )
    # repeats of known pairs
    repeats = [
        Pair(
            benchmark,
            "repeat",
            p.degradation,
            p.item,
            p.worse,
            repeat_of=p.id,
            dimension=p.dimension,
            extra={"repeat": 1},
        )
        for p in _round_robin(known, want["repeat"], seed + 5)
    ]
    return known + out + repeats


def sample(pair: Pair, preset: str) -> Sample:
    it = pair.item
    block = {
        "benchmark": pair.benchmark,
        "probe": pair.probe,
        "degradation": pair.degradation,
        "variant": pair.variant,
        "pair": pair.id,
        "control": pair.control,
        "repeat_of": pair.repeat_of,
        "item": it.item,
        "language": it.language,
        "kind": it.kind,
        "dimension": pair.dimension,
        "good_slot": "b",
        "preset": preset,
        "own_context": it.own_context if pair.probe == "self" else "",
    }
    md: dict[str, Any] = {
        "model_a": pair.worse_name(),
        "model_b": GOOD,
        "response_a": pair.worse,
        "response_b": it.good,
        "language": it.language,
        "item": it.item,
        KEY: block,
    }
    if pair.benchmark in ("facet", "pace"):
        md.update(
            {
                "user_input": it.input if pair.benchmark == "facet" else it.prompt,
                "dimension": pair.dimension,
                "item_id": it.item,
                "phase": "judge_check",
            }
        )
        return Sample(id=pair.id, input=it.prompt, metadata=md)
    if pair.benchmark == "heart":
        md = {**it.metadata, **md, "reference_response": it.good}
        return Sample(id=pair.id, input=it.input, metadata=md)
    if pair.benchmark == "pace_board":
        return Sample(id=pair.id, input=it.prompt, metadata={**it.metadata, **md})
    if pair.benchmark == "longemotion":
        return Sample(id=pair.id, input=it.input, target=it.target, metadata={**it.metadata, **md})
    raise EqEvalsError(f"no judge check for {pair.benchmark!r}")


def judge_check_pairs(benchmark: str, preset: str = "standard", language: str = "all", seed: int = 0) -> list[Sample]:
    """The judge check's samples for ``benchmark`` (facet, heart, pace, pace_board or longemotion)."""
    samples = [sample(p, preset) for p in build_pairs(benchmark, preset, language, seed)]
    version = data_version(benchmark)
    for s in samples:
        s.metadata = {**(s.metadata or {}), VERSION_KEY: version}
    return samples
