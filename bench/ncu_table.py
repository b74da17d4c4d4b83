#!/usr/bin/env python3
"""The Nsight Compute table of docs/cuda-step-update.md from ncu_summary.sh's CSVs: one row per kernel and shape.

Usage: python3 bench/ncu_table.py DIR   (the directory ncu_summary.sh wrote)
"""
import csv
import pathlib
import sys

COLUMNS = [  # (heading, section, metric, scale)
    ("duration µs", "GPU Speed Of Light Throughput", "Duration", 1e-3),
    ("cycles", "GPU Speed Of Light Throughput", "Elapsed Cycles", 1),
    ("DRAM %", "GPU Speed Of Light Throughput", "DRAM Throughput", 1),
    ("SM %", "GPU Speed Of Light Throughput", "Compute (SM) Throughput", 1),
    ("issued warps / scheduler", "Scheduler Statistics", "Issued Warp Per Scheduler", 1),
    ("no eligible %", "Scheduler Statistics", "No Eligible", 1),
    ("cycles / issued instruction", "Warp State Statistics", "Warp Cycles Per Issued Instruction", 1),
    ("registers", "Launch Statistics", "Registers Per Thread", 1),
    ("grid", "Launch Statistics", "Grid Size", 1),
    ("theoretical occupancy %", "Occupancy", "Theoretical Occupancy", 1),
    ("achieved occupancy %", "Occupancy", "Achieved Occupancy", 1),
]

DURATION_NS = {"ns": 1, "nsecond": 1, "us": 1e3, "usecond": 1e3, "ms": 1e6, "msecond": 1e6}


def metrics(path):
    """{(section, metric): value} of the one profiled launch in an ncu --csv --page details file."""
    lines = [line for line in path.read_text().splitlines() if line.startswith('"')]
    rows = list(csv.reader(lines))
    if len(rows) < 2:
        return None
    head = rows[0]
    at = {name: head.index(name) for name in ("Section Name", "Metric Name", "Metric Value", "Metric Unit")}
    values = {}
    for row in rows[1:]:
        unit = row[at["Metric Unit"]]
        value = row[at["Metric Value"]].replace(",", "")
        try:
            number = float(value)
        except ValueError:
            continue
        if row[at["Metric Name"]] == "Duration":
            number *= DURATION_NS[unit]  # ncu picks the unit; the table scales from ns
        values[(row[at["Section Name"]], row[at["Metric Name"]])] = number
    return values


def main():
    folder = pathlib.Path(sys.argv[1])
    print("| kernel, shape | " + " | ".join(c[0] for c in COLUMNS) + " |")
    print("|---" * (len(COLUMNS) + 1) + "|")
    for path in sorted(folder.glob("*.csv")):
        values = metrics(path)
        if values is None:
            print(f"| {path.stem} | no profiled launch (see {path.stem}.err) |")
            continue
        cells = []
        for _, section, metric, scale in COLUMNS:
            v = values.get((section, metric))
            cells.append("-" if v is None else f"{v * scale:,.2f}".rstrip("0").rstrip("."))
        print(f"| {path.stem} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
