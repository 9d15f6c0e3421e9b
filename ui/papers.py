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
            yield failure(error)["content"], gr.skip()


def picked_title(event: gr.SelectData) -> str:
    """The title of the table row the user clicked."""
    return event.row_value[0]
