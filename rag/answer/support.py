"""Support check: does the cited abstract actually say what the sentence claims?
Two tests, both needed: (1) meaning — the sentence's best embedding similarity with a sentence
of a cited abstract (bundled MiniLM) reaches the threshold; (2) grounding — the sentence does
not assert the question's own key terms about a paper whose title and abstract never mention
them (the typical small-model error: restating the question as the paper's contribution)."""

import re
from dataclasses import dataclass

import numpy as np

from rag.answer.lines import list_line, most_relevant
from rag.figures import MATH, figure_context, math_key, quantities, states_figures
from rag.models import AnswerSentence, Citation, Source, normalize_text
from rag.retrieve.metadata import words_key
from rag.sentences import (
    GENERIC,
    evidence_sentences,
    metadata_sentence,
    stems,
    title_name,
    title_pattern,
)
from rag.tuning import AnswerTuning


@dataclass
class Table:
    """Every evidence sentence of the sources (each paper's metadata line, then its abstract's
    sentences) and each claim's cosine with each of them."""

    flat: list[str]
    owner: np.ndarray  # the source index of each sentence
    metadata: np.ndarray  # whether it is its paper's metadata line
    similarity: np.ndarray  # claims x sentences


def ungrounded_terms(sentence: str, question: str, source_text: str) -> set[str]:
    """Key terms of the question that the sentence repeats but the source never mentions."""
    return (stems(sentence) & stems(question)) - stems(source_text)


def grounded(sentence: str, question: str, source_text: str, tuning: AnswerTuning) -> bool:
    """False when a sizeable share of the question terms the sentence asserts are absent
    from the source."""
    repeated = stems(sentence) & stems(question)
    missing = repeated - stems(source_text)
    return not (
        len(missing) >= tuning.min_ungrounded_terms
        and len(missing) >= tuning.max_ungrounded_share * len(repeated)
    )


class SupportChecker:
    """Scores answer sentences against cited abstracts; adds clear missing citations."""

    def __init__(self, embedder, tuning: AnswerTuning):
        self.embedder, self.tuning = embedder, tuning
        self.threshold = tuning.support_threshold

    def check(
        self, sentences: list[AnswerSentence], sources: list[Source], question: str = ""
    ) -> tuple[list[AnswerSentence], dict[str, str]]:
        """The sentences with their support verdicts (citations are prompt numbers, 1-based), a
        citation the cited paper does not support moved to the one retrieved paper that clearly
        does; and the best supporting abstract sentence per cited paper id. The sentences
        given are not changed."""
        sentences = [sentence.model_copy(deep=True) for sentence in sentences]
        claims = [
            i for i, s in enumerate(sentences) if len(s.text.split()) >= self.tuning.min_claim_words
        ]
        if not claims or not sources:
            return sentences, {}
        table = self._table([sentences[i].text for i in claims], sources)
        best_evidence: dict[int, tuple[float, str]] = {}
        best = most_relevant(sources) - 1
        for row, index in enumerate(claims):
            sentence = sentences[index]
            per_source = self._per_source(
                table.similarity[row], table, sentence, sources, question, best
            )
            self._judge(sentence, per_source, table, row, sources, question)
            for n in sentence.citations:
                pick = self._evidence(table.similarity[row], table.owner == n - 1, table.metadata)
                if table.similarity[row][pick] > best_evidence.get(n, (-2.0, ""))[0]:
                    best_evidence[n] = (float(table.similarity[row][pick]), table.flat[pick])
        evidence = {sources[n - 1].paper.paper_id: text for n, (_, text) in best_evidence.items()}
        return sentences, evidence

    def _table(self, texts: list[str], sources: list[Source]) -> Table:
        """The claims' cosines with every evidence sentence. A claim is compared with abstract
        sentences without the titles it names (a title makes any sentence resemble its paper),
        and with a paper's metadata line as written, but only when it speaks of that paper's
        authors, venue or area."""
        evidence = [evidence_sentences(s.paper) for s in sources]
        flat = [sentence for sentences_ in evidence for sentence in sentences_]
        owner = np.repeat(np.arange(len(sources)), [len(e) for e in evidence])
        metadata = np.concatenate([[True] + [False] * (len(e) - 1) for e in evidence])
        stripped = [without_titles(text, [s.paper.title for s in sources]) for text in texts]
        vectors = np.asarray(self.embedder.embed(stripped + texts + flat))
        n = len(texts)
        about = [[about_metadata(text, sources[o].paper) for o in owner] for text in texts]
        similarity = np.where(
            metadata,
            np.where(about, vectors[n : 2 * n] @ vectors[2 * n :].T, -1.0),
            vectors[:n] @ vectors[2 * n :].T,
        )
        return Table(flat, owner, metadata, similarity)

    def _per_source(
        self, similarity, table: Table, sentence, sources, question, best
    ) -> list[float]:
        """The claim's best cosine with each source's sentences; -1 for a source it restates
        the question about without the source's words (see `grounded`), unless the source is
        what the question paraphrases (the most relevant, or relevant enough)."""
        return [
            float(similarity[table.owner == n].max(initial=-1.0))
            if n == best
            or sources[n].relevance >= self.tuning.paraphrase_relevance
            or grounded(sentence.text, question, _text(sources[n]), self.tuning)
            else -1.0
            for n in range(len(sources))
        ]

    def _judge(self, sentence, per_source, table: Table, row: int, sources, question) -> None:
        """Set the sentence's support and verdict, moving its citation when another paper
        clearly says what it claims, and restating a figure its paper gives otherwise."""
        misattributed = self._reattributed(sentence, per_source, sources, question)
        if not sentence.citations:
            return
        sentence.support = round(max(per_source[n - 1] for n in sentence.citations), 3)
        cited = cited_of(sentence, sources)
        sentence.supported = (
            sentence.support >= self.threshold
            and not misattributed
            and not unknown_names(sentence.text, cited)
        )
        if sentence.supported and (unknown := unknown_quantities(sentence.text, cited)):
            self._restated_figures(sentence, unknown, per_source, table, row, sources)

    def _reattributed(self, sentence, per_source, sources, question) -> bool:
        """Move the sentence to the source that clearly supports it better, renaming the paper
        it names ("A does X" where X is B's); True when that is needed but cannot be done.
        Renamed only when B's abstract uses every word of the question the claim repeats: "A
        gives FL methods with formal privacy guarantees" is no claim of B's just because B is
        about FL."""
        if not any(per_source[n - 1] >= self.threshold for n in sentence.citations):
            better = self._clear_leader(per_source)
        else:
            better = self._better_source(sentence, per_source)
        if better is None:
            return False
        text = renamed(sentence, sources, better)
        if text is None or (
            text != sentence.text
            and ungrounded_terms(sentence.text, question, _text(sources[better - 1]))
        ):
            return True
        sentence.text, sentence.citations = text, [better]
        return False

    def _restated_figures(self, sentence, unknown, per_source, table: Table, row, sources) -> None:
        """Its paper says it, with other figures ("up to 50%" where it says 14%): the paper's
        closest sentence stating figures of the same thing (it shares a word next to them:
        "improvement") replaces it, or it is withheld (the model invented "a learning rate of
        0.1"; "three EEG datasets" is no answer)."""
        number = max(sentence.citations, key=lambda n: per_source[n - 1])
        context = figure_context(sentence.text, unknown, sources[number - 1].paper.title)
        own = np.flatnonzero((table.owner == number - 1) & ~table.metadata)
        pick = self._same_figures(context, own, table.flat, table.similarity[row])
        sentence.supported = pick is not None
        if sentence.supported:
            sentence.text = f"{list_line(sources[number - 1], table.flat[pick])}."
            sentence.citations = [number]

    def _evidence(self, similarity, own: np.ndarray, metadata: np.ndarray) -> int:
        """The index of the sentence to show as evidence: the paper's best abstract sentence,
        or its metadata line when only that supports the claim (who wrote it, where, which area)."""
        abstract = int(np.argmax(np.where(own & ~metadata, similarity, -2.0)))
        line = int(np.argmax(np.where(own & metadata, similarity, -2.0)))
        if not (own & ~metadata).any() or similarity[abstract] < self.threshold <= similarity[line]:
            return line
        return abstract

    def _same_figures(self, context: set[str], own, flat: list[str], similarity) -> int | None:
        """The index of the closest of the paper's sentences (`own` indexes `flat`) that states
        figures and uses a word of their `context`, when it is close enough to the claim."""
        fitting = [i for i in own if states_figures(flat[i]) and context & stems(flat[i])]
        best = max(fitting, key=lambda i: similarity[i], default=None)
        return int(best) if best is not None and similarity[best] >= self.threshold else None

    def _better_source(self, sentence: AnswerSentence, per_source: list[float]) -> int | None:
        """The number of an uncited source that supports the sentence clearly better than the
        sources it cites (a sentence of paper B cited to paper A), if there is one."""
        best = int(np.argmax(per_source))
        cited = max(per_source[n - 1] for n in sentence.citations)
        margin = self.tuning.support_margin
        if (
            best + 1 not in sentence.citations
            and per_source[best] >= self.threshold + margin
            and per_source[best] - cited >= margin
        ):
            return best + 1
        return None

    def _clear_leader(self, per_source: list[float]) -> int | None:
        """The number of the one source that clearly supports the sentence (to cite instead of
        an unsupporting citation), if there is one."""
        ranked = sorted(range(len(per_source)), key=lambda n: -per_source[n])
        best = per_source[ranked[0]]
        runner_up = per_source[ranked[1]] if len(ranked) > 1 else -1.0
        margin = self.tuning.support_margin
        if best >= self.threshold + margin and best - runner_up >= margin:
            return ranked[0] + 1
        return None


CAPITALIZED = re.compile(r"[A-Z][\w'’-]*")
RUN = re.compile(r"[A-Z][\w'’-]*(?:\s+(?:of|the|for|in|on|a|de|van|von|[A-Z][\w'’-]*))*")


# Capitalized only because they open the question or ask something: never part of a name.
NOT_NAMES = set(
    """I If Is Are Was Were Do Does Did Can Could Should Would Will Has Have Given Compare Summarize
Summarise Explain Describe List Show Tell Find Give Name What Which Who Whom Whose How Why When Where
Please And Or But So Also Any Anything Some Papers Paper Besides Except Apart Aside Beyond Unlike
According Since Because Although While Hey Hi Ok Okay Thanks""".split()
)


def name_words(run: str) -> list[str]:
    """The words of a run of capitalized words that can be a name: without the words that open
    a question or ask something ("Compare AnaCP", "If I"), the generic ones ("The", "Both") and
    those that are not capitalized at its ends."""
    words = run.split()
    while words and (
        words[0].lower() in GENERIC or words[0] in NOT_NAMES or not CAPITALIZED.fullmatch(words[0])
    ):
        words = words[1:]
    while words and not CAPITALIZED.fullmatch(words[-1]):
        words = words[:-1]
    return words


def unknown_names(sentence: str, cited: list[Source]) -> list[str]:
    """Names in the sentence (runs of two or more capitalized words: people, titles, venues)
    that none of the cited papers' metadata or abstracts contains, with a word none of them
    uses: "Zorblax Quuxington proposed ...", "Continual Learning: A Survey, IEEE Transactions
    ...". A sentence naming them is not supported, whatever its similarity."""
    known = " ".join(words_key(f"{metadata_sentence(s.paper)} {s.paper.abstract}") for s in cited)
    unknown = []
    for run in RUN.findall(sentence):
        words = name_words(run)
        if sum(bool(CAPITALIZED.fullmatch(w)) for w in words) >= 2:
            name = " ".join(words)
            if f" {words_key(name)} " not in f" {known} " and not set(
                words_key(name).split()
            ) <= set(known.split()):  # known names side by side: "RLAF-trained GNN policies"
                unknown.append(name)
    return unknown


def unknown_quantities(sentence: str, cited: list[Source]) -> list[str]:
    """Numbers and formulas in the sentence that none of the cited papers states: a small model
    asked for a figure the abstract does not give ("How much memory does X need?") invents one.
    A sentence stating them is not supported, whatever its similarity."""
    known = " ".join(f"{metadata_sentence(s.paper)} {s.paper.abstract}" for s in cited)
    numbers = sorted(quantities(sentence) - quantities(known))
    formulas = [f for f in MATH.findall(sentence) if math_key(f) not in math_key(known)]
    return numbers + formulas


def cited_of(sentence: AnswerSentence, sources: list[Source]) -> list[Source]:
    return [sources[n - 1] for n in sentence.citations]


def about_metadata(sentence: str, paper) -> bool:
    """Whether the sentence names one of the paper's authors (by surname), its venue or its
    area: only then can the paper's metadata line support it."""
    words = set(words_key(sentence).split())
    surnames = {words_key(author).split()[-1] for author in paper.authors if words_key(author)}
    labels = [paper.venue, paper.area, paper.subarea]
    return bool(words & surnames) or any(
        label and f" {words_key(label)} " in f" {words_key(sentence)} " for label in labels
    )


def without_titles(sentence: str, titles: list[str]) -> str:
    """The claim with the paper title it names replaced by "The paper": a title makes any
    sentence look like its paper's metadata line ("<title> speeds up matrix multiplication" is
    not supported by the paper just because it names it). Only the first mention: a title's
    words later in the claim are its content ("<title>: This paper studies <title words>.")."""
    for title in sorted(titles, key=len, reverse=True):
        sentence, named = re.subn(
            re.escape(title), "The paper", sentence, count=1, flags=re.IGNORECASE
        )
        if named:
            return sentence
    return sentence


def renamed(sentence: AnswerSentence, sources: list[Source], better: int) -> str | None:
    """The sentence re-attributed to source `better`, which says what it claims: the cited
    paper it names (by title or method name) is renamed to that paper. None when that is not
    clear: it names several cited papers, names the better one as well, or words a title in a
    way that cannot be replaced exactly."""
    named = [n for n in sentence.citations if names_paper(sentence.text, sources[n - 1].paper)]
    if not named:
        return sentence.text
    target = sources[better - 1].paper.title
    if len(named) > 1 or names_paper(sentence.text, sources[better - 1].paper):
        return None
    title = sources[named[0] - 1].paper.title
    whole = title_pattern(title)
    text, count = re.subn(whole, lambda _: target, sentence.text, count=1, flags=re.IGNORECASE)
    if not count and (name := title_name(title)):
        new_name = title_name(target) or target
        text, count = re.subn(rf"\b{re.escape(name)}\b", lambda _: new_name, text, count=1)
    return text if count else None


def names_paper(text: str, paper) -> bool:
    """Whether the text names the paper, by title or by the method name in it."""
    name = title_name(paper.title)
    return normalize_text(paper.title) in normalize_text(text) or bool(
        name and re.search(rf"\b{re.escape(name)}\b", text)
    )


def _text(source: Source) -> str:
    return f"{metadata_sentence(source.paper)} {source.paper.abstract}"


def attach_evidence(citations: list[Citation], evidence: dict[str, str]) -> None:
    """Give each final citation the abstract sentence that best supports the answer."""
    for citation in citations:
        citation.evidence = evidence.get(citation.paper_id)
