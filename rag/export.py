"""Answers taken away: Markdown (text with [n] markers and a numbered reference list) and
BibTeX (one entry per cited paper, written by rag/bibtex.py).
Text from abstracts, users and models is escaped so that it shows as written wherever the
Markdown is rendered; LaTeX math (`$...$`) is left for the renderer."""

import re

from rag.bibtex import bibtex, bibtex_key, year_of  # noqa: F401 - bibtex_key: export.bibtex_key
from rag.links import safe_url
from rag.models import Answer, Paper
from rag.sentences import split_sentences
from rag.text import CANNOT_ANSWER

# Markdown and HTML syntax that must not act when the text is rendered.
ACTIVE = re.compile(r"([\\`*_\[\]<>&|~#!@])")
LINK_SYNTAX = set("[]()*~|!")  # Markdown that a link's characters could form
AUTOLINK = re.compile(r"(?<=\w)(:)(?=//)|(?<=\bwww)(\.)", re.IGNORECASE)  # GFM links bare URLs
LINE_START = re.compile(r"^(\s*\d*)([-+=>.)])", re.MULTILINE)  # lists, quotes, headings
# Math as the chat's renderer finds it (display first, then inline); kept as written for KaTeX.
MATH = re.compile(r"\$\$[\s\S]+?\$\$|\$[\s\S]+?\$")
# Math that is only a number ("$22.6$%", "$\textbf{27}$"): plain text, so it keeps the text's
# font and does not wrap apart from its "%".
NUMBER_MATH = re.compile(r"\$\s*(?:\\textbf\{)?(?P<number>[-+]?\d+(?:[.,]\d+)*)\}?\s*\$")
# **bold** and *italic* once escaped (`\*\*Bi\*\*nding`): emphasis an abstract writes.
BOLD = re.compile(r"\\\*\\\*(?=[^\s\\])((?:(?!\\\*).)+?)(?<=\S)\\\*\\\*")
ITALIC = re.compile(r"(?<!\*)\\\*(?=[^\s\\])((?:(?!\\\*).)+?)(?<=[^\s\\])\\\*")
# LaTeX text commands that mean a plain character or plain words outside math.
LATEX_TEXT = [
    (re.compile(r"\\([%&_#])"), r"\1"),
    (re.compile(r"\\(?:textbf|textit|emph|texttt|mathrm)\{([^{}]*)\}"), r"\1"),
]


def outside_math(text: str, change) -> str:
    """`change` applied to the text between math spans; the spans are kept as written, except
    a span that is only a number, which is text."""
    parts, between, last = [], "", 0
    for span in MATH.finditer(text):
        between += text[last : span.start()]
        last = span.end()
        if number := NUMBER_MATH.fullmatch(span.group()):
            between += number.group("number")
        else:
            parts += [change(between), span.group()]
            between = ""
    return "".join([*parts, change(between + text[last:])])


def plain_latex(text: str) -> str:
    """`10\\%` as `10%`, `\\emph{x}` as `x`: LaTeX text commands shown as what they mean."""
    for pattern, replacement in LATEX_TEXT:
        text = pattern.sub(replacement, text)
    return text


def escape(text: str, emphasis: bool = False) -> str:
    """Text that renders as itself in Markdown (no emphasis, links, images, HTML or lists),
    except its $math$, left for KaTeX; a lone `$` is an entity so it cannot open math. With
    `emphasis`, **bold** and *italic* show as such (what they enclose stays escaped): abstracts
    use them to spell out acronyms ("**Bi**nding")."""

    def plain(part: str) -> str:
        part = ACTIVE.sub(r"\\\1", plain_latex(part))
        part = AUTOLINK.sub(lambda found: "\\" + found.group(), LINE_START.sub(r"\1\\\2", part))
        if emphasis:
            part = ITALIC.sub(r"*\1*", BOLD.sub(r"**\1**", part))
        return part.replace("$", "&#36;")

    return outside_math(text, plain)


def authors_line(authors: list[str], truncated: bool = False, shown: int = 3) -> str:
    names = ", ".join(authors[:shown])
    return names + (" et al." if truncated or len(authors) > shown else "")


def cited_papers(answer: Answer) -> list[tuple[int, Paper]]:
    """(number, paper) for each citation, with the paper's full metadata."""
    papers = {s.paper.paper_id: s.paper for s in [*answer.sources, *answer.suggestions]}
    return [(c.number, papers[c.paper_id]) for c in answer.citations if c.paper_id in papers]


def reference(number: int, paper: Paper) -> str:
    """1. **Title** — authors · venue, year · url"""
    details = [
        escape(authors_line(paper.authors, paper.authors_truncated)),
        escape(", ".join(str(p) for p in (paper.venue, paper.year) if p)),
        linkable(paper.url),
    ]
    shown = " · ".join(d for d in details if d)
    return f"{number}. **{escape(paper.title)}**" + (f" — {shown}" if shown else "")


def linkable(url: str | None) -> str:
    """A safe link, written to show as itself: Markdown syntax in it percent-encoded, so
    `https://a.example/[Survey](http://evil.example)` cannot become a link named "Survey"."""
    url = safe_url(url) or ""
    return "".join(f"%{ord(c):02X}" if c in LINK_SYNTAX else c for c in url)


def markdown(answer: Answer) -> str:
    """The checked answer as Markdown: its sentences with [n] markers (unsupported ones marked),
    then the numbered references; a decline says so, with the closest papers it suggests."""
    if answer.abstained:
        body = declined(answer)
    else:
        lines = []
        for sentence in answer.sentences:
            markers = "".join(f"[{n}]" for n in sentence.citations)
            flag = " *(not supported by the cited abstract)*" if sentence.supported is False else ""
            text = escape(sentence.text, emphasis=True)
            lines.append(f"{text}{' ' if markers else ''}{markers}{flag}")
        body = (
            "\n".join(f"- {line}" for line in lines) if answer.layout == "list" else " ".join(lines)
        )
    notices = "".join(f"> ⚠ {escape(notice)}\n\n" for notice in answer.notices)
    references = "\n".join(reference(n, paper) for n, paper in cited_papers(answer))
    return notices + body + (f"\n\n**References**\n\n{references}" if references else "")


def declined(answer: Answer) -> str:
    """A decline's text, then its suggestions (the closest papers), each with one line of its
    closest passage. The standard decline loses its "listed as suggestions": they follow, or
    there are none."""
    text = CANNOT_ANSWER if answer.text.startswith(CANNOT_ANSWER) else answer.text
    if not answer.suggestions:
        return escape(text)
    lines = [
        f"- **{escape(s.paper.title)}** — {escape(one_line(s.passage), emphasis=True)}"
        for s in answer.suggestions
    ]
    return escape(text) + "\n\nThe closest papers:\n\n" + "\n".join(lines)


def one_line(passage: str, most: int = 160) -> str:
    """The passage's first sentence, cut to `most` characters."""
    first = (split_sentences(passage) or [""])[0]
    return first if len(first) <= most else first[: most - 1].rsplit(" ", 1)[0] + "…"


def conversation_markdown(answers: list[Answer | None]) -> str:
    """A whole conversation: each answered question as a heading, numbered as the chat numbers
    its answers (a stopped or failed turn has no number), then its answer."""
    parts = ["# Conversation\n"]
    shown = [answer for answer in answers if answer is not None]
    for number, answer in enumerate(shown, start=1):
        parts.append(f"## {number}. {escape(answer.question)}\n\n{markdown(answer)}\n")
    return "\n".join(parts)


def answer_bibtex(answers: list[Answer | None]) -> str:
    """BibTeX for every paper cited in these answers."""
    return bibtex([paper for a in answers if a is not None for _, paper in cited_papers(a)])
