"""Compare the per-question rows of two `rag eval --out` folders, timings aside: which rows differ
and in what (a refactor should change none).

    python scripts/compare_eval_rows.py /tmp/before /tmp/after
"""
import json, sys
FIELDS = ("abstained", "cited", "answer", "notices", "backend", "supported_sentences", "unsupported", "retrieved")
def load(folder):
    rows = {}
    for line in open(f"{folder}/questions.jsonl"):
        r = json.loads(line); rows[(r["config"], r["id"])] = r
    return rows
a, b = load(sys.argv[1]), load(sys.argv[2])
diff = 0
for key in a:
    if key not in b: print("missing", key); continue
    changed = [f for f in FIELDS if a[key].get(f) != b[key].get(f)]
    if changed:
        diff += 1
        print(f"== {key} {a[key]['question'][:90]!r}")
        for f in changed: print(f"   {f}: {str(a[key].get(f))[:300]!r}\n   -> {str(b[key].get(f))[:300]!r}")
print(f"{len(a)} rows, {diff} differ")
