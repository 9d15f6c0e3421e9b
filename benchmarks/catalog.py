"""Title lookup (`Catalog.find_title`) at scale, and the full difflib scan it replaced.

python -m benchmarks.catalog            # 100k synthetic titles
python -m benchmarks.catalog 20000 --scans 3
"""

import argparse
import random
import statistics
import time

from benchmarks.synthetic import synthetic_records
from rag.models import Paper
from rag.retrieve.catalog import Catalog
from tests.test_catalog import paper, scan  # scan: the lookup before the index


def timed(function, *args):
    started = time.perf_counter()
    result = function(*args)
    return result, time.perf_counter() - started


def queries(papers: list[Paper], rng: random.Random) -> dict[str, list[str]]:
    titles = [paper.title for paper in rng.sample(papers, 50)]
    typo = [t[: len(t) // 2] + "x" + t[len(t) // 2 + 1 :] for t in titles]
    return {
        "exact": titles,
        "other case and punctuation": [t.upper().replace(":", " -") for t in titles],
        "a typo": typo,
        "no such title": [f"A Survey of {t.split(': ')[1]}" for t in titles],
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("papers", type=int, nargs="?", default=100_000)
    parser.add_argument("--scans", type=int, default=1, help="Questions also asked by full scan.")
    args = parser.parse_args()
    rng = random.Random(0)
    records = synthetic_records(args.papers)
    papers = [paper(f"p{n}", record["title"]) for n, record in enumerate(records)]
    catalog, seconds = timed(Catalog, papers)
    print(f"{len(papers)} papers: catalog built in {seconds:.2f} s")
    _, seconds = timed(catalog.find_title, "a first typed title builds the index")
    print(f"first lookup (builds the title index): {seconds:.2f} s")
    for kind, texts in queries(papers, rng).items():
        times = [timed(catalog.find_title, text)[1] * 1000 for text in texts]
        p95 = statistics.quantiles(times, n=20)[-1]
        print(f"{kind}: p50 {statistics.median(times):.2f} ms, p95 {p95:.2f} ms")
    for text in queries(papers, rng)["a typo"][: args.scans]:
        found, seconds = timed(scan, papers, text)
        assert found == catalog.find_title(text)
        print(f"full scan (the old lookup), same answer: {seconds:.1f} s")


if __name__ == "__main__":
    main()
