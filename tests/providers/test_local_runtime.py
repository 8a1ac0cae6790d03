"""The embedded model's runtime selection (-M runtime=) and the generate-config mapping, without either runtime:
the xllamacpp and llama_cpp modules are replaced by fakes that record what they are given."""

from __future__ import annotations

import asyncio
import importlib.machinery
import importlib.util
import sys
import threading
import types

import pytest
from inspect_ai.model import ChatMessageSystem, ChatMessageTool, ChatMessageUser, GenerateConfig

from eq_evals.errors import EqEvalsError
from eq_evals.providers import local_gguf
from eq_evals.providers.local_gguf import LocalGGUF, chat_kwargs, choose_runtime


def _fake_module(name: str) -> types.ModuleType:
    module = types.ModuleType(name)
    module.__spec__ = importlib.machinery.ModuleSpec(name, None)
    return module


def _only(monkeypatch, *installed: str) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: (
            importlib.machinery.ModuleSpec(name, None)
            if name in installed
            else None
            if name in ("xllamacpp", "llama_cpp")
            else real(name, *a)
        ),
    )


def test_default_is_the_prebuilt_runtime_then_the_compiled_one(monkeypatch) -> None:
    _only(monkeypatch, "xllamacpp", "llama_cpp")
    assert choose_runtime() == "xllamacpp"
    assert choose_runtime("llama_cpp") == "llama_cpp"
    _only(monkeypatch, "llama_cpp")
    assert choose_runtime() == "llama_cpp"
    with pytest.raises(EqEvalsError, match=r'runtime=xllamacpp is not installed: pip install "eq-evals\[local\]"'):
        choose_runtime("xllamacpp")
    with pytest.raises(EqEvalsError, match="unknown runtime, use one of xllamacpp, llama_cpp"):
        choose_runtime("vllm")


def test_neither_runtime_names_both_extras(monkeypatch) -> None:
    _only(monkeypatch)
    with pytest.raises(EqEvalsError) as error:
        choose_runtime()
    assert '"eq-evals[local]"' in str(error.value) and '"eq-evals[local-compiled]"' in str(error.value)


def test_generate_config_mapping() -> None:
    messages = [
        ChatMessageSystem(content="Be kind."),
        ChatMessageUser(content="Hi"),
        ChatMessageTool(content="tool says", tool_call_id="1"),
    ]
    kwargs = chat_kwargs(
        messages, GenerateConfig(max_tokens=12, temperature=0.0, seed=3, top_p=0.5, stop_seqs=["\n\n"])
    )
    assert kwargs == {
        "messages": [
            {"role": "system", "content": "Be kind."},
            {"role": "user", "content": "Hi"},
            {"role": "user", "content": "tool says"},
        ],
        "max_tokens": 12,
        "temperature": 0.0,
        "top_p": 0.5,
        "seed": 3,
        "stop": ["\n\n"],
    }
    assert chat_kwargs(messages[:1], GenerateConfig()) == {
        "messages": [{"role": "system", "content": "Be kind."}],
        "max_tokens": 512,
    }


class _Params(types.SimpleNamespace):
    def __init__(self) -> None:
        super().__init__(
            model=types.SimpleNamespace(path=None),
            sampling=types.SimpleNamespace(seed=-1),
            cpuparams=types.SimpleNamespace(n_threads=-1),
            cpuparams_batch=types.SimpleNamespace(n_threads=-1),
            hostnames=["0.0.0.0"],
            port=8080,
            api_keys=[],
        )


def _fake_xllamacpp(monkeypatch, address: str = "http://127.0.0.1:40000") -> dict:
    seen: dict = {"requests": []}

    class Server:
        def __init__(self, params) -> None:
            seen["params"], seen["load_thread"] = params, threading.current_thread().name
            self.listening_address = address

        def handle_chat_completions(self, request: dict) -> dict:
            seen["requests"].append((request, threading.current_thread().name))
            if request["messages"][-1]["content"] == "too long":
                return {"error": {"code": 400, "message": "request exceeds the available context size"}}
            return {
                "choices": [{"finish_reason": "length", "message": {"content": "I hear you"}}],
                "usage": {"prompt_tokens": 20, "completion_tokens": 3, "total_tokens": 23},
            }

    module = _fake_module("xllamacpp")
    module.CommonParams, module.Server = _Params, Server
    monkeypatch.setitem(sys.modules, "xllamacpp", module)
    monkeypatch.setattr(local_gguf, "_CACHE", {})
    return seen


def test_xllamacpp_backend_maps_parameters_and_runs_on_the_model_thread(monkeypatch, tmp_path) -> None:
    seen = _fake_xllamacpp(monkeypatch)
    gguf = tmp_path / "m.gguf"
    gguf.write_bytes(b"GGUF")
    backend = LocalGGUF("gguf", model_path=str(gguf), n_ctx=1024, n_threads=1, seed=5, runtime="xllamacpp")
    params = seen["params"]
    assert (
        params.model.path,
        params.n_ctx,
        params.cpuparams.n_threads,
        params.cpuparams_batch.n_threads,
        params.sampling.seed,
        params.n_parallel,
    ) == (str(gguf), 1024, 1, 1, 5, 1)
    assert params.hostnames == ["127.0.0.1"] and params.port == 0 and len(params.api_keys[0]) >= 32
    output = asyncio.run(
        backend.generate(
            "gguf", [ChatMessageUser(content="Hi")], GenerateConfig(max_tokens=3, temperature=0.0, stop_seqs=["\n"])
        )
    )
    request, thread = seen["requests"][0]
    assert request == {
        "messages": [{"role": "user", "content": "Hi"}],
        "max_tokens": 3,
        "temperature": 0.0,
        "stop": ["\n"],
    }
    assert thread == seen["load_thread"] != threading.current_thread().name and thread.startswith("eq-evals-m")
    assert output.completion == "I hear you" and output.stop_reason == "max_tokens"
    assert (output.usage.input_tokens, output.usage.output_tokens, output.usage.total_tokens) == (20, 3, 23)
    with pytest.raises(EqEvalsError, match=r"xllamacpp \(m.gguf\): request exceeds the available context"):
        asyncio.run(backend.generate("gguf", [ChatMessageUser(content="too long")], GenerateConfig()))


def test_xllamacpp_listening_beyond_loopback_is_refused(monkeypatch, tmp_path) -> None:
    _fake_xllamacpp(monkeypatch, address="http://0.0.0.0:8080")
    gguf = tmp_path / "m.gguf"
    gguf.write_bytes(b"GGUF")
    with pytest.raises(EqEvalsError, match="listens on http://0.0.0.0:8080, not on loopback"):
        LocalGGUF("gguf", model_path=str(gguf), runtime="xllamacpp")


def test_llama_cpp_backend_gets_the_same_request(monkeypatch, tmp_path) -> None:
    seen: dict = {}

    class Llama:
        def __init__(self, **kwargs) -> None:
            seen["init"] = kwargs

        def create_chat_completion(self, **kwargs) -> dict:
            seen["request"] = kwargs
            return {"choices": [{"finish_reason": "stop", "message": {"content": "ok"}}], "usage": {}}

        def close(self) -> None:
            pass

    module = _fake_module("llama_cpp")
    module.Llama = Llama
    monkeypatch.setitem(sys.modules, "llama_cpp", module)
    _only(monkeypatch, "llama_cpp")
    monkeypatch.setattr(local_gguf, "_CACHE", {})
    gguf = tmp_path / "m.gguf"
    gguf.write_bytes(b"GGUF")
    backend = LocalGGUF("gguf", model_path=str(gguf), n_threads=2, seed=9)
    assert backend.runtime == "llama_cpp"
    assert seen["init"] == {
        "model_path": str(gguf),
        "n_ctx": 4096,
        "n_threads": 2,
        "n_threads_batch": 2,
        "seed": 9,
        "verbose": False,
    }
    config = GenerateConfig(max_tokens=7, seed=1)
    output = asyncio.run(backend.generate("gguf", [ChatMessageUser(content="Hi")], config))
    assert seen["request"] == chat_kwargs([ChatMessageUser(content="Hi")], config)
    assert output.completion == "ok" and output.stop_reason == "stop"
