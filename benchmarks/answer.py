"""Answer latency: time to first token and total, p50/p95, per backend, over dev questions.

    python -m benchmarks.answer --backends local,extractive --questions 10 [--pause 5]

`--pause` waits that many seconds between questions, as a reader does: work the answer leaves
for the model (warming the answer prompt again after the model judged a paper) then happens
before the next question instead of delaying its first token.

Uses the index under RAG_DATA_DIR (run `rag ingest` first). The model is loaded (and one
question answered) before timing, as in a running chat server. Prompt tokens are those of the
answer prompt's messages (the local backend counts them with the model's tokenizer).
"""

import argparse
import time
from pathlib import Path

from rag.answer.pipeline import Answerer
from rag.config import get_settings
from rag.evaluate import load_questions, percentile
from rag.models import Answer
from rag.retrieve import Retriever

QUESTIONS = Path(__file__).resolve().parent.parent / "eval" / "questions.jsonl"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backends", default="local,extractive")
    parser.add_argument("--questions", type=int, default=10)
    parser.add_argument("--pause", type=float, default=0.0, help="seconds between questions")
    args = parser.parse_args()
    settings = get_settings()
    retriever = Retriever(settings)
    questions = [q.question for q in load_questions(QUESTIONS) if q.answerable and not q.history][
        : args.questions
    ]
    print(
        f"{'backend':<11} {'n':>3} {'prompt tok p50':>14} {'ttft p50':>9} {'ttft p95':>9} "
        f"{'total p50':>10} {'total p95':>10} {'abstained':>9} {'fallbacks':>9}"
    )
    for name in args.backends.split(","):
        answerer = Answerer(settings.model_copy(update={"llm_backend": name}), retriever=retriever)
        answerer.warm()  # as `rag ui` does at launch
        prompts = record_prompts(answerer.backend())
        list(answerer.ask("warm-up: which papers study spiking neural networks?"))
        ttfts, totals, tokens, abstained, fallbacks = [], [], [], 0, 0
        for question in questions:
            time.sleep(args.pause)
            started, first = time.perf_counter(), None
            for event in answerer.ask(question):
                if isinstance(event, Answer):
                    abstained += event.abstained
                    fallbacks += event.fallback_from is not None
                elif first is None:
                    first = time.perf_counter() - started
            totals.append(time.perf_counter() - started)
            ttfts.append(first)
            if prompts and hasattr(answerer.backend(), "prompt_tokens"):
                tokens.append(answerer.backend().prompt_tokens(prompts.pop()))
            prompts.clear()
        print(
            f"{name:<11} {len(totals):>3} {percentile(tokens, 50) if tokens else '-':>14} "
            f"{percentile(ttfts, 50):>9.2f} {percentile(ttfts, 95):>9.2f} "
            f"{percentile(totals, 50):>10.2f} {percentile(totals, 95):>10.2f} {abstained:>9} "
            f"{fallbacks:>9}",
            flush=True,
        )


def record_prompts(backend) -> list:
    """The prompts the backend is asked from now on (to count their tokens)."""
    prompts, stream = [], backend.stream

    def recording(prompt):
        prompts.append(prompt)
        return stream(prompt)

    backend.stream = recording
    return prompts


if __name__ == "__main__":
    main()
