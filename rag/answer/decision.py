"""Does this abstract answer this question? One calibrated probability per (question, paper),
from evidence that carries over to new wording and new corpora: how close the question is to the
paper's chunks and sentences (dense), how much of its topic the paper's words cover, weighted by
how rare each word is in the corpus (lexical, BM25's document frequencies), the rarest topic word
the paper never uses, the share of topic words the corpus never uses, whether the question names
the paper, and how far its lexical coverage leads the best other paper's. A logistic regression
fitted on generated questions (scripts/fit_decision.py) weighs them; its parameters, and the
command that made them, are in decision.json. The same probability decides whether a prose
answer is given and which papers a list contains."""

import itertools
import json
import math
import re
from pathlib import Path

import numpy as np
from pydantic import BaseModel

from rag.answer.intent import DEFAULT, closed_up, joined_compounds, links_code, pairs_of
from rag.answer.wording import ABBREVIATIONS, SHORTHAND
from rag.models import Source
from rag.sentences import evidence_sentences, metadata_sentence, stem_list, stems
from rag.tuning import AnswerTuning

PARAMETERS = Path(__file__).with_name("decision.json")
FEATURES = (
    "chunk",
    "sentence",
    "lexical",
    "phrases",
    "missing",
    "unknown",
    "named",
    "short",
    "lead",
)
# The sign each weight must have: more similar, more covered, named -> more likely to answer; a
# rare topic word the paper lacks, or words the corpus lacks -> less likely.
SIGNS = {
    "chunk": 1,
    "sentence": 1,
    "lexical": 1,
    "phrases": 1,
    "missing": -1,
    "unknown": -1,
    "named": 1,
    "lead": 1,
}


def stemmed_table(table: dict[str, str]) -> dict[str, list[str]]:
    """Each short form's stem, with its words' stems."""
    return {short: stem_list(words) for key, words in table.items() for short in stems(key)}


# Each abbreviation's stem, and the stems of its words ("gnns" -> graph neural network).
SPELLED = stemmed_table(ABBREVIATIONS)
SHORTHAND_SPELLED = stemmed_table(SHORTHAND)  # chat shorthand ("ppl" -> people): questions only


def spelled_out(words: list[str]) -> list[str]:
    """The stems in order, each abbreviation replaced by its words ("gnn" -> "graph neural
    network")."""
    return [part for word in words for part in SPELLED.get(word, [word])]


def spelled_pairs(pairs: set[str]) -> set[str]:
    """Neighbouring stems with their abbreviations spelled out: "spike net" -> "spike network",
    "gnn explain" -> "graph neural", "neural network", "network explain"."""
    return {f"{a} {b}" for pair in pairs for a, b in itertools.pairwise(spelled_out(pair.split()))}


class PaperView(BaseModel):
    """What the features read of one paper: its chunk vectors, its sentence vectors (metadata
    line first), its stemmed words, whether the question names it."""

    model_config = {"arbitrary_types_allowed": True}

    chunks: np.ndarray
    sentences: np.ndarray
    words: set[str]
    pairs: set[str] = set()
    named: bool = False


class Lexicon:
    """Inverse document frequencies of stemmed words over the index's chunks, and the corpus
    word a typo stands for."""

    def __init__(
        self,
        frequencies,
        documents: int,
        vocabulary=(),
        tuning: AnswerTuning = DEFAULT,
        is_word=lambda word: False,
        defined: dict[str, list[str]] | None = None,
    ):
        self.frequencies, self.documents = frequencies, max(documents, 1)
        self.min_length, self.similarity = tuning.typo_min_length, tuning.typo_similarity
        self.vocabulary = sorted(w for w in vocabulary if len(w) >= self.min_length)
        self.is_word = is_word
        # chat shorthand, then the corpus's abbreviations, then ours
        self.spelled = {**SHORTHAND_SPELLED, **(defined or {}), **SPELLED}

    def corrected(self, words: set[str], defined: bool = True) -> set[str]:
        """The words, each abbreviation replaced by its words (ABBREVIATIONS and, when
        `defined`, those the corpus defines: "pinn" -> "physics informed neural network"), each
        one the corpus never uses by the corpus word it is a likely typo of ("gradeint" ->
        "gradient"; difflib ratio >= AnswerTuning.typo_similarity) unless it is a word in its
        own right (`is_word`: "flat" is not a typo of "float")."""
        abbreviations = self.spelled if defined else SPELLED
        spelled = {w: set(abbreviations[w]) for w in words if w in abbreviations}
        fixed = self.typos(words - set(spelled))
        kept = {fixed.get(w, w) for w in words if w not in spelled}
        return kept.union(*spelled.values())

    def typos(self, words: set[str]) -> dict[str, str]:
        """Each word the corpus never uses, with the corpus word it is a likely typo of
        (`corrected`): one with the same first letter ("unlearn" is no typo of "learn")."""
        import difflib

        unknown = [
            w
            for w, n in self.frequencies(set(words)).items()
            if n == 0 and not self.is_word(w) and len(w) >= self.min_length
        ]
        fixes = {
            w: difflib.get_close_matches(w, self.vocabulary, n=1, cutoff=self.similarity)
            for w in unknown
        }
        return {w: fix[0] for w, fix in fixes.items() if fix and fix[0][0] == w[0]}

    def corrected_pairs(self, pairs: set[str]) -> set[str]:
        """Neighbouring stems with typos corrected ("feder lern" -> "feder learn")."""
        fixed = self.typos({w for pair in pairs for w in pair.split()})
        return {" ".join(fixed.get(w, w) for w in pair.split()) for pair in pairs}

    @property
    def rarest(self) -> float:
        """The idf of a word no chunk uses."""
        return self.idf_of(0)

    def idf_of(self, frequency: int) -> float:
        return math.log(1 + (self.documents - frequency + 0.5) / (frequency + 0.5))


def words_of(source: Source) -> tuple[set[str], set[str]]:
    """The stems of a paper's metadata line and abstract (hyphenated compounds also joined) and
    its neighbouring stems (also with the compounds closed up), as the features read them."""
    text = f"{metadata_sentence(source.paper)} {source.paper.abstract}"
    words = stems(text) | joined_compounds(text)
    pairs = pairs_of(text, skip=True) | pairs_of(closed_up(text), skip=True)
    return words.union(*(SPELLED.get(w, ()) for w in words)), pairs | spelled_pairs(pairs)


def uses_words(source: Source, words: list[str]) -> bool:
    """Whether the paper's title or abstract uses each word as written, give or take an
    ending ("federated" in "federated settings", "adam" in "AdamW"; not "continual" in
    "continuous", which the stems conflate)."""
    text = f"{source.paper.title} {source.paper.abstract}".lower()
    text = f"{text} {closed_up(text)}"  # "stability-plasticity" as "stabilityplasticity" too
    return bool(words) and all(
        re.search(rf"\b{re.escape(w.removesuffix('s'))}", text) for w in words
    )


def phrase_share(topic: set[str], pairs: set[str], words: set[str], own_pairs: set[str]) -> float:
    """The share of the question's neighbouring topic stems the paper has side by side; for a
    one-word topic, 1 when the paper uses it (the "phrases" feature)."""
    return len(pairs & own_pairs) / len(pairs) if pairs else float(topic <= words)


def features(
    question, topic: set[str], papers: list[PaperView], lexicon: Lexicon, pairs=frozenset()
) -> np.ndarray:
    """One row of FEATURES per paper for the question's (normalized) vector, topic stems and
    neighbouring topic stems (`pairs`; the share a paper has side by side is "phrases", 1 for a
    one-word topic covered)."""
    topic, pairs = lexicon.corrected(topic), spelled_pairs(lexicon.corrected_pairs(pairs))
    frequencies = lexicon.frequencies(topic)
    idf = {w: lexicon.idf_of(n) for w, n in frequencies.items()}
    total = sum(idf.values()) or 1.0
    unknown = sum(n == 0 for n in frequencies.values()) / max(len(topic), 1)
    rows = []
    for paper in papers:
        missing = [idf[w] for w in topic if w not in paper.words]
        rows.append(
            [
                best_cosine(paper.chunks, question),
                best_cosine(paper.sentences[1:], question),
                sum(idf[w] for w in topic if w in paper.words) / total,
                phrase_share(topic, pairs, paper.words, paper.pairs),
                max(missing, default=0.0) / lexicon.rarest,
                unknown,
                float(paper.named),
                1.0 / max(len(topic), 1),
            ]
        )
    rows = np.asarray(rows, dtype=float).reshape(len(papers), len(FEATURES) - 1)
    return np.column_stack([rows, lead(rows[:, FEATURES.index("lexical")])])


def lead(lexical: np.ndarray) -> np.ndarray:
    """How far each paper's lexical coverage is ahead of the best other paper's (negative when
    behind): the paper a description fits, though in other words than its abstract's, stands out
    ("recovering what's on a screen from light reflected off walls")."""
    if len(lexical) < 2:
        return lexical.copy()
    order = np.argsort(-lexical)
    best, second = lexical[order[0]], lexical[order[1]]
    return lexical - np.where(np.arange(len(lexical)) == order[0], second, best)


def best_cosine(vectors: np.ndarray, question) -> float:
    return float((vectors @ question).max()) if len(vectors) else -1.0


class Decision(BaseModel):
    """The fitted logistic regression: standardized features, weights, bias, and the probability
    at or above which a paper is taken to answer."""

    features: list[str]
    mean: list[float]
    scale: list[float]
    weights: list[float]
    bias: float
    threshold: float
    command: str = ""
    metrics: dict = {}

    @classmethod
    def bundled(cls) -> "Decision":
        return cls.model_validate(json.loads(PARAMETERS.read_text()))

    def probabilities(self, rows: np.ndarray) -> np.ndarray:
        z = (rows - np.asarray(self.mean)) / np.asarray(self.scale) @ np.asarray(self.weights)
        return 1.0 / (1.0 + np.exp(-(z + self.bias)))


def readable_abbreviations(index, is_word) -> dict[str, str]:
    """The abbreviations the index's abstracts define ("pinn": "physics informed neural
    networks") that a question's word may stand for: not a paper's own name ("SIGMA") nor an
    English word ("CLIP" would spell out "clipping")."""
    own = {name.lower() for name in index.names}
    return {
        key: words
        for key, words in index.abbreviations.items()
        if key not in own and f"{key}s" not in own and not is_word(key)
    }


def as_stems(abbreviations: dict[str, str]) -> dict[str, list[str]]:
    """Abbreviations as stems, each with the stems of its words ("pinn": ["physic", ...])."""
    return {short: stem_list(words) for key, words in abbreviations.items() for short in stems(key)}


class Relevance:
    """Rates retrieved papers for a question with the bundled decision."""

    def __init__(
        self, retriever, embedder, decision: Decision | None = None, tuning: AnswerTuning = DEFAULT
    ):
        self.retriever, self.embedder, self.tuning = retriever, embedder, tuning
        self.decision = decision or Decision.bundled()

    @property
    def lexicon(self) -> Lexicon:
        """The lexicon of the retriever's BM25 index (anew after a re-index)."""
        self._read_index()
        return self._lexicon

    def _read_index(self) -> None:
        """The lexicon and the readable abbreviations of the retriever's BM25 index, read once
        per index."""
        index = self.retriever.lexical
        if getattr(self, "_lexicon_of", None) is not index:
            names = stems(" ".join(a for p in index.papers for a in p.authors))
            is_word = self.retriever.metadata.is_word or (lambda word: False)
            readable = readable_abbreviations(index, is_word)  # once per index
            self._readable, self._lexicon = (
                readable,
                Lexicon(
                    index.document_frequencies,
                    len(index.chunk_ids),
                    index.vocabulary - names,  # "medic" is no typo of "Mehdi"
                    self.tuning,
                    is_word,
                    as_stems(readable),
                ),
            )
            self._lexicon_of = index  # last: a concurrent chat never reads it half-read

    def matches(self, description: str, n: int, mode: str) -> list[Source]:
        """The description's `n` best matches (its abbreviations spelled out), none when the
        corpus does not answer it (answerability under `min_relevance`): "the grokking paper",
        "model folding" in "model folding vs transposable N:M masks"."""
        found = self.retriever.search(self.spelled(description), n, mode)
        answered = self.retriever.answerability(description, found) >= self.tuning.min_relevance
        return found if answered else []

    def spelled(self, question: str) -> str:
        """The question with each abbreviation the corpus defines followed by its words
        ("pinns" -> "pinns (physics informed neural networks)"), so that the sentence closest
        to it is one that speaks of them."""
        self._read_index()
        known = self._readable

        def spell(match: re.Match) -> str:
            words = known.get(match.group().lower().removesuffix("s"))
            return f"{match.group()} ({words})" if words else match.group()

        return re.sub(r"[A-Za-z]+(?:&[A-Za-z]+)+|[A-Za-z]{2,}", spell, question)  # "G&C" too

    def rate(self, intent, sources: list[Source]) -> list[float]:
        """Per source, the probability that its abstract answers the question."""
        return [float(p) for p in self.decision.probabilities(self.assess(intent, sources))]

    def assess(self, intent, sources: list[Source]) -> np.ndarray:
        """Per source, its row of FEATURES for the reading of the question it answers best: the
        question itself, or an alternative whose words the paper uses as written."""
        if not sources:
            return np.zeros((0, len(FEATURES)))
        vector = np.asarray(self.embedder.embed([intent.query])[0])
        views = self.views(sources)
        (topic, pairs, _), *alternatives = self.readings(intent)
        best = features(vector, topic, views, self.lexicon, pairs)
        rates = self.decision.probabilities(best)
        for topic, pairs, words in alternatives:  # one a paper uses as written may answer alone
            rows = features(vector, topic, views, self.lexicon, pairs)
            p = self.decision.probabilities(rows)
            better = (p > rates) & np.array([uses_words(s, words) for s in sources])
            best[better], rates = rows[better], np.maximum(rates, np.where(better, p, 0))
        return best

    def listable(self, intent, sources: list[Source]) -> list[bool]:
        """Per source, whether a list could hold it: it has `list_phrases` of the question's
        neighbouring topic words side by side (every topic word, for a one-word topic), as
        `features` counts "phrases", or uses each of its words as written (`uses_words`), or
        links to its code when that is asked — known from its words alone, before any vector
        is read."""
        readings = [
            (
                self.lexicon.corrected(topic),
                spelled_pairs(self.lexicon.corrected_pairs(pairs)),
                words,
            )
            for topic, pairs, words in self.readings(intent)
        ]
        return [
            any(
                phrase_share(topic, pairs, *words_of(source)) >= self.tuning.list_phrases
                or uses_words(source, words)
                for topic, pairs, words in readings
            )
            or (intent.asks_code and links_code(source.paper.abstract))
            for source in sources
        ]

    def readings(self, intent) -> list[tuple[set[str], set[str], list[str]]]:
        """The question's readings (`Intent.readings`): itself, and each alternative with a word
        as rare as `alternative_weight` of one no chunk uses ("train" alone is no topic, nor is
        "learning new tasks")."""
        lexicon = self.lexicon
        first, *rest = intent.readings()

        def weight(topic: set[str]) -> float:
            counts = lexicon.frequencies(lexicon.corrected(topic)).values()
            return max(map(lexicon.idf_of, counts), default=0.0) / lexicon.rarest

        return [first] + [r for r in rest if weight(r[0]) >= self.tuning.alternative_weight]

    def views(self, sources: list[Source]) -> list[PaperView]:
        """What the features read of each source: its chunk vectors and sentence vectors (both
        stored at ingest, fetched in one call each) and its words."""
        chunks = self.retriever.store.embeddings([s.paper.paper_id for s in sources])
        texts = [evidence_sentences(source.paper) for source in sources]
        vectors = np.asarray(self.embedder.embed([t for own in texts for t in own]))
        ends = np.cumsum([len(own) for own in texts])
        views = []
        for source, end, own in zip(sources, ends, texts):
            words, pairs = words_of(source)
            views.append(
                PaperView(
                    chunks=np.asarray(chunks.get(source.paper.paper_id, [])),
                    sentences=vectors[end - len(own) : end],
                    words=words,
                    pairs=pairs,
                    named=source.named,
                )
            )
        return views
