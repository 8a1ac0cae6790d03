"""LongEmotion's three methods as Inspect solvers (paper §4, Appendix E; docs/longemotion.md, 'Methods').

The CoEM pipeline is five solver steps, named as in the paper §4; a task declaration lists them all and
``-T method`` decides which run:

=========================  ======  =====  ==========================================================
step                       base    rag    coem
=========================  ======  =====  ==========================================================
longemotion_setup          yes     yes    yes (checks the model roles, records the settings)
longemotion_chunking       -       yes    yes  (1. Chunking)
longemotion_initial_rank   -       -      yes  (2. Initial Ranking by CoEM-Rank, keep top_k_initial)
longemotion_enrichment     -       -      yes  (3. Multi-Agent Enrichment by the ``helper`` role)
longemotion_reranking      -       yes    yes  (4. Re-Ranking, keep top_k; the paper calls RAG's single
                                                ranking "Re-Ranking")
longemotion_generation     yes     yes    yes  (5. Emotional Ensemble Generation, retried when the reply
                                                cannot be parsed)
=========================  ======  =====  ==========================================================

Emotion Expression is one multi-turn conversation; ``longemotion_expression_dialogue`` runs the same
stage functions before each of its stages 2-5. What was retrieved is kept in the store
(``LongEmotionState``), in ``state.metadata["retrieval"]`` and as a markdown note in the transcript, so
Inspect View shows it for every sample.
"""

from __future__ import annotations

import asyncio
from typing import Any

import anyio
from inspect_ai.log import transcript
from inspect_ai.model import ChatMessage, ChatMessageAssistant, ChatMessageSystem, ChatMessageUser, Model, get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import StoreModel, span, store_as
from pydantic import Field

from eq_evals.errors import EqEvalsError
from eq_evals.longemotion import retrieval
from eq_evals.longemotion.data import PANAS_WORDS, render_dialogue
from eq_evals.longemotion.parsing import (
    SUMMARY_FIELDS,
    parse_emotion,
    parse_index,
    parse_summary,
    strip_think,
    summary_text,
)
from eq_evals.longemotion.prompts import TASKS, prompts, render

METHODS = ("base", "rag", "coem")
PAPER_CHUNK_TOKENIZER = "hf:meta-llama/Llama-3.1-8B-Instruct"
JUDGED = {"conversation", "summary", "expression"}
EMPTY = "\x00"


class LongEmotionState(StoreModel):
    """Per-sample working state of the pipeline."""

    settings: dict[str, Any] = Field(default_factory=dict)
    chunks: list[str] = Field(default_factory=list)
    # one job per query: {name, query, candidates: [{index, chunk, summary?, pack?}], selected: [...], statement?}
    jobs: list[dict[str, Any]] = Field(default_factory=list)
    attempts: int = 0
    parsed: Any = None
    output_for_judge: str | None = None


def _state(state: TaskState) -> LongEmotionState:
    return store_as(LongEmotionState)


def _method(state: TaskState) -> str:
    """The method this sample really uses: MC stages 1-3 always run Base (paper §3.3, §5.2)."""
    st = _state(state)
    method = st.settings.get("method", "base")
    if state.metadata.get("task") == "conversation" and state.metadata.get("stage") != 4:
        return "base"
    return method


def _counts(value: Any, stage: int | None = None) -> int:
    """An int, or (EE) a comma list with one count per stage 2-5."""
    if isinstance(value, int):
        return value
    parts = [int(p) for p in str(value).split(",") if p.strip()]
    if stage is None or len(parts) == 1:
        return parts[0]
    return parts[stage - 2]


def _note(title: str, lines: list[str]) -> None:
    transcript().info("\n\n".join([f"**{title}**", *lines]), source="longemotion")


def _short(text: str, n: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[:n] + " ..."


def _record(state: TaskState) -> None:
    st = _state(state)
    state.metadata["retrieval"] = {
        "method": _method(state),
        **{k: v for k, v in st.settings.items() if k not in ("task", "method")},
        "n_chunks": len(st.chunks),
        "jobs": [
            {k: v for k, v in job.items() if k != "candidates"} | {"n_candidates": len(job.get("candidates", []))}
            for job in st.jobs
        ],
    }


async def _ranker(st: LongEmotionState) -> retrieval.Ranker:
    # loading an embedding model takes seconds: keep it off the event loop
    ranker = await anyio.to_thread.run_sync(
        retrieval.get_ranker, st.settings["retriever"], st.settings["embedding_model"]
    )
    st.settings["ranker"] = ranker.name
    if getattr(ranker, "fallback", None):
        st.settings["ranker_fallback"] = ranker.fallback
    return ranker


# --- step 0: setup -----------------------------------------------------------------------------------


@solver
def longemotion_setup(
    task: str,
    method: str = "base",
    retriever: str = "auto",
    embedding_model: str = retrieval.DEFAULT_EMBEDDING_MODEL,
    chunk_size: int = 128,
    chunk_overlap: int = 50,
    chunk_tokenizer: str = "chars4",
    top_k: int | str = 4,
    top_k_initial: int | str = 16,
    prompt_version: str = "v1",
) -> Solver:
    """Record the method and retrieval settings; fail early when a needed model role is not bound."""
    if task not in TASKS:
        raise EqEvalsError(f"unknown LongEmotion task {task!r}; expected one of {TASKS}")
    if method not in METHODS:
        raise EqEvalsError(f"-T method={method!r}: expected one of {list(METHODS)}")
    if retriever not in retrieval.RETRIEVERS:
        raise EqEvalsError(f"-T retriever={retriever!r}: expected one of {list(retrieval.RETRIEVERS)}")
    if prompt_version not in ("v1", "head"):
        raise EqEvalsError(f"-T prompt_version={prompt_version!r}: expected v1 or head")
    if method != "base":
        retrieval.length_function(chunk_tokenizer)  # a bad tokenizer fails when the task is built
        if not 0 <= chunk_overlap < chunk_size:
            raise EqEvalsError(
                f"-T chunk_overlap={chunk_overlap} must be at least 0 and smaller than -T chunk_size={chunk_size}"
            )
    settings = dict(
        task=task,
        method=method,
        retriever=retriever,
        embedding_model=embedding_model,
        chunk_size=chunk_size,
        chunk_overlap=chunk_overlap,
        chunk_tokenizer=chunk_tokenizer,
        top_k=top_k,
        top_k_initial=top_k_initial,
        prompt_version=prompt_version,
    )
    if method != "base" and chunk_tokenizer != PAPER_CHUNK_TOKENIZER:
        # docs/longemotion.md, 'Implementation details and deviations': the release measured chunks with the Llama-3.1-8B-Instruct tokenizer
        settings["chunk_tokenizer_deviation"] = (
            f"chunks measured with {chunk_tokenizer}, not the paper's {PAPER_CHUNK_TOKENIZER} (see docs/longemotion.md)"
        )

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        if task in JUDGED:
            get_model(role="grader", required=True)
        _state(state).settings = dict(settings)
        if _method(state) == "coem":  # not for MC stages 1-3, which always run Base
            get_model(role="helper", required=True)
        _record(state)
        return state

    return solve


# --- step 1: chunking ----------------------------------------------------------------------------


def _chunk(st: LongEmotionState, text: str) -> list[str]:
    s = st.settings
    return retrieval.chunk_text(text, int(s["chunk_size"]), int(s["chunk_overlap"]), s["chunk_tokenizer"])


def conversation_split(history: list[dict[str, str]]) -> tuple[str, str]:
    """(earlier, recent): everything before the last three messages, and those three (LongEmotion paper App. C, 'Emotion Conversation')."""
    return render_dialogue(history[:-3]), render_dialogue(history[-3:])


def summary_context(metadata: dict[str, Any]) -> str:
    return render(
        prompts("summary")["full_context"],
        **{k: metadata[k] for k in ("case_description", "consultation_process", "experience_and_reflection")},
    )


@solver
def longemotion_chunking() -> Solver:
    """CoEM stage 1: split the long context into chunks and set up one ranking job per query."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        method, st, md = _method(state), _state(state), state.metadata
        if method == "base":
            return state
        task = st.settings["task"]
        async with span("chunking"):
            if task == "classification":
                st.chunks = await anyio.to_thread.run_sync(_chunk, st, md["content"])
                st.jobs = [{"name": "subject", "query": md["subject"]}]
            elif task == "detection":  # each segment is a chunk (Table 8)
                st.chunks = list(md["segments"])
                st.jobs = [{"name": "segments", "query": None}]
            elif task == "qa":
                st.chunks = await anyio.to_thread.run_sync(_chunk, st, md["context"])
                st.jobs = [{"name": "question", "query": md["question"]}]
            elif task == "conversation":
                earlier, recent = conversation_split(md["history"])
                st.chunks = await anyio.to_thread.run_sync(_chunk, st, earlier) if earlier.strip() else []
                st.jobs = [{"name": "recent", "query": recent}]
            elif task == "summary":
                st.chunks = await anyio.to_thread.run_sync(_chunk, st, summary_context(md))
                st.jobs = [{"name": f, "query": prompts("summary")["queries"][f]} for f in SUMMARY_FIELDS]
            for job in st.jobs:
                job["candidates"] = [{"index": i, "chunk": c} for i, c in enumerate(st.chunks)]
            _note(
                "Chunking",
                [
                    f"{len(st.chunks)} chunks (size {st.settings['chunk_size']}, overlap "
                    f"{st.settings['chunk_overlap']}, length {st.settings['chunk_tokenizer']})"
                ],
            )
            _record(state)
        return state

    return solve


# --- step 2: initial ranking ---------------------------------------------------------------------


async def initial_rank(st: LongEmotionState, stage: int | None = None) -> None:
    """Keep the top_k_initial chunks of each job by similarity to its query (in document order)."""
    ranker = await _ranker(st)
    k = _counts(st.settings["top_k_initial"], stage)
    for job in st.jobs:
        if job["query"] is None:  # ED skips the initial ranking (Appendix E)
            continue
        docs = [c["chunk"] for c in job["candidates"]]
        keep, _ = await anyio.to_thread.run_sync(retrieval.retrieve, ranker, job["query"], docs, k)
        job["candidates"] = [job["candidates"][i] for i in keep]
        job["initial"] = [c["index"] for c in job["candidates"]]


@solver
def longemotion_initial_rank() -> Solver:
    """CoEM stage 2: Initial Ranking by CoEM-Rank (CoEM only)."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        st = _state(state)
        if _method(state) != "coem":
            return state
        async with span("initial_ranking"):
            await initial_rank(st)
            _note("Initial ranking", [f"{job['name']}: kept chunks {job.get('initial', 'all')}" for job in st.jobs])
            _record(state)
        return state

    return solve


# --- step 3: multi-agent enrichment ---------------------------------------------------------------


async def _helper_call(helper: Model, system: str, prompt: str) -> str:
    out = await helper.generate([ChatMessageSystem(content=system), ChatMessageUser(content=prompt)])
    return strip_think(out.completion)


async def enrich(st: LongEmotionState, task: str, helper: Model, subset: str | None = None) -> None:
    """The helper (CoEM-Sage) analyses each kept chunk, making packs; for MC one statement for all.
    EC FinEntity has its own financial enrichment prompt (docs/longemotion.md, 'Parameters', EC `subset`, emo_class_aug_Finentity)."""
    p = prompts(task)
    head = st.settings.get("prompt_version") == "head" and "helper_head" in p
    template = p["helper_head"] if head else p["helper"]
    if subset and f"helper_{subset}" in p:
        template = p[f"helper_{subset}"]
    system = p.get("helper_system_head", p["helper_system"]) if head else p["helper_system"]
    for job in st.jobs:
        if task == "conversation":
            chunks = "\n\n".join(f"[Chunk {n}]\n{c['chunk']}" for n, c in enumerate(job["candidates"], start=1))
            job["statement"] = await _helper_call(helper, system, render(template, recent=job["query"], chunks=chunks))
            continue
        extra = {"field_name": p["field_names"][job["name"]]} if task == "summary" else {}
        summaries = await asyncio.gather(
            *[
                _helper_call(helper, system, render(template, chunk=c["chunk"], query=job["query"] or "", **extra))
                for c in job["candidates"]
            ]
        )
        for c, summary in zip(job["candidates"], summaries):
            c["summary"] = summary
            c["pack"] = render(p["pack"], chunk=c["chunk"], summary=summary, index=c["index"])


@solver
def longemotion_enrichment() -> Solver:
    """CoEM stage 3: Multi-Agent Enrichment by the ``helper`` model role (CoEM only)."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        st = _state(state)
        if _method(state) != "coem":
            return state
        async with span("enrichment"):
            await enrich(st, st.settings["task"], get_model(role="helper", required=True), state.metadata.get("subset"))
            lines = []
            for job in st.jobs:
                if "statement" in job:
                    lines.append(f"{job['name']}: statement: {_short(job['statement'])}")
                else:
                    lines += [
                        f"{job['name']} chunk {c['index']}: {_short(c.get('summary', ''), 200)}"
                        for c in job["candidates"]
                    ]
            _note("Enrichment (helper)", lines)
            _record(state)
        return state

    return solve


# --- step 4: re-ranking ---------------------------------------------------------------------------


async def rerank(st: LongEmotionState, task: str, method: str, stage: int | None = None) -> None:
    ranker = await _ranker(st)
    k = _counts(st.settings["top_k"], stage)
    for job in st.jobs:
        cands = job["candidates"]
        texts = [c.get("pack", c["chunk"]) if method == "coem" else c["chunk"] for c in cands]
        if task == "detection":
            # ED: the k texts with the lowest mean similarity to the others, most outlying first (§3.4);
            # CoEM only re-ranks when there are more than 4 packs (docs/longemotion.md, 'Methods', step 4)
            if method == "coem" and len(cands) <= 4:
                keep = list(range(len(cands)))
            else:
                keep, _ = await anyio.to_thread.run_sync(retrieval.lowest_average_similarity, ranker, texts, k)
        else:
            query = job.get("statement") if task == "conversation" and method == "coem" else job["query"]
            keep, _ = await anyio.to_thread.run_sync(retrieval.retrieve, ranker, query, texts, k)
        job["selected"] = [{kk: v for kk, v in cands[i].items()} for i in keep]


@solver
def longemotion_reranking() -> Solver:
    """CoEM stage 4 (RAG's only ranking): keep the top_k chunks or packs (RAG and CoEM)."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        st, method = _state(state), _method(state)
        if method == "base":
            return state
        async with span("reranking"):
            await rerank(st, st.settings["task"], method)
            lines = []
            for job in st.jobs:
                lines.append(
                    f"{job['name']}"
                    + (f" (query: {_short(job['query'], 120)})" if job["query"] else "")
                    + f": selected {[c['index'] for c in job['selected']]} with {st.settings['ranker']}"
                )
                lines += [f"> [{c['index']}] {_short(c['chunk'])}" for c in job["selected"]]
            _note("Retrieved for the final prompt", lines)
            _record(state)
        return state

    return solve


# --- step 5: generation -------------------------------------------------------------------------------


def _items(task: str, method: str, selected: list[dict[str, Any]]) -> str:
    p = prompts(task)
    template, joiner = p[f"{method}_item"], p[f"{method}_joiner"]
    return joiner.join(
        render(
            template,
            number=n,
            index=c["index"],
            chunk=c["chunk"],
            summary=c.get("summary", ""),
            pack=c.get("pack", c["chunk"]),
        )
        for n, c in enumerate(selected, start=1)
    )


def build_messages(state: TaskState) -> list[ChatMessage]:
    """The final prompt for the sample's task and method."""
    st, md = _state(state), state.metadata
    task, method = st.settings["task"], _method(state)
    p = prompts(task)
    jobs = st.jobs if method != "base" else []
    retrieved = _items(task, method, jobs[0]["selected"]) if jobs and task != "summary" else ""
    if task == "classification":
        user = render(
            p["base" if method == "base" else "augmented"],
            context=md["content"],
            subject=md["subject"],
            choices=", ".join(md["choices"]),
            retrieved=retrieved,
        )
    elif task == "detection":
        texts = p["text_joiner"].join(render(p["text_item"], index=i, text=t) for i, t in enumerate(md["segments"]))
        user = render(
            p["base" if method == "base" else "augmented"], num=len(md["segments"]), texts=texts, retrieved=retrieved
        )
    elif task == "qa":
        user = render(
            p["base" if method == "base" else "augmented"],
            context=md["context"],
            question=md["question"],
            retrieved=retrieved,
        )
    elif task == "conversation":
        if method == "base":
            user = render(p["base"], dialogue_history=render_dialogue(md["history"]))
        else:
            earlier, recent = conversation_split(md["history"])
            statement = jobs[0].get("statement")
            user = render(
                p["augmented"],
                earlier=earlier,
                recent=recent,
                retrieved=retrieved,
                statement_block=render(p["statement_block"], statement=statement) if statement else "",
            )
    elif task == "summary":
        block = ""
        if jobs:
            blocks = [
                render(p["field_header"], field=job["name"].upper())
                + _items(task, method, job["selected"])
                + p["field_footer"]
                for job in jobs
            ]
            block = render(p["retrieved_block"], retrieved="".join(blocks))
        user = render(
            p["base"],
            retrieved_block=block,
            **{k: md[k] for k in ("case_description", "consultation_process", "experience_and_reflection")},
        )
    else:
        raise EqEvalsError(f"longemotion_generation does not handle task {task!r}")
    system = [ChatMessageSystem(content=p["system"])] if p.get("system") else []  # ES has no system prompt
    return [*system, ChatMessageUser(content=user)]


PARSERS = {"classification": parse_emotion, "detection": parse_index, "summary": parse_summary}


@solver
def longemotion_generation(max_retries: int = 0) -> Solver:
    """CoEM stage 5 (and Base/RAG generation): answer the task prompt; when the reply cannot be parsed
    (EC label, ED index, ES JSON), reset the prompt and generate again, up to ``max_retries`` times."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        st = _state(state)
        task = st.settings["task"]
        parse = PARSERS.get(task)
        messages = build_messages(state)
        async with span("generation"):
            for attempt in range(1, max_retries + 2):
                state.messages = list(messages)
                state = await generate(state)
                st.attempts = attempt
                if parse is None:
                    break
                parsed = parse(state.output.completion)
                if parsed is not None:
                    st.parsed = parsed
                    break
        if task == "summary":
            # the judge sees the five labelled fields, or the raw reply when it never parsed (docs/longemotion.md, 'Scoring')
            st.output_for_judge = summary_text(st.parsed) if st.parsed else strip_think(state.output.completion)
        elif task == "conversation":
            st.output_for_judge = strip_think(state.output.completion)
        state.metadata["attempts"] = st.attempts
        _record(state)
        return state

    return solve


# --- Emotion Expression: the multi-turn dialogue ------------------------------------------------------


def has_all_panas_words(text: str, words: list[str]) -> bool:
    """The original's check: every PANAS word appears (case-sensitive substring test, docs/longemotion.md, 'Methods', EE)."""
    return all(w in text for w in words)


# PANAS regenerations as in the original (docs/longemotion.md, 'Parameters', EE `max_retries`): up to 10 attempts, RAG up to 5
PANAS_RETRIES = {"base": 9, "rag": 4, "coem": 9}


@solver
def longemotion_expression_dialogue(max_retries: int | None = None, min_length_instruction: bool = True) -> Solver:
    """EE (docs/longemotion.md, 'Methods', EE): PANAS self-rating (regenerated until it names all 20 items; ``max_retries`` unset =
    the original's count for the method), then stages 1-5 in one conversation; before stages 2-5, RAG/CoEM
    retrieve from the model's own earlier answers."""
    p = prompts("expression")

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        st, md = _state(state), state.metadata
        method = st.settings["method"]
        retries = PANAS_RETRIES[method] if max_retries is None else max_retries
        words = md.get("panas_words") or PANAS_WORDS
        first = ChatMessageUser(content=render(p["panas"], situation=md["scenario"], statements=md["statements"]))
        async with span("panas"):
            for attempt in range(1, retries + 2):
                state.messages = [first]
                state = await generate(state)
                st.attempts = attempt
                if has_all_panas_words(state.output.completion, words):
                    break
        answers = [strip_think(state.output.completion)]
        stages_log = []
        for number in range(1, 6):
            stage = p["stages"][number]
            block = ""
            if method != "base" and number >= 2:
                async with span(f"retrieval_stage_{number}"):
                    st.chunks = await anyio.to_thread.run_sync(_chunk, st, "\n".join(answers))
                    st.jobs = [
                        {
                            "name": f"stage {number}",
                            "query": stage["questions"],
                            "candidates": [{"index": i, "chunk": c} for i, c in enumerate(st.chunks)],
                        }
                    ]
                    if method == "coem":
                        await initial_rank(st, number)
                        await enrich(st, "expression", get_model(role="helper", required=True))
                    await rerank(st, "expression", method, number)
                    job = st.jobs[0]
                    block = render(p["retrieved_block"], retrieved=_items("expression", method, job["selected"]))
                    stages_log.append(
                        {
                            "stage": number,
                            "n_chunks": len(st.chunks),
                            "initial": job.get("initial"),
                            "selected": job["selected"],
                        }
                    )
                    _note(
                        f"Stage {number}: retrieved from the model's earlier answers",
                        [f"> [{c['index']}] {_short(c['chunk'])}" for c in job["selected"]],
                    )
            text = render(
                p["stage"],
                intro=p["stage_intro"],
                retrieved_block=block or EMPTY,
                number=number,
                title=stage["title"],
                questions=stage["questions"],
                length_line=p["length_line"] if min_length_instruction else EMPTY,
            )
            text = "\n".join(line for line in text.split("\n") if line != EMPTY)  # drop the lines of empty slots
            async with span(f"stage_{number}"):
                state.messages.append(ChatMessageUser(content=text))
                state = await generate(state)
                if not isinstance(state.messages[-1], ChatMessageAssistant):
                    state.messages.append(ChatMessageAssistant(content=state.output.completion))
            answers.append(strip_think(state.output.completion))
        st.output_for_judge = "".join(a + "\n" for a in answers)
        md["attempts"] = st.attempts
        md["retrieval"] = {
            "method": method,
            **{k: v for k, v in st.settings.items() if k not in ("task", "method")},
            "stages": stages_log,
        }
        return state

    return solve


def _validate_setup(task: str = "", method: str = "base", **_: Any) -> None:
    if task and task not in TASKS:
        raise ValueError(f"unknown LongEmotion task {task!r}; expected one of {TASKS}")


longemotion_setup.validate_declaration = _validate_setup  # type: ignore[attr-defined]
