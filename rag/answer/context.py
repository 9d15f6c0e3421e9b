"""What the model reads of each source: the abstract sentences closest to the question, in
their original order, within a word budget (short prompts answer faster and stay on topic)."""

import numpy as np

from rag.models import Source
from rag.sentences import split_sentences


def focus(sources: list[Source], question: str, embedder, words: int) -> list[Source]:
    """Copies of the sources whose passage is the best-matching abstract sentences."""
    per_source = [split_sentences(s.paper.abstract or s.passage) for s in sources]
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
        passage = " ".join(sentences[i] for i in sorted(keep))
        focused.append(source.model_copy(update={"passage": passage}))
    return focused
