"""A paper's own sentences as lines of an answer: the one closest to the question, and the line
that shows it under the paper's title with its citation."""

import numpy as np

from rag.models import AnswerSentence, Source
from rag.sentences import answers_about, split_sentences
from rag.text import defang


def most_relevant(sources: list[Source]) -> int:
    """The number (1-based) of the most relevant source."""
    return max(range(len(sources)), key=lambda n: sources[n].relevance) + 1


def closest_sentences(sources: list[Source], question: str, embedder) -> list[tuple[float, str]]:
    """Each source's abstract sentence closest to the question, with its cosine ((-1, "") for a
    source without text)."""
    per_source = [
        [t for t in split_sentences(s.paper.abstract) if answers_about(t, question)]
        for s in sources
    ]
    flat = [sentence for sentences in per_source for sentence in sentences]
    if not flat:
        return [(-1.0, "")] * len(sources)
    vectors = np.asarray(embedder.embed([question, *flat]))
    similarity, offset, closest = vectors[1:] @ vectors[0], 0, []
    for sentences in per_source:
        own = similarity[offset : offset + len(sentences)]
        offset += len(sentences)
        best = int(np.argmax(own)) if sentences else -1
        closest.append((float(own[best]), sentences[best]) if sentences else (-1.0, ""))
    return closest


def list_line(source: Source, sentence: str) -> str:
    """A paper's line in a list: its title, then its sentence (without the final period)."""
    return f"{source.paper.title}: {defang(sentence).rstrip('.')}"


def paper_line(source: Source, sentence: str, number: int) -> AnswerSentence:
    """A paper's own sentence as a line of the answer, cited to it (supported: it is the
    abstract's)."""
    return AnswerSentence(
        text=f"{list_line(source, sentence)}.", citations=[number], support=1.0, supported=True
    )
