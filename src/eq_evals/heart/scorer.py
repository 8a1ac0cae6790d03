"""HEART's supporter-reply solver and pairwise judge-ensemble scorer (docs/heart.md,
'Generation (solver heart_reply)' and 'Judging (scorer heart_pairwise)').

``heart_reply``: the generation prompt (release or paper style), one generation, the release's reply cleaning; the raw and
cleaned reply go to the typed store ``HeartReply`` and the cleaned reply replaces the output, so logs and later
opponents read the cleaned text.

``heart_pairwise``: the candidate's reply against the reference reply and/or other systems' replies read from
earlier ``heart`` logs, judged by every ``grader`` model minus those of either system's family (§9.6), in one
seeded-random position order, both orders, or a fixed order; forced choice with a strength per criterion (H, E,
A, R, T, overall). An empty candidate reply is an automatic loss at strength 5 flagged ``empty_response`` (no
judge call); a reply cut by a limit is not an empty reply: the sample is unscored (reason ``limit``;
eq_evals.core.limits) and no judge is called. Unparseable replies are retried with a correction note, then
recorded as errors (never as losses); a sample with no valid judgment is unscored with the reason. Every
judgment is kept as comparison records in the score metadata for ``eq-evals ratings``.
"""

from __future__ import annotations

import asyncio
import hashlib
import math
import random
from typing import Any

import anyio
from inspect_ai.model import ChatMessageSystem, ChatMessageUser, GenerateConfig, Model, model_roles
from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import StoreModel, span, store_as

from eq_evals.core.limits import unscored_if_cut
from eq_evals.core.text import family, markdown_table
from eq_evals.core.view import note, short
from eq_evals.errors import EqEvalsError
from eq_evals.heart import prompts
from eq_evals.logcheck import expand_log_paths, read_async
from eq_evals.pairwise.judge import ask_until_parsed, grader_models, required
from eq_evals.pairwise.logs import load_generation
from eq_evals.pairwise.verdict import JudgeCall, PairVerdict, combine, dump

TASK_VERSION = "1"
ROUND = 4  # decimals of a sample's values (fractions of judges x orders; the metrics average them)
ORDERS = ("random", "both", "fixed")


class HeartReply(StoreModel):
    raw: str = ""
    text: str = ""
    length: int = 0
    over_limit: bool = False
    empty: bool = False
    prompt_sha1: str = ""  # of the rendered generation prompt (HEART paper §9.12: content hashes for regeneration)


@solver
def heart_reply(prompt_style: str = "release", prompts_file: str = prompts.PROMPTS_FILE) -> Solver:
    """One next supporter turn for the history (HEART paper §9.4: one completion per context)."""
    if prompt_style not in ("release", "paper"):
        raise EqEvalsError(f"-T prompt_style={prompt_style}: expected release or paper")

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        system, user = prompts.generation_messages(state.metadata, prompt_style, prompts_file)
        state.messages = [ChatMessageSystem(content=system), ChatMessageUser(content=user)]
        state = await generate(state)
        reply = store_as(HeartReply)
        reply.prompt_sha1 = prompts.prompt_hash(system, user)
        reply.raw = state.output.completion
        reply.text = prompts.clean_reply(reply.raw, prompts_file)
        reply.length, reply.over_limit = prompts.reply_length(
            reply.text, state.metadata.get("language", "en"), prompts_file
        )
        reply.empty = not reply.text
        if state.output.choices:
            state.output.completion = reply.text
        return state

    return solve


def eligible_judges(judges: list[str], systems: list[str], exclude_same_family: bool = True) -> tuple[list[str], bool]:
    """Judges allowed on a pair (§9.6): those of neither system's family. When that leaves none, all judges are
    used and the pair is flagged self-judged (docs/heart.md, 'Judging (scorer heart_pairwise)', exclude_same_family). Returns (judges, self_judged)."""
    if not exclude_same_family:
        return judges, any(family(j) in {family(s) for s in systems} for j in judges)
    families = {family(s) for s in systems}
    allowed = [j for j in judges if family(j) not in families]
    return (allowed, False) if allowed else (judges, True)


def ensemble(judge_roles: str = "") -> list[Model]:
    """The judge ensemble: the named roles' models, else the ``grader`` role's (a list binds several)."""
    roles = [r.strip() for r in (judge_roles or "").split(",") if r.strip()]
    bound = model_roles()
    if roles:
        missing = [r for r in roles if r not in bound]
        if missing:
            raise EqEvalsError(f"judge role(s) {missing} are not bound: --model-role {missing[0]}=<model>")
        return [m for r in roles for m in (bound[r] if isinstance(bound[r], list) else [bound[r]])]
    if bound.get("grader") is None:
        raise EqEvalsError(
            "HEART judging needs a judge ensemble: --model-role grader=<model>[,<model>...] "
            "(or -T judge_roles=...; or --no-score for replies only)"
        )
    return grader_models()


def order_seed(*parts: object) -> random.Random:
    """A seeded RNG from a stable hash (never Python's salted ``hash()``); docs/heart.md,
    'Judging (scorer heart_pairwise)', `order`."""
    digest = hashlib.sha256("|".join(str(p) for p in parts).encode("utf-8")).hexdigest()
    return random.Random(int(digest[:16], 16))


async def _opponent_log(path: str) -> tuple[str, dict[str, str], dict[str, Any]]:
    """An opponent log's model, replies by sample id (first epoch) and task arguments. Read asynchronously: the
    scorer runs on Inspect's event loop, where a synchronous read would re-enter it (eq_evals.logcheck.read)."""
    log = await read_async(path)
    if log.eval.task.split("/")[-1] != "heart":
        raise EqEvalsError(f"opponent log {path} is a log of {log.eval.task}, not of eq_evals/heart")
    gen = load_generation(path, log)
    replies = {sid: r.text for (sid, epoch), r in gen.responses.items() if epoch == 1}
    return gen.model, replies, dict(log.eval.task_args or {})


def parse_opponents(opponents: str | list[str] | None) -> tuple[bool, list[str]]:
    items = [
        o.strip() for o in (opponents.split(",") if isinstance(opponents, str) else opponents or []) if o and o.strip()
    ]
    use_reference = "reference" in items
    paths = [p for p in items if p != "reference"]
    if not use_reference and not paths:
        raise EqEvalsError("-T opponents: give 'reference' and/or earlier eq_evals/heart logs (files or folders)")
    return use_reference, expand_log_paths(paths) if paths else []


def reference_id(metadata: dict[str, Any]) -> str:
    return "esconv_original" if metadata.get("source") == "heart-release" else "reference"


def _record(
    md: dict[str, Any],
    sid: str,
    system_a: str,
    system_b: str,
    judge: str,
    order: str,
    letter: str,
    verdict: tuple[int, int] | None,
    a_position: int,
    rubric: str,
    self_judged: bool,
    error: str | None,
    prompt_sha1: str | None,
) -> dict[str, Any]:
    winner = strength = score_a = None
    if verdict is not None:
        winner = "a" if verdict[0] == a_position else "b"
        strength = verdict[1]
        score_a = prompts.soft_score(strength) if winner == "a" else 1 - prompts.soft_score(strength)
    return {
        "benchmark": "heart",
        "task_version": TASK_VERSION,
        "sample_id": sid,
        "group_id": md.get("group_id", sid),
        "subset": md.get("subset", ""),
        "language": md.get("language", "en"),
        "system_a": system_a,
        "system_b": system_b,
        "judge": judge,
        "order": order,
        "criterion": letter,
        "winner": winner,
        "strength": strength,
        "score_a": None if score_a is None else round(score_a, 4),
        "rubric": rubric,
        "self_judged": self_judged,
        "error": error if verdict is None else None,
        "prompt_sha1": prompt_sha1,
    }


def label_call(
    candidate: str,
    opponent: str,
    judge: str,
    cand_first: bool,
    read: dict[str, Any] | None,
    complete: bool,
    attempts: int,
    letters_of: dict[str, str],
) -> None:
    """Follow a judge call in the transcript with an INFO block (core/view.py): the judge, the two systems and
    which was shown first, and the verdict per criterion from the candidate's side (Inspect View draws no span
    opened in a scorer, so the call itself reads only "Model Call (grader)")."""
    first, second = (candidate, opponent) if cand_first else (opponent, candidate)
    verdicts = (read or {}).get("verdicts") or {}
    names = {letter: key for key, letter in letters_of.items()}

    def said(letter: str) -> tuple[str, str]:
        v = verdicts.get(letter)
        if v is None:
            return "no verdict", ""
        won = (v[0] == 0) == cand_first
        return ("wins" if won else "loses"), "+" * v[1]

    rows = [
        [
            letter,
            names.get(letter, letter),
            (first, second)[v[0]] if (v := verdicts.get(letter)) else "none",
            *said(letter),
        ]
        for letter in prompts.CRITERIA
    ]
    outcome, strength = said("overall")
    verdict = f"{short(candidate)} {outcome} overall {strength}".rstrip() if complete else "no complete verdict"
    body = markdown_table(["criterion", "rubric key", "favours", short(candidate), "strength"], rows)
    body += f"\n\nShown as A: {first}; as B: {second}. Judge: {judge}; attempts: {attempts}."
    if not complete:
        body += " The reply could not be read in full: the missing criteria are recorded as errors, never as losses."
    note(f"{short(judge)}: {short(candidate)} vs {short(opponent)}, A={short(first)} → {verdict}", body)


def verdict_table(records: list[dict[str, Any]], candidate: str) -> str:
    """The sample's verdicts as one Markdown table (the score explanation, which Inspect View renders as
    Markdown): one row per judge call (opponent, judge, order), one column per criterion, each cell the
    candidate's win or loss with its strength, or the error."""
    calls: dict[tuple[str, str, str], dict[str, dict[str, Any]]] = {}
    for r in records:
        calls.setdefault((r["system_b"], r["judge"], r["order"]), {})[r["criterion"]] = r

    def cell(r: dict[str, Any] | None) -> str:
        if r is None or r["winner"] is None:
            return (r or {}).get("error") or "error"
        return ("win" if r["winner"] == "a" else "loss") + "+" * int(r["strength"] or 0)

    rows = [
        [
            short(opp),
            short(judge) or "(no judge call)",
            order,
            *(cell(by.get(c)) for c in ("overall", *prompts.LETTERS)),
        ]
        for (opp, judge, order), by in calls.items()
    ]
    head = f"{short(candidate)} against each opponent (win/loss from its side, + = strength; order ab = {short(candidate)} shown first)"
    return head + "\n\n" + markdown_table(["opponent", "judge", "order", "overall", *prompts.LETTERS], rows)


def verdicts_from_records(records: list[dict[str, Any]], opponents: list[str]) -> list[PairVerdict]:
    """The sample's judge calls as the project's typed verdict records, one per opponent (the candidate is
    model_a): each call keeps its judge, criterion, shown order, winner and strength; each judge's calls on a
    criterion are combined as FACET combines two orders (HEART paper §9.8)."""
    out = []
    for opp in opponents:
        recs = [r for r in records if r["system_b"] == opp]
        if not recs:
            continue
        first = recs[0]
        calls = []
        for r in recs:
            a, b = r["system_a"], r["system_b"]
            winner = None if r["winner"] is None else a if r["winner"] == "a" else b
            calls.append(
                JudgeCall(
                    judge=r["judge"],
                    criterion=r["criterion"],
                    order=[b, a] if r["order"] == "ba" else [a, b],
                    verdict=None
                    if winner is None
                    else f"{'A' if winner == (b if r['order'] == 'ba' else a) else 'B'}"
                    + "+" * int(r["strength"] or 0),
                    winner=winner,
                    margin=int(r["strength"] or 0),
                    error=r["error"],
                    self_judged=bool(r["self_judged"]),
                    prompt_hash=r["prompt_sha1"],
                )
            )
        groups: dict[tuple[str, str], list[JudgeCall]] = {}
        for c in calls:
            if c.judge:  # automatic losses of an empty reply have no judge
                groups.setdefault((c.judge, c.criterion), []).append(c)
        out.append(
            PairVerdict(
                model_a=first["system_a"],
                model_b=opp,
                item=str(first["group_id"]),
                sample=str(first["sample_id"]),
                language=first["language"],
                subset=first["subset"],
                rubric=first["rubric"],
                calls=calls,
                judgments=[combine(g, first["system_a"]) for g in groups.values()],
            )
        )
    return out


@scorer(
    metrics={
        "vs_reference": [mean(), stderr()],
        "overall": [mean(), stderr()],
        "H": [mean()],
        "E": [mean()],
        "A": [mean()],
        "R": [mean()],
        "T": [mean()],
        "sweep": [mean()],
        "margin": [mean()],
    }
)
def heart_pairwise(
    opponents: str = "reference",
    rubric: str = "heart",
    order: str = "random",
    exclude_same_family: bool = True,
    attempts: int = 3,
    seed: int = 1234,
    exclude_misaligned_reference: bool = False,
    judge_temperature: float | None = 0.0,
    judge_max_tokens: int = 4096,
    judge_file: str = prompts.JUDGE_FILE,
    prompt_style: str | None = None,
    source: str | None = None,
    judge_roles: str = "",
) -> Scorer:
    """Judge the candidate's reply against each opponent with the ``grader`` ensemble (see module docstring).

    Value (candidate's view, rounded to 4 decimals): ``vs_reference`` (the overall win rate against the reference
    reply over judges and orders, NaN when the reference was not an opponent: the task's headline), then, as the
    mean over opponents of the mean over judges and orders, ``overall``, ``H``..``T`` (1 = the candidate won the
    criterion), ``sweep`` (won all five dimensions), ``margin`` (signed overall strength / 5). Judges: the models of the ``grader`` role, or those of the named roles in ``judge_roles``
    (comma-separated, e.g. ``judge_gpt,judge_claude``, each bound with --model-role). ``prompt_style`` and
    ``source``, when given (the task passes its own), must match those of every opponent log, so replies are only
    compared when generated from the same prompt and histories."""
    if order not in ORDERS:
        raise EqEvalsError(f"-T order={order}: expected one of {ORDERS}")
    letters_of = prompts.criteria(rubric, judge_file)
    # each opponent log is read once per scorer, by the first sample that needs it
    opponent_logs: dict[str, tuple[str, dict[str, str], dict[str, Any]]] = {}
    reading = anyio.Lock()

    async def opponent_log(path: str) -> tuple[str, dict[str, str], dict[str, Any]]:
        async with reading:
            if path not in opponent_logs:
                opponent_logs[path] = await _opponent_log(path)
        return opponent_logs[path]

    async def score(state: TaskState, target: Target) -> Score:
        if cut := unscored_if_cut(before="a reply to judge"):  # not an empty reply: no automatic loss
            return cut
        md = state.metadata
        sid = str(state.sample_id)
        candidate = str(state.model)
        reply = store_as(HeartReply)
        text = reply.text if (reply.raw or reply.text) else prompts.clean_reply(state.output.completion)
        use_reference, paths = parse_opponents(opponents)
        opps: list[tuple[str, str]] = []
        skipped: list[str] = []
        if use_reference:
            ref = md.get("reference_response")
            if not ref:
                skipped.append("reference: this history has none (adversarial)")
            elif exclude_misaligned_reference and (
                md.get("reference_shared_with_sibling") or md.get("reference_repeats_history")
            ):
                skipped.append("reference: misaligned (exclude_misaligned_reference)")
            else:
                opps.append((reference_id(md), ref))
        for path in paths:
            model, replies, args = await opponent_log(path)
            for name, mine in (("prompt_style", prompt_style), ("source", source)):
                theirs = args.get(name, "release" if name == "prompt_style" else "")
                if mine is not None and (theirs or "") != (mine or ""):
                    raise EqEvalsError(
                        f"opponent log {path} was generated with -T {name}={theirs!r}, this run uses "
                        f"{mine!r}: replies are only compared on the same prompt and histories"
                    )
            if model == candidate:
                continue
            if not replies.get(sid):
                skipped.append(f"{model}: no reply to {sid} in {path}")
                continue
            opps.append((model, replies[sid]))
        if not opps:
            return Score.unscored(
                reason="no_opponent",
                explanation="; ".join(skipped) or "no opponents",
                metadata={"candidate": text, "skipped": skipped},
            )
        judges = ensemble(judge_roles)
        names = {str(j): j for j in judges}
        config = GenerateConfig(temperature=judge_temperature, max_tokens=judge_max_tokens)
        language = md.get("language", "en")
        records: list[dict[str, Any]] = []
        raw: dict[str, list[str]] = {}
        per_opp: dict[str, list[dict[str, tuple[int, int] | None]]] = {}

        def parse(r: str) -> dict[str, Any] | None:
            out = prompts.parse_judgment(r, rubric, judge_file)
            return out if out is not None and all(v is not None for v in out["verdicts"].values()) else None

        async def call(opp_id: str, judge_id: str, system: str, user: str, cand_first: bool) -> tuple[Any, list[str]]:
            async with span(f"{judge_id}: {candidate} vs {opp_id} ({'ab' if cand_first else 'ba'})"):
                parsed, used, replies, _ = await ask_until_parsed(
                    names[judge_id],
                    [ChatMessageSystem(content=system), ChatMessageUser(content=user)],
                    required(parse),
                    attempts,
                    config,
                    prompts.retry_note(language, judge_file),
                )
            read = parsed or prompts.parse_judgment(replies[-1] if replies else "", rubric, judge_file)
            label_call(candidate, opp_id, judge_id, cand_first, read, parsed is not None, used, letters_of)
            return parsed, replies

        plan: list[tuple[str, str, bool, bool, str, str]] = []  # opponent, judge, candidate first, self-judged, prompts
        for opp_id, opp_text in opps:
            per_opp[opp_id] = []
            if not text:  # automatic loss, flagged, no judge call (docs/heart.md, 'Judging (scorer heart_pairwise)')
                for letter in prompts.CRITERIA:
                    records.append(
                        _record(md, sid, candidate, opp_id, "", "none", letter, (1, 5), 0, rubric, False, None, None)
                        | {"error": "empty_response"}
                    )
                per_opp[opp_id].append({letter: (1, 5) for letter in prompts.CRITERIA})
                continue
            allowed, self_judged = eligible_judges(list(names), [candidate, opp_id], exclude_same_family)
            for judge_id in allowed:
                if order == "both":
                    firsts = [True, False]
                elif order == "fixed":
                    firsts = [True]
                else:
                    firsts = [order_seed(seed, sid, opp_id, judge_id).random() < 0.5]
                for cand_first in firsts:
                    shown = (text, opp_text) if cand_first else (opp_text, text)
                    system, user = prompts.judge_messages(md, *shown, rubric=rubric, file=judge_file)
                    plan.append((opp_id, judge_id, cand_first, self_judged, system, user))
        # all judge calls of the sample run concurrently; results are read back in plan order
        results = await asyncio.gather(*(call(o, j, sy, us, f) for o, j, f, _, sy, us in plan))
        for (opp_id, judge_id, cand_first, self_judged, system, user), (parsed, replies) in zip(plan, results):
            tag = "ab" if cand_first else "ba"
            raw[f"{opp_id}|{judge_id}|{tag}"] = replies
            if parsed is None:  # keep whatever criteria the last reply had; the rest are errors
                partial = prompts.parse_judgment(replies[-1], rubric, judge_file)
                verdicts = partial["verdicts"] if partial else {letter: None for letter in prompts.CRITERIA}
            else:
                verdicts = parsed["verdicts"]
                per_opp[opp_id].append(verdicts)
            for letter in prompts.CRITERIA:
                records.append(
                    _record(
                        md,
                        sid,
                        candidate,
                        opp_id,
                        judge_id,
                        tag,
                        letter,
                        verdicts.get(letter),
                        0 if cand_first else 1,
                        rubric,
                        self_judged,
                        "parse",
                        prompts.prompt_hash(system, user),
                    )
                )
        metadata = {
            "candidate": text,
            "opponents": [o for o, _ in opps],
            "verdicts": dump(verdicts_from_records(records, [o for o, _ in opps])),
            "judge_raw": raw,
            "skipped": skipped,
            "empty_response": not text,
            "criteria": letters_of,
            "order": order,
            "rubric": rubric,
        }
        valid = {o: v for o, v in per_opp.items() if v}
        if not valid:
            return Score.unscored(
                reason="judge_unparseable",
                explanation=f"no judge reply could be parsed after {attempts} attempts",
                metadata=metadata,
            )
        value: dict[str, float] = {}
        wins = {c: [] for c in prompts.CRITERIA}
        sweeps, margins = [], []
        for opp_id in valid:
            recs = [r for r in records if r["system_b"] == opp_id and r["winner"] is not None]
            calls: dict[tuple[str, str], dict[str, dict]] = {}
            for r in recs:
                calls.setdefault((r["judge"], r["order"]), {})[r["criterion"]] = r
            complete = [c for c in calls.values() if len(c) == len(prompts.CRITERIA)]
            for c in prompts.CRITERIA:
                wins[c].append(sum(call[c]["winner"] == "a" for call in complete) / len(complete))
            sweeps.append(
                sum(all(call[x]["winner"] == "a" for x in prompts.LETTERS) for call in complete) / len(complete)
            )
            margins.append(
                sum(
                    (1 if call["overall"]["winner"] == "a" else -1) * call["overall"]["strength"] / 5
                    for call in complete
                )
                / len(complete)
            )
        # the headline: the overall win rate against the reference reply (HEART paper §4.1), NaN when this
        # history's reference was not an opponent (adversarial histories have none): Inspect's metrics skip it
        ref = reference_id(md)
        value["vs_reference"] = wins["overall"][list(valid).index(ref)] if ref in valid else math.nan
        for c in prompts.CRITERIA:
            value[c] = sum(wins[c]) / len(wins[c])
        value["sweep"] = sum(sweeps) / len(sweeps)
        value["margin"] = sum(margins) / len(margins)
        # fractions of judges x orders, rounded for reading (Inspect View prints a sample's number in full, e.g.
        # 0.6666666666666666); the verdict records in the metadata keep every call for the ratings
        value = {k: v if math.isnan(v) else round(v, ROUND) for k, v in value.items()}
        explanation = verdict_table(records, candidate)
        return Score(value=value, answer=text, explanation=explanation, metadata=metadata)

    return score
