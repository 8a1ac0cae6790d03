"""The Sentient Agent loop (paper §2.1-2.2; docs/sage.md, 'The loop'): the simulated user (model role
``simulated_user``) updates its emotion after every tested reply, then replies; the tested model sees
only the visible dialogue."""

from __future__ import annotations

from typing import Any

from inspect_ai._util.error import PrerequisiteError
from inspect_ai.log import transcript
from inspect_ai.model import ChatMessageSystem, ChatMessageUser, Model, get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import StoreModel, span, store_as
from pydantic import Field

from eq_evals.errors import EqEvalsError
from eq_evals.sage import prompts
from eq_evals.sage.rules import (
    UNPARSEABLE,
    EmotionOutput,
    ReplyOutput,
    Rules,
    SimulatorParseError,
    load_rules,
    parse_emotion_output,
    parse_reply_output,
)

USER_ROLE = "simulated_user"


class SageStore(StoreModel):
    """Per-sample state of the Sentient Agent (hidden from the tested model; shown in the log)."""

    emotion: int = 40
    emotion_state: str = "Emotion-B"
    trajectory: list[int] = Field(default_factory=list)
    turns: list[dict[str, Any]] = Field(default_factory=list)
    end_reason: str | None = None
    failure: str | None = None
    npc_turns: int = 0
    updates: int = 0
    parse_retries: int = 0
    npc_output_tokens: int = 0
    npc_reasoning_tokens: int = 0
    simulator: str | None = None


def _short(text: str, n: int = 600) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


async def _ask(
    model: Model, prompt: str, parse: Any, attempts: int, note: Any = None
) -> tuple[Any, int, str, str | None]:
    """Call the simulator up to ``attempts`` times until ``parse`` accepts the output; a retry appends
    ``note(problem)`` (a short correction) to the prompt, so it is not the identical request.
    Returns (parsed or None, retries used, last raw output, last parse error)."""
    raw, problem = "", None
    for attempt in range(attempts):
        content = prompt if attempt == 0 or note is None else f"{prompt}\n\n{note(problem)}"
        output = await model.generate([ChatMessageUser(content=content)])
        raw = output.completion
        try:
            return parse(raw), attempt, raw, None
        except SimulatorParseError as ex:
            problem = str(ex)
    return None, attempts - 1, raw, problem


def _user_model(role: str) -> Model:
    try:
        return get_model(role=role, required=True)
    except PrerequisiteError:
        raise EqEvalsError(
            f"SAGE needs a simulated user: bind the model role with --model-role {role}=<provider/model> "
            f"(e.g. --model-role '{role}={{model: deepseek/deepseek-chat, temperature: 0.5}}'); the paper's "
            "reference simulator is DeepSeek-V3 (2024-12-27). For an offline check use eq_evals/scripted-sage-user."
        ) from None


@solver
def sentient_dialogue(
    max_turns: int = 10,
    initial_emotion: int | None = None,
    max_change: int | None = None,
    score_final_reply: bool = False,
    generate_final_reply: bool = True,
    npc_system_prompt: str | None = None,
    max_parse_retries: int = 2,
    prompts_file: str = prompts.PROMPTS_FILE,
    rules_file: str = "sage/rules.yaml",
    user_role: str = USER_ROLE,
) -> Solver:
    """Run one SAGE dialogue.

    Args:
        max_turns: maximum tested-model replies (docs/sage.md, 'Parameters (-T)': 10 replies, 9 emotion updates).
        initial_emotion: start emotion (default from scorers/sage/rules.yaml: 40).
        max_change: per-update clip (default 10).
        score_final_reply: also score the last tested reply with one extra update (not the paper's rule).
        generate_final_reply: generate the last, never-scored tested reply (the paper's runs do).
        npc_system_prompt: system prompt of the tested model (default: solvers/sage/simulator.yaml).
        max_parse_retries: extra simulator calls when an output cannot be parsed; then the sample ends
            with end reason ``simulator_unparseable`` and is left unscored.
        prompts_file: simulator prompt file under solvers/.
        rules_file: emotion rules file under scorers/.
        user_role: model role of the simulated user.
    """
    if max_turns < 1:
        raise EqEvalsError(f"max_turns must be >= 1 (got {max_turns})")
    if max_parse_retries < 0:
        raise EqEvalsError(f"max_parse_retries must be >= 0 (got {max_parse_retries})")
    rules: Rules = load_rules(rules_file).with_overrides(initial_emotion, max_change)
    prompts.load_prompts(prompts_file)
    attempts = max_parse_retries + 1

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        meta = state.metadata
        lang = meta["language"]
        prompts.require_language(lang, prompts_file)
        user = _user_model(user_role)
        sage = store_as(SageStore)
        sage.simulator = str(user)
        e = rules.initial_emotion
        sage.emotion, sage.emotion_state, sage.trajectory = e, rules.state(e), [e]

        system = npc_system_prompt if npc_system_prompt is not None else prompts.text("npc_system", lang, prompts_file)
        visible = [m for m in state.messages if m.role != "system"]
        if visible and visible[0].role == "user":
            visible[0].metadata = {
                **(visible[0].metadata or {}),
                "emotion": e,
                "emotion_state": sage.emotion_state,
                "turn": 1,
            }
        state.messages = ([ChatMessageSystem(content=system)] if system else []) + visible

        def retry_note(problem: str | None) -> str:
            return prompts.retry_note(problem, lang, prompts_file)

        def dialogue() -> list:
            return [m for m in state.messages if m.role in ("user", "assistant")]

        async def emotion_update(k: int) -> EmotionOutput | None:
            prompt = prompts.emotion_prompt(
                meta, sage.emotion, prompts.history_json(dialogue(), lang, prompts_file), prompts_file
            )
            parsed, retries, raw, problem = await _ask(user, prompt, parse_emotion_output, attempts, retry_note)
            sage.parse_retries += retries
            if parsed is None:
                sage.end_reason = UNPARSEABLE
                sage.failure = (
                    f"turn {k}: the emotion-update output could not be parsed after {attempts} "
                    f"attempt(s) ({problem}); last output: {_short(raw, 300)!r}"
                )
            return parsed

        for k in range(1, max_turns + 1):
            async with span(f"turn {k}", type="sage_turn"):
                if k >= 2:
                    before = sage.emotion
                    update = await emotion_update(k)
                    if update is None:
                        break
                    after, applied = rules.update(before, update.raw_change)
                    label = rules.state(after)
                    feeling = prompts.feeling_text(
                        update.target_completion, update.activity, update.analyse, lang, prompts_file
                    )
                    msgs = dialogue()
                    prompt = prompts.reply_prompt(
                        meta,
                        label,
                        prompts.history_json(msgs[:-2], lang, prompts_file),
                        prompts.history_json(msgs[-2:], lang, prompts_file),
                        feeling,
                        prompts_file,
                    )
                    reply, retries, raw, problem = await _ask(user, prompt, parse_reply_output, attempts, retry_note)
                    sage.parse_retries += retries
                    if reply is None:
                        sage.end_reason = UNPARSEABLE
                        sage.failure = (
                            f"turn {k}: the reply output could not be parsed after {attempts} attempt(s) "
                            f"({problem}); last output: {_short(raw, 300)!r}"
                        )
                        break
                    assert isinstance(reply, ReplyOutput)
                    sage.emotion, sage.emotion_state = after, label
                    sage.updates += 1
                    sage.trajectory = [*sage.trajectory, after]
                    state.messages.append(
                        ChatMessageUser(
                            content=reply.reply,
                            metadata={
                                "emotion": after,
                                "emotion_state": label,
                                "change": applied,
                                "raw_change": update.raw_change,
                                "turn": k,
                            },
                        )
                    )
                    sage.turns = [
                        *sage.turns,
                        {
                            "turn": k,
                            "npc_reply": msgs[-1].text if msgs else "",
                            "emotion_before": before,
                            "emotion_after": after,
                            "raw_change": update.raw_change,
                            "applied_change": applied,
                            "state": label,
                            "content": update.content,
                            "target_completion": update.target_completion,
                            "activity": update.activity,
                            "analyse": update.analyse,
                            "thinking": reply.thinking,
                            "user_reply": reply.reply,
                        },
                    ]
                    transcript().info(
                        f"**Turn {k} · emotion {before} → {after} ({applied:+d}) · {label}**\n\n"
                        f"- *NPC intent*: {_short(update.content)}\n- *Goal fit*: {_short(update.target_completion)}\n"
                        f"- *Inner thoughts*: {_short(update.activity)}\n- *Feeling*: {_short(update.analyse)}\n"
                        f"- *Reply plan*: {_short(reply.thinking, 400)}\n- *Reply*: {reply.reply}",
                        source="sentient_agent",
                    )
                    reason = rules.end_reason(after, reply.reply)
                    if reason:
                        sage.end_reason = reason
                        break
                else:
                    transcript().info(
                        f"**Turn 1 · emotion {e} · {sage.emotion_state}** (opening line: {meta['first_talk']})",
                        source="sentient_agent",
                    )
                if k == max_turns and not generate_final_reply:
                    break
                state = await generate(state)
                sage.npc_turns += 1
                usage = state.output.usage if state.output else None
                if usage is not None:
                    sage.npc_output_tokens += usage.output_tokens or 0
                    sage.npc_reasoning_tokens += usage.reasoning_tokens or 0

        if sage.end_reason is None:
            if score_final_reply and dialogue() and dialogue()[-1].role == "assistant":
                # Not the paper's rule (docs/sage.md, 'Parameters (-T)', score_final_reply): one extra update scores the last tested reply.
                async with span("final update", type="sage_turn"):
                    before = sage.emotion
                    update = await emotion_update(max_turns + 1)
                    if update is not None:
                        after, applied = rules.update(before, update.raw_change)
                        sage.emotion, sage.emotion_state = after, rules.state(after)
                        sage.updates += 1
                        sage.trajectory = [*sage.trajectory, after]
                        sage.turns = [
                            *sage.turns,
                            {
                                "turn": max_turns + 1,
                                "emotion_before": before,
                                "emotion_after": after,
                                "raw_change": update.raw_change,
                                "applied_change": applied,
                                "state": sage.emotion_state,
                                "activity": update.activity,
                                "analyse": update.analyse,
                            },
                        ]
                        transcript().info(
                            f"**Final update · emotion {before} → {after} ({applied:+d})**\n\n"
                            f"- *Inner thoughts*: {_short(update.activity)}",
                            source="sentient_agent",
                        )
            if sage.end_reason is None:
                sage.end_reason = "max_turns"
        transcript().info(
            f"**Trajectory** {' → '.join(map(str, sage.trajectory))} · end: {sage.end_reason}"
            + (f" · {sage.failure}" if sage.failure else ""),
            source="sentient_agent",
        )
        return state

    return solve
