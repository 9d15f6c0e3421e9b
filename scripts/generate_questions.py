"""Generate training questions for the answer decision (rag/answer/decision.py) with the bundled
local model: for every indexed paper, three questions its abstract answers, in three styles (a question in
other words than the abstract's, a short lowercase query, a casual question), shown one example. Each line of
the output is {"paper_id", "title", "style", "question"}. Resumable: papers already in the output
are skipped.

    RAG_DATA_DIR=... .venv/bin/python scripts/generate_questions.py eval/generated/questions.jsonl
"""

import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rag.config import get_settings  # noqa: E402
from rag.llm import Prompt, load_backend  # noqa: E402
from rag.models import Message  # noqa: E402
from rag.retrieve import Retriever  # noqa: E402

SYSTEM = "You write questions that researchers ask about papers. Reply with three lines only."
EXAMPLE_ABSTRACT = (
    "Large language models often produce confident but wrong answers. We propose CalibRank, a "
    "method that re-ranks sampled answers by their agreement with retrieved documents. On three "
    "question-answering benchmarks CalibRank reduces calibration error by 40% while keeping "
    "accuracy, and it needs no extra training."
)
EXAMPLE_QUESTIONS = (
    "1. How can sampled answers be reordered so that a language model is less overconfident?\n"
    "2. which paper reranks llm answers using retrieved docs\n"
    "3. anything on reducing calibration error without retraining?"
)
ASK = (
    "Write three different questions that the abstract answers, the way researchers ask them: "
    "1. a full question in your own words, not copying the abstract; 2. a short lowercase query; "
    "3. a casual question. Do not name the method."
)


def prompt_for(title: str, abstract: str) -> Prompt:
    return Prompt(
        messages=[
            Message(role="system", content=SYSTEM),
            Message(role="user", content=f"Abstract: {EXAMPLE_ABSTRACT}\n\n{ASK}"),
            Message(role="assistant", content=EXAMPLE_QUESTIONS),
            Message(role="user", content=f"Abstract: {abstract}\n\n{ASK}"),
        ],
        max_tokens=110,
    )


def parse(reply: str) -> list[tuple[str, str]]:
    """(style, question) for each numbered line of the reply."""
    styles, found = ["paraphrase", "typed", "casual"], []
    for line in reply.splitlines():
        match = re.match(r"\s*(\d+)[.)]\s*(.+)", line)
        if match and 1 <= int(match.group(1)) <= len(styles):
            question = match.group(2).strip().strip('"')
            if 3 <= len(question.split()) <= 40:
                found.append((styles[int(match.group(1)) - 1], question))
    return found


def main(out: Path) -> None:
    settings = get_settings()
    retriever = Retriever(settings)
    model = load_backend("local", settings)
    done = {json.loads(line)["paper_id"] for line in out.open()} if out.exists() else set()
    papers = [p for p in retriever.catalog.papers() if p.paper_id not in done]
    abstracts = retriever.store.abstracts([p.paper_id for p in papers])
    with out.open("a") as handle:
        for number, paper in enumerate(papers, 1):
            reply = model.complete(prompt_for(paper.title, abstracts[paper.paper_id]))
            for style, question in parse(reply):
                record = {"paper_id": paper.paper_id, "title": paper.title, "style": style}
                handle.write(json.dumps(record | {"question": question}) + "\n")
            handle.flush()
            print(f"{number}/{len(papers)} {paper.title[:60]}", flush=True)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
