from rag.answer.context import focus, select
from rag.index.embedder import FakeEmbedder
from rag.models import Paper, Source
from rag.tuning import AnswerTuning


def source(number: int, relevance: float = 0.6) -> Source:
    """A paper of twelve ten-word sentences, each naming the paper's number."""
    sentences = [f"Paper {number} sentence {i} has exactly ten words in it." for i in range(12)]
    paper = Paper(
        paper_id=f"p{number}",
        title=f"Paper {number}",
        title_source="metadata",
        abstract=" ".join(sentences),
        source_file="f",
    )
    return Source(paper=paper, passage=sentences[0], score=1.0, relevance=relevance)


def test_select_keeps_sources_close_to_the_best_one():
    shown = select([source(1, 0.8), source(2, 0.3), source(3, 0.5)], AnswerTuning())
    assert [s.paper.paper_id for s in shown] == ["p1", "p3"]


def test_focus_shows_each_source_its_sentences_closest_to_the_question_within_the_budget():
    focused = focus([source(1), source(2)], "sentence 7", FakeEmbedder(), 20)
    assert all(len(s.passage.split()) <= 20 for s in focused)
    assert all("sentence 7 " in s.passage for s in focused)
