from rag.corpus import load_corpus
from rag.corpus.records import build_paper
from rag.index.chunking import Chunker
from tests.conftest import SEEDS, TITLES


def full_length(embedder, text: str) -> int:
    """Word pieces the model actually sees, special tokens included."""
    return len(embedder.model.tokenizer(text)["input_ids"])


def test_seed_chunks_fit_the_window_and_start_with_the_title(real_embedder):
    chunker = Chunker(real_embedder, chunk_size=256, chunk_overlap=32)
    for paper in load_corpus([SEEDS], TITLES, 20_000).papers:
        chunks = chunker.chunks(paper)
        assert [c.chunk_id for c in chunks] == [f"{paper.paper_id}#{n}" for n in range(len(chunks))]
        for chunk in chunks:
            assert chunk.text.startswith(paper.title + "\n")
            assert full_length(real_embedder, chunk.text) <= real_embedder.window
        # nothing dropped: the abstract's last words are in the last chunk
        assert paper.abstract.split()[-1] in chunks[-1].text


def test_long_abstract_and_runaway_title_still_fit(real_embedder):
    paper = build_paper(
        {
            "title": "A Very " + "Long " * 200 + "Title",
            "abstract": " ".join(
                f"Sentence {n} studies hyperparameter-free optimisation." for n in range(400)
            ),
        },
        "x.jsonl",
        100_000,
    )
    chunks = Chunker(real_embedder, chunk_size=200, chunk_overlap=32).chunks(paper)
    assert len(chunks) > 10
    assert all(full_length(real_embedder, c.text) <= 200 + 2 for c in chunks)
    assert all(c.text.startswith("A Very Long") for c in chunks)
    assert "Sentence 399" in chunks[-1].text
