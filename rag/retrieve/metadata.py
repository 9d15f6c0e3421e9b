"""Metadata in questions and filters: explicit filters, author names that a question mentions
in full ("papers by Deyu Meng"), and area labels that it asks about as labels ("papers in the
Learning Theory subarea"; a bare topic like "reinforcement learning" is not a label question)."""

import re
import unicodedata

from pydantic import BaseModel

from rag.models import Paper
from rag.sentences import GENERIC, title_name


class Filters(BaseModel):
    """Restrict retrieval to matching papers; empty filters allow everything."""

    author: str | None = None
    area: str | None = None
    venue: str | None = None
    paper_ids: set[str] | None = None

    def active(self) -> bool:
        return any(v is not None for v in self.model_dump().values())

    def allows(self, paper: Paper) -> bool:
        """Case-insensitive substring matches; area matches the area or the subarea."""

        def has(needle: str | None, *fields: str | None) -> bool:
            return needle is None or any(needle.casefold() in (f or "").casefold() for f in fields)

        return (
            has(self.author, *paper.authors)
            and has(self.area, paper.area, paper.subarea)
            and has(self.venue, paper.venue)
            and (self.paper_ids is None or paper.paper_id in self.paper_ids)
        )


def unaccented(word: str) -> str:
    """The word without accents, as typed on any keyboard: "tönshoff" is "tonshoff"."""
    return "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c))


def words_key(text: str) -> str:
    """Lowercase words without punctuation: 'Daniel M. Kane' -> 'daniel m kane'."""
    return " ".join(re.findall(r"\w+", text.casefold()))


def title_head(paper: Paper) -> str | None:
    """The words a question may call a paper by when its title is a phrase: the part before the
    colon ("Learning from Algorithm Feedback"), or a short title whole ("Universal Sequence
    Preconditioning"), three words or more. The limits are set by reading the seeds' titles:
    their heads have 3-7 words, and whole titles of up to 6 ("Neural Collapse in Multi-Task
    Learning") are what a reader types; longer ones read as sentences, not names."""
    head, colon, _ = paper.title.partition(":")
    words = words_key(head).split()
    return " ".join(words) if 3 <= len(words) <= (12 if colon else 6) else None


LABEL_CUES = {
    "area",
    "areas",
    "subarea",
    "subareas",
    "label",
    "labels",
    "labeled",
    "labelled",
    "category",
    "categories",
    "track",
    "tracks",
    "classified",
    "listed",
    "tagged",
}


def introduces(abstract: str, name: str) -> bool:
    """Whether the abstract introduces the name as its own: "(CLVS)", "we propose ConML",
    "called SPHeRe", its code's repository ("github.com/RSLLES/SHOT") — not a dataset it uses
    ("on ImageNet")."""
    n = re.escape(name)
    return bool(
        re.search(
            rf"\({n}\)|\b(propose|introduce|present|call|dub|name|coin|term)\w*\b[^.]{{0,120}}\b{n}\b"
            rf"|\b{n},? (a|an) (novel|new|simple|principled|general)\b"
            rf"|github\.com/[\w.-]+/{n}\b",  # "github.com/RSLLES/SHOT": its code's repository
            abstract,
            re.IGNORECASE,
        )
    )


# A query that speaks of papers, so that a name reading as a word ("fire") is the paper's.
PAPER_CUES = re.compile(
    r"\b(papers?|method|approach|framework|vs\.?|versus|compar\w*|differ\w*|summar\w*|overview|"
    r"gist|tl;?\s?dr|explain|describe|propos\w*|contribut\w*|idea|datasets?|benchmarks?|"
    r"evaluat\w*|authors?|wrote|venue|published|about)\b",
    re.IGNORECASE,
)


def looks_coined(name: str) -> bool:
    """A name no one types as a word: a capital after a lower-case letter, a digit or a hyphen
    ("AnaCP", "EUGens", "CaRe-BN"; not "FIRE", "Pinet")."""
    return bool(re.search(r"[a-z][A-Z]|\d|-", name))


# A word of a query as names are written: "care-bn", "G&C".
TOKEN = r"[\w-]+(?:&[\w-]+)*"


class MetadataIndex:
    """Full author names, area/subarea labels and method names (`bm25.method_names`), each
    mapped to the ids of its papers."""

    def __init__(self, papers: list[Paper], names: dict[str, list[str]] | None = None):
        self.authors: dict[str, set[str]] = {}
        self.labels: dict[str, set[str]] = {}
        self.names = {name: set(pids) for name, pids in (names or {}).items()}
        self.title_names = {n: paper.paper_id for paper in papers if (n := title_name(paper.title))}
        # As typed: "summarize eugens", "clvs vs conml". A paper's own name also matches in lower
        # case: its title's, or a name only it uses when it introduces it (`abstract_of`, set by
        # the retriever, reads its abstract): "(CLVS)", not a dataset it uses ("on ImageNet").
        self.coined = {
            n.casefold(): (n, next(iter(p))) for n, p in self.names.items() if len(p) == 1
        }
        self.typed_names = {
            n.casefold(): pid for n, pid in self.title_names.items() if n.casefold() not in GENERIC
        }
        self.title_name_of = {n.casefold(): n for n in self.title_names}
        self.heads = {
            f" {head} ": paper.paper_id for paper in papers if (head := title_head(paper))
        }
        self.abstract_of = None
        self.is_word = None  # whether a lower-case name is an English word (the retriever's)
        self.surnames: dict[str, set[str]] = {}
        self.first_surnames: dict[str, set[str]] = {}  # "Jiang et al.": the first author's
        for paper in papers:
            for place, author in enumerate(paper.authors):
                if " " in (key := words_key(author)):  # a lone surname is too ambiguous
                    self.authors.setdefault(key, set()).add(paper.paper_id)
                    surname = unaccented(key.split()[-1])
                    self.surnames.setdefault(surname, set()).add(paper.paper_id)
                    if place == 0:
                        self.first_surnames.setdefault(surname, set()).add(paper.paper_id)
            for label in (paper.area, paper.subarea):
                if label:
                    self.labels.setdefault(words_key(label), set()).add(paper.paper_id)

    def _typed(self, tokens: set[str], query: str) -> list[str]:
        """The papers whose own name the query gives in any case: "eugens", "pinet", "care-bn"
        always; a name that is an English word in lower case ("fire", "legacy": one word piece
        of the embedder's vocabulary) only when the query speaks of papers ("the fire paper",
        "fire vs anacp", "fire benchmarks"), so "forest fire spread prediction" names none."""
        named = []
        for token in tokens:
            key = token.casefold()
            if key in self.typed_names:
                name, pid = self.title_name_of[key], self.typed_names[key]
            elif key in self.coined and len(key) >= 3 and key not in GENERIC and self.abstract_of:
                name, pid = self.coined[key]
                if not introduces(self.abstract_of(pid), name):
                    continue
            else:
                continue
            word = self.is_word(key) if self.is_word else True
            possessive = re.search(rf"\b{re.escape(token)}['’]s\b", query)  # "legacy's result"
            if (
                token == name
                or looks_coined(name)
                or not word
                or possessive
                or PAPER_CUES.search(query)
            ):
                named.append(pid)
        return named

    def _by_surname(self, query: str) -> list[str]:
        """The papers whose author's surname the query writes capitalised ("Tönshoff and
        Grohe's SAT paper", "Tonshoff" too), before "et al" ("saukh et al") or in lower case
        from 5 letters ("diakonikolas relu paper"), one paper's only
        and no English word ("Long") nor shorter than 4 letters ("Li"), once per surname; before
        "et al" it names the one paper whose first author has it ("Jiang et al.", of 4 papers)."""
        papers = []
        # 4 letters at least: the seeds' shorter surnames ("Li", "Mei", "Kim") are shared by
        # several papers or too short to tell from other words
        written = re.findall(
            r"\b[A-Z][^\W\d_]{3,}|\b[^\W\d_]{4,}(?=\s+et\.?\s+al\b)|\b[^\W\d_A-Z]{5,}\b", query
        )  # lower case from 5 letters: "diakonikolas relu paper"; of the seeds' 58 one-paper
        # surnames that long and no English word, one is a word of an abstract ("mazumder", in
        # TSENOR's code link, his own paper's)
        first = set(re.findall(r"\b([^\W\d_]+)(?=\s+et\.?\s+al\b)", query))
        for token in dict.fromkeys(written):  # "Saukh", "saukh et al"
            key = unaccented(token.casefold())
            own = self.surnames.get(key, set())
            if token in first and len(self.first_surnames.get(key, ())) == 1:
                papers += self.first_surnames[key]  # a surname for sure, a word or not
            elif len(own) == 1 and not (self.is_word and self.is_word(key)):
                papers += own
        return papers

    def _named(self, tokens: set[str]) -> list[str]:
        """The papers whose names the tokens give; where one of them is a name its paper
        introduces ("DeltaZero"), only those: "What accuracy does DeltaZero reach on ImageNet?"
        is about DeltaZero's paper, not the one paper that uses ImageNet."""
        used = [(name, pid) for name, pids in self.names.items() if name in tokens for pid in pids]
        own = [
            pid
            for name, pid in used
            if self.abstract_of and introduces(self.abstract_of(pid), name)
        ]
        return own or [pid for _, pid in used]

    def own_names(self, query: str) -> set[str]:
        """The words of the query that are some paper's own name (a title's, or one its
        paper introduces), in any case, or an author's surname, capitalised: another paper, not
        a premise about this one."""
        tokens = set(re.findall(TOKEN, query))
        surnames = {
            t for t in tokens if t[:1].isupper() and unaccented(t.casefold()) in self.surnames
        }
        return {t for t in tokens if self._typed({t}, query)} | surnames  # "the Jiang et al. paper"

    def mentioned(self, query: str, as_written: bool = False) -> list[str]:
        """Papers whose author or method the query names, or whose area label it asks about,
        most mentions first. Method names match as written ("FIRE", not "Fire"). A query that
        calls a paper by the name its title starts with is about that paper: a dataset or model
        name only another paper's abstract uses does not name that paper ("What does FIRE report
        on ImageNet?" is not about the one paper that mentions ImageNet). Unless `as_written`, a
        paper's own name also matches in lower case ("summarize eugens")."""
        tokens = set(re.findall(TOKEN, query))
        named = [pid for name, pid in self.title_names.items() if name in tokens] or self._named(
            tokens
        )
        if not as_written:  # "EvA vs MLES": a title's name and a name its paper introduces
            named += [pid for pid in self._typed(tokens, query) if pid not in named]
        words = words_key(query).split()
        key = f" {' '.join(words)} "  # "the main idea of [Reinforcement] Learning from Algorithm
        named += [pid for head, pid in self.heads.items() if head in key and pid not in named]
        grams = [" ".join(words[i : i + n]) for n in range(1, 6) for i in range(len(words) - n + 1)]
        indexes = [self.authors] + ([self.labels] if LABEL_CUES & set(words) else [])
        counts: dict[str, int] = dict.fromkeys(named, 1)
        for pid in self._by_surname(query):
            counts[pid] = counts.get(pid, 0) + 1
        for index in indexes:
            for gram in grams:
                for pid in index.get(gram, ()):
                    counts[pid] = counts.get(pid, 0) + 1
        return sorted(counts, key=lambda pid: (-counts[pid], pid))
