"""In a real headless Chromium: a comparison and a summary asked in the chat render as the
papers' own sentences, each with its citation, and their references (the paper's real titles)."""

import pytest

from tests.test_browser import ask, fake_app  # noqa: F401 - the fixture is used by name

pytestmark = pytest.mark.slow

FIRE = "FIRE: Frobenius-Isometry Reinitialization for Balancing the Stability-Plasticity Tradeoff"
ANACP = "AnaCP: Toward Upper-Bound Continual Learning via Analytic Contrastive Projection"


def references(page) -> str:
    """The chat's last answer's references, as the reader sees them."""
    return page.inner_text("#chat").rsplit("References", 1)[-1]


def test_a_comparison_and_a_summary_render_with_their_references(fake_app, page):  # noqa: F811
    url, backend = fake_app
    page.goto(url)
    ask(page, "Compare AnaCP and FIRE", 1)
    chat = page.inner_text("#chat")
    assert "we propose AnaCP" in chat and "We propose FIRE" in chat
    assert "[1]" in chat and "[2]" in chat
    shown = references(page)
    assert ANACP in shown and FIRE in shown
    ask(page, "tl;dr of the FIRE paper", 2)
    last = page.inner_text("#chat").rsplit("Compare AnaCP and FIRE", 1)[-1]
    assert "— problem:" in last and "Contribution: We propose FIRE" in last and "Result:" in last
    assert FIRE in references(page) and ANACP not in references(page)
    assert not backend.prompts, "no model wrote them: the abstracts' own sentences"
