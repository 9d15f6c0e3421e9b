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
