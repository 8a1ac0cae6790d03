"""Every LongEmotion task end to end through Inspect on the project fixtures, with scripted models for
the evaluated model, the helper role and the grader role; results read back from the log."""

from __future__ import annotations

import math

import pytest
from inspect_ai import eval as inspect_eval

import eq_evals._registry  # noqa: F401
from eq_evals.engine import register_all
from eq_evals.longemotion import data
from eq_evals.longemotion.parsing import strip_think
from eq_evals.longemotion.scripted import _digest, judge_reply

EE_CRITERIA = [
    "Consistency Between Emotional Ratings and Generated Text",
    "Repetition of Content",
    "Richness and Depth of Content",
    "Interaction Between Emotion and Cognition",
    "Emotional Reflection and Self-awareness",
    "Overall Quality and Flow of the Text",
]

ROLES = {"grader": "eq_evals/scripted-le_judge", "helper": "eq_evals/scripted-le_helper"}


@pytest.fixture(autouse=True)
def _no_env_data_dir(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(data.ENV_DATA_DIR, raising=False)


def run(task: str, log_dir: str, model: str = "le_oracle", roles: dict | None = None, **args):
    [log] = inspect_eval(
        f"eq_evals/longemotion_{task}",
        model=f"eq_evals/scripted-{model}",
        task_args={"fixtures": True, "retriever": "bm25", **args},
        model_roles=ROLES if roles is None else roles,
        log_dir=log_dir,
        display="none",
        epochs=1,
    )
    return log


def metrics(log) -> dict[str, float]:
    [score] = log.results.scores
    return {k: v.value for k, v in score.metrics.items()}


@pytest.mark.parametrize("method", ["base", "rag", "coem"])
@pytest.mark.parametrize("task", ["classification", "detection"])
def test_accuracy_tasks_right_and_wrong(task: str, method: str, log_dir: str) -> None:
    right = run(task, log_dir, method=method)
    wrong = run(task, log_dir, "le_wrong", method=method)
    assert right.status == wrong.status == "success"
    assert metrics(right)["accuracy"] == 1.0 and metrics(wrong)["accuracy"] == 0.0
    sample = right.samples[0]
    assert sample.metadata["retrieval"]["method"] == method
    if method != "base":
        [job] = sample.metadata["retrieval"]["jobs"]
        assert job["selected"] and sample.metadata["retrieval"]["ranker"] == "bm25"
        infos = [str(e.data) for e in sample.events if e.event == "info" and e.source == "longemotion"]
        infos = [
            sample.attachments.get(d.removeprefix("attachment://"), d) for d in infos
        ]  # long notes are attachments
        assert any(
            "Retrieved for the final prompt" in d and " ".join(job["selected"][0]["chunk"].split())[:40] in d
            for d in infos
        )
    if method == "coem":
        assert all(c["summary"].startswith("Emotional analysis:") for c in job["selected"])


def test_classification_rag_retrieves_the_planted_scene(log_dir: str) -> None:
    log = run("classification", log_dir, method="rag")
    for sample in log.samples:
        [job] = sample.metadata["retrieval"]["jobs"]
        [chunk] = job["selected"]
        assert (
            sample.metadata["subject"] in chunk["chunk"]
        )  # query = the subject's name (docs/longemotion.md, 'Methods', step 2)
        prompt = sample.messages[-2].text if sample.messages[-1].role == "assistant" else sample.messages[-1].text
        assert "Retrieved chunks:\n" + chunk["chunk"] in prompt


def test_unparseable_answers_are_retried_then_wrong(log_dir: str) -> None:
    log = run("classification", log_dir, "le_malformed", max_retries=2)
    assert metrics(log)["accuracy"] == 0.0
    for sample in log.samples:
        score = sample.scores["longemotion_label_match"]
        assert score.answer == "(no label found)" and sample.metadata["attempts"] == 3
        assert sum(e.event == "model" for e in sample.events) == 3


@pytest.mark.parametrize("method", ["base", "rag", "coem"])
def test_qa_f1(method: str, log_dir: str) -> None:
    assert (
        metrics(run("qa", log_dir, method=method, chunk_size=32, chunk_overlap=8, top_k=2, top_k_initial=3))["mean"]
        == 1.0
    )
    assert metrics(run("qa", log_dir, "le_wrong", method=method))["mean"] == 0.0


# the three metrics of each stage, as the release names them (LongEmotion paper Table 10)
STAGE_METRICS = {
    1: {
        "Establishing the Therapeutic Alliance",
        "Emotional Acceptance and Exploration Guidance",
        "Systematic Assessment",
    },
    2: {"Recognizing Surface-Level Reaction Patterns", "Deep Needs Exploration", "Pattern Interconnection Analysis"},
    3: {"Adaptive Cognitive Restructuring", "Emotional Acceptance and Transformation", "Value-Oriented Integration"},
    4: {
        "Consolidating Change Outcomes and Growth Narrative",
        "Meaning Integration and Future Guidance",
        "Autonomy and Resource Internalization",
    },
}


def _expected_conversation(log) -> float:
    values = []
    for s in log.samples:
        score = s.scores["longemotion_judge"]
        values.append(score.value["score"])
        assert set(score.value) - {"score"} == STAGE_METRICS[s.metadata["stage"]]
        assert score.value["score"] == pytest.approx(sum(v for k, v in score.value.items() if k != "score") / 3)
    return sum(values) / len(values)


def test_each_stage_is_judged_on_its_own_three_metrics(log_dir: str) -> None:
    log = run("conversation", log_dir, stages="all")
    assert {s.metadata["stage"] for s in log.samples} == {1, 2, 3, 4}
    _expected_conversation(log)
    m = metrics(log)
    # the criteria's long names are no metrics (they crowded Inspect View's log header): only the score, its
    # stderr and one mean per checkpoint; each sample's score keeps its stage's three criteria (checked above)
    assert set(m) - {"score", "stderr"} == {k for k in m if k.startswith("checkpoint:")}
    assert not set(m) & set().union(*STAGE_METRICS.values())


@pytest.mark.parametrize("method", ["base", "rag", "coem"])
def test_conversation_stage4_judged(method: str, log_dir: str) -> None:
    log = run("conversation", log_dir, method=method, chunk_size=32, chunk_overlap=8)
    assert log.status == "success" and len(log.samples) == 6
    m = metrics(log)
    assert m["score"] == pytest.approx(_expected_conversation(log))
    for s in log.samples:
        score = s.scores["longemotion_judge"]
        # the judge's reply is kept, and its numbers are what the scripted judge computed from the prompt
        assert score.explanation.endswith("}") and len(score.value) == 4
        assert set(score.value) - {"score"} <= STAGE_METRICS[4] and not set(score.value) - {"score"} & set(m)
    groups = [k for k in m if k.startswith("checkpoint:")]
    assert groups == ["checkpoint:4-1", "checkpoint:4-2", "checkpoint:4-3"]
    if method == "coem":
        [job] = log.samples[0].metadata["retrieval"]["jobs"]
        assert job["statement"].startswith("Emotional analysis:") and len(job["selected"]) <= 4


def test_conversation_all_stages_applies_methods_to_stage4_only(log_dir: str) -> None:
    log = run("conversation", log_dir, method="rag", stages="all", chunk_size=32, chunk_overlap=8)
    assert len(log.samples) == 24
    assert {s.metadata["retrieval"]["method"] for s in log.samples if s.metadata["stage"] < 4} == {"base"}
    assert {s.metadata["retrieval"]["method"] for s in log.samples if s.metadata["stage"] == 4} == {"rag"}
    m = metrics(log)
    assert len([k for k in m if k.startswith("checkpoint:")]) == 12
    assert len([k for k in m if not k.startswith("checkpoint:") and k not in ("score", "stderr")]) == 0


def test_unparseable_judge_is_retried_then_unscored(log_dir: str) -> None:
    log = run("conversation", log_dir, roles={"grader": "eq_evals/scripted-le_judge_garbage"}, judge_retries=2)
    assert log.status == "success"
    for s in log.samples:
        score = s.scores["longemotion_judge"]
        assert isinstance(score.value, float) and math.isnan(score.value)
        assert score.reason == "grader_failed" and "after 3 attempts" in score.explanation
    assert log.results.scores[0].unscored_samples == len(log.samples)


def test_flaky_judge_succeeds_on_the_retry(log_dir: str) -> None:
    log = run("summary", log_dir, roles={"grader": "eq_evals/scripted-le_judge_flaky"})
    for s in log.samples:
        score = s.scores["longemotion_judge"]
        assert score.metadata["judge_attempts"] == 2 and not math.isnan(score.value["score"])


@pytest.mark.parametrize("method", ["base", "rag", "coem"])
def test_summary_oracle_beats_wrong(method: str, log_dir: str) -> None:
    right = metrics(run("summary", log_dir, method=method, chunk_size=24, chunk_overlap=6, top_k=2, top_k_initial=3))
    wrong = metrics(run("summary", log_dir, "le_wrong", method=method))
    # the scripted judge gives 5/5/4 to a field equal to the reference and 2/1/4 otherwise
    assert right["score"] == pytest.approx(14 / 3) and wrong["score"] == pytest.approx(7 / 3)
    assert right["factual_consistency"] == 5 and wrong["completeness"] == 1


def test_summary_unparseable_output_is_judged_raw(log_dir: str) -> None:
    log = run("summary", log_dir, "le_malformed", max_retries=1)
    for s in log.samples:
        assert s.metadata["attempts"] == 2
        assert "counselling helped" in s.scores["longemotion_judge"].answer


@pytest.mark.parametrize("method", ["base", "rag", "coem"])
def test_expression_dialogue(method: str, log_dir: str) -> None:
    log = run("expression", log_dir, method=method)
    assert log.status == "success" and len(log.samples) == 4
    sample = log.samples[0]
    users = [m for m in sample.messages if m.role == "user"]
    assert len(users) == 6 and "For Evokec Emotion Measure Only" in users[0].text
    assert all(f"**Stage {k}:" in users[k].text for k in range(1, 6))
    assert all("exceed 3000 tokens" in users[k].text for k in range(1, 6))
    stages = sample.metadata["retrieval"].get("stages", [])
    if method == "base":
        assert stages == [] and "trunks retrieved" not in users[2].text
    else:
        assert [s["stage"] for s in stages] == [2, 3, 4, 5] and "trunks retrieved" in users[2].text
        assert [len(s["selected"]) for s in stages][0] <= 2
    # the judge saw the PANAS reply and the five stage replies: recompute the scripted judge's scores
    # (40 + digest(criterion + judged text) % 61 per criterion) from the conversation in the log
    m = metrics(log)
    assert set(m) == {"score", "stderr"}  # the six long criterion names stay in each sample's score
    expected = []
    for s in log.samples:
        judged = "".join(strip_think(msg.text) + "\n" for msg in s.messages if msg.role == "assistant").strip()
        assert len([msg for msg in s.messages if msg.role == "assistant"]) == 6
        per = {k: 40 + _digest(k + judged) % 61 for k in EE_CRITERIA}
        assert {k: s.scores["longemotion_judge"].value[k] for k in EE_CRITERIA} == per
        expected.append(sum(per.values()) / len(per))
    assert m["score"] == pytest.approx(sum(expected) / len(expected))


def test_expression_panas_retries(log_dir: str) -> None:
    log = run("expression", log_dir, "le_malformed", max_retries=3, min_length_instruction=False)
    sample = log.samples[0]
    assert sample.metadata["attempts"] == 4
    assert not any("exceed 3000 tokens" in m.text for m in sample.messages if m.role == "user")


def test_coem_needs_the_helper_role(log_dir: str) -> None:
    log = run("qa", log_dir, roles={}, method="coem")
    assert log.status == "error" and "helper" in log.error.message


def test_scripted_judge_is_a_pure_function() -> None:
    prompt = (
        '# [Counselor\'s Latest Dialogue Segment]:\nhello\n# [Evaluation Dimensions]:\n```json\n{"A": [score]}\n```'
    )
    assert judge_reply(prompt) == judge_reply(prompt)


def test_task_listing_has_every_parameter_described() -> None:
    for name in ("classification", "detection", "qa", "conversation", "summary", "expression"):
        fn = register_all()[f"longemotion_{name}"]
        assert "method (str)" in fn.__doc__ and "data_dir (str)" in fn.__doc__


def test_auto_retriever_falls_back_to_bm25_when_the_model_cannot_load(log_dir: str, tmp_path) -> None:
    missing = str(tmp_path / "no-such-embedding-model")
    log = run("qa", log_dir, method="rag", retriever="auto", embedding_model=missing)
    assert log.status == "success"
    for sample in log.samples:
        info = sample.metadata["retrieval"]
        assert info["ranker"] == "bm25" and info["ranker_fallback"]
        assert "no-such-embedding-model" in info["ranker_fallback"] or "not installed" in info["ranker_fallback"]


def test_rankers_are_loaded_off_the_event_loop(log_dir: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import threading

    from eq_evals.longemotion import retrieval

    on_main: list[bool] = []

    def recording_get_ranker(retriever: str = "auto", embedding_model: str = "") -> retrieval.Ranker:
        on_main.append(threading.current_thread() is threading.main_thread())
        return retrieval.BM25()

    monkeypatch.setattr(retrieval, "get_ranker", recording_get_ranker)
    assert run("qa", log_dir, method="coem").status == "success"
    assert on_main and not any(on_main)


def test_finentity_uses_its_own_enrichment_prompt(log_dir: str, tmp_path) -> None:
    # the EC fixture under the FinEntity file name: only the helper prompt differs between the subsets
    (tmp_path / "Emotion_Classification_Finentity.jsonl").write_bytes(
        (data.resource("datasets", data.FIXTURES) / "Emotion_Classification_Emobench.jsonl").read_bytes()
    )
    for subset, marker in (
        ("finentity", "financial emotion enrichment assistant"),
        ("emobench", "emotional intelligence analyst"),
    ):
        log = run(
            "classification",
            log_dir,
            method="coem",
            subset=subset,
            data_dir=str(tmp_path if subset == "finentity" else data.resource("datasets", data.FIXTURES)),
        )
        for sample in log.samples:
            texts = [e.input[-1].text for e in sample.events if e.event == "model" and e.model.endswith("le_helper")]
            texts = [sample.attachments.get(t.removeprefix("attachment://"), t) for t in texts]
            assert texts and all(marker in t for t in texts), subset
            if subset == "finentity":  # the entity (the record's subject) is named
                assert all(f'"{sample.metadata["subject"]}"' in t for t in texts)


@pytest.mark.parametrize("task", ["classification", "detection"])
def test_default_retries_give_five_tries_as_the_original(task: str, log_dir: str) -> None:
    log = run(task, log_dir, "le_malformed")
    assert {s.metadata["attempts"] for s in log.samples} == {5}  # docs/longemotion.md, 'Parameters': up to 5 tries


@pytest.mark.parametrize(("method", "tries"), [("base", 10), ("rag", 5), ("coem", 10)])
def test_default_panas_tries_follow_the_original_per_method(method: str, tries: int, log_dir: str) -> None:
    log = run("expression", log_dir, "le_malformed", method=method, emotions="Anger")
    assert {s.metadata["attempts"] for s in log.samples} == {tries}  # docs/longemotion.md, 'Parameters': 10, RAG 5


def test_conversation_stderr_is_clustered_by_dialogue(log_dir: str) -> None:
    log = run("conversation", log_dir)
    by_dialogue: dict = {}
    for s in log.samples:
        by_dialogue.setdefault(s.metadata["dialogue_id"], []).append(s.scores["longemotion_judge"].value["score"])
    means = [sum(v) / len(v) for v in by_dialogue.values()]
    assert len(means) < len(log.samples)
    m = sum(means) / len(means)
    expected = math.sqrt(sum((x - m) ** 2 for x in means) / (len(means) - 1) / len(means))
    assert metrics(log)["stderr"] == pytest.approx(expected)


def test_coem_needs_no_helper_when_only_base_stages_run(log_dir: str) -> None:
    log = run("conversation", log_dir, roles={"grader": ROLES["grader"]}, method="coem", stages="1,2")
    assert log.status == "success" and {s.metadata["retrieval"]["method"] for s in log.samples} == {"base"}
    log = run("conversation", log_dir, roles={"grader": ROLES["grader"]}, method="coem", stages="4")
    assert log.status == "error" and "helper" in log.error.message


def test_chunk_tokenizer_deviation_is_flagged(log_dir: str) -> None:
    log = run("qa", log_dir, method="rag")
    assert (
        "not the paper's hf:meta-llama/Llama-3.1-8B-Instruct"
        in log.samples[0].metadata["retrieval"]["chunk_tokenizer_deviation"]
    )
    base = run("qa", log_dir)
    assert "chunk_tokenizer_deviation" not in base.samples[0].metadata["retrieval"]


def test_detection_declares_no_unused_initial_ranking_count() -> None:
    assert (
        "top_k_initial" not in register_all()["longemotion_detection"].__doc__
    )  # ED skips it (LongEmotion paper App. E)
