"""HTML for the chat and the sources panel. Every piece of text that comes from an abstract,
a user or a model goes through `inert`, so it can neither run (HTML, JS) nor pose as
something else (markdown links and images): it is shown exactly as written."""

import html
import re

from rag.models import Answer, Source, normalize_text
from rag.sentences import split_sentences

# Characters that mean something to Markdown (or LaTeX) in the chat, as HTML entities.
MARKDOWN = {c: f"&#{ord(c)};" for c in "[]()!*_`#|~$\\<>{}+-=.:"}
SAFE_URL = re.compile(r"^https?://[^\s\"'<>]+$")


def inert(text: str) -> str:
    """Text as literal HTML: no tags, no entities, no Markdown syntax survives."""
    escaped = html.escape(text, quote=True).replace("&amp;", "\0")
    return "".join(MARKDOWN.get(c, c) for c in escaped).replace("\0", "&amp;")


def link(url: str | None) -> str:
    """An http(s) link that shows its own address (never a disguised one)."""
    if not url or not SAFE_URL.match(url):
        return ""
    url = html.escape(url, quote=True)
    return f'<a href="{url}" target="_blank" rel="noopener noreferrer">{url}</a>'


GENERATING = (
    '<div class="rag-meta">generating · citations are checked when the answer is complete</div>'
)
STOPPED = '<div class="rag-meta rag-stopped">stopped · this partial draft was not checked</div>'


def draft_html(text: str) -> str:
    """The answer while it streams: raw model text, shown literally, marked as unchecked."""
    return f'<div class="rag-draft">{inert(text)}</div>{GENERATING}'


def stopped_html(shown: str | None) -> str:
    """The answer the user stopped: its partial draft (if any), marked as stopped."""
    if shown and GENERATING in shown:
        return shown.replace(GENERATING, STOPPED)
    return f'<div class="rag-draft"></div>{STOPPED}'


def answer_html(answer: Answer) -> str:
    """The checked answer: [n] markers, flagged sentences, references by real title, meta line."""
    if answer.abstained:
        body = f'<p class="rag-abstained">{inert(answer.text)}</p>'
    else:
        parts = []
        for sentence in answer.sentences:
            markers = "".join(f'<sup class="rag-cite">[{n}]</sup>' for n in sentence.citations)
            text = inert(sentence.text) + markers
            if sentence.supported is False:
                text = (
                    '<span class="rag-unsupported" title="Not supported by the cited abstract">'
                    f"{text} <small>(not supported by the cited abstract)</small></span>"
                )
            parts.append(text)
        if answer.layout == "list":
            body = "<ul>" + "".join(f"<li>{part}</li>" for part in parts) + "</ul>"
        else:
            body = f"<p>{' '.join(parts)}</p>"
    if answer.citations:
        items = "".join(
            f'<li value="{c.number}"><b>{inert(c.title)}</b>'
            + (f" — {inert(', '.join(c.authors[:3]))}" if c.authors else "")
            + (" et al." if len(c.authors) > 3 else "")
            + (f" · {inert(c.venue)}" if c.venue else "")
            + "</li>"
            for c in answer.citations
        )
        body += f'<ol class="rag-refs">{items}</ol>'
    notices = "".join(f'<p class="rag-notice">⚠ {inert(n)}</p>' for n in answer.notices)
    timing = f"{answer.latency_s:.1f} s" + (
        f" (first token {answer.ttft_s:.1f} s)" if answer.ttft_s is not None else ""
    )
    meta = f'<div class="rag-meta">{inert(answer.backend)} · {timing}</div>'
    return notices + body + meta


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


def sources_html(answer: Answer | None) -> str:
    """The sources panel for one answer: its cited papers, or the closest ones if it abstained."""
    if answer is None:
        return '<p class="rag-empty">Ask a question; the papers behind the answer appear here.</p>'
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
.rag-cite { color: var(--color-accent); font-weight: 600; }
.rag-unsupported { background: rgba(255, 170, 0, 0.18); border-bottom: 1px dashed #c80; }
.rag-refs { font-size: 0.9em; margin-top: 0.5em; }
.rag-meta { font-size: 0.75em; opacity: 0.6; margin-top: 0.4em; }
.rag-notice { font-size: 0.85em; color: #b45309; }
.rag-draft { white-space: pre-wrap; }
.rag-card { border: 1px solid var(--border-color-primary); border-radius: 8px;
  padding: 0.6em 0.8em; margin-bottom: 0.6em; }
.rag-title { font-weight: 600; }
.rag-authors, .rag-venue, .rag-link { font-size: 0.85em; opacity: 0.8; }
.rag-abstract { font-size: 0.85em; margin-top: 0.4em; }
.rag-abstract mark, .rag-evidence mark { background: rgba(255, 230, 0, 0.45); }
"""
