"""What the page shows. Chat messages are Markdown (so the chat's copy buttons copy clean
text): every piece of text from an abstract, a user or a model is escaped by `export.escape`,
so it can neither run (HTML, JS) nor pose as something else (links, images, emphasis). The
sources panel is HTML with the same text HTML-escaped. In both, `$math$` is left for KaTeX,
which renders it and cannot run scripts."""

import html
import re

from rag.export import escape, markdown, outside_math, plain_latex
from rag.models import Answer, Source, normalize_text
from rag.sentences import split_sentences

SAFE_URL = re.compile(r"^https?://[^\s\"'<>]+$")
# What the chat renders as math (the sources panel too): KaTeX, without `trust`, so no links.
LATEX = [
    {"left": "$$", "right": "$$", "display": True},
    {"left": "$", "right": "$", "display": False},
]


# Markdown syntax as entities too, in case a renderer reads the HTML as Markdown.
MARKDOWN = {c: f"&#{ord(c)};" for c in "[]()!*_`~|"}


def inert(text: str) -> str:
    """Text as literal HTML (no tags, no entities, no Markdown); its $math$ is left for KaTeX,
    which the page escapes before rendering."""

    def literal(part: str) -> str:
        escaped = html.escape(plain_latex(part), quote=True)
        return "".join(MARKDOWN.get(c, c) for c in escaped)

    return outside_math(text, literal)


def link(url: str | None) -> str:
    """An http(s) link that shows its own address (never a disguised one)."""
    if not url or not SAFE_URL.match(url):
        return ""
    url = html.escape(url, quote=True)
    return f'<a href="{url}" target="_blank" rel="noopener noreferrer">{url}</a>'


GENERATING = "*generating · citations are checked when the answer is complete*"
STOPPED = "*stopped · this partial draft was not checked*"


def question_md(question: str) -> str:
    return escape(question)


def draft_md(text: str) -> str:
    """The answer while it streams: raw model text, shown literally, marked as unchecked."""
    return f"{escape(text)}\n\n{GENERATING}"


def stopped_md(shown: str | None) -> str:
    """The answer the user stopped: its partial draft (if any), marked as stopped."""
    if shown and GENERATING in shown:
        return shown.replace(GENERATING, STOPPED)
    return STOPPED


def badge(answer: Answer) -> str:
    """Which backend answered, how fast, and whether it stood in for one that failed."""
    timing = f"{answer.latency_s:.1f} s" + (
        f" (first token {answer.ttft_s:.1f} s)" if answer.ttft_s is not None else ""
    )
    if answer.fallback_from:
        return f"*⚠ {answer.backend} · {answer.fallback_from} failed · {timing}*"
    return f"*{answer.backend} · {timing}*"


def answer_md(answer: Answer) -> str:
    """The checked answer as the chat shows (and copies) it: the exported Markdown + badge."""
    return f"{markdown(answer)}\n\n{badge(answer)}"


def failure_md(text: str) -> str:
    return f"⚠ {escape(text)}"


def paper_card(number: int | None, source: Source, evidence: str | None = None) -> str:
    """One paper: number, title, authors, venue, area, link, abstract with evidence marked."""
    paper = source.paper
    highlighted, found = [], False
    wanted = normalize_text(evidence) if evidence else None
    for sentence in split_sentences(paper.abstract):
        if wanted and normalize_text(sentence) == wanted:
            highlighted.append(f"<mark>{inert(sentence)}</mark>")
            found = True
        else:
            highlighted.append(inert(sentence))
    authors = ", ".join(paper.authors) + (" et al." if paper.authors_truncated else "")
    area = " · ".join(part for part in (paper.area, paper.subarea) if part)
    details = [
        f'<div class="rag-authors">{inert(authors)}</div>' if authors else "",
        f'<div class="rag-venue">{inert(" · ".join(p for p in (paper.venue, area) if p))}</div>',
        f'<div class="rag-link">{address}</div>' if (address := link(paper.url)) else "",
        f'<p class="rag-evidence">Supported by: <mark>{inert(evidence)}</mark></p>'
        if evidence and not found
        else "",
        f'<p class="rag-abstract">{" ".join(highlighted)}</p>',
    ]
    label = f"[{number}] " if number is not None else ""
    return (
        f'<div class="rag-card"><div class="rag-title">{label}{inert(paper.title)}</div>'
        + "".join(details)
        + "</div>"
    )


def sources_html(answer: Answer | None, number: int | None = None) -> str:
    """The sources panel for one answer (named by its number and question): its cited papers,
    or the closest ones if it abstained."""
    if answer is None:
        return '<p class="rag-empty">Ask a question; the papers behind the answer appear here.</p>'
    label = f"answer {number}" if number else "the answer"
    return f'<p class="rag-for">Sources of {label}: “{inert(answer.question)}”</p>' + cards_html(
        answer
    )


def cards_html(answer: Answer) -> str:
    if answer.abstained:
        cards = "".join(paper_card(None, s) for s in answer.suggestions)
        note = (
            "The corpus does not answer this question. The closest papers:"
            if cards
            else "The corpus does not answer this question."
        )
        return f'<p class="rag-note">{note}</p>{cards}'
    by_id = {s.paper.paper_id: s for s in answer.sources}
    cards = "".join(
        paper_card(c.number, by_id[c.paper_id], c.evidence)
        for c in answer.citations
        if c.paper_id in by_id
    )
    if not cards:
        return '<p class="rag-note">The answer cites no paper.</p>'
    return cards


CSS = """
.rag-for { font-size: 0.85em; opacity: 0.8; }
.rag-card { border: 1px solid var(--border-color-primary); border-radius: 8px;
  padding: 0.6em 0.8em; margin-bottom: 0.6em; }
.rag-title { font-weight: 600; }
.rag-authors, .rag-venue, .rag-link { font-size: 0.85em; opacity: 0.8; }
.rag-abstract { font-size: 0.85em; margin-top: 0.4em; }
.rag-abstract mark, .rag-evidence mark { background: rgba(255, 230, 0, 0.45); }
"""
