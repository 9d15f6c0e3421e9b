"""The Papers tab's handlers: the indexed papers as a table filtered by words, and a cited
summary of the paper picked (or typed)."""

from collections.abc import Iterator

import gradio as gr

from rag import export
from ui import render
from ui.answerers import AnswererPool
from ui.chat import as_markdown, failure


class PapersHandlers:
    """The Papers tab's handlers; papers and summaries come from `self.pool`."""

    def __init__(self, pool: AnswererPool):
        self.pool = pool

    def papers(self, query: str = "") -> list[list[str]]:
        """The corpus as table rows, filtered by words in the title, authors, area or venue."""
        self.pool.reload_if_reindexed()
        words = (query or "").casefold().split()
        rows = []
        for paper in sorted(self.pool.retriever.catalog.papers(), key=lambda p: p.title.casefold()):
            fields = [paper.title, ", ".join(paper.authors), paper.area or "", paper.venue or ""]
            if all(word in " ".join(fields).casefold() for word in words):
                rows.append(fields[:1] + [export.authors_line(paper.authors)] + fields[2:])
        return rows

    def titles(self, query: str = "") -> list[str]:
        """The titles of the papers the table shows for this filter."""
        return [row[0] for row in self.papers(query)]

    def paper_choices(self, query: str, picked: str | None):
        """The Paper box follows the table's filter: its choices are the papers shown, and a
        paper picked that the filter hides is no longer picked."""
        titles = self.titles(query)
        return gr.update(choices=titles, value=picked if picked in titles else None)

    def summarize(self, title: str, backend: str) -> Iterator[tuple[str, str]]:
        """Stream a cited summary of one paper (or a topic): yields (answer, sources html)."""
        if not (title or "").strip():
            gr.Warning("Pick a paper to summarize.")
            yield gr.skip(), gr.skip()
            return
        try:
            for shown, answer in as_markdown(self.pool.answerer(backend).summarize(title)):
                yield shown, render.sources_html(answer) if answer else gr.skip()
        except Exception as error:  # noqa: BLE001
            yield render.failure_md(failure(error)), gr.skip()


def picked_title(event: gr.SelectData) -> str:
    """The title of the table row the user clicked."""
    return event.row_value[0]


def summary_button(title: str | None) -> dict:
    """The summary button says what it will summarize, or that a paper is to be picked first."""
    title = " ".join((title or "").split())
    if not title:
        return {"value": "Cited summary: click a paper's row first", "interactive": False}
    shown = title if len(title) <= 48 else title[:47] + "…"
    return {"value": f"Cited summary of “{shown}”", "interactive": True}


def summary_update(title: str | None):
    return gr.update(**summary_button(title))
