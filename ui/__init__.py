"""The Gradio chat UI (to come: see the open UI issue)."""
