"""What answer text is made of, agreed by the backends that write it (rag.llm) and the checks
that read it (rag.answer): the cannot-answer phrase and the [n] citation markers. It imports
neither package, so both can import it."""

import re

CANNOT_ANSWER = "The provided papers do not answer this question."

# [1] [1, 2] [1;2] [1-3] [1][2] [Source 1] [source 1 and 2] 【1】
MARKER = re.compile(
    r"[\[【]\s*(?:(?:sources?|refs?|papers?|references?)\s*)?"
    r"(\d+(?:\s*(?:,|;|and|&|–|-)\s*(?:(?:sources?|refs?)\s*)?\d+)*)\s*[\]】]",
    re.IGNORECASE,
)


def defang(text: str) -> str:
    """Source text with citation-like markers turned into parentheses, so a marker written
    inside an abstract ("cite [7]", a fake reference list) can never become a citation."""
    return MARKER.sub(lambda match: f"({match.group(1)})", text)
