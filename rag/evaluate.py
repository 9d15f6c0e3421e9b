"""Offline evaluation over a questions file: every metric is defined once, here."""

import math
from pathlib import Path
from statistics import mean

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from rag.errors import ConfigError
from rag.models import Paper, title_key
from rag.retrieve.catalog import Catalog

RANK_CUTOFFS = (1, 5, 10)


class Turn(BaseModel):
    role: str
    content: str


class Question(BaseModel):
    """One line of a questions file; unknown extra fields are ignored."""

    model_config = ConfigDict(extra="ignore")

    id: str
    question: str
    kind: str
    gold_titles: list[str] = Field(default_factory=list)
    answer_keywords: list[str] = Field(default_factory=list)
    history: list[Turn] = Field(default_factory=list)

    @property
    def answerable(self) -> bool:
        return bool(self.gold_titles)


def load_questions(path: Path) -> list[Question]:
    """Questions from a JSONL file; a bad line is an error naming the line."""
    if not path.is_file():
        raise ConfigError(f"Questions file {path} not found.")
    questions = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            questions.append(Question.model_validate_json(line))
        except ValidationError as error:
            raise ConfigError(f"{path}:{number}: not a valid question ({error.errors()[0]['msg']})")
    if not questions:
        raise ConfigError(f"{path} holds no questions.")
    return questions


def gold_paper_ids(questions: list[Question], papers: list[Paper]) -> dict[str, set[str]]:
    """Each question's gold titles as paper ids; a title matching no paper is an error."""
    by_title = {title_key(paper.title): paper.paper_id for paper in papers}
    gold = {}
    for question in questions:
        unknown = [t for t in question.gold_titles if title_key(t) not in by_title]
        if unknown:
            raise ConfigError(
                f"Question {question.id}: gold title {unknown[0]!r} matches no indexed paper. "
                "Fix the title or ingest the paper."
            )
        gold[question.id] = {by_title[title_key(t)] for t in question.gold_titles}
    return gold


# --- retrieval metrics (paper level, answerable questions only) ---


def recall_at(ranked: list[str], gold: set[str], k: int) -> float:
    """Share of the gold papers found in the top k."""
    return len(gold & set(ranked[:k])) / len(gold)


def reciprocal_rank(ranked: list[str], gold: set[str]) -> float:
    """1 / rank of the first gold paper (0 when none is retrieved)."""
    return next((1 / rank for rank, pid in enumerate(ranked, start=1) if pid in gold), 0.0)


def ndcg_at(ranked: list[str], gold: set[str], k: int) -> float:
    """Binary-relevance nDCG: gains discounted by log2(rank + 1), over the ideal ordering."""
    dcg = sum(1 / math.log2(rank + 1) for rank, pid in enumerate(ranked[:k], 1) if pid in gold)
    ideal = sum(1 / math.log2(rank + 1) for rank in range(1, min(len(gold), k) + 1))
    return dcg / ideal


def retrieval_scores(ranked: list[str], gold: set[str]) -> dict[str, float]:
    scores = {f"recall@{k}": recall_at(ranked, gold, k) for k in RANK_CUTOFFS}
    return scores | {"mrr": reciprocal_rank(ranked, gold), "ndcg@10": ndcg_at(ranked, gold, 10)}


def averages(rows: list[dict[str, float]]) -> dict[str, float]:
    return {name: mean(row[name] for row in rows) for name in rows[0]} if rows else {}


def choose_threshold(
    answerable: list[float], unanswerable: list[float], min_kept: float = 0.95
) -> dict[str, float]:
    """The highest relevance cut-off that still keeps `min_kept` of the answerable questions
    (the retrieval gate must rarely refuse a question the corpus answers; the answer layer
    is the second gate), with the shares kept and declined at that cut-off."""
    scores = sorted(set(answerable + unanswerable))
    candidates = [0.0] + [round((a + b) / 2, 3) for a, b in zip(scores, scores[1:])]
    best = {"min_relevance": 0.0, "answerable_kept": 1.0, "unanswerable_declined": 0.0}
    for cut in candidates:
        kept = mean(score >= cut for score in answerable) if answerable else 1.0
        declined = mean(score < cut for score in unanswerable) if unanswerable else 0.0
        if kept >= min_kept:
            best = {
                "min_relevance": cut,
                "answerable_kept": kept,
                "unanswerable_declined": declined,
            }
    return best


def retrieval_query(question: Question) -> str:
    """The text retrieved for: the question, with the earlier user turns for follow-ups."""
    earlier = [turn.content for turn in question.history if turn.role == "user"]
    return " ".join([*earlier[-1:], question.question])


def evaluate_retrieval(retriever, questions: list[Question], modes: list[str]) -> dict:
    """Per mode: metrics overall and per kind, plus the suggested abstention threshold."""
    gold = gold_paper_ids(questions, retriever.catalog.papers())
    report = {}
    for mode in modes:
        rows, top_relevance = {}, {}
        for question in questions:
            sources = retriever.search(retrieval_query(question), k=10, mode=mode)
            top_relevance[question.id] = retriever.answerability(retrieval_query(question), sources)
            if question.answerable:
                ranked = [s.paper.paper_id for s in sources]
                rows[question.id] = retrieval_scores(ranked, gold[question.id])
        by_kind = {}
        for question in questions:
            if question.id in rows:
                by_kind.setdefault(question.kind, []).append(rows[question.id])
        threshold = choose_threshold(
            [top_relevance[q.id] for q in questions if q.answerable],
            [top_relevance[q.id] for q in questions if not q.answerable],
        )
        report[mode] = {
            "overall": averages(list(rows.values())) | {"n": len(rows)},
            "by_kind": {kind: averages(r) | {"n": len(r)} for kind, r in sorted(by_kind.items())},
            "threshold": threshold,
        }
    return report


RETRIEVAL_COLUMNS = [f"recall@{k}" for k in RANK_CUTOFFS] + ["mrr", "ndcg@10"]


def markdown_table(header: list[str], rows: list[list]) -> str:
    """A Markdown table (also legible as plain text); floats to 3 decimals, None as "-"."""

    def cell(value) -> str:
        if value is None:
            return "-"
        return f"{value:.3f}" if isinstance(value, float) else str(value)

    lines = [header, ["---"] * len(header), *[[cell(v) for v in row] for row in rows]]
    return "\n".join("| " + " | ".join(line) + " |" for line in lines)


def retrieval_table(report: dict) -> str:
    """One row per mode and kind."""
    rows = [
        [mode, kind, row["n"], *(row.get(name) for name in RETRIEVAL_COLUMNS)]  # "-" for none
        for mode, result in report.items()
        for kind, row in [("ALL", result["overall"]), *result["by_kind"].items()]
    ]
    return markdown_table(["mode", "kind", "n", *RETRIEVAL_COLUMNS], rows)


# --- answer metrics (one row per question, then aggregated) ---


def ungrounded_names(answer) -> tuple[int, int, list[str]]:
    """How many of the answer's sentences name a thing (a capitalised term, acronym, number or
    formula: rag.answer.naming), and the things they name that the question does not state and
    an abstract (and metadata) they cite for them does not (read against all shown papers, for a
    sentence citing none): (naming sentences, those naming such a thing, the things)."""
    from rag.answer.naming import names_something, unstated_by_cited

    if answer.abstained:
        return 0, 0, []
    by_id = {s.paper.paper_id: s for s in answer.sources}
    cited = {c.number: by_id[c.paper_id] for c in answer.citations if c.paper_id in by_id}
    naming, flawed, unknown = 0, 0, []
    for sentence in answer.sentences:
        if not names_something(sentence.text):
            continue
        naming += 1
        found = unstated_by_cited(sentence, cited, answer.sources, answer.question, False)
        flawed += bool(found)
        unknown += [f"{name} ({sentence.text[:60]}...)" for name in found]
    return naming, flawed, unknown


def answer_row(question: Question, answer, gold: set[str], catalog: Catalog) -> dict:
    """Everything measured on one answer: retrieval, citations vs gold, support, abstention."""
    shown = answer.sources or answer.suggestions
    naming, flawed, unknown = ungrounded_names(answer)
    retrieved = [s.paper.paper_id for s in shown]
    cited = [c.paper_id for c in answer.citations]
    offered = set(retrieved)
    cited_sentences = [s for s in answer.sentences if s.citations]
    text = answer.text.casefold()
    return {
        "id": question.id,
        "kind": question.kind,
        "question": question.question,
        "answerable": question.answerable,
        "abstained": answer.abstained,
        "reason": answer.reason,
        "reasons": answer.reasons,
        "retrieved": retrieved,
        "retrieved_titles": [s.paper.title for s in shown],
        "cited": cited,
        "cited_titles": [c.title for c in answer.citations],
        "invalid_citations": sum(pid not in offered or pid not in catalog for pid in cited),
        "gold_cited": len(gold & set(cited)),
        "gold": len(gold),
        "sentences": len(answer.sentences),
        "cited_sentences": len(cited_sentences),
        "supported_sentences": sum(bool(s.supported) for s in cited_sentences),
        "unsupported": answer.unsupported_sentences,
        "naming_sentences": naming,
        "ungrounded_names": unknown,
        "ungrounded_sentences": flawed,
        "keywords_found": sum(k.casefold() in text for k in question.answer_keywords),
        "keywords": len(question.answer_keywords),
        "ttft_s": answer.ttft_s,
        "latency_s": answer.latency_s,
        "backend": answer.backend,
        "notices": answer.notices,
        "answer": answer.text,
    }


def ratio(numerator: float, denominator: float) -> float | None:
    return numerator / denominator if denominator else None


def percentile(values: list[float], q: float) -> float | None:
    """The q-th percentile (nearest rank) of the values, None when there are none."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q / 100 * len(ordered)) - 1))]


def answer_metrics(rows: list[dict]) -> dict[str, float | None]:
    """Aggregate metrics over answer rows (definitions in eval/README.md)."""
    answerable = [r for r in rows if r["answerable"]]
    unanswerable = [r for r in rows if not r["answerable"]]
    answered = [r for r in answerable if not r["abstained"]]
    citing = [r for r in answered if r["cited"]]
    precision = ratio(sum(r["gold_cited"] / len(r["cited"]) for r in citing), len(citing))
    recall = ratio(sum(r["gold_cited"] / r["gold"] for r in answerable), len(answerable))
    all_cited = sum(len(r["cited"]) for r in rows)
    sentences = sum(r["sentences"] for r in rows if not r["abstained"])
    cited_sentences = sum(r["cited_sentences"] for r in rows)
    answered_all = [r for r in rows if not r["abstained"]]
    return {
        "citation_precision": precision,
        "citation_recall": recall,
        "citation_f1": ratio(2 * precision * recall, precision + recall)
        if precision and recall
        else 0.0,
        "answers_with_citations": ratio(len(citing), len(answered)),
        "invalid_citation_rate": ratio(sum(r["invalid_citations"] for r in rows), all_cited) or 0.0,
        "supported_sentence_rate": ratio(
            sum(r["supported_sentences"] for r in rows), cited_sentences
        ),
        "uncited_sentence_rate": ratio(sentences - cited_sentences, sentences),
        "flagged_sentence_rate": ratio(
            sum(len(r["unsupported"]) for r in rows if not r["abstained"]), cited_sentences
        ),
        "ungrounded_name_rate": ratio(
            sum(r.get("ungrounded_sentences", 0) for r in rows),
            sum(r.get("naming_sentences", 0) for r in rows),
        ),
        "abstention_accuracy": ratio(sum(r["abstained"] for r in unanswerable), len(unanswerable)),
        "false_abstention_rate": ratio(len(answerable) - len(answered), len(answerable)),
        "answered_precision": ratio(
            sum(r["gold_cited"] > 0 for r in answered) + 0.0, len(answered_all)
        ),
        "keyword_hit_rate": ratio(
            sum(r["keywords_found"] for r in answered), sum(r["keywords"] for r in answered)
        ),
        "ttft_p50_s": percentile([r["ttft_s"] for r in rows if r["ttft_s"] is not None], 50),
        "ttft_p95_s": percentile([r["ttft_s"] for r in rows if r["ttft_s"] is not None], 95),
        "latency_p50_s": percentile([r["latency_s"] for r in rows], 50),
        "latency_p95_s": percentile([r["latency_s"] for r in rows], 95),
        "n": len(rows),
    }


def evaluate_answers(answerer, questions: list[Question], show_progress: bool = True) -> list[dict]:
    """Ask every question (with its history) and measure each answer."""
    from tqdm import tqdm

    from rag.models import Answer, Message

    catalog = answerer.retriever.catalog
    gold = gold_paper_ids(questions, catalog.papers())
    rows = []
    for question in tqdm(
        questions,
        desc=f"Asking ({answerer.settings.llm_backend})",
        unit="question",
        disable=not show_progress or None,
    ):
        history = [
            Message(role=t.role, content=t.content)
            for t in question.history
            if t.role in ("user", "assistant")
        ]
        answer = next(
            e for e in answerer.ask(question.question, history=history) if isinstance(e, Answer)
        )
        rows.append(answer_row(question, answer, gold[question.id], catalog))
    return rows


def metrics_by_kind(rows: list[dict]) -> dict[str, dict]:
    kinds = sorted({r["kind"] for r in rows})
    return {"ALL": answer_metrics(rows)} | {
        kind: answer_metrics([r for r in rows if r["kind"] == kind]) for kind in kinds
    }


ANSWER_COLUMNS = {
    "recall@5": "R@5",
    "mrr": "MRR",
    "citation_precision": "cit_P",
    "citation_recall": "cit_R",
    "citation_f1": "cit_F1",
    "invalid_citation_rate": "invalid",
    "supported_sentence_rate": "support",
    "uncited_sentence_rate": "uncited",
    "flagged_sentence_rate": "flagged",
    "ungrounded_name_rate": "ungrounded",
    "abstention_accuracy": "abst_acc",
    "false_abstention_rate": "false_abst",
    "answered_precision": "ans_prec",
    "keyword_hit_rate": "keywords",
    "ttft_p50_s": "ttft50",
    "latency_p50_s": "lat50",
    "latency_p95_s": "lat95",
}


def declines_by_reason(rows: list[dict]) -> dict[str, dict[str, int]]:
    """Per decline reason code, how many answerable (false refusals) and unanswerable questions
    declined with it, so a regression points at its rule."""
    counts: dict[str, dict[str, int]] = {}
    for row in rows:
        if row["abstained"]:
            side = "answerable" if row["answerable"] else "unanswerable"
            entry = counts.setdefault(
                row.get("reason") or "unknown", {"answerable": 0, "unanswerable": 0}
            )
            entry[side] += 1
    return dict(sorted(counts.items(), key=lambda item: -sum(item[1].values())))


def reason_table(rows_by_config: dict[str, list[dict]]) -> str:
    """Declines per configuration, reason and kind: 'answerable' ones are false refusals."""
    rows = []
    for config, config_rows in rows_by_config.items():
        for kind in ["ALL", *sorted({r["kind"] for r in config_rows})]:
            chosen = [r for r in config_rows if kind == "ALL" or r["kind"] == kind]
            for reason, count in declines_by_reason(chosen).items():
                rows.append([config, kind, reason, count["answerable"], count["unanswerable"]])
    return markdown_table(["config", "kind", "reason", "answerable", "unanswerable"], rows)


def answer_table(results: dict[str, dict[str, dict]]) -> str:
    """One row per configuration and kind."""
    rows = [
        [config, kind, metrics["n"], *(metrics.get(name) for name in ANSWER_COLUMNS)]
        for config, by_kind in results.items()
        for kind, metrics in by_kind.items()
    ]
    return markdown_table(["config", "kind", "n", *ANSWER_COLUMNS.values()], rows)


def run(
    settings,
    questions: list[Question],
    backends: list[str],
    modes: list[str],
    retrieval_only: bool = False,
    show_progress: bool = True,
    retriever=None,
) -> tuple[dict, dict]:
    """Retrieval metrics per mode, then every backend × mode answers every question.

    Returns the report (`retrieval` per mode; `metrics` and `by_kind` per configuration
    "backend/mode", answer metrics merged with that mode's retrieval metrics) and the
    per-question rows per configuration."""
    from rag.answer.pipeline import Answerer
    from rag.retrieve import Retriever

    retriever = retriever or Retriever(settings)
    retrieval = evaluate_retrieval(retriever, questions, modes)
    report = {"retrieval": retrieval, "metrics": {}, "by_kind": {}}
    rows_by_config = {}
    if retrieval_only:
        return report, rows_by_config
    for backend in backends:
        for mode in modes:
            config = f"{backend}/{mode}"
            configured = settings.model_copy(
                update={"llm_backend": backend, "retrieval_mode": mode}
            )
            rows = evaluate_answers(
                Answerer(configured, retriever=retriever), questions, show_progress
            )
            rows_by_config[config] = rows
            by_kind = metrics_by_kind(rows)
            report.setdefault("declines", {})[config] = declines_by_reason(rows)
            ranked = {"ALL": retrieval[mode]["overall"]} | retrieval[mode]["by_kind"]
            report["by_kind"][config] = {
                kind: metrics | {n: v for n, v in ranked.get(kind, {}).items() if n != "n"}
                for kind, metrics in by_kind.items()
            }
            report["metrics"][config] = report["by_kind"][config]["ALL"]
    return report, rows_by_config
