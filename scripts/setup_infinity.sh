#!/usr/bin/env bash
# Infinity, an OpenAI-compatible embeddings server, in .venv-infinity (its pins — numpy<2,
# transformers 4, sentence-transformers 3 — cannot share .venv). tests/test_embedding_server.py
# runs it serving the bundled model; scripts/setup.sh test calls this. Re-running skips the
# install while deploy/infinity-requirements.txt is unchanged.
set -euo pipefail
cd "$(dirname "$0")/.."
python="${PYTHON:-python3}"
stamp=.venv-infinity/.rag-setup
wanted="$(sha256sum deploy/infinity-requirements.txt | cut -c1-16)"
[ "$(cat "$stamp" 2>/dev/null)" = "$wanted" ] && exit 0
echo "Installing Infinity (an embeddings server, for the tests) into .venv-infinity..."
[ -x .venv-infinity/bin/python ] || "$python" -m venv .venv-infinity
# the pins are its own: not .venv's constraints.txt
env -u PIP_CONSTRAINT .venv-infinity/bin/pip install --quiet --disable-pip-version-check \
  -r deploy/infinity-requirements.txt 2>&1 | { grep -v "^WARNING: Location .* is ignored" || true; }
echo "$wanted" > "$stamp"
