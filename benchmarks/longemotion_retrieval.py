"""LongEmotion retrieval benchmark (issue 5): for each retriever (BM25, embedding),

1. time and peak memory to chunk, embed/index and query one 16k-token context (chars4 tokens, 128-unit
   chunks, overlap 50: the paper's EC setting, Table 9), each retriever in a fresh subprocess;
2. retrieval recall of the planted emotional passage in Emotion Classification items (query = the
   subject's name, spec §4.1) at k = 1 (the paper's EC setting) and k = 4, for 128- and 512-unit chunks.

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
SHARED_EC = REPO.parent / "shared" / "data" / "longemotion" / "examples_2025-08" / "Emotion_Classification_example.jsonl"
TARGET_TOKENS = 16_000


def rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def context_16k() -> str:
    """A 16k-token (chars4) context built from the project's fixture noise passages."""
    from eq_evals.longemotion.data import classification_samples
    from eq_evals.resources import resource

    texts = [s.metadata["content"] for s in classification_samples(
        resource("datasets", "longemotion/fixtures/Emotion_Classification_Emobench.jsonl"), "fixtures")]
    out, i = [], 0
    while sum(len(t) for t in out) < TARGET_TOKENS * 4:
        out.append(texts[i % len(texts)])
        i += 1
    return "\n".join(out)[: TARGET_TOKENS * 4]


def timing(retriever: str) -> dict:
    """Runs inside a fresh process: chunk, index (embed), query; wall times and peak RSS growth."""
    from eq_evals.longemotion import retrieval

    text = context_16k()
    base_rss = rss_mb()
    t0 = time.perf_counter()
    ranker = retrieval.get_ranker(retriever)
    t_load = time.perf_counter() - t0
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
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"retriever": ranker.name, "context_tokens_chars4": retrieval.length_function("chars4")(text),
            "n_chunks": len(chunks), "load_s": round(t_load, 3), "chunk_s": round(t_chunk, 3),
            "index_s": round(t_index, 3), "query_s": round(t_query, 3),
            "total_s": round(t_chunk + t_index + t_query, 3), "rss_before_mb": round(base_rss, 1),
            "peak_rss_mb": round(peak, 1), "peak_growth_mb": round(peak - base_rss, 1)}


def items() -> list[tuple[str, str, str]]:
    """(source, subject, content) of the EC items available."""
    from eq_evals.longemotion.data import classification_samples
    from eq_evals.resources import resource

    out = [("fixtures", s.metadata["subject"], s.metadata["content"]) for s in classification_samples(
        resource("datasets", "longemotion/fixtures/Emotion_Classification_Emobench.jsonl"), "fixtures")]
    if SHARED_EC.exists():
        out += [("upstream_examples_2025-08", s.metadata["subject"], s.metadata["content"])
                for s in classification_samples(SHARED_EC, "examples")]
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
            results[f"chunk{size}_k{k}"] = {"recall": round(hits / len(data), 3), "hits": hits, "items": len(data),
                                            "by_source": {s: f"{h}/{n}" for s, (h, n) in per_source.items()}}
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
    report: dict = {"machine": {"python": platform.python_version(), "cpus": os.cpu_count(), "platform": platform.platform()},
                    "settings": {"context": f"{TARGET_TOKENS} chars4 tokens from the project fixtures",
                                 "chunk_overlap": 50, "tokenizer": "chars4", "query": "subject name"},
                    "timing": [], "recall": []}
    if "embedding" not in retrievers:
        report["note"] = "embedding retriever not installed: only BM25 measured"
    for retriever in retrievers:
        for kind in ("timing", "recall"):
            out = subprocess.run([sys.executable, __file__, "--child", f"{kind}-{retriever}"], capture_output=True,
                                 text=True, check=True, env={**os.environ, "TOKENIZERS_PARALLELISM": "false"})
            report[kind].append(json.loads(out.stdout.strip().splitlines()[-1]))
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
