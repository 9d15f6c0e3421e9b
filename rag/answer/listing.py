""" "Which papers ..." questions get a list: every retrieved paper that is relevant, one cited line
each (its best-matching abstract sentence), chosen before any text is written. A small model asked
to cover several papers names one or two; the list names them all, instantly, and each line is a
sentence of the paper it cites."""

import re

import numpy as np

from rag.answer.decision import FEATURES, spelled_out, uses_words, words_of
from rag.answer.intent import (
    CODE_WORDS,
    DISJUNCTION,
    FRAME,
    SERIES,
    Intent,
    links_code,
    topic_words,
)
from rag.answer.lines import closest_sentences, list_line
from rag.answer.support import unknown_names
from rag.models import Source
from rag.sentences import evidence_sentences, metadata_sentence, stem_list, stems
from rag.tuning import AnswerTuning


def meets(
    sources: list[Source], conditions: list[str], embedder, tuning: AnswerTuning
) -> list[bool]:
    """Per source, whether it meets every condition: its title and abstract use half the
    condition's words, or one of its sentences is `condition_similarity` close to it; one that
    names someone or something ("Intel Loihi") only a source that mentions the name meets."""
    if not conditions:
        return [True] * len(sources)
    texts = [evidence_sentences(s.paper) for s in sources]
    vectors = np.asarray(embedder.embed([*conditions, *(t for own in texts for t in own)]))
    wanted, rest, offset, verdicts = vectors[: len(conditions)], vectors[len(conditions) :], 0, []
    for source, own in zip(sources, texts):
        closest = (wanted @ rest[offset : offset + len(own)].T).max(axis=1)
        offset += len(own)
        words = words_of(source)[0]
        verdicts.append(
            all(
                (cosine >= tuning.condition_similarity or uses_half(condition, words))
                and not unknown_names(condition, [source])  # "... on Intel Loihi chips"
                for condition, cosine in zip(conditions, closest)
            )
        )
    return verdicts


def uses_half(condition: str, words: set[str]) -> bool:
    """Whether the words use half of the condition's words, or all of one of its alternatives'
    ("sharpness" of "sharpness / flat minima")."""
    wanted = condition_words(condition)
    parts = [condition_words(part) for part in DISJUNCTION.split(condition)]
    if SERIES.search(condition):  # "data from biology, medicine, or neuroscience"
        parts += [condition_words(part) for part in re.split(rf",|{SERIES.pattern}", condition)]
    return 2 * len(wanted & words) >= len(wanted) or any(
        part <= words for part in parts if 0 < len(part) < len(wanted)
    )


def condition_words(condition: str) -> set[str]:
    """The condition's content stems, framing words aside and abbreviations spelled out."""
    return set(spelled_out(stem_list(condition))) - FRAME


def relevant_papers(
    sources: list[Source], intent: Intent, embedder, tuning: AnswerTuning
) -> list[tuple[Source, str]]:
    """The relevant sources, best first, each with its sentence closest to the question: the
    papers the question names, then those that meet each of its conditions and score close to
    the best (`list_*` in AnswerTuning). Several papers named ("papers by <author>", "in
    <label>") are exactly the answer; one paper named by a method ("papers involving PINNs") is
    not the only one using it. Among the papers a follow-up chose ("which of those ..."), its
    conditions alone decide when no paper scores close enough."""
    question = intent.text
    wanted, named, scored = stems(question), [], []
    closest = closest_sentences(sources, question, embedder)
    met = meets(sources, intent.conditions, embedder, tuning)
    for source, (cosine, sentence), ok in zip(sources, closest, met):
        if sentence and source.named:
            named.append((source, sentence))
        elif sentence and ok:
            text = stems(f"{metadata_sentence(source.paper)} {source.paper.abstract}")
            coverage = len(wanted & text) / len(wanted) if wanted else 0.0
            score = cosine + tuning.list_coverage_weight * coverage
            scored.append((score, cosine, coverage > 0, source, sentence))
    if len(named) > 1 or not scored:
        return named
    top = max(score for score, *_ in scored)
    kept = [
        (score, source, sentence)
        for score, cosine, shared, source, sentence in scored
        if score >= tuning.list_close_to_best * top
        and cosine >= tuning.list_min_similarity
        and (shared or not wanted)
    ]
    if not kept and intent.scoped and intent.conditions:  # "which of those build on ...": all met
        kept = [(score, source, sentence) for score, _, _, source, sentence in scored]
    if not kept and intent.scoped and (words := topic_words(question)):  # "... also use cifar":
        kept = [  # those using its words as written ("CIFAR-100"), however far their vectors
            (score, source, sentence)
            for score, _, _, source, sentence in scored
            if uses_words(source, words)
        ]
    kept.sort(key=lambda pick: -pick[0])
    return named + [(source, sentence) for _, source, sentence in kept]


def accepted_papers(
    sources: list[Source], accepted: list[bool], rates: list[float], question: str, embedder
) -> list[tuple[Source, str]]:
    """The `accepted` sources, most probable first, each with its sentence closest to the
    question. Several papers the question names ("papers by <author>", "in <label>") are
    exactly the answer."""
    named = [s for s in sources if s.named]
    if len(named) > 1:
        chosen = named
    else:
        ranked = sorted(zip(rates, range(len(sources))), key=lambda pair: -pair[0])
        chosen = [sources[i] for _, i in ranked if accepted[i] or sources[i].named]
    closest = closest_sentences(chosen, question, embedder)
    return [(source, sentence) for source, (_, sentence) in zip(chosen, closest) if sentence]


def decided(
    sources: list[Source], rows, relevance, intent: Intent, tuning: AnswerTuning
) -> tuple[list[bool], list[float]]:
    """Per source, whether the calibrated decision (`relevance`'s) accepts it — probability at
    least its threshold, at least `list_phrases` of the question's neighbouring topic words side
    by side, every condition met — and its probability. A question asking only for papers that
    link to their code accepts exactly those whose abstract gives a link."""
    decision = relevance.decision
    rates = [float(p) for p in decision.probabilities(rows)]
    if intent.asks_code and not intent.topic - CODE_WORDS:  # "which abstracts link to code"
        linked = [links_code(s.paper.abstract) for s in sources]
        return linked, [max(r, float(k)) for r, k in zip(rates, linked)]
    phrases = rows[:, FEATURES.index("phrases")] >= tuning.list_phrases
    met = meets(sources, intent.conditions, relevance.embedder, tuning)
    words = [words for *_, words in relevance.readings(intent)]
    sure = [
        r >= tuning.list_sure and any(uses_words(s, w) for w in words)
        for s, r in zip(sources, rates)
    ]
    return [
        r >= decision.threshold and (p or u) and m for r, p, u, m in zip(rates, phrases, sure, met)
    ], rates


def deep_enough(accepted: list[bool], depth: int) -> bool:
    """Whether a search `depth` papers deep found every paper the decision accepts: it returned
    fewer (the whole corpus, or all the filters allow), or its deeper half holds none (the
    papers a list accepts are spread over the fused ranks: on the seeds, "continual learning"
    accepts ranks 1, 2, 3, 12 and 27)."""
    return len(accepted) < depth or not any(accepted[len(accepted) - max(depth // 2, 1) :])


def list_answer(picks: list[tuple[Source, str]]) -> str:
    """One line per paper: its title, its sentence, its citation (numbered in list order)."""
    return "\n".join(
        f"{list_line(source, sentence)} [{number}]."
        for number, (source, sentence) in enumerate(picks, start=1)
    )
