import math

import pytest

from rag.errors import ConfigError
from rag.evaluate import (
    choose_threshold,
    evaluate_retrieval,
    gold_paper_ids,
    load_questions,
    ndcg_at,
    recall_at,
    reciprocal_rank,
    retrieval_table,
)
from rag.models import Paper
from tests.conftest import write_jsonl


def paper(pid: str, title: str) -> Paper:
    return Paper(paper_id=pid, title=title, title_source="metadata", abstract="x", source_file="f")


def test_rank_metrics_by_hand():
    ranked, gold = ["a", "b", "c", "d"], {"b", "d", "z"}
    assert recall_at(ranked, gold, 1) == 0
    assert recall_at(ranked, gold, 4) == pytest.approx(2 / 3)
    assert reciprocal_rank(ranked, gold) == 0.5
    assert reciprocal_rank(["q"], gold) == 0
    ideal = 1 + 1 / math.log2(3) + 1 / math.log2(4)
    assert ndcg_at(ranked, gold, 10) == pytest.approx((1 / math.log2(3) + 1 / math.log2(5)) / ideal)
    assert ndcg_at(["b", "d", "z"], gold, 10) == pytest.approx(1.0)


def test_threshold_keeps_answerable_questions_first():
    chosen = choose_threshold([0.6, 0.7, 0.8], [0.2, 0.3, 0.65], min_kept=1.0)
    assert 0.3 < chosen["min_relevance"] <= 0.6
    assert chosen["answerable_kept"] == 1.0
    assert chosen["unanswerable_declined"] == pytest.approx(2 / 3)
    relaxed = choose_threshold([0.6, 0.7, 0.8], [0.2, 0.3, 0.65], min_kept=0.6)
    assert relaxed["min_relevance"] > 0.65 and relaxed["unanswerable_declined"] == 1.0


def test_questions_file_extra_fields_and_gold_title_normalisation(tmp_path):
    path = write_jsonl(
        tmp_path / "q.jsonl",
        [
            {
                "id": "1",
                "question": "q?",
                "kind": "single",
                "gold_titles": ["deep  nets: WORK!"],
                "answer_keywords": ["x"],
                "author": "someone else",
            },
            {"id": "2", "question": "none?", "kind": "unanswerable", "gold_titles": []},
        ],
    )
    questions = load_questions(path)
    gold = gold_paper_ids(questions, [paper("p1", "Deep Nets — Work")])
    assert gold == {"1": {"p1"}, "2": set()}


def test_unknown_gold_title_names_the_question(tmp_path):
    path = write_jsonl(
        tmp_path / "q.jsonl",
        [{"id": "q7", "question": "?", "kind": "single", "gold_titles": ["Nope"]}],
    )
    with pytest.raises(ConfigError, match="q7.*Nope"):
        gold_paper_ids(load_questions(path), [paper("p1", "Other")])


def test_bad_questions_line_is_reported(tmp_path):
    path = tmp_path / "q.jsonl"
    path.write_text(
        '{"id": "1", "question": "q", "kind": "single", "gold_titles": []}\n{"id": 2}\n'
    )
    with pytest.raises(ConfigError, match="q.jsonl:2"):
        load_questions(path)


def test_retrieval_evaluation_on_a_small_file(retriever, tmp_path):
    path = write_jsonl(
        tmp_path / "q.jsonl",
        [
            {
                "id": "a",
                "question": "How does BayesCoxCP price products?",
                "kind": "keyword",
                "gold_titles": [
                    "A Bayesian Approach to Contextual Dynamic Pricing using the "
                    "Proportional Hazards Model with Discrete Price Data"
                ],
            },
            {
                "id": "b",
                "question": "What is a good sourdough bread recipe?",
                "kind": "unanswerable",
                "gold_titles": [],
            },
        ],
    )
    report = evaluate_retrieval(retriever, load_questions(path), ["hybrid", "dense"])
    assert report["hybrid"]["overall"]["recall@1"] == 1.0
    assert report["hybrid"]["threshold"]["unanswerable_declined"] == 1.0
    table = retrieval_table(report)
    assert "hybrid" in table and "keyword" in table and "dense" in table


METRIC_KEYS = {
    "recall@5",
    "mrr",
    "citation_precision",
    "citation_recall",
    "invalid_citation_rate",
    "abstention_accuracy",
    "false_abstention_rate",
    "keyword_hit_rate",
    "ttft_p50_s",
}


def test_eval_command_on_someone_elses_file_writes_the_four_outputs(
    seed_index, monkeypatch, tmp_path
):
    import json

    from typer.testing import CliRunner

    from rag.cli import app

    monkeypatch.setenv("RAG_DATA_DIR", str(seed_index.data_dir))
    questions = write_jsonl(
        tmp_path / "theirs.jsonl",
        [
            {
                "id": "t1",
                "question": "How does BayesCoxCP price products?",
                "kind": "keyword",
                "gold_titles": [
                    "a bayesian approach to contextual dynamic pricing using the proportional "
                    "hazards model with discrete price data"
                ],
                "answer_keywords": ["Cox"],
                "reviewer": "not a field we know",
            },
            {"id": "t2", "question": "Best sourdough recipe?", "kind": "unanswerable"},
        ],
    )
    out = tmp_path / "report"
    result = CliRunner().invoke(
        app,
        ["eval", "--questions", str(questions), "--backend", "fake,extractive", "--out", str(out)],
    )
    assert result.exit_code == 0, result.output
    assert "| fake/hybrid | ALL |" in result.output  # the table is printed at the end
    report = json.loads((out / "report.json").read_text())
    assert set(report["metrics"]) == {"fake/hybrid", "extractive/hybrid"}
    for metrics in report["metrics"].values():
        assert METRIC_KEYS <= set(metrics)
        assert metrics["invalid_citation_rate"] == 0 and metrics["recall@5"] == 1.0
        assert metrics["abstention_accuracy"] == 1.0
    assert "keyword" in report["by_kind"]["fake/hybrid"]
    rows = [json.loads(line) for line in (out / "questions.jsonl").read_text().splitlines()]
    assert len(rows) == 4 and {"retrieved_titles", "cited_titles", "answer"} <= set(rows[0])
    assert "| extractive/hybrid | unanswerable |" in (out / "report.md").read_text()
    assert (out / "chart.png").read_bytes()[:4] == b"\x89PNG"


def test_declines_are_counted_per_reason_and_kind_false_refusals_apart():
    from rag.evaluate import declines_by_reason, reason_table

    rows = [
        {"kind": "multi", "answerable": True, "abstained": True, "reason": "not_relevant"},
        {"kind": "unanswerable", "answerable": False, "abstained": True, "reason": "not_relevant"},
        {"kind": "unanswerable", "answerable": False, "abstained": True, "reason": "not_stated"},
        {"kind": "single", "answerable": True, "abstained": False, "reason": None},
    ]
    assert declines_by_reason(rows) == {
        "not_relevant": {"answerable": 1, "unanswerable": 1},
        "not_stated": {"answerable": 0, "unanswerable": 1},
    }
    table = reason_table({"extractive/hybrid": rows})
    assert "| extractive/hybrid | multi | not_relevant | 1 | 0 |" in table
    assert "| extractive/hybrid | ALL | not_stated | 0 | 1 |" in table
