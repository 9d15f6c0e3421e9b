"""The indexed papers (without abstracts) by id: what filters, paper lists and title lookups
read. Title lookups are indexed, so they stay fast at 100k papers."""

import functools
import math
from difflib import SequenceMatcher

import numpy as np

from rag.models import Paper, title_key

ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789 "  # title keys are mostly these; others share
WIDTH = len(ALPHABET) + 1
BATCH = 5000  # titles counted at a time
COLUMN = np.full(128, len(ALPHABET), dtype=np.int32)  # each ASCII character's count column
COLUMN[[ord(c) for c in ALPHABET]] = np.arange(len(ALPHABET))


def character_counts(keys: list[str]) -> np.ndarray:
    """One row per key: how often it has each ALPHABET character, then all other characters."""
    if len(keys) > BATCH:  # small arrays reuse memory; touching fresh pages is slow on VMs
        return np.concatenate(
            [character_counts(keys[start : start + BATCH]) for start in range(0, len(keys), BATCH)]
        )
    codes = np.frombuffer("".join(keys).encode("utf-32-le"), dtype=np.uint32)
    columns = COLUMN[np.minimum(codes, 127)]  # 127 (DEL) stands for every non-ASCII character
    rows = np.repeat(np.arange(len(keys), dtype=np.int32) * WIDTH, [len(key) for key in keys])
    counts = np.bincount(rows + columns, minlength=len(keys) * WIDTH)
    return counts.reshape(len(keys), WIDTH).astype(np.int32)


class Catalog:
    """The indexed papers (their abstracts left out) by id, in index order."""

    def __init__(self, papers: list[Paper], min_title_ratio: float = 0.9):
        self.min_title_ratio = min_title_ratio  # see RetrievalTuning.min_title_ratio
        self._papers = {paper.paper_id: paper for paper in papers}
        self._ids = list(self._papers)

    def papers(self) -> list[Paper]:
        return list(self._papers.values())

    def get(self, paper_id: str) -> Paper:
        return self._papers[paper_id]

    def __contains__(self, paper_id: object) -> bool:
        return paper_id in self._papers

    def __len__(self) -> int:
        return len(self._papers)

    def areas(self) -> list[str]:
        return sorted({paper.area for paper in self._papers.values() if paper.area})

    def venues(self) -> list[str]:
        return sorted({paper.venue for paper in self._papers.values() if paper.venue})

    def find_title(self, text: str) -> str | None:
        """The id of the paper whose title `text` is, ignoring case and punctuation and
        forgiving a typo or two: the closest title key by difflib ratio, if at least
        min_title_ratio (the first in index order of equally close ones)."""
        wanted = title_key(text)
        if wanted in self._exact:
            return self._exact[wanted]
        bounds = self._quick_ratios(wanted)
        candidates = np.flatnonzero(bounds >= self.min_title_ratio)
        best_score, best = (self.min_title_ratio, -math.inf), None
        for i in candidates[np.argsort(-bounds[candidates], kind="stable")]:
            if bounds[i] < best_score[0]:
                break  # no title further down can be closer
            score = (SequenceMatcher(None, wanted, self._keys[i]).ratio(), -i)
            if score > best_score:
                best_score, best = score, self._ids[i]
        return best

    def _quick_ratios(self, wanted: str) -> np.ndarray:
        """For every title key, an upper bound of its difflib ratio with `wanted` (at least
        difflib's quick_ratio): from the characters they share, whatever their order."""
        shared = np.minimum(self._character_counts, character_counts([wanted])).sum(axis=1)
        return 2.0 * shared / (len(wanted) + self._lengths)

    # the title index is built on the first lookup, not with the catalog (it is rarely needed)

    @functools.cached_property
    def _keys(self) -> list[str]:
        return [title_key(paper.title) for paper in self._papers.values()]

    @functools.cached_property
    def _exact(self) -> dict[str, str]:
        """Each title key with the first paper that has it."""
        exact: dict[str, str] = {}
        for paper_id, key in zip(self._ids, self._keys):
            exact.setdefault(key, paper_id)
        return exact

    @functools.cached_property
    def _character_counts(self) -> np.ndarray:
        return character_counts(self._keys)

    @functools.cached_property
    def _lengths(self) -> np.ndarray:
        return np.array([len(key) for key in self._keys])
