"""What the page shows. Chat messages are Markdown (so the chat's copy buttons copy clean
text): every piece of text from an abstract, a user or a model is escaped by `export.escape`,
so it can neither run (HTML, JS) nor pose as something else (links, images, emphasis). The
sources panel is HTML with the same text HTML-escaped. In both, `$math$` is left for KaTeX,
which renders it and cannot run scripts."""

import html
import re

from rag.answer.verdict import Reason
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


# Emphasis an abstract writes in Markdown ("**Bi**nding"), once its text is literal HTML.
BOLD = re.compile(r"&#42;&#42;(?=\S)((?:(?!&#42;).)+?)(?<=\S)&#42;&#42;")
ITALIC = re.compile(r"&#42;(?=[^\s&])((?:(?!&#42;).)+?)(?<=\S)&#42;")


def inert(text: str, emphasis: bool = False) -> str:
    """Text as literal HTML (no tags, no entities, no Markdown); its $math$ is left for KaTeX,
    which the page escapes before rendering. With `emphasis`, **bold** and *italic* show as
    such (the text inside stays literal): abstracts use them to spell out acronyms."""

    def literal(part: str) -> str:
        escaped = html.escape(plain_latex(part), quote=True)
        escaped = "".join(MARKDOWN.get(c, c) for c in escaped)
        if emphasis:
            escaped = ITALIC.sub(r"<em>\1</em>", BOLD.sub(r"<strong>\1</strong>", escaped))
        return escaped

    return outside_math(text, literal)


def link(url: str | None) -> str:
    """An http(s) link that shows its own address (never a disguised one)."""
    if not url or not SAFE_URL.match(url):
        return ""
    url = html.escape(url, quote=True)
    return f'<a href="{url}" target="_blank" rel="noopener noreferrer">{url}</a>'


GENERATING = "*generating · citations are checked when the answer is complete*"
STOPPED = "*stopped · this partial draft was not checked*"
# What wrote an answer, in the reader's words, by backend name; and whether it is a model.
WRITERS = {
    "list": ("list of papers", False),
    "extractive": ("sentences from the abstracts", False),
    "abstract sentences": ("the papers' own sentences", False),  # summaries, comparisons
    "metadata": ("the paper's metadata", False),  # who wrote it, where it appeared
    "local": ("local model", True),
    "openai": ("hosted model", True),
    "ollama": ("Ollama model", True),
    "fake": ("test model", True),
}


def question_md(question: str) -> str:
    return escape(question)


def draft_md(text: str) -> str:
    """The answer while it streams: raw model text, shown literally, marked as unchecked."""
    return f"{escape(text)}\n\n{GENERATING}" if text.strip() else GENERATING


def stopped_md(draft: str) -> str:
    """The answer the user stopped: its partial draft (if any), marked as stopped."""
    return f"{escape(draft)}\n\n{STOPPED}" if draft.strip() else STOPPED


def badge(answer: Answer) -> str:
    """What wrote the answer, in the reader's words, and how long it took when a model ran:
    "local model · 3.1 s", "list of papers · no model"; ⚠ when it stood in for a failed one,
    and the model named when its draft was withheld as unsupported."""
    writer, is_model = WRITERS.get(answer.backend, (answer.backend, True))
    if answer.abstained and answer.ttft_s is None:  # declined before any text was written
        writer, is_model = "declined before any model ran", False
    ran = f"{answer.latency_s:.1f} s" if is_model else "no model"
    if answer.fallback_from:
        other = WRITERS.get(answer.fallback_from, (answer.fallback_from, True))[0]
        if Reason.BACKEND_FAILED not in answer.reasons:  # it ran; its draft had no support
            return f"{writer} · {ran} · the {other}'s draft withheld"
        return f"⚠ {writer} · {ran} · the {other} failed"
    return f"{writer} · {ran}"


def label_md(answer: Answer, number: int | None, shown: bool) -> str:
    """The line above an answer: its number, whether its sources are the ones shown, and what
    wrote it (a message of its own, so the chat's copy of the answer leaves it out)."""
    mark = " · *sources shown*" if shown else ""
    return f"###### Answer {number}{mark} · {escape(badge(answer))}"


def reply_md(turn) -> str:
    """An answered turn as the chat shows (and copies) it: the exported Markdown, and for a
    decline under filters, which filters were on."""
    text = markdown(turn.answer)
    if turn.declined_under_filters:
        text += "\n\n" + filters_note(turn.filters)
    return text


def summary_md(answer: Answer) -> str:
    """A cited summary as the Papers tab shows it: the exported Markdown, then what wrote it."""
    return f"{markdown(answer)}\n\n*{escape(badge(answer))}*"


def filters_note(filters: dict[str, str]) -> str:
    chosen = ", ".join(f"{name} “{escape(value)}”" for name, value in filters.items())
    return (
        f"> Asked with filters on ({chosen}): papers outside them were not searched. "
        "**Ask again without filters** (under the question box) searches every paper."
    )


def failure_md(text: str) -> str:
    return f"⚠ {escape(text)}"


def plain(content) -> str:
    """A chat message's text (Gradio may hand it back as a list of parts)."""
    if isinstance(content, str):
        return content
    parts = content if isinstance(content, list) else [content]
    return "".join(p.get("text") or "" if isinstance(p, dict) else str(p or "") for p in parts)


def unescape(markdown_text: str) -> str:
    """Text escaped by `escape` as it was written (near enough for a saved question)."""
    return re.sub(r"\\(.)", r"\1", markdown_text).replace("&#36;", "$")


def paper_card(number: int | None, source: Source, evidence: str | None = None) -> str:
    """One paper: number, title, authors, venue, area, link, abstract with evidence marked."""
    paper = source.paper
    highlighted, found = [], False
    wanted = normalize_text(evidence) if evidence else None
    for sentence in split_sentences(paper.abstract):
        if wanted and normalize_text(sentence) == wanted:
            highlighted.append(f"<mark>{inert(sentence, emphasis=True)}</mark>")
            found = True
        else:
            highlighted.append(inert(sentence, emphasis=True))
    authors = ", ".join(paper.authors) + (" et al." if paper.authors_truncated else "")
    area = " · ".join(part for part in (paper.area, paper.subarea) if part)
    details = [
        f'<div class="rag-authors">{inert(authors)}</div>' if authors else "",
        f'<div class="rag-venue">{inert(" · ".join(p for p in (paper.venue, area) if p))}</div>',
        f'<div class="rag-link">{address}</div>' if (address := link(paper.url)) else "",
        f'<p class="rag-evidence">Supported by: <mark>{inert(evidence, emphasis=True)}</mark></p>'
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


# Declines about a paper the question is clearly about: its abstract does not state what is
# asked (or denies what the question takes for granted); the corpus is not what lacks it.
ABOUT_THE_PAPER = {"not_stated", "false_premise"}


def cards_html(answer: Answer) -> str:
    if answer.abstained:
        cards = "".join(paper_card(None, s) for s in answer.suggestions)
        if cards and answer.reason in ABOUT_THE_PAPER:
            note = "The paper's abstract does not state what the question asks (see the answer):"
        elif cards:
            note = "The corpus does not answer this question. The closest papers:"
        else:
            note = "The corpus does not answer this question, and no paper is close to it."
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
/* math in the text's own size and font weight */
#chat .katex, #sources .katex, .rag-summary .katex { font-size: 1em; }
/* an answer's label: its number, whether its sources are shown, what wrote it */
#chat h6 { font-size: 0.8em; font-weight: 400; margin: 0; opacity: 0.75; }
#chat h6 em { font-style: normal; font-weight: 600; opacity: 1; color: var(--color-accent); }
#chat .message-row:has(h6) + .message-buttons { display: none; }
#chat .message-row:has(h6) .message { background: none; border: none; box-shadow: none;
  padding-top: 0; padding-bottom: 0; }
/* reference titles and "References" no bigger than the answer */
#chat strong, #sources strong, .rag-summary strong { font-weight: 600; font-size: inherit; }
#chat .message ol { font-size: 0.9em; }
/* the active filters, as chips */
.rag-chips { gap: 0.4em; flex-wrap: wrap; }
.rag-chips button { flex: 0 0 auto !important; min-width: 0 !important; width: auto !important;
  border-radius: 999px; }
/* the papers table wraps by word, never inside one; on a phone it is wide enough for its words
   and scrolls sideways */
#papers [role=gridcell], #papers [role=gridcell] *, #papers [role=columnheader],
#papers [role=columnheader] *, #papers td, #papers th { word-break: normal !important;
  overflow-wrap: normal !important; hyphens: manual; }
@media (max-width: 700px) {
  #papers .table-container { overflow-x: auto; }
  #papers .table-wrap { min-width: 640px; }
}
"""

# The chat's messages name themselves to screen readers by their text as shown, not by their
# Markdown source ("**References**"): Gradio labels each with its raw content.
PAGE_JS = """() => {
  const relabel = () => {
    for (const message of document.querySelectorAll("#chat [data-testid][aria-label]")) {
      const label = message.getAttribute("aria-label");
      const role = label.split(": ")[0];
      const text = role + ": " + message.innerText.trim();
      if (label !== text) message.setAttribute("aria-label", text);
    }
  };
  new MutationObserver(relabel).observe(document.body, {
    subtree: true, childList: true, characterData: true, attributes: true,
    attributeFilter: ["aria-label"],
  });
}"""
