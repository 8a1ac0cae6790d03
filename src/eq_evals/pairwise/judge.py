"""The ``pairwise_judge`` scorer (docs/pairwise.md, '2. The judging task'; paper App. D and F).

For one matchup (a prompt instance, two models' responses, a dimension) each judge of the ``grader`` role
is called twice, with the responses in both orders, anonymised as "Response A"/"Response B". The prompt
(from a rubric file under ``scorers/``) asks for chain-of-thought reasoning before a verdict such as
``"B+++"``; the margin is the number of "+" (1-5). Replies that cannot be parsed are retried, then the
matchup is unscored with the reason. The two verdicts are combined as FACET's pipeline does (docs/ratings.md §1): the same
winner -> that winner with the rounded mean margin; different winners -> a draw (or discarded).
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from functools import cache
from typing import Any, Callable

from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageUser,
    GenerateConfig,
    Model,
    get_model,
    model_roles,
)
from inspect_ai.scorer import Score, Scorer, Target, mean, scorer
from inspect_ai.solver import TaskState
from inspect_ai.util import span

from eq_evals.core.limits import unscored_if_cut
from eq_evals.core.text import length, markdown_table
from eq_evals.core.view import note, short
from eq_evals.errors import EqEvalsError
from eq_evals.pairwise.verdict import JudgeCall, PairVerdict, combine, dump, has_verdicts, log_verdicts
from eq_evals.ratings import Verdict
from eq_evals.resources import load_yaml

VERDICT = re.compile(r"([AB])\s*(\+{1,6})")
BARE = re.compile(r"(?<![A-Za-z])([AB])(?![A-Za-z])")
PLACEHOLDERS = (
    "user_input",
    "response_a",
    "response_b",
    "length_a",
    "length_b",
    "dimension_name",
    "rubric",
    "process_extra",
    "guidelines_extra",
    "output_extra_fields",
)


@cache
def load_rubrics(file: str) -> dict[str, Any]:
    data = load_yaml("scorers", file)
    for key in ("templates", "dimensions", "length"):
        if not isinstance(data.get(key), dict):
            raise ValueError(f"scorers/{file}: needs a '{key}' mapping")
    for dim, spec in data["dimensions"].items():
        for field in ("name", "rubric"):
            if not isinstance(spec.get(field), dict):
                raise ValueError(f"scorers/{file}: dimensions.{dim}.{field} needs a text per language")
    return data


def length_label(text: str, language: str, rubrics: dict[str, Any], unit: str = "native") -> str:
    """``212 words`` / ``356字``; ``reference`` gives the raw character count the authors' code passed (A4)."""
    if unit == "reference":
        return str(length(text, language, "reference"))
    n = length(text, language)
    return f"{n} words" if rubrics["length"][language]["unit"] == "words" else f"{n}字"


_SPEAKER = re.compile(r"(?m)^\s*(User|Assistant|用户|助手)\s*[:：]\s*")


def bare_user_input(text: str) -> str:
    """The user's words without a lone speaker label: items written as one dialogue turn (``User: ...``,
    ``用户：...``) would otherwise read "User input: User: ..." in the judge prompt (issue 13). A text with
    several turns keeps its labels (they say who speaks)."""
    labels = list(_SPEAKER.finditer(text))
    if len(labels) == 1 and labels[0].start() == 0 and labels[0].group(1) in ("User", "用户"):
        return text[labels[0].end() :].strip()
    return text


def judge_prompt(
    rubrics: dict[str, Any],
    dimension: str,
    language: str,
    user_input: str,
    response_a: str,
    response_b: str,
    unit: str = "native",
) -> str:
    spec = rubrics["dimensions"].get(dimension)
    if spec is None:
        raise EqEvalsError(f"no judge rubric for dimension {dimension!r}")
    text = {k: v[language] if isinstance(v, dict) else v for k, v in spec.items() if isinstance(v, (dict, str))}
    user_input = bare_user_input(user_input)
    values = {
        "user_input": user_input,
        "response_a": response_a,
        "response_b": response_b,
        "length_a": length_label(response_a, language, rubrics, unit),
        "length_b": length_label(response_b, language, rubrics, unit),
        "dimension_name": text["name"],
        "rubric": text["rubric"],
        "process_extra": text.get("process_extra", ""),
        "guidelines_extra": text.get("guidelines_extra", ""),
        "output_extra_fields": text.get("output_extra_fields", ""),
    }
    # the responses are inserted last, so braces inside them are never read as placeholders
    skeleton = rubrics["templates"][language].format_map(
        {**values, "user_input": "\x00U", "response_a": "\x00A", "response_b": "\x00B"}
    )
    return skeleton.replace("\x00U", user_input).replace("\x00A", response_a).replace("\x00B", response_b)


def parse_verdict(reply: str) -> Verdict:
    """The winner letter and margin from a judge reply (docs/pairwise.md, '2. The judging task', 'Parsing'; not the reference's
    anything-but-A-is-B): the first ``A++``-style token of the ``overall_winner`` field (so a note such as
    "B+++ (reduced from B++++)" reads B+++), else the last such token anywhere, else a bare A/B. Full-width
    characters (＋, Ａ) are normalised first."""
    reply = unicodedata.normalize("NFKC", reply or "")
    candidates = []
    for blob in re.findall(r"\{.*\}", reply or "", flags=re.DOTALL):
        try:
            data = json.loads(blob)
        except json.JSONDecodeError:
            continue
        if isinstance(data, dict) and isinstance(data.get("overall_winner"), str):
            candidates.append(data["overall_winner"])
    field = re.findall(r'"overall_winner"\s*:\s*"([^"]*)"', reply or "")
    for text in candidates + field + [reply]:
        matches = VERDICT.findall(text)
        if matches:
            letter, pluses = matches[0] if text is not reply else matches[-1]
            return Verdict(letter, min(len(pluses), 5))
        if text is not reply:
            bare = BARE.findall(text)
            if bare:
                return Verdict(bare[-1], 0)
    return Verdict(None, 0)


def call_key(judge: Model | str, prompt: str, config: GenerateConfig) -> str:
    """The identity of one judge call: judge model, exact prompt (so the rubric version, the dimension, the
    language, the matchup and the order of the two responses) and the sampling settings that change replies."""
    blob = json.dumps([str(judge), prompt, config.temperature, config.seed], ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def load_verdicts(logs: str) -> dict[str, JudgeCall]:
    """call key -> the recorded call (with ``reused_from`` = its log), for every parsed call in earlier judging
    logs, including logs of runs that crashed or were cancelled (their finished samples). Calls without a key
    and unparseable calls are not reused. Logs of other tasks are an error."""
    from eq_evals.logcheck import expand_log_paths, read

    out: dict[str, JudgeCall] = {}
    for path in expand_log_paths(logs):
        log = read(path)
        if not has_verdicts(log) and log.samples:
            raise EqEvalsError(
                f"-T reuse: {path} is a log of {log.eval.task}, not of a judging task (its samples "
                "carry no verdict records)"
            )
        for _, verdict in log_verdicts(log, path):
            for call in verdict.calls:
                if call.key and call.verdict is not None:
                    out.setdefault(call.key, call.model_copy(update={"reused_from": call.reused_from or path}))
    return out


def grader_models() -> list[Model]:
    bound = model_roles().get("grader")
    if bound is None:
        model = get_model(role="grader")
        if str(model).startswith("none"):
            raise EqEvalsError("pairwise judging needs a judge: --model-role grader=<model> (or a panel: grader=a,b)")
        return [model]
    return bound if isinstance(bound, list) else [bound]


RETRY_NOTE = {
    "en": 'Your reply could not be read. Answer again in the JSON format requested, ending with "overall_winner" '
    'set to A or B followed by one to five "+" signs, e.g. "A++".',
    "zh": '无法读取你的回复。请按要求的JSON格式重新回答，"overall_winner"写A或B并在后面加一到五个"+"，例如"A++"。',
}


async def ask_until_parsed(
    model: Model,
    messages: list[ChatMessage],
    parse: Callable[[str], Any],
    attempts: int,
    config: GenerateConfig,
    note: str,
    cache: bool = False,
) -> tuple[Any, int, list[str], str | None]:
    """Call ``model`` until ``parse(reply)`` succeeds (it raises ValueError otherwise), at most ``attempts``
    times; after an unreadable reply the conversation continues with that reply and the correction ``note``.
    Returns (parsed value or None, attempts used, every reply, the last parse problem or None)."""
    replies: list[str] = []
    messages = list(messages)
    problem: str | None = None
    for attempt in range(1, attempts + 1):
        output = await model.generate(messages, config=config, cache=cache)
        reply = output.completion
        replies.append(reply)
        try:
            return parse(reply), attempt, replies, None
        except ValueError as ex:
            problem = str(ex)
        messages += [ChatMessageAssistant(content=reply), ChatMessageUser(content=note)]
    return None, attempts, replies, problem


def _verdict_or_fail(reply: str) -> Verdict:
    verdict = parse_verdict(reply)
    if verdict.winner is None:
        raise ValueError("no verdict")
    return verdict


async def judge_once(
    judge: Model,
    prompt: str,
    order: list[str],
    attempts: int,
    config: GenerateConfig,
    language: str = "en",
    earlier: dict[str, JudgeCall] | None = None,
    cache: bool = False,
    criterion: str = "",
) -> JudgeCall:
    """One judge call, retried with a correction note when the verdict cannot be parsed. A verdict already
    recorded under the same call_key in ``earlier`` (``load_verdicts``) is reused without calling the judge;
    ``cache`` turns on Inspect's model cache for the calls that are made."""
    key = call_key(judge, prompt, config)
    if earlier and key in earlier:
        call = earlier[key]
        if call.order != order:  # cannot happen for an equal key unless a log was edited
            raise EqEvalsError(
                f"reused verdict {key[:12]} from {call.reused_from} has order {call.order}, expected {order}"
            )
        return call.model_copy(update={"judge": str(judge), "criterion": criterion})
    verdict, attempt, replies, _ = await ask_until_parsed(
        judge,
        [ChatMessageUser(content=prompt)],
        _verdict_or_fail,
        attempts,
        config,
        RETRY_NOTE.get(language, RETRY_NOTE["en"]),
        cache=cache,
    )
    if verdict is not None:
        winner = order[0] if verdict.winner == "A" else order[1]
        return JudgeCall(
            judge=str(judge),
            criterion=criterion,
            order=order,
            verdict=f"{verdict.winner}{'+' * verdict.margin}",
            winner=winner,
            margin=verdict.margin,
            attempts=attempt,
            reasoning=replies[-1],
            key=key,
        )
    return JudgeCall(
        judge=str(judge),
        criterion=criterion,
        order=order,
        attempts=attempts,
        reasoning="\n---\n".join(replies),
        key=key,
        error="judge_unparseable",
    )


def call_title(call: JudgeCall) -> str:
    """Who judged what, in which order, and the verdict: the title of the call's INFO block in Inspect View."""
    a, b = (short(m) for m in call.order)
    said = (
        f"{call.verdict} ({short(call.winner)})"
        if call.winner is not None
        else f"no verdict ({call.error or 'unreadable'}, {call.attempts} attempts)"
    )
    return f"{short(call.judge)} judges {call.criterion}: A={a}, B={b} → {said}" + (
        " [reused]" if call.reused_from else ""
    )


def label_call(call: JudgeCall) -> None:
    """Follow a judge call in the transcript with an INFO block naming the judge, the criterion, the order shown
    and the verdict (core/view.py: Inspect View draws no span opened in a scorer)."""
    rows = [
        ["judge", call.judge],
        ["criterion", call.criterion],
        ["shown as A", call.order[0]],
        ["shown as B", call.order[1]],
        ["verdict", call.verdict or "none"],
        ["favours", call.winner or "none"],
        ["margin", str(call.margin)],
        ["attempts", str(call.attempts)],
    ]
    body = markdown_table(["", "this call"], rows)
    if call.reused_from:
        body += f"\n\nReused from `{call.reused_from}`: no judge call was made."
    note(call_title(call), body)


# The run's metrics describe the judge, not a model: model_a's mean outcome depends only on which contestant the
# pairing named first, so it is no metric (the ratings come from the verdicts: eq-evals ratings). The first metric,
# the one Inspect View lists a run by, is the share of matchups whose two orders disagreed.
@scorer(metrics={"conflicted": [mean()], "margin": [mean()]})
def pairwise_judge(
    rubrics: str,
    conflict_policy: str = "draw",
    attempts: int = 3,
    length_unit: str = "native",
    reuse: str | None = None,
    cache: bool = False,
) -> Scorer:
    """Judge one matchup in both orders with every judge of the ``grader`` role.

    ``reuse``: earlier judging logs (folder/files) whose verdicts are taken instead of calling the judge
    again for the same call_key (after a crash, when adding a model, when re-judging a subset); such calls
    carry ``reused_from``. ``cache``: Inspect's model cache for the judge calls that are made.

    Value: ``outcome`` for ``model_a`` (1 win, 0 loss, 0.5 draw; mean over judges), ``margin`` and
    ``conflicted`` (position-inconsistent verdict pairs). Metrics: the mean ``conflicted`` (first: the run's
    headline in Inspect View) and ``margin``; no mean outcome (it would only say how often the contestant named
    first won). Metadata keeps each judge's calls, verdicts and
    reasoning for the ratings and the judge diagnostics.
    """
    if conflict_policy not in ("draw", "discard"):
        raise ValueError(f"conflict_policy must be 'draw' or 'discard', not {conflict_policy!r}")
    if length_unit not in ("native", "reference"):
        raise ValueError(f"length_unit must be 'native' or 'reference', not {length_unit!r}")
    earlier = load_verdicts(reuse) if reuse else None

    async def score(state: TaskState, target: Target) -> Score:
        if cut := unscored_if_cut(before="the matchup was judged"):
            return cut
        md = state.metadata
        rubric = load_rubrics(rubrics)
        judge_cfg = rubric.get("judge", {})
        config = GenerateConfig(temperature=judge_cfg.get("temperature"), seed=judge_cfg.get("seed"))
        a, b, language, dimension = md["model_a"], md["model_b"], md["language"], md["dimension"]
        texts = {a: md["response_a"], b: md["response_b"]}
        record = PairVerdict(
            model_a=a,
            model_b=b,
            item=str(md["item"]),
            sample=str(state.sample_id),
            language=language,
            phase=md.get("phase", ""),
            epoch=md.get("epoch"),
            rubric=rubrics,
            lengths={a: length(texts[a], language), b: length(texts[b], language)},
        )
        for judge in grader_models():
            calls = []
            for first, second in ((a, b), (b, a)):
                prompt = judge_prompt(
                    rubric, dimension, language, md["user_input"], texts[first], texts[second], length_unit
                )
                async with span(f"{judge} judges {dimension}: A={first}, B={second}", type="judge"):
                    call = await judge_once(
                        judge, prompt, [first, second], attempts, config, language, earlier, cache, criterion=dimension
                    )
                    label_call(call)
                    calls.append(call)
            record.calls += calls
            record.judgments.append(combine(calls, a, conflict_policy))
        metadata = {"verdicts": dump([record])}
        valid = [j for j in record.judgments if j.outcome is not None]
        failures = [
            f"{j.judge}: "
            + (
                "unparseable reply after {} attempts".format(attempts)
                if j.reason == "judge_unparseable"
                else "position-inconsistent verdicts discarded (conflict_policy=discard)"
            )
            for j in record.judgments
            if j.outcome is None
        ]
        if not valid:
            reason = (
                "judge_unparseable"
                if any(j.reason == "judge_unparseable" for j in record.judgments)
                else "verdicts_discarded"
            )
            return Score.unscored(reason=reason, explanation="; ".join(failures), metadata=metadata)
        outcome = sum(j.outcome for j in valid) / len(valid)  # type: ignore[misc]
        value = {
            "outcome": outcome,
            "margin": sum(j.margin for j in valid) / len(valid),
            "conflicted": sum(j.conflicted for j in valid) / len(valid),
        }
        lines = []
        for j in record.judgments:
            shown = ", ".join(
                f"[A={c.order[0]}, B={c.order[1]}] {c.verdict}" for c in record.calls if c.judge == j.judge
            )
            if j.outcome is None:
                lines.append(f"{j.judge}: {shown} -> not recorded")
            else:
                who = a if j.outcome == 1 else b if j.outcome == 0 else "draw"
                lines.append(f"{j.judge}: {shown} -> {who} (margin {j.margin}{', conflicted' if j.conflicted else ''})")
        answer = a if outcome > 0.5 else b if outcome < 0.5 else "draw"
        return Score(value=value, answer=answer, explanation="\n".join(lines), metadata=metadata)

    return score


def _validate(rubrics: str, **_: object) -> None:
    load_rubrics(rubrics)


pairwise_judge.validate_declaration = _validate  # type: ignore[attr-defined]


def required(parse: Callable[[str], Any]) -> Callable[[str], Any]:
    """Adapt a parser that returns None for an unreadable reply to ``ask_until_parsed`` (which retries on
    ValueError)."""

    def strict(reply: str) -> Any:
        value = parse(reply)
        if value is None:
            raise ValueError("the reply could not be parsed")
        return value

    return strict
