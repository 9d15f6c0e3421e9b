"""pyproject.toml declares what the code imports and nothing it does not, and constraints.txt pins
every declared package at a version the declaration allows."""

import ast
import importlib.metadata
import importlib.util
import sys
import tomllib
from functools import cache

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.conftest import REPO

# Declared but imported by no `import` statement; each says why it is needed all the same.
NOT_IMPORTED = {
    "onnx": "imported by name through importlib in rag/index/onnx_embedder.py (the ONNX export)",
}


def requirements(group: str) -> dict[str, Requirement]:
    """The requirements in pyproject.toml's dependencies, or in one of its extras."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    texts = project["dependencies"] if group == "" else project["optional-dependencies"][group]
    return {canonicalize_name(req.name): req for req in map(Requirement, texts)}


def pins() -> dict[str, str]:
    """constraints.txt as {name: version}."""
    lines = (REPO / "constraints.txt").read_text().splitlines()
    pairs = (line.split("==") for line in lines if line.strip() and not line.startswith("#"))
    return {canonicalize_name(name): version for name, version in pairs}


def is_local(module: str) -> bool:
    top = module.split(".")[0]
    return any(
        (folder / top).is_dir() or (folder / f"{top}.py").is_file()
        for folder in (REPO, REPO / "tests")
    )


def third_party_imports(*folders: str) -> dict[str, str]:
    """{module: a file importing it} for every absolute import, function-level ones included,
    that is neither the standard library nor this repository."""
    found = {}
    for folder in folders:
        for path in sorted((REPO / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                if isinstance(node, ast.Import):
                    modules = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0:
                    modules = [node.module]
                else:
                    continue
                for module in modules:
                    top = module.split(".")[0]
                    if top not in sys.stdlib_module_names and not is_local(module):
                        found.setdefault(module, str(path.relative_to(REPO)))
    return found


@cache
def packages_distributions() -> dict[str, list[str]]:
    return importlib.metadata.packages_distributions()


@cache
def distributions_of(module: str) -> frozenset[str]:
    """The installed distributions providing `module`; for a namespace package shared by several
    (llama_index), the ones shipping the deepest part of its dotted path."""
    top = module.split(".")[0]
    candidates = packages_distributions().get(top, [])
    parts = module.split(".")
    while len(candidates) > 1 and parts:
        path = "/".join(parts)
        owners = [
            name
            for name in candidates
            if any(
                str(file).startswith(f"{path}/") or str(file) == f"{path}.py"
                for file in importlib.metadata.distribution(name).files or []
            )
        ]
        if owners:
            candidates = owners
            break
        parts.pop()
    return frozenset(canonicalize_name(name) for name in candidates)


def undeclared(imports: dict[str, str], declared: set[str]) -> list[str]:
    problems = []
    for module, path in imports.items():
        owners = distributions_of(module)
        if not owners:
            problems.append(f"{path} imports {module}, which no installed distribution provides")
        elif not owners & declared:
            problems.append(f"{path} imports {module} from {'/'.join(sorted(owners))}")
    return problems


def used(imports: dict[str, str]) -> set[str]:
    return set().union(*map(distributions_of, imports))


def test_what_the_package_imports_is_a_declared_dependency():
    problems = undeclared(third_party_imports("rag", "ui"), set(requirements("")))
    assert not problems, "Declare in [project].dependencies:\n" + "\n".join(problems)


def test_what_the_tests_import_is_declared_with_the_test_extra():
    declared = set(requirements("")) | set(requirements("test"))
    problems = undeclared(third_party_imports("tests"), declared)
    assert not problems, "Declare in the test extra:\n" + "\n".join(problems)


def test_every_declared_dependency_is_imported_or_says_why_not():
    imported = used(third_party_imports("rag", "ui"))
    unused = set(requirements("")) - imported - set(NOT_IMPORTED)
    assert not unused, f"Declared but never imported by rag/ or ui/: {sorted(unused)}"
    stale = (set(NOT_IMPORTED) & imported) | (set(NOT_IMPORTED) - set(requirements("")))
    assert not stale, f"NOT_IMPORTED lists what is imported or not declared: {sorted(stale)}"
    unused_test = set(requirements("test")) - used(third_party_imports("tests"))
    assert not unused_test, f"Test extra that no test imports: {sorted(unused_test)}"


def test_every_declared_package_is_pinned_where_its_declaration_allows():
    locked, problems = pins(), []
    for name, req in {**requirements(""), **requirements("test")}.items():
        if name not in locked:
            problems.append(f"{req} is not pinned")
        elif not req.specifier.contains(locked[name], prereleases=True):
            problems.append(f"{req} is pinned at {locked[name]}")
    assert not problems, "Run scripts/lock.sh once the suite passes:\n" + "\n".join(problems)


def test_llama_cpp_is_declared_as_the_build_script_builds_it():
    spec = importlib.util.spec_from_file_location("build_llama", REPO / "scripts/build_llama.py")
    build_llama = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build_llama)
    built = Requirement(build_llama.REQUIREMENT)
    assert str(requirements("")[canonicalize_name(built.name)]) == str(built)
    assert pins()[canonicalize_name(built.name)] == build_llama.VERSION
