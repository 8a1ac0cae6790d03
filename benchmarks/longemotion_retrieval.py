"""LongEmotion retrieval benchmark (issue 5): for each retriever (BM25, embedding),

1. time and memory to load the ranker, and separately to chunk, embed/index and query one 16k-token
   context of distinct text (chars4 tokens, 128-unit chunks, overlap 50: the paper's EC setting, Table 9;
   the upstream EC example contexts when ../shared is present, else generated paragraphs) with an empty
   embedding cache, each retriever in a fresh subprocess;
2. retrieval recall of the planted emotional passage in Emotion Classification items (query = the
   subject's name, docs/longemotion.md, 'Methods', step 2) at k = 1 (the paper's EC setting) and k = 4, for 128- and 512-unit chunks.

Items: the project fixtures (datasets/longemotion/fixtures) and, when present, the upstream EC examples
in ../shared/data/longemotion/examples_2025-08 (read only; nothing of them is written out but counts).
The planted passage is the one line of the context that names the subject (the BookCorpus noise is
lower-cased). A hit: some retrieved chunk holds at least half of the passage's words.

Run:  python benchmarks/longemotion_retrieval.py  [--out benchmarks/results/longemotion_retrieval.json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
REPO = Path(__file__).resolve().parents[1]
SHARED_EC = (
    REPO.parent / "shared" / "data" / "longemotion" / "examples_2025-08" / "Emotion_Classification_example.jsonl"
)
TARGET_TOKENS = 16_000


def rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


class PeakRSS:
    """Peak resident memory while the block runs (VmRSS polled every 5 ms in a thread): unlike ru_maxrss,
    it does not include peaks from before the block (e.g. loading the model)."""

    def __enter__(self) -> "PeakRSS":
        import threading

        self.start = self.peak = rss_mb()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)
        self._thread.start()
        return self

    def _poll(self) -> None:
        while not self._stop.wait(0.005):
            self.peak = max(self.peak, rss_mb())

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, rss_mb())


def generated_paragraphs(n_chars: int) -> str:
    """Distinct, deterministic pseudo-text paragraphs (no two chunks repeat)."""
    import random

    rng = random.Random(0)
    words = [
        f"{a}{b}"
        for a in ("al", "be", "co", "da", "el", "fo", "gra", "hu", "in", "jo", "ka", "lu")
        for b in ("ren", "mis", "tor", "vane", "lo", "dish", "mer", "pat", "quin", "sol")
    ]
    out, n = [], 0
    while sum(len(p) for p in out) < n_chars:
        n += 1
        sentences = [
            " ".join(rng.choice(words) for _ in range(rng.randint(8, 20))).capitalize() + "."
            for _ in range(rng.randint(3, 7))
        ]
        out.append(f"Paragraph {n}. " + " ".join(sentences))
    return "\n\n".join(out)


def context_16k() -> tuple[str, str]:
    """(a 16k-token (chars4) context of distinct text, where it came from): the upstream EC example
    contexts concatenated when ../shared is present (real BookCorpus-style noise), else generated paragraphs."""
    n_chars = TARGET_TOKENS * 4
    if SHARED_EC.exists():
        from eq_evals.longemotion.data import classification_samples

        text = "\n\n".join(s.metadata["content"] for s in classification_samples(SHARED_EC, "examples"))
        if len(text) >= n_chars:
            return text[:n_chars], "upstream EC examples 2025-08, concatenated"
    return generated_paragraphs(n_chars)[:n_chars], "generated distinct paragraphs"


def timing(retriever: str) -> dict:
    """Runs inside a fresh process: (1) load the ranker (model load + one warm-up encode), (2) chunk,
    embed/index and query with an empty embedding cache; wall times, and RSS growth of each phase measured
    from the RSS at its start (so the work phase excludes the model)."""
    from eq_evals.longemotion import retrieval

    text, source = context_16k()
    rss_start = rss_mb()
    t0 = time.perf_counter()
    with PeakRSS() as load_mem:
        ranker = retrieval.get_ranker(retriever)
        if retriever == "embedding":
            ranker.embed(["warm-up sentence"])
    t_load = time.perf_counter() - t0
    if retriever == "embedding":
        ranker._cache.clear()  # no chunk embedding may come from the cache
    with PeakRSS() as work_mem:
        t0 = time.perf_counter()
        chunks = retrieval.chunk_text(text, 128, 50, "chars4")
        t_chunk = time.perf_counter() - t0
        t0 = time.perf_counter()
        if retriever == "embedding":
            ranker.embed(chunks)  # the index = the normalised chunk vectors (numpy replaces FAISS)
        else:
            ranker._index(chunks)  # BM25 term statistics
        t_index = time.perf_counter() - t0
        t0 = time.perf_counter()
        keep, _ = retrieval.retrieve(ranker, "Marta", chunks, 1)
        t_query = time.perf_counter() - t0
    return {
        "retriever": ranker.name,
        "context": source,
        "context_tokens_chars4": retrieval.length_function("chars4")(text),
        "n_chunks": len(chunks),
        "n_unique_chunks": len(set(chunks)),
        "load_s": round(t_load, 3),
        "load_rss_growth_mb": round(load_mem.peak - rss_start, 1),
        "chunk_s": round(t_chunk, 3),
        "index_s": round(t_index, 3),
        "query_s": round(t_query, 3),
        "work_s": round(t_chunk + t_index + t_query, 3),
        "rss_after_load_mb": round(work_mem.start, 1),
        "work_peak_rss_growth_mb": round(work_mem.peak - work_mem.start, 1),
        "process_peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }


def items() -> list[tuple[str, str, str]]:
    """(source, subject, content) of the EC items available."""
    from eq_evals.longemotion.data import classification_samples
    from eq_evals.resources import resource

    out = [
        ("fixtures", s.metadata["subject"], s.metadata["content"])
        for s in classification_samples(
            resource("datasets", "longemotion/fixtures/Emotion_Classification_Emobench.jsonl"), "fixtures"
        )
    ]
    if SHARED_EC.exists():
        out += [
            ("upstream_examples_2025-08", s.metadata["subject"], s.metadata["content"])
            for s in classification_samples(SHARED_EC, "examples")
        ]
    return out


def planted(subject: str, content: str) -> str:
    lines = [ln for ln in content.splitlines() if subject in ln and re.search(r"[A-Z]", ln)]
    return max(lines, key=len) if lines else ""


def recall(retriever: str) -> dict:
    from eq_evals.longemotion import retrieval

    ranker = retrieval.get_ranker(retriever)
    results = {}
    for size in (128, 512):
        for k in (1, 4):
            hits, per_source = 0, {}
            data = items()
            for source, subject, content in data:
                passage = set(re.findall(r"\w+", planted(subject, content).lower()))
                chunks = retrieval.chunk_text(content, size, 50, "chars4")
                keep, _ = retrieval.retrieve(ranker, subject, chunks, k)
                hit = any(len(passage & set(re.findall(r"\w+", chunks[i].lower()))) >= len(passage) / 2 for i in keep)
                hits += hit
                per_source.setdefault(source, [0, 0])
                per_source[source][0] += hit
                per_source[source][1] += 1
            results[f"chunk{size}_k{k}"] = {
                "recall": round(hits / len(data), 3),
                "hits": hits,
                "items": len(data),
                "by_source": {s: f"{h}/{n}" for s, (h, n) in per_source.items()},
            }
    return {"retriever": ranker.name, **results}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(REPO / "benchmarks" / "results" / "longemotion_retrieval.json"))
    parser.add_argument("--child", choices=["timing-bm25", "timing-embedding", "recall-bm25", "recall-embedding"])
    args = parser.parse_args()
    if args.child:
        kind, retriever = args.child.split("-")
        print(json.dumps(timing(retriever) if kind == "timing" else recall(retriever)))
        return 0
    from eq_evals.longemotion import retrieval

    retrievers = ["bm25"] + (["embedding"] if retrieval.embedding_available() else [])
    report: dict = {
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count(), "platform": platform.platform()},
        "settings": {
            "context": f"{TARGET_TOKENS} chars4 tokens of distinct text (see timing[].context)",
            "chunk_overlap": 50,
            "tokenizer": "chars4",
            "query": "subject name",
        },
        "timing": [],
        "recall": [],
    }
    if "embedding" not in retrievers:
        report["note"] = "embedding retriever not installed: only BM25 measured"
    for retriever in retrievers:
        for kind in ("timing", "recall"):
            out = subprocess.run(
                [sys.executable, __file__, "--child", f"{kind}-{retriever}"],
                capture_output=True,
                text=True,
                check=True,
                env={**os.environ, "TOKENIZERS_PARALLELISM": "false"},
            )
            report[kind].append(json.loads(out.stdout.strip().splitlines()[-1]))
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
