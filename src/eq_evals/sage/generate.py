"""``eq-evals sage generate``: new SAGE scenarios written by an LLM from seed pools (paper §2.2; docs/sage.md, 'Generating scenarios'),
in the released schema, so they load with ``-T source=FILE``."""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from inspect_ai.model import ChatMessageUser, GenerateConfig, Model, get_model

from eq_evals.errors import EqEvalsError
from eq_evals.resources import display_path, load_yaml, resource
from eq_evals.sage import prompts
from eq_evals.sage.data import normalise
from eq_evals.sage.rules import INTENTIONS, SimulatorParseError, load_rules, parse_reply_output

GENERATOR_FILE = "sage/generator.yaml"


@cache
def load_generator(file: str = GENERATOR_FILE) -> dict[str, Any]:
    where = display_path(resource("solvers", file))
    try:
        data = load_yaml("solvers", file)
    except ValueError as ex:
        raise EqEvalsError(str(ex)) from None
    for lang in prompts.LANGUAGES:
        for key in ("talk_sentences", "topics", "persona_prompt", "scene_prompt"):
            if not (data.get(key) or {}).get(lang):
                raise EqEvalsError(f"{where}: {key}.{lang} is missing")
        for ptype in ("negative", "passive", "avoidant"):
            spec = ((data.get("personality_types") or {}).get(ptype) or {}).get(lang) or {}
            if not spec.get("label") or len(spec.get("traits") or []) < 3:
                raise EqEvalsError(f"{where}: personality_types.{ptype}.{lang} needs a label and >= 3 traits")
    if len(data.get("ages") or []) < 1:
        raise EqEvalsError(f"{where}: needs a non-empty 'ages' list")
    return data


@dataclass
class Seeds:
    personality: str
    traits: list[str]
    sentences: list[str]
    age: int
    topic: str
    intention: str


def draw_seeds(rng: random.Random, language: str, pools: dict[str, Any]) -> Seeds:
    """Paper §2.2: 3 trait keywords, 3 talk sentences, 1 age; a topic; a hidden intention (rational or
    emotional with p = 0.5, then uniform within the type, as in the released builder; docs/sage.md, 'Generating scenarios')."""
    personality = rng.choice(["negative", "passive", "avoidant"])
    traits = rng.sample(pools["personality_types"][personality][language]["traits"], 3)
    sentences = rng.sample(pools["talk_sentences"][language], 3)
    age = int(rng.choice(pools["ages"]))
    topic = rng.choice(pools["topics"][language])
    kind = "rational" if rng.random() < 0.5 else "emotional"
    intention = rng.choice(sorted(slug for slug, (t, _, _) in INTENTIONS.items() if t == kind))
    return Seeds(personality, traits, sentences, age, topic, intention)


async def _complete(model: Model, prompt: str, what: str, attempts: int = 3) -> str:
    # the kind of prompt travels in the message metadata (read by the scripted writer; providers ignore it)
    for _ in range(attempts):
        message = ChatMessageUser(content=prompt, metadata={"sage_prompt": what})
        text = (await model.generate([message])).completion.strip()
        if text:
            return text
    raise EqEvalsError(f"the generator returned an empty {what} {attempts} times")


async def generate_one(
    model: Model,
    seeds: Seeds,
    language: str,
    index: int,
    id_prefix: str,
    pools: dict[str, Any],
    prompts_file: str = prompts.PROMPTS_FILE,
) -> dict[str, Any]:
    label = pools["personality_types"][seeds.personality][language]["label"]
    sep = "、" if language == "zh" else ", "
    task = INTENTIONS[seeds.intention][1 if language == "zh" else 2]
    persona = await _complete(
        model,
        prompts.fill(
            pools["persona_prompt"][language],
            {
                "personality": label,
                "traits": sep.join(seeds.traits),
                "age": seeds.age,
                "sentences": "\n".join(f"- {s}" for s in seeds.sentences),
            },
        ),
        "persona",
    )
    scene = await _complete(
        model,
        prompts.fill(pools["scene_prompt"][language], {"persona": persona, "topic": seeds.topic, "intention": task}),
        "scene",
    )
    scene = prompts.scene_with_intention(scene, task, language, prompts_file)
    digest = hashlib.sha256(f"{id_prefix}|{index}|{persona}|{scene}".encode("utf-8")).hexdigest()[:8]
    scenario_id = f"{id_prefix}-{index:03d}-{digest}"
    record: dict[str, Any] = {
        "id": f"{scenario_id}-{language}",
        "scenario_id": scenario_id,
        "language": language,
        "player": persona,
        "scene": scene,
        "main_cha": label,
        "cha_group": seeds.traits,
        "task": task,
        "intention": seeds.intention,
        "hidden_task_type": INTENTIONS[seeds.intention][0],
        "personality": seeds.personality,
        "topic": seeds.topic,
    }
    rules = load_rules()
    opening = prompts.opening_prompt({**record, "first_talk": ""}, rules.state(rules.initial_emotion), prompts_file)
    problem = ""
    for _ in range(3):
        try:
            record["first_talk"] = parse_reply_output(
                (await model.generate([ChatMessageUser(content=opening)])).completion
            ).reply
            break
        except SimulatorParseError as ex:
            problem = str(ex)
    else:
        raise EqEvalsError(f"scenario {index}: the opening line could not be parsed after 3 attempts ({problem})")
    normalise(record, "generated", index)  # the record must load like any other scenario
    return record


def run(
    model_name: str,
    n: int,
    language: str,
    out: str,
    seed: int = 0,
    temperature: float | None = None,
    base_url: str | None = None,
    id_prefix: str = "gen",
    max_concurrency: int = 4,
    generator_file: str = GENERATOR_FILE,
    append: bool = False,
) -> tuple[int, list[str]]:
    """Generate ``n`` scenarios per language ("zh", "en" or "both") into ``out`` (JSONL), each record written
    as soon as it is complete (so in completion order). A scenario that fails, for any reason, is reported
    in the returned errors and the others are kept. Returns (written, errors)."""
    if n < 1:
        raise EqEvalsError("--n must be at least 1")
    languages = ["zh", "en"] if language == "both" else [language]
    if any(lang not in prompts.LANGUAGES for lang in languages):
        raise EqEvalsError(f"--language must be zh, en or both (got {language})")
    pools = load_generator(generator_file)
    out_path = Path(out).expanduser()
    if out_path.exists() and not append:
        raise EqEvalsError(f"{out}: exists; pass --append to add to it or choose another file")
    config = GenerateConfig(temperature=temperature) if temperature is not None else GenerateConfig()
    model = get_model(model_name, config=config, base_url=base_url)
    rng = random.Random(seed)
    jobs = [(i, lang, draw_seeds(rng, lang, pools)) for i in range(1, n + 1) for lang in languages]

    out_path.parent.mkdir(parents=True, exist_ok=True)
    written: list[dict[str, Any]] = []
    errors: list[str] = []

    async def main(fh: Any) -> None:
        gate = asyncio.Semaphore(max_concurrency)

        async def one(i: int, lang: str, seeds: Seeds) -> None:
            async with gate:
                try:
                    record = await generate_one(model, seeds, lang, i, id_prefix, pools)
                except Exception as ex:  # noqa: BLE001 - one failed scenario (API error, bad output) must not lose the batch
                    detail = str(ex) if isinstance(ex, EqEvalsError) else f"{type(ex).__name__}: {ex}"
                    errors.append(f"scenario {i} ({lang}): {detail}")
                    return
            # written as soon as it is complete, so an interrupted batch keeps what it has
            fh.write(json.dumps(record, ensure_ascii=False) + "\n")
            fh.flush()
            written.append(record)

        await asyncio.gather(*(one(*job) for job in jobs))

    with out_path.open("a" if append else "w", encoding="utf-8") as fh:
        asyncio.run(main(fh))
    return len(written), errors
