"""Chunking, embedding and storing the corpus; `run_ingest` wires them from settings."""

from pathlib import Path

from rag.config import Settings
from rag.index.ingest import IngestReport


def open_store(settings: Settings, create: bool = False):
    """The configured Chroma store, checked against the configured embedder."""
    from rag.index.access import check_writable
    from rag.index.embedder import embedder_name
    from rag.index.integrity import check_before_opening, check_not_mid_rebuild
    from rag.index.store import ChromaStore

    check_writable(settings)  # Chroma writes even to read: a read-only dir is no damage
    check_before_opening(settings)  # a damaged file must give a message, not a segfault
    check_not_mid_rebuild(settings)
    name = embedder_name(settings.embedding_model, settings.embedding_backend)
    return ChromaStore(settings, name, create=create)


def run_ingest(
    settings: Settings,
    paths: list[Path] | None = None,
    titles: Path | None = None,
    prune: bool = False,
    show_progress: bool = True,
    embedder=None,
    progress_style: str = "auto",
) -> IngestReport:
    """Read the corpus, index it, and report counts, rejected records and the time it took.
    `progress_style` (with show_progress): auto, bar, text or json (rag.index.progress)."""
    import time

    from rag.corpus import load_corpus
    from rag.errors import CorpusError
    from rag.index.chunking import Chunker
    from rag.index.embedder import embedder_from_settings
    from rag.index.ingest import ingest

    if titles is not None and not titles.is_file():
        raise CorpusError(f"Titles file {titles} not found; check the --titles path.")
    started = time.monotonic()
    titles = titles or settings.titles_path
    corpus = load_corpus(
        paths or settings.corpus_paths,
        titles if titles and titles.is_file() else None,
        settings.max_abstract_chars,
    )
    errors = [problem for problem in corpus.problems if not problem.warning]
    if not corpus.papers:
        raise CorpusError(
            f"No papers could be read from {', '.join(map(str, paths or settings.corpus_paths))}"
            f" ({len(errors)} records rejected); nothing was changed."
            + (f" First problem: {errors[0]}" if errors else "")
        )
    if prune and errors:
        raise CorpusError(
            f"--prune refused: {len(errors)} records of the corpus could not be read "
            f"(first: {errors[0]}), so papers that are only unreadable would be removed "
            "from the index. Fix those records, or run without --prune; nothing was changed."
        )
    embedder = embedder or embedder_from_settings(settings)
    chunker = Chunker(embedder, settings.chunk_size, settings.chunk_overlap)
    store = open_store(settings, create=True)
    try:
        report = ingest(corpus.papers, store, chunker, prune, show_progress, progress_style)
        refresh_lexical_index(settings, store)
    finally:  # a rebuild moves the store's folder next
        store.close()
    report.seconds = round(time.monotonic() - started, 2)
    report.errors = len(errors)
    report.problems = [str(problem) for problem in errors]
    report.warnings = [str(problem) for problem in corpus.problems if problem.warning]
    return report


def ensure_index(settings: Settings, say=print) -> None:
    """Before serving: index the configured corpus into an empty data dir. A store that has
    papers but no BM25 index (an ingest was cut short) is the user's: its search index is
    rebuilt from what is stored, and nothing is added to it."""
    from rag.index import bm25

    if bm25.read_manifest(settings.bm25_dir):
        return
    store = open_store(settings, create=True)
    if store.count():
        say(
            f"The index in {settings.data_dir} has {len(store.indexed_papers())} papers but no "
            "search index: an ingest was interrupted. Rebuilding the search index from them; "
            "run `rag ingest` with your files again to finish."
        )
        refresh_lexical_index(settings, store)
        return
    say("Nothing is indexed yet: indexing the corpus first.")
    run_ingest(settings)


def refresh_lexical_index(settings: Settings, store) -> bool:
    """Rebuild the BM25 index and paper catalog unless they already match the store."""
    from rag.errors import StoreError
    from rag.index import bm25
    from rag.index.access import explained
    from rag.index.store import paper_from_metadata

    hashes = {pid: entry.content_hash for pid, entry in store.indexed_papers().items()}
    if bm25.read_manifest(settings.bm25_dir).get("fingerprint") == bm25.fingerprint(hashes):
        try:
            bm25.BM25Index(settings.bm25_dir)
            return False
        except StoreError:  # the manifest is intact but the files behind it are not
            pass
    rows = store.rows()
    papers = [paper_from_metadata(meta) for _, _, meta in rows if meta["chunk"] == 0]
    with explained(settings.bm25_dir.parent):
        bm25.build(settings.bm25_dir, rows, papers, hashes)
    return True
