"""Ingest throughput vs raw encoder throughput, on the seeds or a synthetic corpus.

python -m benchmarks.ingest                 # the 58 seed papers
python -m benchmarks.ingest --synthetic 1000
python -m benchmarks.ingest --embedding-backend torch,onnx,onnx-int8   # one run per backend
python -m benchmarks.ingest --embedding-backend torch,openai --compare  # openai: Infinity, started here

Each run gets its own fresh data directory; the ONNX export (first use) and the model load
happen in the warm-up, outside the timings, and are reported separately. `--compare` also runs
each backend with embedding 2 groups ahead of the Chroma writes, with nothing ahead, and with
neither batching nor concurrency: one text per embedding call (torch: batch size 1; openai:
batch size 1, one request at a time). The `openai` backend is Infinity serving the bundled
model on this machine (so it shares the same cores), unless `--server-url` names another server.
"""

import argparse
import contextlib
import functools
import tempfile
import time
from pathlib import Path

from benchmarks.servers import infinity_server
from benchmarks.synthetic import SEEDS, write_corpus
from rag.config import Settings
from rag.corpus import load_corpus
from rag.index import ingest as ingest_module
from rag.index import open_store, run_ingest
from rag.index.embedder import bundled_model_path, embedder_from_settings

BACKENDS = ("torch", "onnx", "onnx-int8", "openai")
EMBED_AHEAD_AS_SHIPPED = ingest_module.embed_ahead
# (label, settings changes, groups embedded ahead of the writes: None is ingest's default,
# EMBED_AHEAD for a server and 0 for a model running here)
BATCHED = ("batched, the default", {}, None)
AHEAD = (f"batched, {ingest_module.EMBED_AHEAD} groups ahead", {}, ingest_module.EMBED_AHEAD)
SEQUENTIAL = ("batched, nothing ahead", {}, 0)
ONE_BY_ONE = (
    "one text a call, nothing ahead",
    {"embedding_batch_size": 1, "embedding_server": {"batch_size": 1, "concurrency": 1}},
    0,
)


def encoder_rate(settings: Settings, abstracts: list[str]) -> tuple[float, float]:
    """(seconds to load and warm up, abstracts/s of the bare encoder)."""
    started = time.perf_counter()
    embedder = embedder_from_settings(settings)
    embedder.embed(abstracts[:8])  # load (and export, for ONNX) and warm up outside the timings
    load_seconds = time.perf_counter() - started
    started = time.perf_counter()
    embedder.embed(abstracts)
    return load_seconds, len(abstracts) / (time.perf_counter() - started)


def ingest_rate(settings: Settings, ahead: int) -> tuple[float, float, int]:
    """(abstracts/s of a full ingest, its seconds, chunks written), on a fresh data dir."""
    embedder = embedder_from_settings(settings)
    embedder.embed(["warm up"])
    ingest_module.embed_ahead = functools.partial(EMBED_AHEAD_AS_SHIPPED, depth=ahead)
    started = time.perf_counter()
    report = run_ingest(settings, show_progress=False, embedder=embedder)
    seconds = time.perf_counter() - started
    return report.added / seconds, seconds, open_store(settings).count()


def measure(settings: Settings, abstracts: list[str], configs) -> None:
    load_seconds, encode_rate = encoder_rate(settings, abstracts)
    print(f"[{settings.embedding_backend}] load + warm-up (ONNX: export included): "
          f"{load_seconds:.1f} s")  # fmt: skip
    print(f"  raw encoder (whole abstracts, truncated at the window): {encode_rate:.1f} "
          "abstracts/s")  # fmt: skip
    for label, changes, ahead in configs:
        server = settings.embedding_server.model_dump() | changes.get("embedding_server", {})
        run = settings.model_copy(
            update={
                **changes,
                "embedding_server": settings.embedding_server.model_copy(update=server),
                "data_dir": settings.data_dir / "".join(c if c.isalnum() else "-" for c in label),
            }
        )
        rate, seconds, chunks = ingest_rate(run, ahead)
        print(
            f"  full ingest, {label}: {rate:.1f} abstracts/s ({seconds:.1f} s; "
            f"{rate / encode_rate:.2f} of the raw encoder; {chunks / len(abstracts):.2f} chunks "
            "and every abstract sentence embedded per abstract)"
        )
    started = time.perf_counter()
    rerun = run_ingest(run, show_progress=False)
    print(f"  re-ingest of the unchanged corpus: {time.perf_counter() - started:.1f} s "
          f"({rerun.unchanged} unchanged)")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--synthetic", type=int, default=0, help="N synthetic abstracts")
    parser.add_argument(
        "--embedding-backend", default="torch", help=f"comma-separated, from {', '.join(BACKENDS)}"
    )
    parser.add_argument("--compare", action="store_true", help="also one text a call, no overlap")
    parser.add_argument("--server-url", help="openai: this server instead of a local Infinity")
    parser.add_argument("--concurrency", type=int, default=4, help="openai: requests at once")
    args = parser.parse_args()
    backends = args.embedding_backend.split(",")
    if unknown := set(backends) - set(BACKENDS):
        parser.error(f"unknown backend(s) {', '.join(sorted(unknown))}; choose from {BACKENDS}")
    work = Path(tempfile.mkdtemp(prefix="rag-bench-"))
    paths = [write_corpus(args.synthetic, work / "corpus.jsonl")] if args.synthetic else [SEEDS]
    titles = None if args.synthetic else SEEDS / "titles.jsonl"
    abstracts = [p.abstract for p in load_corpus(paths, titles, 20_000).papers]
    print(f"corpus: {len(abstracts)} abstracts ({'synthetic' if args.synthetic else 'seeds'})")
    configs = [BATCHED, AHEAD, SEQUENTIAL, ONE_BY_ONE] if args.compare else [BATCHED]
    with contextlib.ExitStack() as stack:
        url = args.server_url
        if "openai" in backends and not url:
            url = stack.enter_context(infinity_server(bundled_model_path()))
        for backend in backends:
            settings = Settings(
                data_dir=work / backend,
                corpus_paths=paths,
                titles_path=titles,
                embedding_backend=backend,
                # a server sharing these 2 cores queues requests for minutes
                embedding_server={
                    "base_url": url,
                    "concurrency": args.concurrency,
                    "timeout_s": 600,
                },
            )
            measure(settings, abstracts, configs)


if __name__ == "__main__":
    main()
