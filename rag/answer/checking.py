"""Checking a draft before it is shown: one loop over the checks in `CHECKS` (one file each in
rag/answer/checks), each returning verdicts. A `reject` drops the sentences citing its papers; a
`decline`, or rejects that leave no supported sentence, end in a decline with its reason code;
what survives is renumbered and shown with its evidence."""

from rag.answer import citations as cite
from rag.answer.checks import Check, Review, Tools
from rag.answer.checks.declined import Declined
from rag.answer.checks.figure import Figure
from rag.answer.checks.identified import ExpandNames
from rag.answer.checks.judge import Judge
from rag.answer.checks.key_word import KeyWord
from rag.answer.checks.leader import OverlookedLeader
from rag.answer.checks.led import LedPapers
from rag.answer.checks.named import CitedNames
from rag.answer.checks.names import StatedNames
from rag.answer.checks.support import Support
from rag.answer.checks.uncited import Uncited
from rag.answer.checks.withheld import Withheld
from rag.answer.draft import Draft, abstention
from rag.answer.prompts import without_prompt_format
from rag.answer.support import attach_evidence
from rag.answer.verdict import Reason, Verdict
from rag.models import Answer, Source

# In order: repairs of citations, then support, then what a small model's drafts need.
CHECKS: tuple[Check, ...] = (
    CitedNames(),
    Declined(),
    ExpandNames(),
    Support(),
    OverlookedLeader(),
    StatedNames(),
    Uncited(),
    Withheld(),
    LedPapers(),
    KeyWord(),
    Judge(),
    Figure(),
)


class Checker:
    """Checks drafts against the retrieved papers with `checks` (by default CHECKS)."""

    def __init__(self, tools: Tools, checks: tuple[Check, ...] = CHECKS):
        self.tools, self.checks = tools, checks

    def check(self, raw: str, sources: list[Source], draft: Draft) -> Answer:
        """Raw model text as a checked Answer: valid, renumbered, support-scored citations."""
        titles = [source.paper.title for source in sources]
        raw = without_prompt_format(raw) if draft.writer_is_model else raw
        sentences, dropped = cite.parse_answer(raw, len(sources), titles)
        draft = draft.model_copy(deep=True)
        review = Review(draft.intent, draft, sources, sentences, raw, self.tools)
        for check in self.checks:
            verdicts = check.run(review)
            for verdict in verdicts:
                draft.record(verdict)
            if ending := self._ending(review, verdicts):
                return self._declined(review, ending, dropped)
        if not review.sentences:  # the repairs left nothing to show: no empty answer
            emptied = Verdict(check="checks", outcome="decline", reason=Reason.NO_SUPPORT)
            return self._declined(review, [emptied], dropped)
        citations = cite.renumber(review.sentences, sources)
        attach_evidence(citations, review.evidence)
        return draft.answer(
            text=cite.render(review.sentences, "\n" if draft.layout == "list" else " "),
            citations=citations,
            sentences=review.sentences,
            sources=sources,
            dropped_citations=dropped,
        )

    def _ending(self, review: Review, verdicts: list[Verdict]) -> list[Verdict]:
        """The verdicts that end the review in a decline: a decline, or rejects that leave no
        supported sentence (their sentences dropped first)."""
        if declines := [v for v in verdicts if v.outcome == "decline"]:
            return declines[:1]
        rejects = [v for v in verdicts if v.outcome == "reject"]
        rejected = {n for v in rejects for n in v.papers}
        if not rejected:
            return []
        review.sentences = [s for s in review.sentences if not rejected & set(s.citations)]
        return [] if review.supported() else rejects

    def _declined(self, review: Review, ending: list[Verdict], dropped: int) -> Answer:
        why = " ".join(dict.fromkeys(filter(None, (v.notice() for v in ending))))
        return abstention(
            review.draft,
            review.sources,
            ending[0].reason,
            why=why,
            dropped=dropped,
            suggestions=self.tools.tuning.suggestions,
        )
