"""A cited paper that ignores the question's key word does not answer it ("over-smoothing" asked
of a paper on attacks on graph networks): a word whose stem its title and abstract never use,
that carries `key_word_weight` of the question's meaning (1 - cosine of the question with and
without it), and whose removal brings the question no further from the paper's closest sentence.
A paper the question names is kept, with a note. Not checked: lists of several papers, summaries,
"which of those" follow-ups; words of the named papers' metadata are no key words, nor, in a
comparison, words another compared paper uses ("the microscopy one").
`ignored_words` is the same reading for a group of words, before any answer: a prose question
whose carrying words the closest paper never uses is declined (Answerer._off_topic)."""

import re

import numpy as np

from rag.answer.checks import Check, Review
from rag.answer.decision import spelled_out
from rag.answer.verdict import Reason
from rag.models import Source
from rag.sentences import evidence_sentences, metadata_sentence, stems

WORD = re.compile(r"[A-Za-z][A-Za-z0-9]+")


def missing_words(
    question: str, texts: list[str], names: str = "", topic=None, lexicon=None
) -> list[str]:
    """The question's words whose stem the paper's `texts` (its evidence sentences) never use:
    not words of `names` (other papers' titles and authors), nor words outside the question's
    `topic` stems when given ("Compare", "anything"), nor a typo whose corpus word (the
    `lexicon`'s) the texts use ("lerning")."""
    used = stems(" ".join([names, *texts]))
    return [
        word
        for word in dict.fromkeys(WORD.findall(question))
        if (own := stems(word))
        and not set(spelled_out(list(own))) <= used  # "nets": "networks"
        and not (lexicon and set(lexicon.typos(own).values()) & used)
        and (topic is None or own <= topic)
    ]


def without_words(question: str, words: list[str]) -> str:
    """The question with each of `words` blanked out, as whole words."""
    return re.sub(rf"\b(?:{'|'.join(map(re.escape, words))})\b", " ", question)


def meaning_shift(question: str, variants: list[str], texts: list[str], embedder):
    """Per variant of the question (some words blanked out), the share of its meaning they carry
    (1 - cosine of the question with and without them) and how much closer the paper's closest
    sentence (of `texts`) is to the variant than to the question."""
    vectors = np.asarray(embedder.embed([question, *variants, *texts]))
    asked, fewer = vectors[0], vectors[1 : len(variants) + 1]
    sentences = vectors[len(variants) + 1 :]
    return 1.0 - fewer @ asked, (fewer @ sentences.T).max(axis=1) - (sentences @ asked).max()


def ignored_word(
    question: str,
    source: Source,
    embedder,
    weight: float,
    names: str = "",
    topic=None,
    lexicon=None,
) -> str | None:
    """The question's key word that the source's text never uses (`missing_words`) and its
    closest sentence does not answer, or None."""
    texts = evidence_sentences(source.paper)
    missing = missing_words(question, texts, names, topic, lexicon)
    if not missing:
        return None
    variants = [without_words(question, [word]) for word in missing]
    weights, margins = meaning_shift(question, variants, texts, embedder)
    ranked = sorted(zip(weights, margins >= 0, missing), key=lambda item: -item[0])
    return next((word for w, ok, word in ranked if ok and w >= weight), None)


def ignored_words(
    question: str, source: Source, embedder, tuning, topic=None, lexicon=None
) -> list[str]:
    """The words the source never uses when together they carry `ignored_share` of the
    question's meaning and the source's closest sentence is `ignored_margin` closer to the
    question without them than to the question (`meaning_shift`): a topic it does not treat,
    though it shares the rest ("neural-network decoders for quantum error correction" of a paper
    on quantum neural networks); else none."""
    texts = evidence_sentences(source.paper)
    missing = missing_words(question, texts, topic=topic, lexicon=lexicon)
    if not missing:
        return []
    (share,), (margin,) = meaning_shift(
        question, [without_words(question, missing)], texts, embedder
    )
    return missing if share >= tuning.ignored_share and margin >= tuning.ignored_margin else []


class KeyWord(Check):
    name = "key_word"

    def run(self, review: Review) -> list:
        if review.intent.summary or review.intent.scoped:
            return []
        sources, tools = review.sources, review.tools
        names = " ".join(metadata_sentence(s.paper) for s in sources if s.named)
        cited, verdicts = review.cited(), []
        for number in cited:
            others = ""  # a comparison describes each paper in its own words ("the microscopy one")
            if review.intent.shape == "comparison":
                others = " ".join(sources[n - 1].paper.abstract for n in cited if n != number)
            word = ignored_word(
                review.intent.text,
                sources[number - 1],
                tools.embedder,
                tools.tuning.key_word_weight,
                f"{names} {others}",
                review.intent.topic,
                tools.lexicon(),
            )
            if word:
                named = sources[number - 1].named
                verdicts.append(
                    self.verdict(
                        "note" if named else "reject",
                        Reason.NAMED_IGNORES_WORD if named else Reason.IGNORED_WORD,
                        papers=[number],
                        detail=word,
                        titles=review.titles({number}),
                    )
                )
        return verdicts
