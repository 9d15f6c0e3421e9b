"""The four outputs of `rag eval --out DIR`: report.json, report.md, questions.jsonl, chart.png."""

import json
from datetime import date
from pathlib import Path

from rag.evaluate import answer_table, reason_table, retrieval_table

# What the chart compares, higher is better for all of them.
CHART_METRICS = {
    "recall@5": "recall@5",
    "citation_precision": "citation P",
    "citation_recall": "citation R",
    "supported_sentence_rate": "supported",
    "abstention_accuracy": "abstains when\nunanswerable",
    "false_abstention_rate": "answers when\nanswerable",  # plotted as 1 - rate
    "keyword_hit_rate": "keywords",
}


def write_reports(
    report: dict, rows_by_config: dict[str, list[dict]], out: Path, run: dict
) -> list[Path]:
    """Write every output into `out`; `run` describes the command (questions file, k, ...)."""
    out.mkdir(parents=True, exist_ok=True)
    report = {"run": run | {"date": date.today().isoformat()}, **report}
    paths = [out / "report.json", out / "report.md", out / "questions.jsonl"]
    paths[0].write_text(json.dumps(report, indent=1))
    paths[1].write_text(markdown(report, rows_by_config))
    with paths[2].open("w") as handle:
        for config, rows in rows_by_config.items():
            for row in rows:
                handle.write(json.dumps({"config": config, **row}, ensure_ascii=False) + "\n")
    if report["metrics"]:
        paths.append(chart(report["metrics"], out / "chart.png"))
    return paths


def verdict(row: dict) -> str:
    """A one-word judgement of one answer, for the misses list."""
    if not row["answerable"]:
        return "ok" if row["abstained"] else "answered-unanswerable"
    if row["abstained"]:
        return "wrongly-declined"
    if not row["gold_cited"]:
        return "no-gold-cited"
    return "ok" if row["gold_cited"] == row["gold"] else "partial"


def markdown(report: dict, rows_by_config: dict[str, list[dict]]) -> str:
    run = report["run"]
    parts = [
        "# Evaluation report",
        f"{run['date']} · questions `{run['questions']}` ({run['n']}) · k = {run['k']}"
        + (f" · command `{run['command']}`" if run.get("command") else ""),
        "## Retrieval (paper level, answerable questions)",
        retrieval_table(report["retrieval"]),
    ]
    if report["by_kind"]:
        parts += ["## Answers", answer_table(report["by_kind"]), "![configurations](chart.png)"]
        parts += ["## Declines by reason", reason_table(rows_by_config)]
    for config, rows in rows_by_config.items():
        misses = [r for r in rows if verdict(r) != "ok"]
        parts.append(f"## Misses: {config} ({len(misses)} of {len(rows)})")
        parts.append(
            "\n".join(
                f"- `{r['id']}` {verdict(r)}: {r['question']} — cited: "
                + ("; ".join(r["cited_titles"]) or "nothing")
                for r in misses
            )
            or "None."
        )
    return "\n\n".join(parts) + "\n"


def chart(metrics: dict[str, dict], path: Path) -> Path:
    """Grouped bars (quality metrics) and latency bars, one colour per configuration."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    configs = list(metrics)
    width = 0.8 / len(configs)
    figure, (quality, latency) = plt.subplots(
        1, 2, figsize=(13, 4.5), gridspec_kw={"width_ratios": [3, 1]}
    )
    for i, config in enumerate(configs):
        values = []
        for name in CHART_METRICS:
            value = metrics[config].get(name)
            if value is not None and name == "false_abstention_rate":
                value = 1 - value
            values.append(value or 0.0)
        offsets = [x + i * width for x in range(len(CHART_METRICS))]
        quality.bar(offsets, values, width, label=config)
        seconds = [metrics[config].get(n) or 0.0 for n in ("latency_p50_s", "latency_p95_s")]
        latency.bar([x + i * width for x in range(2)], seconds, width, label=config)
    quality.set_xticks([x + width * (len(configs) - 1) / 2 for x in range(len(CHART_METRICS))])
    quality.set_xticklabels(CHART_METRICS.values(), fontsize=8)
    quality.set_ylim(0, 1.05)
    quality.set_title("Quality (higher is better)")
    quality.legend(fontsize=8)
    latency.set_xticks([x + width * (len(configs) - 1) / 2 for x in range(2)])
    latency.set_xticklabels(["p50", "p95"])
    latency.set_title("Answer latency (s)")
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return path
