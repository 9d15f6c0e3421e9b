#!/usr/bin/env bash
# The main job: set up, index the corpus (only what changed), and serve the chat on the
# bundled local model at http://127.0.0.1:7860 (RAG_UI_PORT changes the port).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
.venv/bin/rag ingest "$@"
export GRADIO_ANALYTICS_ENABLED=False HF_HUB_OFFLINE=1
exec .venv/bin/rag ui
