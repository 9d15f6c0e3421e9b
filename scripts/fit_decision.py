"""Fit the answer decision (rag/answer/decision.py) on generated questions and write its
parameters to rag/answer/decision.json, with the command, the calibration curve and its scores
on papers it was not fitted on.

Questions come from two generators, neither written by hand nor taken from eval/:
- eval/generated/questions.jsonl: questions the bundled model wrote from each abstract
  (scripts/generate_questions.py), each positive for its paper and negative for every other;
- topic questions made here: a word or word pair the abstracts use ("sparsity", "continual
  learning"), asked as a list in several phrasings ("which papers deal with X?", "anything on
  X", "X"), positive for every paper using all its words and negative for the rest.
Each question also comes as typed: lowercase, no question mark, one typo.
Papers are split in five folds: a question is scored only by the fits that did not see its paper.

    RAG_DATA_DIR=... .venv/bin/python scripts/fit_decision.py eval/generated/questions.jsonl
"""

import json
import random
import re
import sys
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rag.answer.decision import FEATURES, PARAMETERS, SIGNS, Decision, Relevance, features  # noqa: E402
from rag.answer.intent import classify  # noqa: E402
from rag.config import get_settings  # noqa: E402
from rag.retrieve import Retriever  # noqa: E402
from rag.sentences import metadata_sentence, split_sentences, stem_list, stems  # noqa: E402

SEED = 7
FOLDS = 5
TOPIC_FRAMES = (
    "Which papers deal with {}?",
    "papers on {}",
    "anything on {} in here?",
    "{}",
    "Are there papers that use {}?",
    "what work has been done on {}",
)


def typed(question: str, rng: random.Random) -> str:
    """The question as people type it: lowercase, no question mark, one letter pair swapped."""
    words = question.lower().rstrip("?").split()
    long = [i for i, w in enumerate(words) if len(w) >= 6 and w.isalpha()]
    if long:
        i = rng.choice(long)
        j = rng.randrange(1, len(words[i]) - 2)
        w = words[i]
        words[i] = w[:j] + w[j + 1] + w[j] + w[j + 2 :]
    return " ".join(words)


def topic_questions(papers, rng: random.Random, count: int) -> list[tuple[str, set[str]]]:
    """(question, gold paper ids) for words and word pairs 2 to 8 abstracts use."""
    words_of = {p.paper_id: stems(f"{p.title} {p.abstract}") for p in papers}
    phrases: Counter = Counter()
    surface: dict[tuple, str] = {}
    for paper in papers:
        tokens = [t for t in paper.abstract.lower().replace("-", " ").split() if t.isalpha()]
        for n in (1, 2):
            for i in range(len(tokens) - n + 1):
                gram = tokens[i : i + n]
                key = tuple(stem_list(" ".join(gram)))
                if len(key) == n and all(len(k) > 3 for k in key):
                    phrases[key] += 1
                    surface.setdefault(key, " ".join(gram))
    chosen = [key for key in phrases if 2 <= sum(set(key) <= w for w in words_of.values()) <= 8]
    rng.shuffle(chosen)
    result = []
    for key in chosen[:count]:
        gold = {pid for pid, w in words_of.items() if set(key) <= w}
        result.append((rng.choice(TOPIC_FRAMES).format(surface[key]), gold))
    return result


CLAIMS = re.compile(
    r"^(?:in this (?:paper|work),? )?(?:we|this (?:paper|work)) "
    r"(propose|introduce|present|develop|show|prove|study|establish|demonstrate|provide|design)s? "
    r"(.+)",
    re.IGNORECASE,
)
# Words no seed abstract uses, for near misses: a question about a paper with one of its key
# words swapped for one of these asks about something the paper never mentions.
FOREIGN = (
    "radiology speech blockchain robotics genomics weather traffic music chemistry finance "
    "astronomy poetry translation recommendation dialogue retrieval video tabular satellite "
    "wireless proteins molecules anomalies transformers diffusion reinforcement federated "
    "pruning distillation quantization segmentation captioning"
).split()


def sentence_questions(paper, rng: random.Random) -> list[str]:
    """Questions made from the paper's own sentences: "Which paper proposes <what it says it
    proposes>?" and short fragments of 3 to 5 of a sentence's content words, some words
    dropped so that not every question is the abstract's wording."""
    made = []
    for sentence in split_sentences(paper.abstract.replace("**", "")):
        words = sentence.rstrip(".").split()
        if match := CLAIMS.match(sentence):
            rest = " ".join(match.group(2).rstrip(".").split()[:16])
            made.append(f"Which paper {match.group(1).lower()}s {rest}?")
        content = [w.strip(",;:()").lower() for w in words if stems(w)]
        if len(content) >= 5:
            start = rng.randrange(0, len(content) - 3)
            fragment = content[start : start + rng.randint(3, 5)]
            kept = [w for w in fragment if rng.random() > 0.25]
            made.append(" ".join(kept if len(kept) >= 2 else fragment))
    return made


class Paraphraser:
    """Swaps words for their nearest other word of the corpus by the embedding model
    ("reinitializes" -> "resets"), so that a question made of a paper's sentence is not in
    the abstract's wording (real questions rarely are)."""

    # share: the chance each word is swapped (0.5 left most generated questions in the abstract's
    # words; 0.8 spread their lexical coverage over what real questions show); 0.6: the cosine
    # below which the nearest word is too far to stand for it. Both set by reading the output.
    def __init__(self, papers, embedder, rng: random.Random, share: float = 0.8):
        words = sorted({w.lower() for p in papers for w in re.findall(r"[A-Za-z]{4,}", p.abstract)})
        self.words = [w for w in words if stems(w)]
        vectors = np.asarray(embedder.embed(self.words))
        similar = vectors @ vectors.T
        np.fill_diagonal(similar, -1)
        self.nearest = {}
        for i, word in enumerate(self.words):
            for j in np.argsort(-similar[i])[:5]:
                if similar[i, j] >= 0.6 and stems(self.words[j]) != stems(word):
                    self.nearest[word] = self.words[j]
                    break
        self.rng, self.share = rng, share

    def __call__(self, question: str) -> str:
        return re.sub(
            r"[A-Za-z]{4,}",
            lambda m: (
                self.nearest.get(m.group().lower(), m.group())
                if self.rng.random() < self.share
                else m.group()
            ),
            question,
        )


def near_miss(question: str, paper_words: set[str], rng: random.Random) -> str | None:
    """The question with one of its topic words the paper uses swapped for a word it never
    uses: about something the paper does not address."""
    words = question.rstrip("?").split()
    swappable = [i for i, w in enumerate(words) if stems(w) and stems(w) <= paper_words]
    foreign = [w for w in FOREIGN if not stems(w) & paper_words]
    if not swappable or not foreign:
        return None
    words[rng.choice(swappable)] = rng.choice(foreign)
    return " ".join(words) + ("?" if question.endswith("?") else "")


def gold_of(question: str, owner: str | None, words_of: dict[str, set[str]]) -> set[str]:
    """The papers that answer a generated question: its own paper, and every paper that uses
    all of its topic words."""
    topic = classify(question).topic
    lexical = {pid for pid, words in words_of.items() if topic and topic <= words}
    return lexical | ({owner} if owner else set())


def questions(
    path: Path, papers, rng: random.Random, paraphrase
) -> list[tuple[str, set[str], str]]:
    """(question, gold paper ids, source paper id or "topic") for every training question."""
    words_of = {p.paper_id: stems(f"{metadata_sentence(p)} {p.abstract}") for p in papers}
    items = []
    if path.exists():
        for line in path.open():
            record = json.loads(line)
            q, owner = record["question"], record["paper_id"]
            items.append((q, gold_of(q, owner, words_of), owner))
    for paper in papers:
        for q in sentence_questions(paper, rng):
            items.append((q, gold_of(q, paper.paper_id, words_of), paper.paper_id))
            reworded = paraphrase(q)
            items.append((reworded, gold_of(reworded, paper.paper_id, words_of), paper.paper_id))
            if (miss := near_miss(q, words_of[paper.paper_id], rng)) is not None:
                items.append((miss, gold_of(miss, None, words_of), paper.paper_id))
    items += [(q, gold, "topic") for q, gold in topic_questions(papers, rng, 400)]
    items += [(typed(q, rng), gold, owner) for q, gold, owner in items if rng.random() < 0.5]
    return items


def table(items, papers, relevance: Relevance, metadata):
    """Features (questions x papers x FEATURES) and labels (questions x papers)."""
    sources = [relevance.retriever.source_for(p.paper_id) for p in papers]
    views = relevance.views(sources)
    vectors = np.asarray(relevance.embedder.embed([q for q, _, _ in items]))
    rows, labels = [], []
    for (question, gold, _), vector in zip(items, vectors):
        named = set(metadata.mentioned(question))
        for view, paper in zip(views, papers):
            view.named = paper.paper_id in named
        intent = classify(question)
        rows.append(features(vector, intent.topic, views, relevance.lexicon, intent.pairs))
        labels.append([p.paper_id in gold for p in papers])
    return np.asarray(rows), np.asarray(labels, dtype=int)


class SignedLogistic:
    """A logistic regression whose weights keep the signs SIGNS gives (scipy's L-BFGS-B with
    bounds), so that no quirk of generated data makes, say, a missing word a reason to answer."""

    def __init__(self, l2: float = 1e-3):
        self.l2 = l2

    def fit(self, x: np.ndarray, y: np.ndarray) -> "SignedLogistic":
        from scipy.optimize import minimize

        def loss(theta):
            z = x @ theta[:-1] + theta[-1]
            p = 1.0 / (1.0 + np.exp(-z))
            value = np.mean(np.logaddexp(0, z) - y * z) + self.l2 * theta[:-1] @ theta[:-1]
            gradient = np.append(x.T @ (p - y) / len(y) + 2 * self.l2 * theta[:-1], np.mean(p - y))
            return value, gradient

        bounds = [
            {1: (0, None), -1: (None, 0)}.get(SIGNS.get(name, 0), (None, None)) for name in FEATURES
        ] + [(None, None)]
        found = minimize(loss, np.zeros(x.shape[1] + 1), jac=True, bounds=bounds, method="L-BFGS-B")
        self.coef_, self.intercept_ = found.x[None, :-1], found.x[-1:]
        return self

    def predict_proba(self, x: np.ndarray) -> np.ndarray:
        p = 1.0 / (1.0 + np.exp(-(x @ self.coef_[0] + self.intercept_[0])))
        return np.stack([1 - p, p], axis=1)


def fit(rows: np.ndarray, labels: np.ndarray):
    from sklearn.preprocessing import StandardScaler

    flat, y = rows.reshape(-1, len(FEATURES)), labels.reshape(-1)
    scaler = StandardScaler().fit(flat)
    return scaler, SignedLogistic().fit(scaler.transform(flat), y)


def as_decision(scaler, model, threshold: float, command: str, metrics: dict) -> Decision:
    return Decision(
        features=list(FEATURES),
        mean=scaler.mean_.tolist(),
        scale=scaler.scale_.tolist(),
        weights=model.coef_[0].tolist(),
        bias=float(model.intercept_[0]),
        threshold=threshold,
        command=command,
        metrics=metrics,
    )


def question_scores(probabilities: np.ndarray, labels: np.ndarray, threshold: float) -> dict:
    """What the threshold does to questions: papers listed (precision, recall), answerable
    questions answered, and, with the question's own papers removed from the corpus (a question
    nothing indexed answers), questions declined."""
    accepted = probabilities >= threshold
    hits = (accepted & (labels == 1)).sum()
    without_gold = np.where(labels == 1, 0.0, probabilities).max(axis=1)
    return {
        "pair_precision": round(float(hits / max(accepted.sum(), 1)), 3),
        "pair_recall": round(float(hits / max(labels.sum(), 1)), 3),
        "answered": round(float((probabilities.max(axis=1) >= threshold).mean()), 3),
        "declined_without_gold": round(float((without_gold < threshold).mean()), 3),
    }


def choose_threshold(probabilities: np.ndarray, labels: np.ndarray) -> float:
    """The threshold with the best mean of pair F1 and declines without the gold papers."""

    def merit(t: float) -> float:
        s = question_scores(probabilities, labels, t)
        f1 = (
            2
            * s["pair_precision"]
            * s["pair_recall"]
            / max(s["pair_precision"] + s["pair_recall"], 1e-9)
        )
        return (f1 + s["declined_without_gold"] + s["answered"]) / 3

    return max(np.arange(0.05, 0.95, 0.01), key=merit)


def calibration(probabilities: np.ndarray, labels: np.ndarray) -> list[list[float]]:
    """[mean predicted, observed rate, pairs] per probability bin."""
    edges = [0, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0001]
    p, y, curve = probabilities.reshape(-1), labels.reshape(-1), []
    for low, high in zip(edges, edges[1:]):
        inside = (p >= low) & (p < high)
        if inside.any():
            curve.append(
                [
                    round(float(p[inside].mean()), 3),
                    round(float(y[inside].mean()), 3),
                    int(inside.sum()),
                ]
            )
    return curve


def main(path: Path) -> None:
    rng = random.Random(SEED)
    settings = get_settings()
    retriever = Retriever(settings)
    papers = retriever.catalog.papers()
    abstracts = retriever.store.abstracts([p.paper_id for p in papers])
    papers = [p.model_copy(update={"abstract": abstracts[p.paper_id]}) for p in papers]
    from rag.index.embedder import StoredSentences

    relevance = Relevance(
        retriever, StoredSentences(retriever.embedder, retriever.store), decision=_unfitted()
    )
    items = questions(path, papers, rng, Paraphraser(papers, relevance.embedder, rng))
    rows, labels = table(items, papers, relevance, retriever.metadata)
    fold_of = {
        p.paper_id: n % FOLDS for n, p in enumerate(sorted(papers, key=lambda p: p.paper_id))
    }
    owner = [
        fold_of[o] if o != "topic" else min((fold_of[g] for g in gold), default=0)
        for _, gold, o in items
    ]
    unseen = np.zeros(labels.shape)
    for fold in range(FOLDS):
        train = np.asarray([f != fold for f in owner])
        scaler, model = fit(rows[train], labels[train])
        flat = rows[~train].reshape(-1, len(FEATURES))
        unseen[~train] = model.predict_proba(scaler.transform(flat))[:, 1].reshape(-1, len(papers))
    threshold = round(float(choose_threshold(unseen, labels)), 2)
    scaler, model = fit(rows, labels)
    metrics = {
        "questions": len(items),
        "pairs": int(labels.size),
        "positives": int(labels.sum()),
        "unseen_papers": question_scores(unseen, labels, threshold),
        "unseen_pair_accuracy": round(float(((unseen >= threshold) == labels).mean()), 4),
        "calibration_unseen": calibration(unseen, labels),
    }
    command = "RAG_DATA_DIR=<index of seeds/> .venv/bin/python scripts/fit_decision.py " + str(path)
    if not path.exists():
        command += "  (no model-written questions there: the generated ones below only)"
    decision = as_decision(scaler, model, threshold, command, metrics)
    PARAMETERS.write_text(decision.model_dump_json(indent=1) + "\n")
    print(json.dumps(metrics, indent=1))
    print("weights:", dict(zip(FEATURES, [round(w, 3) for w in decision.weights])))


def _unfitted() -> Decision:
    n = len(FEATURES)
    return Decision(
        features=list(FEATURES),
        mean=[0.0] * n,
        scale=[1.0] * n,
        weights=[0.0] * n,
        bias=0.0,
        threshold=0.5,
    )


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "eval/generated/questions.jsonl"))
