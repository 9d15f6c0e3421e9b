"""The layers the folder names promise (corpus → index → retrieve → answer → ui | eval, with
the answer backends in rag.llm), checked on the source with `ast`: nothing is imported, and
imports inside functions count, so a lazy import cannot hide a dependency."""

import ast
import itertools
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {
    module_name(path): path for top in ("rag", "ui") for path in sorted((ROOT / top).rglob("*.py"))
}


def imported(node: ast.Import | ast.ImportFrom, package: str) -> list[str]:
    """The modules an import statement names: `from a import b` names a.b when that is one
    of our modules, else a. The packages Python loads on the way (a for a.b) do not count."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    if node.level:  # from ..x import y
        parent = package.split(".")[: len(package.split(".")) - node.level + 1]
        base = ".".join(parent + ([base] if base else []))
    return [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names]


def imports(module: str) -> dict[str, int]:
    """Our modules this one imports, at any depth, each with the line of its first import."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: dict[str, int] = {}
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import | ast.ImportFrom):
            for target in imported(node, package):
                if target in MODULES and target != module:
                    found.setdefault(target, node.lineno)
    return found


GRAPH = {module: imports(module) for module in MODULES}


def where(module: str, target: str) -> str:
    line = GRAPH[module].get(target, "?")
    return f"{MODULES[module].relative_to(ROOT)}:{line}"


def within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def violations(importer: str, *forbidden: str) -> list[str]:
    """Every import from a module in `importer` of a module in one of `forbidden`."""
    return [
        f"{where(module, target)} imports {target}"
        for module, targets in GRAPH.items()
        if within(module, importer)
        for target in targets
        if any(within(target, package) for package in forbidden)
    ]


def cycles() -> list[str]:
    """One path per import cycle a depth-first walk meets, each step with its file:line."""
    found, state, stack = [], {}, []

    def visit(module: str) -> None:
        state[module] = "open"
        stack.append(module)
        for target in sorted(GRAPH[module]):
            if state.get(target) == "open":
                path = stack[stack.index(target) :] + [target]
                steps = [f"{a} ({where(a, b)})" for a, b in itertools.pairwise(path)]
                found.append(" -> ".join([*steps, target]))
            elif target not in state:
                visit(target)
        state[module] = "done"
        stack.pop()

    for module in sorted(GRAPH):
        if module not in state:
            visit(module)
    return found


def test_the_graph_sees_lazy_and_from_package_imports():
    assert "rag.llm.extractive" in GRAPH["rag.answer.writing"]  # inside Writer._extractive
    assert "rag.answer.citations" in GRAPH["rag.answer.checking"]  # from rag.answer import ...


def test_backends_do_not_import_the_answer_layer():
    assert violations("rag.llm", "rag.answer") == []


def test_the_index_does_not_import_retrieval_or_answers():
    assert violations("rag.index", "rag.retrieve", "rag.answer") == []


def test_the_library_does_not_import_the_ui():
    assert violations("rag", "ui") == []


def test_rag_ui_is_added_by_the_ui_package_through_its_entry_point():
    """pyproject.toml's `rag.commands` entry points give `rag` its `ui` command (failing here
    after a pyproject.toml change means: re-run scripts/setup.sh to reinstall the metadata)."""
    from typer.testing import CliRunner

    from rag.cli import app

    result = CliRunner().invoke(app, ["ui", "--help"])
    assert result.exit_code == 0, result.output
    assert "Open the chat UI" in result.output and "--port" in result.output


def test_no_import_cycles():
    assert cycles() == []


def test_defang_disarms_every_marker_the_citation_parser_reads():
    """Backends defang source text, and the answer checks parse citations, with rag.text's
    one marker pattern: no marker form in an abstract survives defanging."""
    from rag.answer.citations import MARKER
    from rag.text import defang

    text = "See [1], [1, 2], [1;2], [1-3], [1][2], [Source 1], [source 1 and 2] and 【1】."
    assert len(MARKER.findall(text)) == 9 and MARKER.findall(defang(text)) == []
