"""The installed llama.cpp build: its instruction sets and its speed on the bundled model.

    python -m benchmarks.llama_build [--prompt-tokens 600] [--runs 3]

Prints the build recorded by scripts/build_llama.py, what ggml reports it uses, and the best
of N runs of prompt processing (tokens/s) and generation (tokens/s) with RAG_LLM_THREADS threads.
"""

import argparse
import json
import sys
import time
from pathlib import Path

from rag.config import get_settings
from rag.llm.bundled import QWEN_CODER_1_5B

TEXT = "Continual learning methods balance stability and plasticity across tasks. "


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prompt-tokens", type=int, default=600)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    import llama_cpp

    settings = get_settings()
    stamp = Path(sys.prefix) / ".rag-llama-build.json"
    built = json.loads(stamp.read_text()).get("sets") if stamp.is_file() else "unknown"
    print(f"build: {built} (scripts/build_llama.py)")
    print(f"ggml: {llama_cpp.llama_print_system_info().decode().strip()}")
    model = llama_cpp.Llama(
        str(settings.local_model_path or QWEN_CODER_1_5B.path(settings.model_store)),
        n_ctx=4096,
        n_threads=settings.llm_threads,
        n_threads_batch=settings.llm_threads,
        verbose=False,
    )
    tokens = model.tokenize((TEXT * 100).encode())[: args.prompt_tokens]
    prompt_speed = generation_speed = 0.0
    for _ in range(args.runs):
        model.reset()
        started = time.perf_counter()
        model.eval(tokens)
        prompt_speed = max(prompt_speed, len(tokens) / (time.perf_counter() - started))
        started, generated = time.perf_counter(), 0
        for _ in model.generate([], temp=0.0, reset=False):
            generated += 1
            if generated == 64:
                break
        generation_speed = max(generation_speed, generated / (time.perf_counter() - started))
    print(
        f"threads {settings.llm_threads}: prompt {prompt_speed:.1f} tokens/s "
        f"({len(tokens)} tokens), generation {generation_speed:.1f} tokens/s (64 tokens)"
    )


if __name__ == "__main__":
    main()
