"""What the model reads: only the retrieved papers close enough to the best one, and of each the
abstract sentences closest to the question, in their original order, within a word budget.
Prompt length is latency (the local model reads ~35-70 prompt tokens a second on 2 cores), and
papers far below the best one are rarely what the question is about."""

import numpy as np

from rag.answer.prompts import clip_words
from rag.models import Source
from rag.sentences import split_sentences
from rag.tuning import AnswerTuning


def select(sources: list[Source], tuning: AnswerTuning) -> list[Source]:
    """The sources worth showing the model: relevance at least `shown_relative_relevance` of
    the best one's, at most `max_shown`, in retrieval order."""
    if not sources:
        return []
    floor = tuning.shown_relative_relevance * max(source.relevance for source in sources)
    return [source for source in sources if source.relevance >= floor][: tuning.max_shown]


def focus(sources: list[Source], question: str, embedder, words: int) -> list[Source]:
    """Copies of the sources whose passage is the best-matching abstract sentences."""
    per_source = [split_sentences(s.paper.abstract) for s in sources]
    flat = [sentence for sentences in per_source for sentence in sentences]
    if not flat:
        return sources
    vectors = np.asarray(embedder.embed([question] + flat))
    scores, focused, offset = vectors[1:] @ vectors[0], [], 0
    for source, sentences in zip(sources, per_source):
        own = scores[offset : offset + len(sentences)]
        offset += len(sentences)
        keep, used = set(), 0
        for index in np.argsort(-own):
            if used and used + len(sentences[index].split()) > words:
                continue
            keep.add(int(index))
            used += len(sentences[index].split())
        passage = clip_words(" ".join(sentences[i] for i in sorted(keep)), words * 3 // 2)
        focused.append(source.model_copy(update={"passage": passage}))
    return focused
