"""Cited question answering over research-paper abstracts."""
