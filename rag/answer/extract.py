"""What the extractive backend says: the most relevant abstract sentence of each close-enough
source, chosen here by the answer rules; `rag.llm.extractive` only writes them out."""

import re

import numpy as np

from rag.answer.intent import FRAME, SECOND_PART, Intent
from rag.answer.naming import names_in
from rag.answer.premises import of_others
from rag.figures import answers_figure, figure_words, of_scope
from rag.models import Source
from rag.sentences import answers_about, split_sentences, stems
from rag.tuning import AnswerTuning


def best_per_source(question, candidates, counted, embedder, tuning) -> dict:
    """Per source number, its candidate sentence scoring best (cosine with the question; for a
    figure question, plus figure_first when its figure is next to a question word)."""
    vectors = np.asarray(embedder.embed([question] + [s for _, s in candidates]))
    scores = vectors[1:] @ vectors[0]
    if counted is not None:  # a figure of what the question asks about comes first
        asked = stems(question)
        scores += [tuning.figure_first * bool(asked & figure_words(s)) for _, s in candidates]
    best: dict[int, tuple[float, str]] = {}
    for (number, sentence), score in zip(candidates, scores):
        if score > best.get(number, (-2.0, ""))[0]:
            best[number] = (float(score), sentence)
    return best


def best_sentences(
    question: str, sources: list[Source], intent: Intent, embedder, tuning: AnswerTuning
) -> list[tuple[int, str]]:
    """(source number, sentence) of the best sentence of each close-enough source. When the
    question names papers (or follows up on one), only those answer. A question asking for one
    paper gets one: citing the runners-up as well made a third of those answers cite a wrong
    paper. A question asking for a figure is answered only by sentences stating one (first those
    whose figure is next to a word of the question: "up to 100x speedup" for "How large a
    speedup ...?"), or not at all. A question of one paper asking two things ("..., and what
    LLM did they test?") gets its best sentence for the second as well."""
    named = {  # named, or the one paper a follow-up is about
        n
        for n, source in enumerate(sources, 1)
        if source.named or (intent.scope and intent.scope == {source.paper.paper_id})
    }
    counted = intent.figure
    candidates = [
        (n, sentence)
        for n, source in enumerate(sources, start=1)
        if not named or n in named
        for sentence in split_sentences(source.paper.abstract)
        if (
            counted is None
            or answers_figure(sentence, counted)
            and of_scope(sentence, intent.figure_scope, source.paper.title)
        )
        and answers_about(sentence, question)
    ]
    if not candidates:
        return []
    best = best_per_source(question, candidates, counted, embedder, tuning)
    top = max(score for score, _ in best.values())
    chosen = [
        (n, s)
        for n, (score, s) in best.items()
        if n in named
        or (
            score >= tuning.extractive_min_similarity
            and score >= top - tuning.extractive_close_to_best
        )
    ]
    most = 1 if intent.asks_for_one_paper and len(named) <= 1 else tuning.extractive_papers
    picked = sorted(chosen, key=lambda pick: -best[pick[0]][0])[:most]
    second = SECOND_PART.search(question)  # "which frameworks ..., and what LLM did they test"
    if second and len(picked) == 1:
        (number, first), rest = picked[0], re.sub(r"^,?\s+and\s+", "", second.group())
        title, named = sources[number - 1].paper.title, set(names_in(first))
        asked = stems(rest) - stems(title) - FRAME
        own = [
            (n, s)
            for n, s in candidates
            if n == number
            and s != first
            and not of_others(s)
            and (set(names_in(s)) - named or asked & stems(s))  # a new name, or the asked words
        ]
        score, sentence = best_per_source(rest, own, counted, embedder, tuning).get(
            number, (-1, "")
        )
        if score >= tuning.extractive_min_similarity:
            picked.append((number, sentence))
    return picked
