"""Compare the per-question rows of two `rag eval --out` folders, timings aside: which rows differ
and in what (a refactor should change none).

    python scripts/compare_eval_rows.py /tmp/before /tmp/after
"""

import json
import sys

FIELDS = (
    "abstained",
    "cited",
    "answer",
    "notices",
    "backend",
    "supported_sentences",
    "unsupported",
    "retrieved",
)


def load(folder: str) -> dict:
    rows = {}
    with open(f"{folder}/questions.jsonl") as handle:
        for line in handle:
            row = json.loads(line)
            rows[(row["config"], row["id"])] = row
    return rows


def main(before: str, after: str) -> None:
    old, new, differ = load(before), load(after), 0
    for key, row in old.items():
        if key not in new:
            print("missing", key)
            continue
        changed = [f for f in FIELDS if row.get(f) != new[key].get(f)]
        if changed:
            differ += 1
            print(f"== {key} {row['question'][:90]!r}")
            for field in changed:
                print(f"   {field}: {str(row.get(field))[:300]!r}")
                print(f"   -> {str(new[key].get(field))[:300]!r}")
    print(f"{len(old)} rows, {differ} differ")


if __name__ == "__main__":
    main(*sys.argv[1:3])
