"""Generation limits declared by every task (issue 13), the command line winning over them, the answer
block a stop sequence leaves open, the embedded model's one dedicated thread, and `eq-evals list` wording."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.event import ModelEvent

import eq_evals._registry  # noqa: F401
from eq_evals.engine import is_fragment, read_declaration
from eq_evals.facet.answers import extract_answer
from eq_evals.providers.local_gguf import ModelThread

REPO = Path(__file__).resolve().parents[2]
TASK_FILES = sorted(p for p in (REPO / "tasks").glob("**/*.yaml") if not is_fragment(p))
FACET_OBJECTIVE = ["facet_apparent", "facet_hidden", "facet_prediction", "facet_social", "facet_crisis",
                   "facet_objective"]


@pytest.mark.parametrize("path", TASK_FILES, ids=lambda p: p.stem)
def test_every_task_declares_its_generation_config(path: Path) -> None:
    spec = read_declaration(path)  # with its included fragments (docs/adding-a-task.md)
    assert "config" in spec, f"{path.name} declares no generation config"
    if spec.get("solver"):  # a task whose tested model generates must cap its replies
        assert isinstance(spec["config"].get("max_tokens"), int), f"{path.name}: no max_tokens"


@pytest.mark.parametrize("name", FACET_OBJECTIVE)
def test_facet_objective_tasks_stop_at_the_closing_answer_tag(name: str) -> None:
    spec = read_declaration(REPO / "tasks" / "facet" / f"{name}.yaml")
    assert spec["config"]["stop_seqs"] == ["</answer>"]
    assert spec["config"]["max_tokens"] <= 256


def _model_configs(log) -> list:
    return [e.config for s in log.samples for e in s.events if isinstance(e, ModelEvent)]


def test_yaml_config_reaches_the_model_and_the_command_line_wins(tmp_path) -> None:
    [log] = inspect_eval("eq_evals/facet_hidden", model="eq_evals/scripted-oracle", limit=2, epochs=1,
                         log_dir=str(tmp_path / "a"), display="none")
    assert log.status == "success"
    configs = _model_configs(log)
    assert configs and all(c.max_tokens == 128 and c.stop_seqs == ["</answer>"] for c in configs)
    # --max-tokens / --stop-seqs / --temperature on the command line go through the same eval() arguments
    [log] = inspect_eval("eq_evals/facet_hidden", model="eq_evals/scripted-oracle", limit=2, epochs=1,
                         max_tokens=7, stop_seqs=["END"], temperature=0.3,
                         log_dir=str(tmp_path / "b"), display="none")
    configs = _model_configs(log)
    assert configs and all(c.max_tokens == 7 and c.stop_seqs == ["END"] and c.temperature == 0.3 for c in configs)
    assert log.plan.config.max_tokens == 7


@pytest.mark.parametrize("completion, expected", [
    ("<answer>anger</answer>", ("anger", True)),
    ("I think it is <answer>anger", ("anger", True)),                 # stopped at </answer>, tag dropped
    ("<answer>fear</answer> no, <answer>anger", ("anger", True)),     # the open block is the last one
    ("<answer>fear</answer> and then <answer>", ("fear", True)),      # an empty open block does not count
    ("<answer>fear</answer> because...", ("fear", True)),
    ("just prose, anger", ("just prose, anger", False)),
])
def test_an_answer_block_left_open_by_the_stop_sequence_is_read(completion, expected) -> None:
    assert extract_answer(completion) == expected


def test_model_thread_runs_every_call_on_one_thread_in_order() -> None:
    thread = ModelThread("test")
    seen: list[tuple[int, int]] = []

    def call(i: int) -> int:
        seen.append((i, threading.get_ident()))
        return i * i

    async def many() -> list[int]:
        # calls arrive from many tasks at once, as Inspect's samples do; asyncio.to_thread would spread them
        return await asyncio.gather(*(thread.run(call, i) for i in range(20)))

    try:
        assert asyncio.run(many()) == [i * i for i in range(20)]
        assert len({ident for _, ident in seen}) == 1
        assert seen[0][1] != threading.get_ident()
        assert [i for i, _ in seen] == list(range(20))
    finally:
        thread.shutdown()


def _list(env_offline: str | None, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if k not in ("HF_HUB_OFFLINE", "LONGEMOTION_DATA_DIR")}
    if env_offline is not None:
        env["HF_HUB_OFFLINE"] = env_offline
    env["HF_HOME"] = os.environ.get("TMPDIR", "/tmp") + "/eq-evals-empty-hf-home"  # an empty Hub cache
    result = subprocess.run([sys.executable, "-m", "eq_evals.cli", "list", *args], capture_output=True, text=True,
                            timeout=180, env=env)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_list_does_not_blame_an_offline_setting_the_user_never_made() -> None:
    out = _list(None, "--long", "--benchmark", "longemotion")
    assert "HF_HUB_OFFLINE is set" not in out
    assert "`eq-evals list` only counts data already on this machine (it never downloads)" in out
    out = _list("1", "--long", "--benchmark", "longemotion")
    assert "HF_HUB_OFFLINE is set" in out  # the user did set it: say so


def test_list_shows_the_declared_generation_config() -> None:
    out = _list("1", "facet_hidden")
    hidden = out.split("eq_evals/facet_hidden ")[1].split("eq_evals/")[0]
    assert "generation: max_tokens=128, stop_seqs=['</answer>']" in hidden


@pytest.mark.local_model
def test_embedded_model_calls_share_one_thread_and_keep_the_declared_limit(tmp_path) -> None:
    from eq_evals.providers import local_gguf
    from support import need_embedded_model

    need_embedded_model()
    backend = local_gguf.LocalGGUF("smollm2", n_threads=1)  # the same cached model the eval's provider gets
    [key] = [k for k, (chat, _) in local_gguf._CACHE.items() if chat is backend.chat]
    original, threads = backend.chat, []

    def recording(*args, **kwargs):
        threads.append(threading.get_ident())
        return original(*args, **kwargs)

    local_gguf._CACHE[key] = (recording, backend.thread)
    try:
        [log] = inspect_eval("eq_evals/facet_hidden", model="eq_evals/smollm2", model_args={"n_threads": 1},
                             limit=4, epochs=1, max_samples=4,
                             temperature=0.0, log_dir=str(tmp_path), display="none")
    finally:
        local_gguf._CACHE[key] = (original, backend.thread)
    assert log.status == "success", log.error
    assert len(threads) == 4 and len(set(threads)) == 1, "every generate call runs on the model's one thread"
    for sample in log.samples:
        assert 0 < sample.output.usage.output_tokens <= 128  # tasks/facet/facet_hidden.yaml's max_tokens
