"""Retrieval latency p50/p95 (query embedding + dense + BM25 + fusion) per mode.

    python -m benchmarks.retrieval                          # the 58 seed papers
    python -m benchmarks.retrieval --synthetic 100000 --data-dir /tmp/rag-100k   # build once, reuse

At 100k papers, embedding every synthetic abstract with MiniLM would take hours on 2 cores, so
`--synthetic` indexes vectors composed from real MiniLM embeddings of the seed sentences the
synthetic abstracts are made of (see ComposedEmbedder). Chunking, Chroma, BM25 and every query
(including its real query embedding) run the product code unchanged.
"""

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from benchmarks.synthetic import SEEDS, ComposedEmbedder, write_corpus
from rag.config import Settings
from rag.evaluate import load_questions
from rag.index import open_store, run_ingest
from rag.index.embedder import load_embedder
from rag.retrieve import MODES, Retriever

QUESTIONS = Path(__file__).resolve().parent.parent / "eval" / "questions.jsonl"


def percentile(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1]


def build(args, embedder) -> Settings:
    data_dir = Path(args.data_dir or tempfile.mkdtemp(prefix="rag-bench-"))
    if args.synthetic:
        corpus = data_dir / f"synthetic-{args.synthetic}.jsonl"
        if not corpus.exists():
            write_corpus(args.synthetic, corpus)
        settings = Settings(data_dir=data_dir, corpus_paths=[corpus], titles_path=None)
        index_embedder = ComposedEmbedder(embedder)
    else:
        settings = Settings(
            data_dir=data_dir, corpus_paths=[SEEDS], titles_path=SEEDS / "titles.jsonl"
        )
        index_embedder = embedder
    if args.query_only:
        return settings
    started = time.perf_counter()
    report = run_ingest(settings, show_progress=True, embedder=index_embedder)
    print(
        f"index: {report.papers} papers ({report.added} added, {report.unchanged} unchanged) "
        f"in {time.perf_counter() - started:.0f} s; {open_store(settings).count()} chunks; "
        f"data dir {data_dir}"
    )
    return settings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--synthetic", type=int, default=0)
    parser.add_argument("--data-dir", help="reuse (or create) the index here")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--query-only",
        action="store_true",
        help="query the index already in --data-dir without re-ingesting",
    )
    parser.add_argument("--questions", type=Path, default=QUESTIONS)
    args = parser.parse_args()
    embedder = load_embedder("all-MiniLM-L6-v2")
    settings = build(args, embedder)
    started = time.perf_counter()
    retriever = Retriever(settings, embedder=embedder)
    print(f"retriever load: {time.perf_counter() - started:.1f} s")
    questions = [q.question for q in load_questions(args.questions)]
    retriever.search(questions[0], k=5)  # warm-up
    print(f"{'mode':<7} {'queries':>7} {'p50 ms':>8} {'p95 ms':>8}")
    for mode in MODES:
        timings = []
        for _ in range(args.repeats):
            for question in questions:
                started = time.perf_counter()
                retriever.search(question, k=5, mode=mode)
                timings.append((time.perf_counter() - started) * 1000)
        print(
            f"{mode:<7} {len(timings):>7} {percentile(timings, 50):>8.1f} "
            f"{percentile(timings, 95):>8.1f}"
        )
    print(f"peak memory (RSS) of this process: {peak_rss_mb():,.0f} MB")
    print(f"index on disk: {disk_mb(settings.data_dir):,.0f} MB under {settings.data_dir}")


def peak_rss_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def disk_mb(folder: Path) -> float:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file()) / 2**20


if __name__ == "__main__":
    main()
