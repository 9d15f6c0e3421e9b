"""The CI gate: the extractive backend on the whole dev set must not fall below the levels
measured last (see eval/README.md), less a small margin for harmless changes."""

import pytest

from rag.evaluate import load_questions, run
from rag.report import write_reports
from tests.conftest import REPO

# Measured (extractive/hybrid, eval/questions.jsonl, 4291 questions with the y, z, w, v, u, t, s,
# p, r, n, m, g, h, j, k, a, b, e, i, l, o, aa, ab, ac, ad, ae, af, ag, ah, ai, aj, ak, al, am
# and an sets written on 2026-12-05/06/07 folded in, at bfd85da): recall@5 0.973, citation
# precision 0.982, abstention accuracy 0.957 (760 of 794), false abstention 0.0097 (34 of 3497).
# Margins: 0.02 on recall, 0.03 on precision, two questions on abstention accuracy (2/794,
# rounded down) and on false abstention (2/3497).
FLOORS = {"recall@5": 0.953, "citation_precision": 0.952, "abstention_accuracy": 0.954}
CEILINGS = {"false_abstention_rate": 0.0103}

pytestmark = pytest.mark.slow


def test_extractive_eval_on_the_dev_set_stays_above_the_floors(seed_index, retriever, tmp_path):
    questions = load_questions(REPO / "eval" / "questions.jsonl")
    report, rows = run(
        seed_index, questions, ["extractive"], ["hybrid"], show_progress=False, retriever=retriever
    )
    paths = write_reports(report, rows, tmp_path, {"questions": "dev", "n": len(questions), "k": 5})
    assert [p.name for p in paths] == ["report.json", "report.md", "questions.jsonl", "chart.png"]
    metrics = report["metrics"]["extractive/hybrid"]
    assert metrics["invalid_citation_rate"] == 0
    below = {name: metrics[name] for name, floor in FLOORS.items() if metrics[name] < floor}
    assert not below, f"below the floors {FLOORS}: {below}"
    above = {name: metrics[name] for name, top in CEILINGS.items() if metrics[name] > top}
    assert not above, f"above the ceilings {CEILINGS}: {above}"
