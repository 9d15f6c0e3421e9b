""" "Which papers ..." questions get a list: every retrieved paper that is relevant, one cited line
each (its best-matching abstract sentence), chosen before any text is written. A small model asked
to cover several papers names one or two; the list names them all, instantly, and each line is a
sentence of the paper it cites."""

import re

import numpy as np

from rag.models import Source
from rag.sentences import metadata_sentence, split_sentences, stems
from rag.text import defang

# Plural only: "which paper ..." asks for one, and "studies"/"works" are usually verbs.
LIST_QUESTION = re.compile(
    r"^\s*(which|what|list|name|are there|do any|find|show)\b[^?]{0,40}?"
    r"\b(papers|articles|publications|abstracts)\b"
    r"|\bwhich (ones|of (those|these|them|the papers))\b"
    r"|^\s*list\b",
    re.IGNORECASE,
)
# Chosen on the dev set's multi-paper questions (eval/questions.jsonl; held-out never used): a
# paper's score is its best sentence's cosine with the question plus COVERAGE_WEIGHT times the
# share of the question's content words its title and abstract contain; papers within
# CLOSE_TO_BEST of the best score are listed (dev, k=5: precision 0.91, recall 0.84; k=10:
# 0.89 / 0.87 -- against 0.85 / 0.46 when the local model chose).
COVERAGE_WEIGHT = 0.3
CLOSE_TO_BEST = 0.8
# Never listed: a paper whose best sentence is this far from the question, or that shares none of
# its content words (on the dev set every gold paper shares at least one).
MIN_SIMILARITY = 0.3


def is_list_question(question: str) -> bool:
    """Whether the question asks which papers do something ("Which papers study ...",
    "Which of those ...", "List papers on ...")."""
    return bool(LIST_QUESTION.search(question))


def relevant_papers(sources: list[Source], question: str, embedder) -> list[tuple[Source, str]]:
    """The relevant sources, best first, each with its sentence closest to the question. When
    the question names papers (an author, a label, a method: relevance 1), exactly those."""
    per_source = [split_sentences(s.paper.abstract or s.passage) for s in sources]
    flat = [sentence for sentences in per_source for sentence in sentences]
    if not flat:
        return []
    vectors = np.asarray(embedder.embed([question, *flat]))
    similarity, wanted = vectors[1:] @ vectors[0], stems(question)
    scored, offset = [], 0
    for source, sentences in zip(sources, per_source):
        own = similarity[offset : offset + len(sentences)]
        offset += len(sentences)
        if not sentences:
            continue
        best = int(np.argmax(own))
        text = stems(f"{metadata_sentence(source.paper)} {source.paper.abstract}")
        coverage = len(wanted & text) / len(wanted) if wanted else 0.0
        score = float(own[best]) + COVERAGE_WEIGHT * coverage
        scored.append((score, float(own[best]), coverage > 0, source, sentences[best]))
    if any(source.relevance >= 1.0 for *_, source, _ in scored):  # "papers by <author>"
        return [(source, sentence) for *_, source, sentence in scored if source.relevance >= 1.0]
    top = max(score for score, *_ in scored)
    kept = [
        (score, source, sentence)
        for score, cosine, shared, source, sentence in scored
        if score >= CLOSE_TO_BEST * top and cosine >= MIN_SIMILARITY and (shared or not wanted)
    ]
    kept.sort(key=lambda pick: -pick[0])
    return [(source, sentence) for _, source, sentence in kept]


def list_answer(picks: list[tuple[Source, str]]) -> str:
    """One line per paper: its title, its sentence, its citation (numbered in list order)."""
    return "\n".join(
        f"{source.paper.title}: {defang(sentence).rstrip('.')} [{number}]."
        for number, (source, sentence) in enumerate(picks, start=1)
    )
