""" "Which papers ..." questions get a list: every retrieved paper that is relevant, one cited line
each (its best-matching abstract sentence), chosen before any text is written. A small model asked
to cover several papers names one or two; the list names them all, instantly, and each line is a
sentence of the paper it cites."""

import re

import numpy as np

from rag.answer.support import ADD_MARGIN, PARAPHRASE_RELEVANCE
from rag.models import AnswerSentence, Source
from rag.sentences import metadata_sentence, split_sentences, stems, title_pattern
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


def closest_sentences(sources: list[Source], question: str, embedder) -> list[tuple[float, str]]:
    """Each source's abstract sentence closest to the question, with its cosine ((-1, "") for a
    source without text)."""
    per_source = [split_sentences(s.paper.abstract or s.passage) for s in sources]
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


def relevant_papers(sources: list[Source], question: str, embedder) -> list[tuple[Source, str]]:
    """The relevant sources, best first, each with its sentence closest to the question. When
    the question names papers (an author, a label, a method: relevance 1), exactly those."""
    wanted, scored = stems(question), []
    for source, (cosine, sentence) in zip(sources, closest_sentences(sources, question, embedder)):
        if not sentence:
            continue
        text = stems(f"{metadata_sentence(source.paper)} {source.paper.abstract}")
        coverage = len(wanted & text) / len(wanted) if wanted else 0.0
        scored.append((cosine + COVERAGE_WEIGHT * coverage, cosine, coverage > 0, source, sentence))
    if not scored:
        return []
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


# What a sentence that only names a paper says around its title: "It is titled X", "Title: X".
NAMING = {"yes", "titl", "call", "name", "entitl", "answer", "question", "relev", "sourc"}
# "Which paper shows X?" / "Is there a work on X?": the answer is a paper.
ASKS_FOR_A_PAPER = re.compile(
    r"\b(which|what|is there|are there|any)\b[^?]{0,40}?\b(papers?|works?|ones?|articles?)\b",
    re.IGNORECASE,
)


def identifies(sentence: AnswerSentence, sources: list[Source], question: str) -> bool:
    """Whether the sentence only says which cited papers answer: it names them and claims
    nothing a support check could verify ("It is titled "X" [1].", "[1] Title: X"), or, to a
    question asking for a paper, restates the question about the paper the question matches
    best ("X shows <the question's words> [1]."). A restatement naming a less relevant paper
    is left to the support check (it is the typical small-model error)."""
    text, named = sentence.text, []
    for number in sentence.citations:
        title = title_pattern(sources[number - 1].paper.title)
        text, hits = re.subn(title, " ", text, flags=re.IGNORECASE)
        named += [sources[number - 1]] * bool(hits)
    claimed = stems(text) - NAMING
    if not named or not claimed:
        return bool(named)
    best = max(source.relevance for source in sources)
    return (
        bool(ASKS_FOR_A_PAPER.search(question))
        and claimed <= stems(question)
        and all(s.relevance >= max(PARAPHRASE_RELEVANCE, best - ADD_MARGIN) for s in named)
    )


def expand_names(
    sentences: list[AnswerSentence], sources: list[Source], question: str, embedder
) -> list[AnswerSentence]:
    """Each sentence that only identifies papers becomes one line per paper it cites, as in a
    list answer: the title, then the paper's abstract sentence closest to the question."""
    identifying = [identifies(sentence, sources, question) for sentence in sentences]
    if not any(identifying):
        return sentences
    closest = closest_sentences(sources, question, embedder)
    expanded = []
    for sentence, only_names in zip(sentences, identifying):
        if not only_names:
            expanded.append(sentence)
            continue
        for number in sentence.citations:
            line = list_line(sources[number - 1], closest[number - 1][1])
            expanded.append(AnswerSentence(text=f"{line}.", citations=[number]))
    return expanded


def list_line(source: Source, sentence: str) -> str:
    """A paper's line in a list: its title, then its sentence (without the final period)."""
    return f"{source.paper.title}: {defang(sentence).rstrip('.')}"


def list_answer(picks: list[tuple[Source, str]]) -> str:
    """One line per paper: its title, its sentence, its citation (numbered in list order)."""
    return "\n".join(
        f"{list_line(source, sentence)} [{number}]."
        for number, (source, sentence) in enumerate(picks, start=1)
    )
