"""Sentence splitting that keeps citation markers with their sentence and survives
abbreviations (e.g., et al., Fig.) and decimals."""

import functools
import re
import threading
import unicodedata

ABBREVIATIONS = (
    "e.g.",
    "i.e.",
    "et al.",
    "etc.",
    "vs.",
    "fig.",
    "eq.",
    "cf.",
    "approx.",
    "resp.",
    "no.",
    "sec.",
    "ref.",
    "dr.",
    "prof.",
)
TAIL = max(map(len, ABBREVIATIONS))  # lower-casing a whole long sentence per piece is quadratic
BOUNDARY = re.compile(r"(?<=[.!?])\s+|\n+")
LEADING_MARKERS = re.compile(r"^((?:\[[^\]]{1,40}\]\s*)+)")


def letter_words(text: str) -> list[str]:
    """The text's runs of letters, lower case: "Asdfgh, qwerty?" is ["asdfgh", "qwerty"]."""
    return re.findall(r"[a-z]+", text.lower())


def split_sentences(text: str) -> list[str]:
    """Sentences in order; markers that open a sentence ("... end. [2] Next") go back to the
    sentence they follow."""
    pieces = [p.strip() for p in BOUNDARY.split(text) if p and p.strip()]
    sentences: list[str] = []
    for piece in pieces:
        if sentences and sentences[-1][-TAIL:].lower().endswith(ABBREVIATIONS):
            sentences[-1] += " " + piece
            continue
        markers = LEADING_MARKERS.match(piece)
        if markers and sentences:
            sentences[-1] += " " + markers.group(1).strip()
            piece = piece[markers.end() :].strip()
            if not piece:
                continue
        sentences.append(piece)
    return sentences


def metadata_sentence(paper) -> str:
    """A paper's metadata as one sentence of evidence (for "who wrote ..." answers)."""
    parts = [paper.title]
    if paper.authors:
        parts.append("by " + ", ".join(paper.authors))
    parts += [part for part in (paper.venue, paper.area, paper.subarea) if part]
    return ", ".join(parts) + "."


def evidence_sentences(paper) -> list[str]:
    """What answers are checked against: the metadata sentence, then the abstract's sentences
    (embedded once, at ingest)."""
    return [metadata_sentence(paper), *split_sentences(paper.abstract)]


NAME = re.compile(r"\b[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*\b")


def title_name(title: str) -> str | None:
    """The method's name when a title starts with one: 'FIRE: Frobenius-Isometry ...' -> 'FIRE'
    (a single word with a capital letter, before the colon)."""
    head, colon, _ = title.partition(":")
    head = head.strip()
    if colon and len(head) >= 3 and " " not in head and any(c.isupper() for c in head):
        return head
    return None


def title_pattern(title: str) -> str:
    """A regex matching the title as written, with any whitespace between its words."""
    return re.escape(title).replace(r"\ ", r"\s+")


# A sentence that says where the code is, not what the paper does ("Our code is available at").
NO_CONTENT = re.compile(
    r"https?://|\bcode (is|will be)\b|\bgithub\b|\bavailable at\b", re.IGNORECASE
)
ASKS_CODE = re.compile(
    r"\b(code|github|repo\w*|available|open[- ]sourced?|url|link)\b", re.IGNORECASE
)


def answers_about(sentence: str, question: str) -> bool:
    """Whether the sentence can answer the question: a code-link sentence only one asking for
    the code (in any paper it names the method, so it is close to any question naming it)."""
    return not NO_CONTENT.search(sentence) or bool(ASKS_CODE.search(question))


def name_tokens(text: str) -> set[str]:
    """Words written like names of methods, models or datasets: 'AnaCP', 'DeltaZero', 'RFT-Inf',
    'SIGMA', 'ResNet-18' (a part with two capitals or more; a bare acronym needs four letters).
    Title-case compounds ('Few-Shot') are not names."""
    return {
        word
        for word in NAME.findall(text)
        if any(sum(c.isupper() for c in part) >= 2 for part in word.split("-"))
        and (len(word) >= 4 or not word.isupper())
    }


# "We propose Warm-Stagger, ...": a hyphenated compound of capitalized words inside a sentence of
# an abstract is a name the paper coined (in a title every word is capitalized: "Few-Shot").
COINED = re.compile(r"(?<=[\w,;:)] )[A-Z][a-z0-9]+(?:-[A-Z][A-Za-z0-9]*)+\b")


def coined_names(abstract: str) -> set[str]:
    """Capitalized hyphenated compounds used inside the abstract's sentences: 'Warm-Stagger'."""
    return set(COINED.findall(abstract))


# Words that say nothing about a paper's content: stopwords and generic research verbs.
GENERIC = set(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "of",
        "in",
        "on",
        "for",
        "to",
        "with",
        "by",
        "from",
        "as",
        "at",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "this",
        "that",
        "these",
        "those",
        "it",
        "its",
        "their",
        "which",
        "what",
        "who",
        "whom",
        "whose",
        "how",
        "why",
        "when",
        "where",
        "does",
        "do",
        "did",
        "can",
        "could",
        "paper",
        "papers",
        "work",
        "works",
        "study",
        "studies",
        "studied",
        "propose",
        "proposes",
        "proposed",
        "introduce",
        "introduces",
        "present",
        "presents",
        "use",
        "uses",
        "used",
        "using",
        "method",
        "methods",
        "approach",
        "approaches",
        "new",
        "novel",
        "based",
        "show",
        "shows",
        "about",
        "into",
        "than",
        "then",
        "also",
        "such",
        "any",
        "some",
        "there",
        "here",
        "they",
        "them",
        "other",
        "more",
        "most",
        "via",
        "our",
        "we",
        "you",
        "your",
        "design",
        "designs",
        "designed",
        "tackle",
        "tackles",
        "address",
        "addresses",
        "improve",
        "improves",
        "one",
        "two",
        "over",
        "under",
        "list",
        "listed",
        "lists",
        "area",
        "subarea",
        "label",
        "labeled",
        "labelled",
        "track",
        "category",
        "categories",
        "reach",
        "reaches",
        "achieve",
        "achieves",
        "find",
        "finds",
        "paper's",
        "get",
        "gets",
        "got",
        "getting",
        "while",
    ]
)
# Contractions as written; a question may drop the apostrophe (rag.answer.wording reads "theres"
# as "there's"). What one leaves of its verb is no content word: "isn't" reads as "isn" and "t".
CONTRACTIONS = """there's what's how's that's who's where's here's doesn't don't didn't isn't
aren't wasn't weren't can't won't haven't hasn't shouldn't wouldn't couldn't i'm i've you're
they're""".split()
GENERIC |= {word.split("'")[0] for word in CONTRACTIONS if word.endswith("n't")}


def stems(text: str) -> set[str]:
    """Stemmed content words (lowercase, without generic research verbs and stopwords)."""
    return set(stem_list(text))


def stem_list(text: str) -> list[str]:
    """The stemmed content words of the text, in order."""
    return list(_stemmed(text))


# A name with an inline LaTeX superscript or subscript, as abstracts write it: "IR$^4$Net" is the
# "IR4Net" a question types.
INLINE_SCRIPT = re.compile(r"\$[\^_]\{?([A-Za-z0-9]+)\}?\$")


def folded(text: str) -> str:
    """The text without accents ("Hölder" is the "holder" a question types)."""
    if text.isascii():
        return text
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


@functools.lru_cache(maxsize=8192)  # a list question reads each candidate's text three times
def _stemmed(text: str) -> tuple[str, ...]:
    text = folded(INLINE_SCRIPT.sub(r"\1", text)).lower()
    words = [w for w in re.findall(r"[a-z][a-z0-9]+", text) if w not in GENERIC and len(w) > 2]
    return tuple(_stemmer().stemWords(words))


_local = threading.local()


def _stemmer():
    """This thread's stemmer (a PyStemmer object is not to be shared between threads)."""
    if not hasattr(_local, "stemmer"):
        import Stemmer

        _local.stemmer = Stemmer.Stemmer("english")
    return _local.stemmer
