"""BibTeX for cited papers: one entry per paper, with a key that stays the same from answer to
answer; the year whenever it is known (the paper's, its venue's, its arXiv id's);
`@inproceedings` with the proceedings' full name for the venues known by name (NeurIPS, ICLR,
ICML ...); acronyms and other capitals in titles brace-protected ({SAQNN}), so that a style
that lowercases titles keeps them; every text field literal LaTeX (a title's `\\input{…}` must
not run)."""

import re
import unicodedata

from rag.links import safe_url
from rag.models import Paper

YEAR = re.compile(r"\b(19|20)\d{2}\b")
ARXIV = re.compile(
    r"arxiv\.org/(?:abs|pdf)/(?P<id>(?P<yy>\d{2})(?P<mm>\d{2})\.\d{4,5})", re.IGNORECASE
)
KEY_STOPWORDS = {"a", "an", "the", "on", "of", "in", "for", "to", "and", "towards", "toward"}
# The proceedings a venue's short name stands for (written as their publishers title them).
PROCEEDINGS = {
    "neurips": "Advances in Neural Information Processing Systems",
    "nips": "Advances in Neural Information Processing Systems",
    "iclr": "International Conference on Learning Representations",
    "icml": "International Conference on Machine Learning",
    "aistats": "International Conference on Artificial Intelligence and Statistics",
    "colt": "Conference on Learning Theory",
    "uai": "Conference on Uncertainty in Artificial Intelligence",
    "aaai": "Proceedings of the AAAI Conference on Artificial Intelligence",
    "ijcai": "Proceedings of the International Joint Conference on Artificial Intelligence",
    "acl": "Proceedings of the Annual Meeting of the Association for Computational Linguistics",
    "emnlp": "Proceedings of the Conference on Empirical Methods in Natural Language Processing",
    "cvpr": "Proceedings of the IEEE/CVF Conference on Computer Vision and Pattern Recognition",
    "iccv": "Proceedings of the IEEE/CVF International Conference on Computer Vision",
    "eccv": "European Conference on Computer Vision",
    "kdd": "Proceedings of the ACM SIGKDD Conference on Knowledge Discovery and Data Mining",
}
# "NeurIPS 2025", "ICLR": a known venue by its short name (a workshop of it is not).
KNOWN_VENUE = re.compile(rf"\s*({'|'.join(PROCEEDINGS)})\s*((?:19|20)\d{{2}})?\s*", re.IGNORECASE)
CONFERENCE = re.compile(
    rf"{'|'.join(PROCEEDINGS)}|conference|proceedings|workshop|symposium", re.IGNORECASE
)
# Characters LaTeX would act on, as commands that print them (braced commands keep the braces
# of a BibTeX entry balanced).
LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "{": r"\textbraceleft{}",
    "}": r"\textbraceright{}",
    "%": r"\%",
    "&": r"\&",
    "#": r"\#",
    "_": r"\_",
    "$": r"\$",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}
# A word of a title once it is LaTeX text: letters and digits, hyphens inside; not a command.
WORD = re.compile(r"(?<![\\\w])[^\W_](?:[^\W_]|-(?=[^\W_]))*")


def year_of(paper: Paper) -> int | None:
    """The paper's year, or the one its venue names ("NeurIPS 2025"), or its arXiv id's."""
    if paper.year:
        return paper.year
    if found := YEAR.search(paper.venue or ""):
        return int(found.group())
    if arxiv := ARXIV.search(paper.url or ""):
        return 2000 + int(arxiv.group("yy"))
    return None


def ascii_word(text: str) -> str:
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]", "", folded.lower())


def bibtex_key(paper: Paper) -> str:
    """surname + year + first title word ("zhang2025bisecle"): the same paper always gets the
    same key, so entries from different answers merge in a .bib file."""
    surname = ascii_word(paper.authors[0].split()[-1]) if paper.authors else "anon"
    words = [ascii_word(w) for w in paper.title.split()]
    word = next((w for w in words if w and w not in KEY_STOPWORDS), "paper")
    return f"{surname or 'anon'}{year_of(paper) or ''}{word}"


def bibtex(papers: list[Paper]) -> str:
    """One entry per paper (duplicates merged), written and quoted by bibtexparser."""
    import bibtexparser
    from bibtexparser.model import Entry, Field

    library, keys = bibtexparser.Library(), {}
    for paper in papers:
        key = bibtex_key(paper)
        if keys.setdefault(key, paper.paper_id) != paper.paper_id:
            key += paper.paper_id[:4]  # a different paper with the same key
        if key in {entry.key for entry in library.entries}:
            continue
        library.add(Entry(entry_type(paper), key, [Field(n, v) for n, v in fields(paper)]))
    return bibtexparser.write_string(library)


def proceedings(venue: str | None) -> str | None:
    """The full name of a venue known by its short name ("ICLR 2026"), else None."""
    known = KNOWN_VENUE.fullmatch(venue or "")
    return PROCEEDINGS[known.group(1).lower()] if known else None


def entry_type(paper: Paper) -> str:
    if not paper.venue:
        return "misc"
    return "inproceedings" if CONFERENCE.search(paper.venue) else "article"


def latex_text(text: str) -> str:
    """Text that LaTeX prints as written, math and commands included (a title's `\\input{…}`
    must not run): its special characters as commands that print them."""
    return "".join(LATEX_SPECIAL.get(character, character) for character in text)


def protected_title(title: str) -> str:
    """The title as LaTeX text with its capitals brace-protected: acronyms and words capitalized
    past their first letter ({SAQNN}, {BayesCoxCP}, {Stability-Plasticity}); in a title
    written in sentence case, every capitalized word after the first too (a proper noun)."""
    words = title.split()
    lowered = sum(1 for word in words[1:] if word[:1].islower())
    sentence_case = lowered > len(words[1:]) / 2

    def protect(word: re.Match) -> str:
        text = word.group()
        capitals = any(c.isupper() for c in text[1:])
        proper = sentence_case and word.start() > 0 and text[:1].isupper()
        return f"{{{text}}}" if capitals or proper else text

    return WORD.sub(protect, latex_text(title))


def fields(paper: Paper) -> list[tuple[str, str]]:
    """BibTeX fields in braces, as literal LaTeX text; the url only when it is a safe link."""
    authors = [*paper.authors, "others"] if paper.authors_truncated else paper.authors
    kind = entry_type(paper)
    venue_field = {"inproceedings": "booktitle", "article": "journal"}.get(kind)
    arxiv = ARXIV.search(paper.url or "")
    values = [
        ("title", protected_title(paper.title)),
        ("author", latex_text(" and ".join(authors))),
        (venue_field, latex_text(proceedings(paper.venue) or paper.venue or "")),
        ("year", str(year_of(paper) or "")),
        ("url", safe_url(paper.url) or ""),  # written verbatim: a safe link holds no braces
        ("eprint", arxiv.group("id") if arxiv and kind == "misc" else ""),
        ("archiveprefix", "arXiv" if arxiv and kind == "misc" else ""),
        ("keywords", latex_text(", ".join(paper.keywords))),
    ]
    return [(name, value) for name, value in values if name and value]
