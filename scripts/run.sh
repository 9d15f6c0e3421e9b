#!/usr/bin/env bash
# Set up, index the corpus (only what changed), list the papers, and answer a sample question
# with the bundled local model.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
.venv/bin/rag ingest "$@"
.venv/bin/rag papers
.venv/bin/rag ask "Which papers are about continual learning?"
