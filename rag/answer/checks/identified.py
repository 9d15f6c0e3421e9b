"""A sentence that only identifies papers as the answer, claiming nothing a support check could
verify ("It is titled "X" [1].", "[1] Title: X", or, to "which paper ...?", a restatement of the
question or a pointer), becomes one line per paper it identifies: the title, then the paper's
abstract sentence closest to the question, as in a list answer."""

import re

from rag.answer.checks import Check, Review
from rag.answer.checks.leader import clear_leader
from rag.answer.lines import closest_sentences, list_line
from rag.answer.verdict import Reason
from rag.models import AnswerSentence
from rag.sentences import stems, title_pattern

# What a sentence that only names a paper says around its title: "It is titled X", "Title: X".
NAMING = {"yes", "titl", "call", "name", "entitl", "answer", "question", "relev", "sourc"}


def identified(sentence: AnswerSentence, review: Review) -> list[int]:
    """The numbers of the papers the sentence only identifies. A small model often points at a
    weaker paper than the one the question describes: when the most relevant source clearly
    leads the cited ones, it is that paper. Empty when the sentence makes a claim of its own,
    or when no paper clearly answers."""
    sources, intent, tuning = review.sources, review.intent, review.tools.tuning
    text, named = sentence.text, False
    for number in sentence.citations:
        title = title_pattern(sources[number - 1].paper.title)
        text, hits = re.subn(title, " ", text, flags=re.IGNORECASE)
        named |= bool(hits)
    claimed = stems(text) - NAMING
    if named and not claimed:
        return sentence.citations
    if not (sentence.citations and intent.asks_for_papers) or claimed - stems(intent.text):
        return []
    top = max(source.relevance for source in sources)
    if min(sources[n - 1].relevance for n in sentence.citations) >= max(
        tuning.paraphrase_relevance, top - tuning.relevance_margin
    ):
        return sentence.citations
    leader = clear_leader(sources, sentence.citations, tuning)
    return [leader] if leader else []


class ExpandNames(Check):
    name = "expand_names"

    def run(self, review: Review) -> list:
        identifying = [identified(sentence, review) for sentence in review.sentences]
        if not any(identifying):
            return []
        sources = review.sources
        closest = closest_sentences(sources, review.intent.text, review.tools.embedder)
        expanded = []
        for sentence, numbers in zip(review.sentences, identifying):
            expanded += [
                AnswerSentence(
                    text=f"{list_line(sources[n - 1], closest[n - 1][1])}.", citations=[n]
                )
                for n in numbers
            ] or [sentence]
        review.sentences = expanded
        return [self.verdict("repair", Reason.EXPANDED)]
