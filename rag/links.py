"""Which links a paper may carry: http, https and doi only (a doi: link becomes its doi.org
address). Anything else (javascript:, data:, file:, a link with spaces or quotes that could
break out of where it is written) is no link at all."""

import re
from typing import Annotated

from pydantic import AfterValidator

UNSAFE = r"\s\x00-\x1f\x7f\"'<>{}\\`"  # characters that end a link wherever it is written
WEB = re.compile(rf"https?://[^{UNSAFE}]+", re.IGNORECASE)
DOI = re.compile(rf"doi:\s*(10\.[^{UNSAFE}]+)", re.IGNORECASE)


def safe_url(url: str | None) -> str | None:
    """The link if it is an http(s) or doi link (a doi as https://doi.org/...), else None."""
    url = (url or "").strip()
    if WEB.fullmatch(url):
        return url
    if doi := DOI.fullmatch(url):
        return f"https://doi.org/{doi.group(1)}"
    return None


def dropped_link(raw) -> str | None:
    """What to tell the user when a record's link is not kept (None: it is kept, or empty)."""
    raw = str(raw or "").strip()
    if not raw or safe_url(raw):
        return None
    shown = raw if len(raw) <= 60 else raw[:59] + "…"
    return f"link {shown!r} dropped: only http, https and doi links are kept"


# A model field holding a link: anything but an http(s) or doi link is dropped.
SafeUrl = Annotated[str | None, AfterValidator(safe_url)]
