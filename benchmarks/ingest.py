"""Ingest throughput vs raw encoder throughput, on the seeds or a synthetic corpus.

python -m benchmarks.ingest                 # the 58 seed papers
python -m benchmarks.ingest --synthetic 5000
python -m benchmarks.ingest --embedding-backend torch,onnx,onnx-int8   # one run per backend

Each backend gets its own fresh data directory; the ONNX export (first use) happens in the
warm-up, outside the timings, and is reported separately.
"""

import argparse
import tempfile
import time
from pathlib import Path

from benchmarks.synthetic import SEEDS, write_corpus
from rag.config import Settings
from rag.corpus import load_corpus
from rag.index import open_store, run_ingest
from rag.index.embedder import embedder_from_settings

BACKENDS = ("torch", "onnx", "onnx-int8")


def measure(settings: Settings, abstracts: list[str]) -> None:
    """Print encoder and ingest throughput for the embedder these settings name."""
    started = time.perf_counter()
    embedder = embedder_from_settings(settings)
    embedder.embed(abstracts[:8])  # load (and export, for ONNX) and warm up outside the timings
    load_seconds = time.perf_counter() - started
    started = time.perf_counter()
    embedder.embed(abstracts)
    encode_rate = len(abstracts) / (time.perf_counter() - started)

    started = time.perf_counter()
    report = run_ingest(settings, show_progress=False, embedder=embedder)
    ingest_seconds = time.perf_counter() - started
    ingest_rate = report.papers / ingest_seconds
    chunks = open_store(settings).count()

    started = time.perf_counter()
    rerun = run_ingest(settings, show_progress=False)
    rerun_seconds = time.perf_counter() - started

    print(f"[{settings.embedding_backend}] embedder {embedder.name!r}")
    print(f"  first load (ONNX: export included) + warm-up: {load_seconds:.1f} s")
    print(f"  raw encoder (truncating at the window): {encode_rate:.1f} abstracts/s")
    print(
        f"  full ingest (parse + chunk + embed + Chroma upsert): {ingest_rate:.1f} abstracts/s "
        f"({ingest_seconds:.1f} s, {report.added} added)"
    )
    print(
        f"  ingest / encoder ratio: {ingest_rate / encode_rate:.2f} "
        f"({chunks / report.papers:.2f} chunks embedded per abstract)"
    )
    print(
        f"  re-ingest of the unchanged corpus: {rerun_seconds:.1f} s ({rerun.unchanged} unchanged)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--synthetic", type=int, default=0, help="N synthetic abstracts")
    parser.add_argument(
        "--embedding-backend", default="torch", help=f"comma-separated, from {', '.join(BACKENDS)}"
    )
    args = parser.parse_args()
    backends = args.embedding_backend.split(",")
    if unknown := set(backends) - set(BACKENDS):
        parser.error(f"unknown backend(s) {', '.join(sorted(unknown))}; choose from {BACKENDS}")
    work = Path(tempfile.mkdtemp(prefix="rag-bench-"))
    paths = [write_corpus(args.synthetic, work / "corpus.jsonl")] if args.synthetic else [SEEDS]
    titles = None if args.synthetic else SEEDS / "titles.jsonl"
    abstracts = [p.abstract for p in load_corpus(paths, titles, 20_000).papers]
    print(f"corpus: {len(abstracts)} abstracts ({'synthetic' if args.synthetic else 'seeds'})")
    for backend in backends:
        settings = Settings(
            data_dir=work / backend,
            corpus_paths=paths,
            titles_path=titles,
            embedding_backend=backend,
        )
        measure(settings, abstracts)


if __name__ == "__main__":
    main()
