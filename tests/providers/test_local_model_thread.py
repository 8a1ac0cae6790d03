"""The embedded model's one dedicated thread (issue 13): every call runs on it in order, and an eval's calls share
it and keep the task's declared generation limit."""

from __future__ import annotations

import asyncio
import threading

import pytest
from inspect_ai import eval as inspect_eval

import eq_evals._registry  # noqa: F401
from eq_evals.providers.local_gguf import ModelThread


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


@pytest.mark.local_model
def test_embedded_model_calls_share_one_thread_and_keep_the_declared_limit(tmp_path) -> None:
    from support import need_embedded_model

    from eq_evals.providers import local_gguf

    need_embedded_model()
    backend = local_gguf.LocalGGUF("smollm2", n_threads=1)  # the same cached model the eval's provider gets
    [key] = [k for k, (chat, _) in local_gguf._CACHE.items() if chat is backend.chat]
    original, threads = backend.chat, []

    def recording(*args, **kwargs):
        threads.append(threading.get_ident())
        return original(*args, **kwargs)

    local_gguf._CACHE[key] = (recording, backend.thread)
    try:
        [log] = inspect_eval(
            "eq_evals/facet_hidden",
            model="eq_evals/smollm2",
            model_args={"n_threads": 1},
            limit=4,
            epochs=1,
            max_samples=4,
            temperature=0.0,
            log_dir=str(tmp_path),
            display="none",
        )
    finally:
        local_gguf._CACHE[key] = (original, backend.thread)
    assert log.status == "success", log.error
    assert len(threads) == 4 and len(set(threads)) == 1, "every generate call runs on the model's one thread"
    for sample in log.samples:
        assert 0 < sample.output.usage.output_tokens <= 128  # tasks/facet/facet_hidden.yaml's max_tokens
