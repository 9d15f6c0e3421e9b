import json

import pytest
from typer.testing import CliRunner

from rag.cli import app
from rag.errors import CorpusError
from rag.index import open_store, run_ingest
from rag.index.store import ChromaStore
from rag.tuning import AnswerTuning
from tests.conftest import abstract, write_jsonl


def counts(report) -> dict:
    return report.model_dump(include={"papers", "added", "updated", "unchanged", "removed"})


def test_seeds_ingest_is_idempotent(settings, seed_titles):
    first = run_ingest(settings, show_progress=False)
    assert counts(first) == {"papers": 58, "added": 58, "updated": 0, "unchanged": 0, "removed": 0}
    assert first.errors == 0
    store = open_store(settings)
    chunk_count = store.count()
    second = run_ingest(settings, show_progress=False)
    assert counts(second) == {"papers": 58, "added": 0, "updated": 0, "unchanged": 58, "removed": 0}
    assert store.count() == chunk_count
    assert {p.title for p in store.papers()} == set(seed_titles.values())


def test_changed_abstract_replaces_its_chunks_and_prune_removes(settings, tmp_path):
    corpus = tmp_path / "mine.jsonl"
    papers = [{"title": f"Paper {n}", "abstract": abstract(f"topic {n}", 400)} for n in range(3)]
    write_jsonl(corpus, papers)
    run_ingest(settings, [corpus], show_progress=False)
    store = open_store(settings)
    before = store.count()

    papers[0]["abstract"] = abstract("a rewritten topic", 30)  # shorter: fewer chunks now
    write_jsonl(corpus, papers[:2])
    report = run_ingest(settings, [corpus], show_progress=False)
    assert counts(report) == {"papers": 2, "added": 0, "updated": 1, "unchanged": 1, "removed": 0}
    listed = {p.title: p for p in store.papers()}
    assert set(listed) == {"Paper 0", "Paper 1", "Paper 2"}  # no prune: paper 2 stays
    assert "rewritten" in listed["Paper 0"].abstract
    assert store.count() < before
    chunk_ids = store.collection.get(include=[])["ids"]
    assert len(chunk_ids) == len(set(chunk_ids))
    assert sum(i.startswith(listed["Paper 0"].paper_id) for i in chunk_ids) == 1

    report = run_ingest(settings, [corpus], prune=True, show_progress=False)
    assert counts(report) == {"papers": 2, "added": 0, "updated": 0, "unchanged": 2, "removed": 1}
    assert {p.title for p in store.papers()} == {"Paper 0", "Paper 1"}


@pytest.mark.parametrize("damage", ["empty", "utf16", "one bad line"])
def test_prune_never_acts_on_a_corpus_that_did_not_read_cleanly(
    settings, tmp_path, monkeypatch, damage
):
    corpus = tmp_path / "mine.jsonl"
    papers = [{"title": f"Paper {n}", "abstract": abstract(f"topic {n}", 60)} for n in range(3)]
    write_jsonl(corpus, papers)
    run_ingest(settings, [corpus], show_progress=False)
    if damage == "empty":
        corpus.write_text("")
    elif damage == "utf16":
        corpus.write_text(corpus.read_text(), encoding="utf-16")
    else:
        corpus.write_text(corpus.read_text() + "{not json\n")
    use(settings, monkeypatch)
    result = CliRunner().invoke(app, ["ingest", str(corpus), "--prune"])
    assert isinstance(result.exception, CorpusError)  # `rag` prints it and exits 2
    assert "nothing was changed" in str(result.exception)
    assert {p.title for p in open_store(settings).papers()} == {f"Paper {n}" for n in range(3)}


def test_exit_code_tells_some_rejected_from_nothing_usable(settings, tmp_path, monkeypatch):
    use(settings, monkeypatch)
    good = {"title": "Paper", "abstract": abstract("topic", 60)}
    partly = tmp_path / "partly.jsonl"
    partly.write_text(json.dumps(good) + "\n{not json\n")
    assert CliRunner().invoke(app, ["ingest", str(partly)]).exit_code == 1
    nothing = tmp_path / "nothing.jsonl"
    nothing.write_text("{not json\n")
    result = CliRunner().invoke(app, ["ingest", str(nothing)])
    assert isinstance(result.exception, CorpusError)  # exit 2: nothing usable
    assert "No papers could be read" in str(result.exception)


def use(settings, monkeypatch) -> None:
    """Point the CLI at these settings."""
    monkeypatch.setenv("RAG_EMBEDDING_MODEL", settings.embedding_model)
    monkeypatch.setenv("RAG_DATA_DIR", str(settings.data_dir))


def test_title_change_updates_metadata_in_place(settings, tmp_path):
    corpus = write_jsonl(tmp_path / "c.jsonl", [{"title": "Old", "abstract": abstract("x")}])
    run_ingest(settings, [corpus], show_progress=False)
    write_jsonl(corpus, [{"title": "New", "abstract": abstract("x")}])
    report = run_ingest(settings, [corpus], show_progress=False)
    assert (report.updated, report.added) == (1, 0)
    assert [p.title for p in open_store(settings).papers()] == ["New"]


@pytest.mark.slow
def test_interrupted_ingest_leaves_whole_papers_and_rerun_converges(
    settings, tmp_path, monkeypatch
):
    corpus = write_jsonl(
        tmp_path / "c.jsonl",
        [{"title": f"P{n}", "abstract": abstract(f"subject {n}", 300)} for n in range(400)],
    )
    real_write, calls = ChromaStore.write, []

    def crash_on_second_write(self, *args):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt("simulated crash")
        real_write(self, *args)

    monkeypatch.setattr(ChromaStore, "write", crash_on_second_write)
    with pytest.raises(KeyboardInterrupt):
        run_ingest(settings, [corpus], show_progress=False)
    monkeypatch.setattr(ChromaStore, "write", real_write)

    store = open_store(settings)
    metadatas = store.collection.get(include=["metadatas"])["metadatas"]
    per_paper = {}
    for metadata in metadatas:
        per_paper.setdefault(metadata["paper_id"], []).append(metadata["n_chunks"])
    assert 0 < len(per_paper) < 400
    assert all(len(found) == found[0] for found in per_paper.values())  # no partial paper

    report = run_ingest(settings, [corpus], show_progress=False)
    assert report.added == 400 - len(per_paper) and report.unchanged == len(per_paper)
    assert len(store.papers()) == 400


def test_cli_reports_bad_records_ingests_the_rest_and_exits_nonzero(tmp_path, monkeypatch):
    monkeypatch.setenv("RAG_EMBEDDING_MODEL", "fake")
    corpus = tmp_path / "c.jsonl"
    corpus.write_text(json.dumps({"title": "Good", "abstract": abstract("good")}) + "\n{oops\n")
    result = CliRunner().invoke(app, ["ingest", str(corpus), "--json"])
    assert result.exit_code == 1
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert (report["papers"], report["added"], report["errors"]) == (1, 1, 1)
    assert f"{corpus}:2" in result.stderr
    listed = CliRunner().invoke(app, ["papers", "--json"])
    assert [p["title"] for p in json.loads(listed.stdout)] == ["Good"]


def test_bm25_index_is_rebuilt_only_when_the_store_changes(settings, tmp_path):
    from rag.index import refresh_lexical_index
    from rag.index.bm25 import BM25Index

    corpus = write_jsonl(tmp_path / "c.jsonl", [{"title": "A", "abstract": abstract("alpha")}])
    run_ingest(settings, [corpus], show_progress=False)
    store = open_store(settings)
    assert refresh_lexical_index(settings, store) is False  # already current
    write_jsonl(
        corpus,
        [
            {"title": "A", "abstract": abstract("alpha")},
            {"title": "B", "abstract": abstract("beta")},
        ],
    )
    run_ingest(settings, [corpus], show_progress=False)
    lexical = BM25Index(settings.bm25_dir)
    assert sorted(lexical.chunk_ids) == sorted(store.collection.get(include=[])["ids"])
    assert {p.title for p in lexical.papers} == {"A", "B"}
    beta_id = next(p.paper_id for p in lexical.papers if p.title == "B")
    assert lexical.search("beta", 5)[0][0] == f"{beta_id}#0"


def test_abstract_sentences_are_embedded_at_ingest_and_only_looked_up_when_answering(
    settings, tmp_path
):
    from rag.answer.pipeline import Answerer
    from rag.index.embedder import FakeEmbedder
    from rag.llm import load_backend
    from rag.sentences import evidence_sentences

    corpus = write_jsonl(
        tmp_path / "mine.jsonl",
        [{"title": f"Paper {n}", "abstract": abstract(f"topic {n}", 80)} for n in range(3)],
    )
    run_ingest(settings, [corpus], show_progress=False)
    store = open_store(settings)
    papers = store.papers()
    sentences = [s for paper in papers for s in evidence_sentences(paper)]
    assert set(store.sentence_vectors(sentences)) == set(sentences)

    class Counting(FakeEmbedder):
        texts: list[str] = []

        def embed(self, texts):
            self.texts += texts
            return super().embed(texts)

    embedder = Counting()
    answerer = Answerer(
        settings.model_copy(update={"answer": AnswerTuning(min_relevance=0.0)}), embedder=embedder
    )
    answerer._backend = load_backend("extractive", answerer.settings, answerer.embedder)
    *_, answer = answerer.ask("What is new for topic 1?")
    assert answer.citations and not answer.abstained
    assert embedder.texts and not set(embedder.texts) & set(sentences)  # question and claims only

    # an index from before sentence vectors gets them on the next ingest
    store.client.delete_collection(f"{store.name}-sentences")
    del store._sentences
    report = run_ingest(settings, [corpus], show_progress=False)
    assert report.unchanged == 3 and set(store.sentence_vectors(sentences)) == set(sentences)


def test_serving_after_an_interrupted_first_ingest_adds_nothing(settings, tmp_path):
    import shutil

    from rag.index import ensure_index

    corpus = write_jsonl(
        tmp_path / "mine.jsonl",
        [{"title": f"Mine {n}", "abstract": abstract(f"my topic {n}")} for n in range(3)],
    )
    run_ingest(settings, [corpus], show_progress=False)
    shutil.rmtree(settings.bm25_dir)  # the state a kill before the BM25 build leaves
    said = []
    ensure_index(settings, say=said.append)
    assert "ingest was interrupted" in said[0]
    assert {p.title for p in open_store(settings).papers()} == {f"Mine {n}" for n in range(3)}
    from rag.index.bm25 import BM25Index

    assert len(BM25Index(settings.bm25_dir).papers) == 3  # searchable again


def test_serving_an_empty_data_dir_indexes_the_corpus(settings, tmp_path):
    from rag.index import ensure_index

    corpus = write_jsonl(tmp_path / "c.jsonl", [{"title": "Only", "abstract": abstract("x")}])
    said = []
    ensure_index(settings.model_copy(update={"corpus_paths": [corpus]}), say=said.append)
    assert said == ["Nothing is indexed yet: indexing the corpus first."]
    assert [p.title for p in open_store(settings).papers()] == ["Only"]


def test_a_kill_between_writing_and_deleting_converges_on_the_next_run(
    settings, tmp_path, monkeypatch
):
    corpus = tmp_path / "mine.jsonl"
    papers = [{"title": f"Paper {n}", "abstract": abstract(f"topic {n}")} for n in range(6)]
    write_jsonl(corpus, papers)
    run_ingest(settings, [corpus], show_progress=False)
    for paper in papers:
        paper["abstract"] = abstract(f"a revised topic {paper['title']}")
    write_jsonl(corpus, papers)

    class Killed(BaseException):  # like SIGKILL: nothing after it runs
        pass

    def killed(self, ids):
        if ids:
            raise Killed

    with monkeypatch.context() as patch:
        patch.setattr(ChromaStore, "delete", killed)  # the kill lands right after the writes
        with pytest.raises(Killed):
            run_ingest(settings, [corpus], show_progress=False)
    assert len(open_store(settings).papers()) == 12  # every title twice, as the issue found

    report = run_ingest(settings, [corpus], show_progress=False)
    stored = open_store(settings).papers()
    assert sorted(p.title for p in stored) == [f"Paper {n}" for n in range(6)]
    assert all("revised" in p.abstract for p in stored) and report.removed == 6


def test_notes_about_ignored_columns_are_not_errors(settings, tmp_path):
    corpus = tmp_path / "c.csv"
    corpus.write_text(f'title,abstract,notes\nT,"{abstract("x")}",read twice\n')
    report = run_ingest(settings, [corpus], prune=True, show_progress=False)  # not refused
    assert (report.added, report.errors, len(report.warnings)) == (1, 0, 1)
