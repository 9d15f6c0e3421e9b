"""The Gradio chat UI (`rag ui`). Gradio's analytics are switched off before it is imported."""

import os

os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"
