#!/usr/bin/env bash
# Set up, index the corpus (only what changed), and list the indexed papers.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
.venv/bin/rag ingest "$@"
.venv/bin/rag papers
