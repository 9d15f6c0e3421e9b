"""The checks a draft answer passes before it is shown, one small unit per file, each returning
`Verdict`s (rag.answer.verdict); `rag.answer.checking.CHECKS` runs them in order."""

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import ClassVar

from rag.answer.draft import Draft
from rag.answer.intent import Intent
from rag.answer.verdict import Reason, Verdict
from rag.models import AnswerSentence, Source
from rag.tuning import AnswerTuning


@dataclass
class Tools:
    """What checks use beyond the draft: the embedder (abstract sentences embedded at ingest),
    the metadata index (names of methods and authors), the thresholds, and the model that
    judges (built on first use)."""

    embedder: object
    metadata: object
    tuning: AnswerTuning
    judge: Callable[[], object]
    lexicon: Callable[[], object] = lambda: None  # the index's Lexicon: a typo's corpus word


@dataclass
class Review:
    """A draft under review: what every check reads, and the sentences it may change (their
    citations are prompt numbers, 1-based, into `sources`)."""

    intent: Intent
    draft: Draft
    sources: list[Source]
    sentences: list[AnswerSentence]
    raw: str
    tools: Tools
    evidence: dict[str, str] = field(default_factory=dict)  # paper id -> its best sentence
    overlooked: bool = False  # the paper the question describes replaced the draft

    @property
    def prose(self) -> bool:
        """An answer to a question (not a list, not a summary)."""
        return self.draft.layout == "prose" and not self.intent.summary

    @property
    def many_listed(self) -> bool:
        """A list of several papers: each line is its own paper's sentence, chosen by relevance."""
        return self.draft.layout == "list" and len(self.sources) > 1

    def supported(self) -> bool:
        return any(sentence.supported for sentence in self.sentences)

    def cited(self) -> list[int]:
        """The numbers of the papers that supported sentences cite, in order."""
        return sorted({n for s in self.sentences if s.supported for n in s.citations})

    def titles(self, numbers) -> str:
        """The numbered sources' titles, quoted: "'A', 'B'"."""
        return ", ".join(f"'{self.sources[n - 1].paper.title}'" for n in sorted(numbers))


class Check(ABC):
    """One rule about drafts: `run` looks at the review (and may rewrite its sentences) and
    says what it decided."""

    name: ClassVar[str]

    @abstractmethod
    def run(self, review: Review) -> list[Verdict]:
        """The verdicts on this draft; none when the check has nothing to say."""

    def verdict(self, outcome: str, reason: Reason, **fields) -> Verdict:
        return Verdict(check=self.name, outcome=outcome, reason=reason, **fields)
