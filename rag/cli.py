"""The `rag` command line. Heavy libraries are imported inside commands so --help is instant."""

import json
import sys
from pathlib import Path

import typer

from rag.config import get_settings
from rag.errors import RagError

app = typer.Typer(
    help="Ask questions about research-paper abstracts and get answers cited by paper title.",
    no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False,
)


@app.command("ingest")
def ingest_command(
    paths: list[Path] = typer.Argument(
        None, help="Corpus files or folders (.txt seed layout, .jsonl, .csv). Default: the seeds."
    ),
    titles: Path = typer.Option(None, "--titles", help="Titles sidecar JSONL to merge."),
    prune: bool = typer.Option(False, "--prune", help="Remove indexed papers not in the corpus."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object of counts."),
):
    """Index the corpus into Chroma (an upsert: re-running changes only what changed)."""
    from rag.index import run_ingest

    report = run_ingest(get_settings(), paths or None, titles, prune, show_progress=not as_json)
    for problem in report.problems:
        typer.secho(f"rejected: {problem}", err=True, fg="yellow")
    if as_json:
        typer.echo(json.dumps(report.model_dump()))
    else:
        typer.echo(
            f"{report.papers} papers: {report.added} added, {report.updated} updated, "
            f"{report.unchanged} unchanged, {report.removed} removed, {report.errors} errors"
        )
    if report.errors:
        raise typer.Exit(1)


@app.command("papers")
def papers_command(as_json: bool = typer.Option(False, "--json", help="Print a JSON list.")):
    """List the indexed papers."""
    from rag.index import open_store

    papers = open_store(get_settings()).papers()
    if as_json:
        rows = [paper.model_dump(exclude={"abstract"}) for paper in papers]
        typer.echo(json.dumps(rows, ensure_ascii=False, indent=1))
        return
    for paper in papers:
        authors = ", ".join(paper.authors[:3]) + (" et al." if len(paper.authors) > 3 else "")
        venue = f" ({paper.venue})" if paper.venue else ""
        typer.echo(f"{paper.paper_id}  {paper.title}{venue}" + (f" — {authors}" if authors else ""))
    typer.echo(f"{len(papers)} papers indexed.", err=True)


@app.command("search")
def search_command(
    query: str = typer.Argument(..., help="What to look for."),
    k: int = typer.Option(None, "-k", help="Number of papers (default: RAG_TOP_K)."),
    author: str = typer.Option(None, "--author", help="Only papers with a matching author."),
    area: str = typer.Option(None, "--area", help="Only papers whose area or subarea matches."),
    venue: str = typer.Option(None, "--venue", help="Only papers from a matching venue."),
    mode: str = typer.Option(None, "--mode", help="hybrid (default), dense or bm25."),
    as_json: bool = typer.Option(False, "--json", help="Print a JSON list."),
):
    """Find the papers that best match a query (no LLM involved)."""
    from rag.retrieve import Filters, Retriever

    settings = get_settings()
    filters = Filters(author=author, area=area, venue=venue)
    sources = Retriever(settings).search(
        query, k or settings.top_k, mode or settings.retrieval_mode, filters)
    if as_json:
        typer.echo(json.dumps([s.summary() for s in sources], ensure_ascii=False, indent=1))
        return
    if not sources:
        typer.echo("No matching papers." + (" Try loosening the filters." if filters.active() else ""))
    for rank, source in enumerate(sources, start=1):
        authors = ", ".join(source.paper.authors[:3])
        typer.secho(f"{rank}. {source.paper.title}", bold=True)
        typer.echo(f"   {authors}{' · ' if authors else ''}{source.paper.venue or ''}"
                   f"   relevance {source.relevance:.2f}")
        typer.echo(f"   {source.passage[:240]}…")


@app.command("eval")
def eval_command(
    questions: Path = typer.Option(Path("eval/questions.jsonl"), "--questions",
                                   help="Questions file (JSONL: id, question, kind, gold_titles, answer_keywords)."),
    mode: str = typer.Option("hybrid,dense,bm25", "--mode", help="Retrieval modes, comma-separated."),
    retrieval_only: bool = typer.Option(True, "--retrieval-only", help="Only retrieval metrics."),
    out: Path = typer.Option(None, "--out", help="Folder for report.json."),
):
    """Measure retrieval (recall@1/5/10, MRR, nDCG@10) per mode and question kind."""
    from rag.evaluate import evaluate_retrieval, load_questions, retrieval_table, write_json
    from rag.retrieve import Retriever

    modes = [m.strip() for m in mode.split(",") if m.strip()]
    report = evaluate_retrieval(Retriever(get_settings()), load_questions(questions), modes)
    typer.echo(retrieval_table(report))
    for name, result in report.items():
        threshold = result["threshold"]
        typer.echo(f"{name}: abstaining below relevance {threshold['min_relevance']:.3f} keeps "
                   f"{threshold['answerable_kept']:.0%} of answerable and declines "
                   f"{threshold['unanswerable_declined']:.0%} of unanswerable questions here")
    if out:
        write_json({"retrieval": report}, out / "report.json")


def main() -> None:
    """Entry point: user-facing errors print their message, not a traceback."""
    try:
        app()
    except RagError as error:
        typer.secho(f"Error: {error}", err=True, fg="red")
        sys.exit(2)
