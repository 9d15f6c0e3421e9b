"""End to end at N papers: ingest time and rate, index size on disk, `rag ui` memory (and the
Chroma server's), retrieval and list-answer latency, `rag doctor` time — with the embedded
Chroma store and a Chroma server.

    python -m benchmarks.scale 1000                       # both stores, the bundled embedder
    python -m benchmarks.scale 20000 --data-dir /tmp/scale-20k
    python -m benchmarks.scale 100000 --embedder composed  # vectors composed from seed sentences
    python -m benchmarks.scale 20000 --embedder server     # Infinity on this machine, or --server-url

The corpus is synthetic (benchmarks/synthetic.py: each abstract mixes 6-10 seed sentences), so
its evidence sentences repeat and are embedded once: ingest here embeds the chunks and ~500
sentences, where a real corpus also embeds ~8 new sentences per abstract. `--embedder composed`
indexes each chunk as the mean of its sentences' real vectors (no model run per chunk: for sizes
the model cannot embed in hours on 2 cores); questions are embedded by the bundled model in every
case. Each store is ingested from scratch, into its own folder under --data-dir.
"""

import argparse
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.retrieval import percentile
from benchmarks.servers import chroma_server, disk_mb, infinity_server, rss_mb
from benchmarks.synthetic import TOPIC_QUESTION, ComposedEmbedder, topic_papers, write_corpus
from rag.answer.intent import classify
from rag.config import Settings
from rag.evaluate import load_questions
from rag.index import open_store, run_ingest
from rag.index.embedder import bundled_model_path, embedder_from_settings, load_embedder
from rag.llm.runner import free_port

QUESTIONS = Path(__file__).resolve().parent.parent / "eval" / "questions.jsonl"
EMBEDDERS = ("bundled", "composed", "server")


def environment(settings: Settings) -> dict[str, str]:
    """The RAG_* variables that give a `rag` subprocess these settings."""
    server = settings.embedding_server
    variables = {
        "RAG_DATA_DIR": str(settings.data_dir),
        "RAG_CORPUS_PATHS": json.dumps([str(p) for p in settings.corpus_paths]),
        "RAG_TITLES_PATH": "",
        "RAG_LLM_BACKEND": "extractive",
        "RAG_EMBEDDING_BACKEND": settings.embedding_backend,
        "RAG_EMBEDDING_SERVER__BASE_URL": server.base_url or "",
    }
    if settings.chroma_host:
        variables |= {"RAG_CHROMA_HOST": settings.chroma_host}
        variables |= {"RAG_CHROMA_PORT": str(settings.chroma_port)}
    inherited = {k: v for k, v in os.environ.items() if not k.startswith("RAG_")}
    return inherited | variables | {"HF_HUB_OFFLINE": "1", "GRADIO_ANALYTICS_ENABLED": "False"}


def ingest(settings: Settings, embedder) -> dict:
    started = time.perf_counter()
    report = run_ingest(settings, embedder=embedder, progress_style="text")
    seconds = time.perf_counter() - started
    chunks = open_store(settings).count()
    return {
        "ingest_s": round(seconds, 1),
        "ingest_papers_per_s": round(report.added / seconds, 1),
        "chunks": chunks,
    }


def doctor_seconds(settings: Settings) -> float:
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "rag", "doctor", "--json"],
        env=environment(settings),
        capture_output=True,
        text=True,
        check=False,
    )
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"rag doctor failed: {done.stdout}{done.stderr}")
    return round(seconds, 1)


def ui_memory(settings: Settings, question: str) -> dict:
    """`rag ui` (extractive answers): RSS once it serves, and after its first answer (which
    loads the embedding model), in MB."""
    from gradio_client import Client

    port = free_port()
    env = environment(settings) | {"RAG_UI_PORT": str(port)}
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "rag", "ui"], env=env, stdout=subprocess.PIPE, text=True
    )
    try:
        for line in process.stdout:
            if "serving at" in line:
                break
        else:
            raise SystemExit("rag ui exited before serving")
        serving = {"ui_start_s": round(time.perf_counter() - started, 1)}
        serving["ui_rss_serving_mb"] = round(rss_mb(process.pid))
        Client(f"http://127.0.0.1:{port}/", verbose=False).predict(question, api_name="/ask")
        serving["ui_rss_answered_mb"] = round(rss_mb(process.pid))
        return serving
    finally:
        process.terminate()
        process.wait(timeout=60)


def latencies(settings: Settings, embedder, questions: list[str], repeats: int, n: int) -> dict:
    """Retrieval (k=5) over the dev questions and extractive list answers, p50/p95 in ms; the
    planted topic's complete list (`topic_list`)."""
    from rag.answer.pipeline import Answerer
    from rag.retrieve import Retriever

    retriever = Retriever(settings, embedder=embedder)
    answerer = Answerer(settings, retriever=retriever)
    retriever.search(questions[0])  # warm-up
    search, lists = [], []
    for _ in range(repeats):
        for question in questions:
            started = time.perf_counter()
            retriever.search(question, k=5)
            search.append((time.perf_counter() - started) * 1000)
    for question in [q for q in questions if classify(q).is_list]:
        started = time.perf_counter()
        for _ in answerer.ask(question):
            pass
        lists.append((time.perf_counter() - started) * 1000)
    return {
        "retrieval_ms_p50": round(percentile(search, 50), 1),
        "retrieval_ms_p95": round(percentile(search, 95), 1),
        "queries": len(search),
        "list_answer_ms_p50": round(percentile(lists, 50), 1),
        "list_answer_ms_p95": round(percentile(lists, 95), 1),
        "list_questions": len(lists),
    } | topic_list(answerer, n)


def topic_list(answerer, n: int, repeats: int = 3) -> dict:
    """The planted topic's list question (benchmarks.synthetic: a known number of papers):
    its time (p50 of `repeats`), the count its notice gives, and, with "show all" after it,
    how many planted papers the pages hold and how many others."""
    from rag.models import Message

    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        first = list(answerer.ask(TOPIC_QUESTION))[-1]
        times.append((time.perf_counter() - started) * 1000)
    history = [
        Message(role="user", content=TOPIC_QUESTION),
        Message(role="assistant", content=first.transcript()),
    ]
    started = time.perf_counter()
    rest = list(answerer.ask("show all", history))[-1]
    rest_ms = (time.perf_counter() - started) * 1000
    cited = [c.title for c in first.citations + rest.citations]
    planted = sum(int(title.split()[1].rstrip(":")) < topic_papers(n) for title in cited)
    return {
        "topic_papers": topic_papers(n),
        "topic_notice": first.notices[-1] if first.notices else "",
        "topic_found": planted,
        "topic_others": len(cited) - planted,
        "topic_ms_p50": round(percentile(times, 50), 1),
        "topic_show_all_ms": round(rest_ms, 1),
    }


def run_store(store: str, settings: Settings, embedders, questions, repeats, reuse, n) -> dict:
    """Every measurement for one store; the Chroma server is started here, storing in data_dir.
    With `reuse`, an index this script built before in data_dir is measured again as it is
    (its ingest numbers read back), not rebuilt."""
    index_embedder, query_embedder = embedders
    built = settings.data_dir / "ingest.json"
    with contextlib.ExitStack() as stack:
        server = None
        if store == "server":
            port, server = stack.enter_context(chroma_server(settings.data_dir / "chroma-server"))
            settings = settings.model_copy(update={"chroma_host": "127.0.0.1", "chroma_port": port})
        if reuse and built.exists():
            row = json.loads(built.read_text())
        else:
            row = {"store": store} | ingest(settings, index_embedder)
            row["index_mb"] = round(disk_mb(settings.data_dir))
            built.write_text(json.dumps(row))
        print(f"  {row}", flush=True)
        row["doctor_s"] = doctor_seconds(settings)
        row |= ui_memory(settings, questions[0])
        row |= latencies(settings, query_embedder, questions, repeats, n)
        if server:
            row["chroma_server_rss_mb"] = round(rss_mb(server.pid))
    print(json.dumps(row), flush=True)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n", type=int, help="synthetic abstracts")
    parser.add_argument("--stores", default="embedded,server", help="embedded, server or both")
    parser.add_argument("--embedder", default="bundled", choices=EMBEDDERS)
    parser.add_argument("--server-url", help="--embedder server: this server, not a local Infinity")
    parser.add_argument("--data-dir", type=Path, help="where the indexes go (default: a temp dir)")
    parser.add_argument("--repeats", type=int, default=2, help="passes over the dev questions")
    parser.add_argument(
        "--reuse", action="store_true", help="measure the indexes an earlier run left in --data-dir"
    )
    args = parser.parse_args()
    work = args.data_dir or Path(tempfile.mkdtemp(prefix="rag-scale-"))
    work.mkdir(parents=True, exist_ok=True)
    corpus = work / f"synthetic-{args.n}.jsonl"
    if not (args.reuse and corpus.exists()):
        write_corpus(args.n, corpus)
    questions = [q.question for q in load_questions(QUESTIONS) if not q.history]
    print(f"{args.n} synthetic abstracts in {corpus}; embedder: {args.embedder}", flush=True)
    bundled = load_embedder("all-MiniLM-L6-v2")
    with contextlib.ExitStack() as stack:
        server = {}
        if args.embedder == "server":
            url = args.server_url or stack.enter_context(infinity_server(bundled_model_path()))
            endpoint = {"base_url": url, "timeout_s": 600}  # a local server queues for minutes
            server = {"embedding_backend": "openai", "embedding_server": endpoint}
        rows = []
        for store in args.stores.split(","):
            settings = Settings(
                data_dir=work / store,
                corpus_paths=[corpus],
                titles_path=None,
                llm_backend="extractive",
                **server,
            )
            embedder = embedder_from_settings(settings) if server else bundled
            index_embedder = ComposedEmbedder(bundled) if args.embedder == "composed" else embedder
            print(f"[{store} Chroma]", flush=True)
            rows.append(
                run_store(
                    store,
                    settings,
                    (index_embedder, embedder),
                    questions,
                    args.repeats,
                    args.reuse,
                    args.n,
                )
            )
    print_table(rows)


def print_table(rows: list[dict]) -> None:
    columns = [
        ("store", "store"), ("papers/s", "ingest_papers_per_s"), ("ingest s", "ingest_s"),
        ("chunks", "chunks"), ("disk MB", "index_mb"), ("ui RSS MB", "ui_rss_serving_mb"),
        ("after answer", "ui_rss_answered_mb"), ("search p50/p95 ms", "retrieval"),
        ("list p50/p95 ms", "lists"), ("doctor s", "doctor_s"), ("topic list", "topic"),
        ("topic ms", "topic_ms_p50"),
    ]  # fmt: skip
    print("\n| " + " | ".join(title for title, _ in columns) + " |")
    print("|" + " --- |" * len(columns))
    for row in rows:
        row = row | {
            "retrieval": f"{row['retrieval_ms_p50']:.0f} / {row['retrieval_ms_p95']:.0f}",
            "lists": f"{row['list_answer_ms_p50']:.0f} / {row['list_answer_ms_p95']:.0f}",
            "topic": f"{row['topic_found']} of {row['topic_papers']} (+{row['topic_others']})",
        }
        print("| " + " | ".join(str(row[key]) for _, key in columns) + " |")


if __name__ == "__main__":
    main()
