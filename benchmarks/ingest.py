"""Ingest throughput vs raw encoder throughput, on the seeds or a synthetic corpus.

python -m benchmarks.ingest                 # the 58 seed papers
python -m benchmarks.ingest --synthetic 5000
"""

import argparse
import tempfile
import time
from pathlib import Path

from benchmarks.synthetic import SEEDS, write_corpus
from rag.config import Settings
from rag.corpus import load_corpus
from rag.index import run_ingest
from rag.index.embedder import load_embedder


def settings_store_count(settings: Settings) -> int:
    from rag.index import open_store

    return open_store(settings).count()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--synthetic", type=int, default=0, help="N synthetic abstracts")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="rag-bench-"))
    paths = [write_corpus(args.synthetic, work / "corpus.jsonl")] if args.synthetic else [SEEDS]
    titles = None if args.synthetic else SEEDS / "titles.jsonl"
    settings = Settings(data_dir=work / "data", corpus_paths=paths, titles_path=titles)
    abstracts = [p.abstract for p in load_corpus(paths, titles, 20_000).papers]

    embedder = load_embedder(settings.embedding_model, settings.embedding_batch_size)
    embedder.embed(abstracts[:8])  # load and warm up outside the timings
    started = time.perf_counter()
    embedder.embed(abstracts)
    encode_rate = len(abstracts) / (time.perf_counter() - started)

    started = time.perf_counter()
    report = run_ingest(settings, show_progress=True, embedder=embedder)
    ingest_seconds = time.perf_counter() - started
    ingest_rate = report.papers / ingest_seconds
    chunks = settings_store_count(settings)

    started = time.perf_counter()
    rerun = run_ingest(settings, show_progress=False)
    rerun_seconds = time.perf_counter() - started

    print(f"corpus: {len(abstracts)} abstracts ({'synthetic' if args.synthetic else 'seeds'})")
    print(
        f"raw encoder (sentence-transformers, truncating at the window): {encode_rate:.1f} abstracts/s"
    )
    print(
        f"full ingest (parse + chunk + embed + Chroma upsert): {ingest_rate:.1f} abstracts/s "
        f"({ingest_seconds:.1f} s, {report.added} added)"
    )
    print(
        f"ingest / encoder ratio: {ingest_rate / encode_rate:.2f} "
        f"({chunks / report.papers:.2f} chunks embedded per abstract)"
    )
    print(f"re-ingest of the unchanged corpus: {rerun_seconds:.1f} s ({rerun.unchanged} unchanged)")


if __name__ == "__main__":
    main()
