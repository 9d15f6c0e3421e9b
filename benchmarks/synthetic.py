"""A synthetic corpus of N abstracts built from the seed sentences (deterministic per seed).

python -m benchmarks.synthetic 5000 /tmp/synthetic.jsonl
"""

import json
import random
import re
import sys
from pathlib import Path

from rag.corpus import load_corpus

SEEDS = Path(__file__).resolve().parent.parent / "seeds"


def seed_sentences() -> list[str]:
    papers = load_corpus([SEEDS], None, 20_000).papers
    return [s for p in papers for s in re.split(r"(?<=[.!?])\s+", p.abstract) if len(s) > 40]


# A topic no seed abstract touches, planted in a known number of papers, so that a list question
# about it has a known complete answer at any corpus size.
TOPIC_QUESTION = "Which papers forecast glacier melt?"
TOPIC_SENTENCES = [
    "We forecast glacier melt from satellite radar time series with a recurrent model.",
    "Our glacier melt forecasts cut the error of hydrological baselines on 40 Alpine glaciers.",
    "Forecasting seasonal glacier melt, we fuse weather reanalysis with ice thickness surveys.",
    "We release a benchmark of glacier melt measurements from 120 automatic weather stations.",
]


def topic_papers(n: int) -> int:
    """How many of N synthetic papers carry the planted topic: more than a list shows at once
    (30) and than one search depth holds (50) from 2,000 papers on."""
    return min(n // 10, max(60, n // 150))


def synthetic_records(n: int, seed: int = 0) -> list[dict]:
    """N JSONL-ready records whose abstracts mix 6–10 seed sentences (so they are unique); the
    first `topic_papers(n)` also state one planted topic sentence."""
    rng = random.Random(seed)
    sentences = seed_sentences()
    words = sorted({w for s in sentences for w in re.findall(r"[A-Za-z]{5,}", s)})
    records = []
    for n_ in range(n):
        abstract = rng.sample(sentences, rng.randint(6, 10))
        if n_ < topic_papers(n):
            abstract.insert(rng.randint(0, len(abstract)), rng.choice(TOPIC_SENTENCES))
        records.append(
            {
                "title": f"Synthetic {n_}: " + " ".join(rng.sample(words, 5)).title(),
                "abstract": " ".join(abstract),
                "authors": [f"Author {rng.randint(1, 5000)}", f"Author {rng.randint(1, 5000)}"],
                "venue": rng.choice(["NeurIPS 2025", "ICLR 2026", "ICML 2025"]),
            }
        )
    return records


def write_corpus(n: int, path: Path, seed: int = 0) -> Path:
    with path.open("w") as out:
        for record in synthetic_records(n, seed):
            out.write(json.dumps(record) + "\n")
    return path


if __name__ == "__main__":
    write_corpus(int(sys.argv[1]), Path(sys.argv[2]))


class ComposedEmbedder:
    """For synthetic corpora only: a chunk's vector is the normalized mean of real embeddings
    of its sentences (cached), since synthetic abstracts are mixtures of seed sentences.
    Tokenization, window and name are the real embedder's."""

    def __init__(self, embedder):
        self.embedder, self.cache = embedder, {}
        self.name, self.window = embedder.name, embedder.window
        self.special_tokens = embedder.special_tokens

    def tokenize(self, text: str) -> list[str]:
        return self.embedder.tokenize(text)

    def embed(self, texts: list[str]) -> list[list[float]]:
        import numpy as np

        parts = [re.split(r"(?<=[.!?])\s+", text.split("\n", 1)[-1]) for text in texts]
        new = sorted({p for sentences in parts for p in sentences} - self.cache.keys())
        if new:
            self.cache.update(zip(new, self.embedder.embed(new)))
        vectors = []
        for sentences in parts:
            mean = np.mean([self.cache[s] for s in sentences], axis=0)
            vectors.append((mean / np.linalg.norm(mean)).tolist())
        return vectors
