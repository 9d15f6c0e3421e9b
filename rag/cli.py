"""The `rag` command line. Heavy libraries are imported inside commands so --help is instant."""

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from rag.config import get_settings
from rag.errors import RagError
from rag.llm import BACKEND_CHOICES

app = typer.Typer(
    help="Ask questions about research-paper abstracts and get answers cited by paper title.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

# Options several commands share, declared once.
Author = Annotated[str, typer.Option("--author", help="Only papers with a matching author.")]
Area = Annotated[str, typer.Option("--area", help="Only papers whose area or subarea matches.")]
Venue = Annotated[str, typer.Option("--venue", help="Only papers from a matching venue.")]
Backend = Annotated[str, typer.Option("--backend", help=f"{BACKEND_CHOICES}.")]
AnswerFormat = Annotated[
    str,
    typer.Option("--format", help="text (streamed), markdown, bibtex (the cited papers) or json."),
]
EveryPaper = Annotated[
    bool, typer.Option("--all", help="A 'which papers' list shows every match, not 30 at a time.")
]
AnswerJson = Annotated[bool, typer.Option("--json", help="Print one JSON object (--format json).")]


@app.command("ingest")
def ingest_command(
    paths: list[Path] = typer.Argument(
        None,
        help="Corpus files or folders (.txt seed layout, .jsonl, .csv, .bib, .ris). Default: the seeds.",
    ),
    titles: Path = typer.Option(None, "--titles", help="Titles sidecar JSONL to merge."),
    prune: bool = typer.Option(False, "--prune", help="Remove indexed papers not in the corpus."),
    as_json: bool = typer.Option(
        False,
        "--json",
        help="Print one JSON object of counts; progress goes to stderr as JSON lines.",
    ),
):
    """Index the corpus into Chroma (an upsert: re-running changes only what changed)."""
    from rag.index import run_ingest

    style = "json" if as_json else "auto"
    report = run_ingest(get_settings(), paths or None, titles, prune, progress_style=style)
    for problem in report.problems:
        typer.secho(f"rejected: {problem}", err=True, fg="yellow")
    for warning in report.warnings:
        typer.secho(f"note: {warning}", err=True)
    if as_json:
        typer.echo(json.dumps(report.model_dump()))
    else:
        typer.echo(
            f"{report.papers} papers: {report.added} added, {report.updated} updated, "
            f"{report.unchanged} unchanged, {report.removed} removed, {report.errors} errors "
            f"in {report.seconds:.1f} s"
            + (f" ({report.papers_per_s:.1f} papers/s indexed)" if report.papers_per_s else "")
        )
    if report.errors:
        raise typer.Exit(1)


@app.command("doctor")
def doctor_command(
    repair: bool = typer.Option(False, "--repair", help="Rebuild whatever is damaged."),
    as_json: bool = typer.Option(False, "--json", help="Print the findings as JSON."),
):
    """Check that the store, its vector index, the BM25 index and the catalog are readable and
    agree; with --repair, rebuild what is damaged (a damaged store from its corpus files)."""
    from rag.index.doctor import diagnose
    from rag.index.doctor import repair as rebuild

    settings = get_settings()
    findings = diagnose(settings)
    if repair and not all(f.ok for f in findings):
        rebuild(settings, findings, say=lambda text: typer.echo(text, err=True))
        findings = diagnose(settings)
    if as_json:
        typer.echo(json.dumps([f.model_dump() for f in findings]))
    else:
        for finding in findings:
            mark = "ok " if finding.ok else "BAD"
            typer.echo(f"{mark} {finding.part}: {finding.detail}")
    if not all(f.ok for f in findings):
        if not repair and any(f.kind == "damage" and not f.ok for f in findings):
            typer.echo("Run `rag doctor --repair` to rebuild what is damaged.", err=True)
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
    author: Author = None,
    area: Area = None,
    venue: Venue = None,
    mode: str = typer.Option(None, "--mode", help="hybrid (default), dense or bm25."),
    as_json: bool = typer.Option(False, "--json", help="Print a JSON list."),
):
    """Find the papers that best match a query (no LLM involved)."""
    from rag.retrieve import Filters, Retriever

    settings = get_settings()
    filters = Filters(author=author, area=area, venue=venue)
    sources = Retriever(settings).search(
        query, k or settings.top_k, mode or settings.retrieval_mode, filters
    )
    if as_json:
        typer.echo(json.dumps([s.summary() for s in sources], ensure_ascii=False, indent=1))
        return
    if not sources:
        typer.echo(
            "No matching papers." + (" Try loosening the filters." if filters.active() else "")
        )
    for rank, source in enumerate(sources, start=1):
        authors = ", ".join(source.paper.authors[:3])
        typer.secho(f"{rank}. {source.paper.title}", bold=True)
        typer.echo(
            f"   {authors}{' · ' if authors else ''}{source.paper.venue or ''}"
            f"   relevance {source.relevance:.2f}"
        )
        typer.echo(f"   {source.passage[:240]}…")


FORMATS = ("text", "markdown", "bibtex", "json")


def output_format(fmt: str, as_json: bool) -> str:
    if fmt not in FORMATS:
        raise typer.BadParameter(f"use one of {', '.join(FORMATS)}", param_hint="--format")
    return "json" if as_json else fmt


def print_answer(events, fmt: str = "text") -> None:
    """Stream the draft to the terminal, then the checked answer, references and flags; or
    print only the checked answer as Markdown, BibTeX (its cited papers) or JSON."""
    from rag import export
    from rag.models import Answer

    streamed = []
    for event in events:
        if isinstance(event, Answer):
            answer = event
        elif fmt == "text":
            streamed.append(event)
            typer.echo(event, nl=False)
    if fmt != "text":
        if fmt == "json":
            typer.echo(json.dumps(answer.summary(), ensure_ascii=False, indent=1))
        elif fmt == "markdown":
            typer.echo(export.markdown(answer))
        elif bibtex := export.answer_bibtex([answer]):
            typer.echo(bibtex.rstrip("\n"))
        else:
            typer.secho("The answer cites no paper, so there is no BibTeX.", fg="yellow", err=True)
        typer.secho(f"[{answer.backend} · {answer.latency_s:.1f} s]", dim=True, err=True)
        return
    typer.echo("")
    if " ".join("".join(streamed).split()) != " ".join(answer.text.split()):
        typer.secho("\nChecked answer:", bold=True)
        typer.echo(answer.text)
    if answer.citations:
        typer.secho("\nReferences:", bold=True)
        typer.echo(answer.references())
    if answer.suggestions:
        typer.secho("\nYou may want:", bold=True)
        for source in answer.suggestions:
            typer.echo(f"- {source.paper.title}")
    for sentence in answer.unsupported_sentences:
        typer.secho(f"⚠ not supported by its cited abstract: {sentence}", fg="yellow")
    for notice in answer.notices:
        typer.secho(f"⚠ {notice}", fg="yellow", err=True)
    typer.secho(f"[{answer.backend} · {answer.latency_s:.1f} s]", dim=True, err=True)


def answerer_for(backend: str | None, every_paper: bool = False):
    """The answerer, on `backend` if given; with `every_paper`, a list shows every paper that
    matches at once (up to list_max_depth), not list_shown at a time."""
    from rag.answer.pipeline import Answerer

    settings = get_settings(**({"llm_backend": backend} if backend else {}))
    if every_paper:
        shown = {"list_shown": settings.answer.list_max_depth}
        settings = settings.model_copy(update={"answer": settings.answer.model_copy(update=shown)})
    return Answerer(settings)


@app.command("ask")
def ask_command(
    question: str = typer.Argument(..., help="Your question about the papers."),
    backend: Backend = None,
    k: int = typer.Option(None, "-k", help="Papers retrieved (default: RAG_TOP_K)."),
    author: Author = None,
    area: Area = None,
    venue: Venue = None,
    fmt: AnswerFormat = "text",
    as_json: AnswerJson = False,
    every_paper: EveryPaper = False,
):
    """Answer a question with citations to the papers, checked before they are shown."""
    from rag.retrieve import Filters

    filters = Filters(author=author, area=area, venue=venue)
    fmt = output_format(fmt, as_json)
    answerer = answerer_for(backend, every_paper)
    print_answer(with_cli_hints(answerer.ask(question, k=k, filters=filters)), fmt)


def with_cli_hints(events):
    """The answer's events, its notices worded for `rag ask` (one question, no "show more")."""
    from rag.answer.pipeline import ASK_FOR_MORE
    from rag.models import Answer

    hint = "(rag ask --all lists them all; rag chat pages with 'show more')"
    for event in events:
        if isinstance(event, Answer):
            event.notices = [notice.replace(ASK_FOR_MORE, hint) for notice in event.notices]
        yield event


@app.command("summarize")
def summarize_command(
    target: str = typer.Argument(..., help="A paper title, or a topic."),
    backend: Backend = None,
    k: int = typer.Option(None, "-k", help="Papers for a topic overview."),
    fmt: AnswerFormat = "text",
    as_json: AnswerJson = False,
):
    """A cited summary of one paper (give its title) or an overview of a topic."""
    fmt = output_format(fmt, as_json)
    print_answer(answerer_for(backend).summarize(target, k=k), fmt)


@app.command("chat")
def chat_command(
    backend: Backend = None,
):
    """A conversation in the terminal; follow-ups may refer to earlier answers. Ctrl-C stops an
    answer; Ctrl-D (or Ctrl-C at the prompt) ends the chat."""
    from rag.models import Answer, Message

    answerer, history = answerer_for(backend), []
    while True:
        try:
            question = input("\nYou: ")
        except (EOFError, KeyboardInterrupt):
            typer.echo("")
            return
        if not question.strip():
            continue
        answer = None
        try:
            events = list_and_print(answerer.ask(question, history=history))
            answer = next(e for e in events if isinstance(e, Answer))
        except RagError as error:
            typer.secho(f"Error: {error}", fg="red")
            continue
        except KeyboardInterrupt:  # Ctrl-C stops this answer, not the chat
            typer.secho(" [stopped: this partial draft was not checked]", fg="yellow")
            continue
        history += [
            Message(role="user", content=question),
            Message(role="assistant", content=answer.transcript()),
        ]


def list_and_print(events):
    collected = []

    def tee():
        for event in events:
            collected.append(event)
            yield event

    print_answer(tee())
    return collected


# Installed packages add commands under this entry-point group (the UI adds `rag ui`, see
# pyproject.toml), so the library runs them without importing their packages by name.
COMMAND_ENTRY_POINTS = "rag.commands"


def add_installed_commands() -> None:
    """Register every command declared under COMMAND_ENTRY_POINTS, by its entry-point name."""
    from importlib.metadata import entry_points

    for entry in entry_points(group=COMMAND_ENTRY_POINTS):
        app.command(entry.name)(entry.load())


add_installed_commands()  # here, so `rag --help` lists `ui` between chat and eval


@app.command("eval")
def eval_command(
    questions: Path = typer.Option(
        Path("eval/questions.jsonl"),
        "--questions",
        help="Questions file (JSONL: id, question, kind, gold_titles, answer_keywords).",
    ),
    backend: str = typer.Option(None, "--backend", help="Backends to compare, comma-separated."),
    mode: str = typer.Option(None, "--mode", help="Retrieval modes, comma-separated."),
    k: int = typer.Option(None, "-k", help="Papers retrieved per question."),
    limit: int = typer.Option(None, "--limit", help="Only the first N questions."),
    retrieval_only: bool = typer.Option(False, "--retrieval-only", help="Only retrieval metrics."),
    out: Path = typer.Option(None, "--out", help="Folder for report.json and per-question rows."),
):
    """Measure retrieval and cited answers on a questions file, side by side per configuration."""
    from rag import evaluate
    from rag.report import write_reports

    settings = get_settings(**({"top_k": k} if k else {}))
    items = evaluate.load_questions(questions)[:limit]
    modes = split_names(
        mode or ("hybrid,dense,bm25" if retrieval_only else settings.retrieval_mode)
    )
    backends = split_names(backend or settings.llm_backend)
    report, rows = evaluate.run(settings, items, backends, modes, retrieval_only)
    typer.echo(evaluate.retrieval_table(report["retrieval"]))
    for name, result in report["retrieval"].items():
        threshold = result["threshold"]
        typer.echo(
            f"{name}: abstaining below relevance {threshold['min_relevance']:.3f} keeps "
            f"{threshold['answerable_kept']:.0%} of answerable and declines "
            f"{threshold['unanswerable_declined']:.0%} of unanswerable questions here"
        )
    if report["by_kind"]:
        typer.echo("\n" + evaluate.answer_table(report["by_kind"]))
        typer.echo("\nDeclines by reason:\n" + evaluate.reason_table(rows))
    if out:
        run = {
            "questions": str(questions),
            "n": len(items),
            "k": settings.top_k,
            "command": " ".join(["rag", *sys.argv[1:]]),
        }
        paths = write_reports(report, rows, out, run)
        typer.echo("Wrote " + ", ".join(str(p) for p in paths))


def split_names(names: str) -> list[str]:
    return [name.strip() for name in names.split(",") if name.strip()]


def main() -> None:
    """Entry point: user-facing errors print their message, not a traceback."""
    from rag.llm.runner import stop_on_signals

    stop_on_signals()
    try:
        app()
    except (RagError, OSError) as error:  # an OSError only when the file system refuses
        from rag.index.access import as_store_error

        typer.secho(f"Error: {as_store_error(error)}", err=True, fg="red")
        sys.exit(2)
