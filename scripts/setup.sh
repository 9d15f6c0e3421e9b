#!/usr/bin/env bash
# Idempotent setup into .venv: torch's local CPU wheel first (so nothing pulls a CUDA build),
# then the project. Re-running skips pip unless pyproject.toml or the extras changed.
set -euo pipefail
cd "$(dirname "$0")/.."
extras="${1:-}"
python="${PYTHON:-python3}"
[ -x .venv/bin/python ] || "$python" -m venv .venv
stamp=.venv/.rag-setup
wanted="$(sha256sum pyproject.toml | cut -c1-16) ${extras}"
if [ "$(cat "$stamp" 2>/dev/null)" != "$wanted" ]; then
  echo "Installing into .venv (first run takes a few minutes)..."
  .venv/bin/pip install --quiet --disable-pip-version-check torch==2.13.0
  .venv/bin/pip install --quiet --disable-pip-version-check -e ".${extras:+[$extras]}"
  echo "$wanted" > "$stamp"
fi
