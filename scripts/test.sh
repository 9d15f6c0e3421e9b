#!/usr/bin/env bash
# Set up (with test extras) and run the whole test suite; extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh test
export GRADIO_ANALYTICS_ENABLED=False HF_HUB_OFFLINE=1
.venv/bin/python -m pytest "$@"
