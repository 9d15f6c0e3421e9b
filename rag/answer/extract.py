"""What the extractive backend says: the most relevant abstract sentence of each close-enough
source, chosen here by the answer rules; `rag.llm.extractive` only writes them out."""

import re

import numpy as np

from rag.answer.about import KIND_ASKED
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
        rest = re.sub(r"^,?\s+and\s+", "", second.group())
        picked += second_part(rest, picked[0], candidates, sources, intent, embedder, tuning)
    return picked


def second_part(rest: str, first: tuple[int, str], candidates, sources, intent, embedder, tuning):
    """The one paper's best sentence for the question's second part (`rest`), as a list of at
    most one pick: one naming something the first sentence does not, or using the words it asks
    (not the title's), not one about other work, and close enough; when the part asks for names
    ("and which llm do they test"), the best naming something new however close (MiniLM puts
    "which llm" at 0.29 from the sentence naming LLaMA3.2-8B: the kind is not the name), unless
    the first sentence is closer to that part than any other."""
    number, sentence = first
    named = set(names_in(sentence))
    asked = stems(rest) - stems(sources[number - 1].paper.title) - FRAME
    names_asked = bool(KIND_ASKED.search(rest))
    own = [
        (n, s)
        for n, s in candidates
        if n == number
        and s != sentence
        and not of_others(s)
        and (set(names_in(s)) - named or (asked & stems(s) and not names_asked))
    ]
    pool = own + ([first] if names_asked else [])  # is the first the best for it?
    best = best_per_source(rest, pool, intent.figure, embedder, tuning)
    score, found = best.get(number, (-1.0, ""))
    if names_asked:  # unless the first sentence answers it best ("comparable to PPO")
        return [(number, found)] if found and found != sentence else []
    return [(number, found)] if found and score >= tuning.extractive_min_similarity else []
