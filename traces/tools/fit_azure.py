#!/usr/bin/env python3
"""Fit the Azure LLM inference traces (2023, Splitwise) into the tables of traces/src/azure_fit.cpp.

Run by hand, never at build or test time (the project reads no trace file at build, test or run
time): DIR holds the public trace files AzureLLMInferenceTrace_code.csv and _conv.csv.

    python3 traces/tools/fit_azure.py DIR > /tmp/azure_fit.txt

Method (see docs/workloads.md):
- lengths: an empirical quantile table per column at fixed levels (parts per million), the value at
  level l being the order statistic sorted[floor(l * (n - 1) / 1e6)] (integer arithmetic, no
  interpolation); the simulator samples it by inverse CDF, linear between points;
- arrivals: the mean rate (n - 1) / (last timestamp - first timestamp), in requests per second,
  written as requests per 1000 s (an integer), plus the coefficient of variation of the gaps for
  the documentation (the simulator uses a binomial per-step count with that mean).
"""
import csv
import datetime
import os
import sys

LEVELS = [i * 25000 for i in range(40)] + [990000, 995000, 999000, 1000000]


def quantile(sorted_values, level_ppm):
    return sorted_values[level_ppm * (len(sorted_values) - 1) // 1000000]


def seconds(stamp):
    # "2023-11-16 18:17:03.9799600": 7 fractional digits, more than datetime parses.
    whole, _, frac = stamp.partition(".")
    t = datetime.datetime.strptime(whole, "%Y-%m-%d %H:%M:%S")
    return t.timestamp() + (float("0." + frac) if frac else 0.0)


def fit(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    ctx = sorted(int(r["ContextTokens"]) for r in rows)
    gen = sorted(int(r["GeneratedTokens"]) for r in rows)
    times = [seconds(r["TIMESTAMP"]) for r in rows]
    span = times[-1] - times[0]
    rate = (len(rows) - 1) / span
    gaps = [b - a for a, b in zip(times, times[1:])]
    mean_gap = sum(gaps) / len(gaps)
    cv = (sum((g - mean_gap) ** 2 for g in gaps) / len(gaps)) ** 0.5 / mean_gap
    return {
        "rows": len(rows), "span_s": span, "rate": rate, "gap_cv": cv,
        "ctx_mean": sum(ctx) / len(ctx), "gen_mean": sum(gen) / len(gen),
        "ctx": [(l, quantile(ctx, l)) for l in LEVELS],
        "gen": [(l, quantile(gen, l)) for l in LEVELS],
    }


def table(points):
    cells = [f"{{{l}, {v}}}" for l, v in points]
    lines, line = [], "    "
    for c in cells:
        if len(line) + len(c) + 2 > 100:
            lines.append(line.rstrip())
            line = "    "
        line += c + ", "
    lines.append(line.rstrip().rstrip(","))
    return "\n".join(lines)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: fit_azure.py DIR   (DIR holds AzureLLMInferenceTrace_code.csv and _conv.csv)")
    folder = sys.argv[1]
    for name in ("code", "conv"):
        r = fit(os.path.join(folder, f"AzureLLMInferenceTrace_{name}.csv"))
        print(f"// {name}: {r['rows']} rows over {r['span_s']:.1f} s, {r['rate']:.4f} req/s "
              f"(rate_per_ks {round(r['rate'] * 1000)}), gap CV {r['gap_cv']:.3f}, "
              f"context mean {r['ctx_mean']:.1f}, generated mean {r['gen_mean']:.1f}")
        print(f"// {name} ContextTokens\n{table(r['ctx'])}")
        print(f"// {name} GeneratedTokens\n{table(r['gen'])}")


if __name__ == "__main__":
    main()
