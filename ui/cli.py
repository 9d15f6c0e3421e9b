"""`rag ui`, the command the UI adds to the `rag` CLI: pyproject.toml declares it under the
`rag.commands` entry points, so the library never imports the UI. Gradio loads only when it runs."""

import typer

from rag.config import get_settings


def ui_command(
    host: str = typer.Option(None, "--host", help="Interface to bind (default RAG_UI_HOST)."),
    port: int = typer.Option(None, "--port", help="Port (default RAG_UI_PORT, 7860)."),
):
    """Open the chat UI in the browser at http://127.0.0.1:7860 (indexes the corpus first if
    nothing is indexed yet)."""
    from rag.index import ensure_index

    overrides = {"ui_host": host, "ui_port": port}
    settings = get_settings(**{name: value for name, value in overrides.items() if value})
    ensure_index(settings, say=lambda text: typer.echo(text, err=True))
    from ui.app import auth_for, launch

    auth_for(settings)  # refuse an open non-loopback bind before loading anything
    launch(settings)
