"""SAGE's arithmetic: the emotion update, the state labels, termination, the simulator-output parsers and
the leaderboard aggregation. Pure functions, shared by the solver, the scorer, the leaderboard and the
tests that replay the released transcripts (docs/sage.md, 'Leaderboard', last paragraph).
"""

from __future__ import annotations

import math
import re
import statistics
import unicodedata
from dataclasses import dataclass, field
from functools import cache
from typing import Any, Iterable

from eq_evals.resources import display_path, load_yaml, resource

RULES_FILE = "sage/rules.yaml"

# The eight hidden intentions (SAGE paper §3.1, Table 1): slug -> (type, exact zh string, en wording).
INTENTIONS: dict[str, tuple[str, str, str]] = {
    "dialectical_analysis": (
        "rational",
        "你希望对方辩证地分析事件中的问题",
        "You hope the other person will analyze the problems in the situation dialectically.",
    ),
    "practical_advice": (
        "rational",
        "你想获得能真实帮助你解决当下困境的建议",
        "You want to receive advice that can truly help you solve your current difficulties.",
    ),
    "analyze_others": (
        "rational",
        "你想分析事件中其他人物这么做的原因",
        "You wish to analyze the reasons behind the actions of other people involved in the situation.",
    ),
    "self_reflection": (
        "rational",
        "你希望对方引导你针对事件进行自我反思，收获自我成长",
        "You hope the other person will guide you to engage in self-reflection regarding the incident "
        "and help you achieve personal growth.",
    ),
    "sincere_praise": (
        "emotional",
        "你希望对方真诚地夸奖你在事件中的具体行为",
        "You hope the other person will sincerely praise your specific actions in the situation.",
    ),
    "attentive_listening": (
        "emotional",
        "你希望对方用心倾听你的情绪宣泄",
        "You want the other person to attentively listen to your emotional outpouring.",
    ),
    "deep_empathy": (
        "emotional",
        "你希望对方深刻共情你的感受，而不是简单的安慰",
        "You hope the other person will deeply empathize with your feelings, rather than simply offering comfort.",
    ),
    "agree_not_at_fault": (
        "emotional",
        "你认为自己在事件中没有任何责任和错误，你想要对方也认同你没有错",
        "You believe you bear no responsibility or fault in the situation, and you want the other "
        "person to agree that you are not at fault.",
    ),
}
INTENTION_BY_TEXT: dict[str, str] = {text: slug for slug, (_, zh, en) in INTENTIONS.items() for text in (zh, en)}

# Personality types (datasets/sage/README.md, 'Schema', `main_cha`): released Chinese label / English label -> slug.
PERSONALITIES: dict[str, str] = {
    "负面型": "negative",
    "被动型": "passive",
    "回避型": "avoidant",
    "negative": "negative",
    "passive": "passive",
    "avoidant": "avoidant",
}

_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s+|\n+")
END_REASONS = ("emotion_ge_100", "emotion_lt_10", "goodbye", "max_turns")
UNPARSEABLE = "simulator_unparseable"


def intention_of(task: str) -> str | None:
    return INTENTION_BY_TEXT.get(unicodedata.normalize("NFKC", task).strip()) or INTENTION_BY_TEXT.get(task.strip())


@dataclass(frozen=True)
class Rules:
    initial_emotion: int = 40
    max_change: int = 10
    ceiling: int = 100
    floor: int = 0
    success_at: int = 100
    failure_below: int = 10
    states: tuple[tuple[str, int], ...] = (
        ("Emotion-S", 100),
        ("Emotion-A", 70),
        ("Emotion-B", 40),
        ("Emotion-C", 10),
        ("Emotion-F", -1000),
    )
    goodbye_substrings: tuple[str, ...] = ("再见", "拜拜")
    goodbye_regexes: tuple[str, ...] = ()
    goodbye_closings: tuple[str, ...] = ()
    source: str = field(default="(defaults)", compare=False)

    def state(self, emotion: int) -> str:
        """The emotion state label given to the reply prompt (docs/sage.md, 'The loop')."""
        return next(label for label, lower in self.states if emotion >= lower)

    def update(self, emotion: int, raw_change: int) -> tuple[int, int]:
        """Paper eq. 1 with the released code's constants: clip the change to +-max_change, cap at the
        ceiling (docs/sage.md, 'The loop'), clamp at the floor (safety only). Returns (new emotion, applied change)."""
        delta = max(-self.max_change, min(self.max_change, int(raw_change)))
        new = max(self.floor, min(emotion + delta, self.ceiling))
        return new, new - emotion

    def says_goodbye(self, reply: str) -> bool:
        """Substrings and ``regex`` patterns anywhere in the reply; ``closing`` patterns only on its last
        sentence, i.e. a farewell that closes the reply (not a narrative "I never got to say goodbye")."""
        if any(s in reply for s in self.goodbye_substrings):
            return True
        if any(re.search(rx, reply, flags=re.IGNORECASE) for rx in self.goodbye_regexes):
            return True
        sentences = [p.strip() for p in _SENTENCE_END.split(reply) if p.strip(" \t\"'“”‘’")]
        last = sentences[-1] if sentences else ""
        return any(re.search(rx, last, flags=re.IGNORECASE) for rx in self.goodbye_closings)

    def end_reason(self, emotion: int, reply: str) -> str | None:
        """Checked right after a simulated-user reply (docs/sage.md, 'The loop'). Priority: >= 100, < 10, goodbye."""
        if emotion >= self.success_at:
            return "emotion_ge_100"
        if emotion < self.failure_below:
            return "emotion_lt_10"
        if self.says_goodbye(reply):
            return "goodbye"
        return None

    def with_overrides(self, initial_emotion: int | None = None, max_change: int | None = None) -> "Rules":
        from dataclasses import replace

        return replace(
            self,
            initial_emotion=self.initial_emotion if initial_emotion is None else int(initial_emotion),
            max_change=self.max_change if max_change is None else int(max_change),
        )


@cache
def load_rules(file: str = RULES_FILE) -> Rules:
    where = display_path(resource("scorers", file))
    data = load_yaml("scorers", file)
    try:
        states = tuple((str(s["label"]), int(s["at_least"])) for s in data["states"])
        goodbye = data.get("goodbye") or {}
        subs = tuple(s for spec in goodbye.values() for s in (spec.get("substrings") or []))
        rxs = tuple(spec["regex"] for spec in goodbye.values() if spec.get("regex"))
        closings = tuple(spec["closing"] for spec in goodbye.values() if spec.get("closing"))
        for rx in rxs + closings:
            re.compile(rx)
        rules = Rules(
            initial_emotion=int(data["initial_emotion"]),
            max_change=int(data["max_change"]),
            ceiling=int(data["ceiling"]),
            floor=int(data["floor"]),
            success_at=int(data["success_at"]),
            failure_below=int(data["failure_below"]),
            states=states,
            goodbye_substrings=subs,
            goodbye_regexes=rxs,
            goodbye_closings=closings,
            source=where,
        )
    except (KeyError, TypeError, ValueError, re.error) as ex:
        raise ValueError(f"{where}: invalid SAGE rules ({type(ex).__name__}: {ex})") from None
    if [lower for _, lower in states] != sorted((lower for _, lower in states), reverse=True):
        raise ValueError(f"{where}: states must be listed from the highest lower bound down")
    return rules


# ---------------------------------------------------------------------------------------------
# replay (the solver's loop without models): used to check the rules against released transcripts


@dataclass
class Replay:
    trajectory: list[int]
    final: int
    end_reason: str
    updates: int
    npc_turns: int


def replay(raw_changes: list[int], replies: list[str], rules: Rules | None = None, max_turns: int = 10) -> Replay:
    """Run the termination logic of docs/sage.md, 'The loop' on recorded simulator outputs: ``raw_changes[i]`` and
    ``replies[i]`` are the change and the user reply of update i+1. Extra entries after the end are ignored."""
    rules = rules or load_rules()
    e = rules.initial_emotion
    trajectory, npc_turns, updates = [e], 0, 0
    for k in range(1, max_turns + 1):
        if k >= 2:
            if updates >= len(raw_changes):
                raise ValueError(f"the dialogue needs an update at turn {k} but only {len(raw_changes)} were given")
            e, _ = rules.update(e, raw_changes[updates])
            reply = replies[updates] if updates < len(replies) else ""
            updates += 1
            trajectory.append(e)
            reason = rules.end_reason(e, reply)
            if reason:
                return Replay(trajectory, e, reason, updates, npc_turns)
        npc_turns += 1
    return Replay(trajectory, e, "max_turns", updates, npc_turns)


# ---------------------------------------------------------------------------------------------
# parsing the simulator's two outputs (docs/sage.md, 'The loop'; tolerant superset, docs/sage.md, 'Implementation details and deviations')


class SimulatorParseError(ValueError):
    """The simulated user's output lacks a required section."""


EMOTION_HEADERS = ("Content", "TargetCompletion", "Activity", "Analyse", "Change")
_HEADER = re.compile(
    r"(?im)(?<![A-Za-z])(Content|TargetCompletion|Target Completion|Activity|Analyse|"
    r"Analysis|Change|Thinking|Draft|Revision|Response)\s*[:：]"
)
_INT = re.compile(r"[+-]?\s?\d+")


def _normalise(text: str) -> str:
    """Markdown emphasis removed (as the released parser does); full-width text is kept for display."""
    return (text or "").replace("*", "")


def _number_text(text: str) -> str:
    return unicodedata.normalize("NFKC", text).replace("−", "-").replace("–", "-")


def _sections(text: str) -> dict[str, str]:
    """Header -> body; a repeated header keeps its last occurrence (the original splits on the last one)."""
    out: dict[str, str] = {}
    marks = list(_HEADER.finditer(text))
    for i, m in enumerate(marks):
        name = m.group(1).replace(" ", "")
        name = {"Analysis": "Analyse"}.get(name, name)
        end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
        out[name] = text[m.end() : end]
    return out


def _clean(body: str) -> str:
    body = body.strip()
    if body.startswith("[") and body.endswith("]"):
        body = body[1:-1].strip()
    return body.strip()


@dataclass
class EmotionOutput:
    raw_change: int
    content: str
    target_completion: str
    activity: str
    analyse: str


def parse_emotion_output(text: str) -> EmotionOutput:
    """The emotion-update output: the signed integer after the last ``Change:`` header (first integer
    wins, e.g. ``Change: 变化为-5`` -> -5), plus the four analysis fields. Raises SimulatorParseError."""
    norm = _normalise(text)
    parts = _sections(norm)
    if "Change" not in parts:
        raise SimulatorParseError("no 'Change:' section in the emotion-update output")
    m = _INT.search(_number_text(parts["Change"]))
    if m is None:
        raise SimulatorParseError(f"no integer after 'Change:' (got {parts['Change'].strip()[:60]!r})")
    return EmotionOutput(
        raw_change=int(m.group(0).replace(" ", "")),
        content=_clean(parts.get("Content", "")),
        target_completion=_clean(parts.get("TargetCompletion", "")),
        activity=_clean(parts.get("Activity", "")),
        analyse=_clean(parts.get("Analyse", "")),
    )


@dataclass
class ReplyOutput:
    reply: str
    thinking: str


_QUOTES = "\"'“”‘’「」『』"


def parse_reply_output(text: str) -> ReplyOutput:
    """The reply output: everything after the last ``Response:`` header line, without brackets and quotes; the
    thinking is everything before it (docs/sage.md, 'Implementation details and deviations'). Raises SimulatorParseError."""
    raw = _normalise(text)
    # the header at the start of a line, so "my response: no" inside the reply does not cut it; a header
    # inside a line counts only when no line starts with one
    marks = list(re.finditer(r"(?im)^[ \t#>-]*Response[ \t]*[:：]", raw)) or list(
        re.finditer(r"(?im)(?<![A-Za-z])Response\s*[:：]", raw)
    )
    if not marks:
        raise SimulatorParseError("no 'Response:' section in the reply output")
    reply = raw[marks[-1].end() :].strip()
    for _ in range(2):
        reply = _clean(reply).strip(_QUOTES).strip()
    if not reply:
        raise SimulatorParseError("the 'Response:' section is empty")
    thinking = re.sub(r"(?im)^\s*#*\s*Thinking\s*[:：]\s*", "", raw[: marks[-1].start()], count=1).strip()
    return ReplyOutput(reply=reply, thinking=thinking)


# ---------------------------------------------------------------------------------------------
# aggregation (SAGE paper §4.1, Table 2)


@dataclass
class Aggregate:
    n: int
    sentient: float
    ci_low: float
    ci_high: float
    success: int
    failure: int
    mean_turns: float | None
    by_type: dict[str, float]
    by_personality: dict[str, float]
    by_intention: dict[str, float]
    end_reasons: dict[str, int]


def t_interval(values: list[float], level: float = 0.95) -> tuple[float, float]:
    n = len(values)
    if n < 2:
        return (math.nan, math.nan)
    from scipy.stats import t

    mean = statistics.fmean(values)
    half = t.ppf(0.5 + level / 2, n - 1) * statistics.stdev(values) / math.sqrt(n)
    return (mean - half, mean + half)


def _group_means(rows: list[dict[str, Any]], key: str) -> dict[str, float]:
    groups: dict[str, list[float]] = {}
    for r in rows:
        if r.get(key) is not None:
            groups.setdefault(str(r[key]), []).append(float(r["emotion"]))
    return {k: statistics.fmean(v) for k, v in sorted(groups.items())}


def aggregate(rows: Iterable[dict[str, Any]], rules: Rules | None = None) -> Aggregate:
    """Per-model leaderboard numbers from per-dialogue rows with ``emotion`` and optionally ``npc_turns``,
    ``hidden_task_type``, ``personality``, ``intention``, ``end_reason``."""
    rules = rules or load_rules()
    rows = list(rows)
    emotions = [float(r["emotion"]) for r in rows]
    if not emotions:
        raise ValueError("no scored dialogues to aggregate")
    low, high = t_interval(emotions)
    if not math.isnan(low):  # a mean emotion lies within [floor, ceiling]; the t interval need not
        low, high = max(float(rules.floor), low), min(float(rules.ceiling), high)
    turns = [float(r["npc_turns"]) for r in rows if r.get("npc_turns") is not None]
    reasons: dict[str, int] = {}
    for r in rows:
        if r.get("end_reason"):
            reasons[r["end_reason"]] = reasons.get(r["end_reason"], 0) + 1
    return Aggregate(
        n=len(emotions),
        sentient=statistics.fmean(emotions),
        ci_low=low,
        ci_high=high,
        success=sum(e >= rules.success_at for e in emotions),
        failure=sum(e < rules.failure_below for e in emotions),
        mean_turns=statistics.fmean(turns) if turns else None,
        by_type=_group_means(rows, "hidden_task_type"),
        by_personality=_group_means(rows, "personality"),
        by_intention=_group_means(rows, "intention"),
        end_reasons=dict(sorted(reasons.items())),
    )
