#!/usr/bin/env python3
"""Write the coverage table of docs/workloads.md: each workload's scenario of 200 steps, seed 1.

Run by hand after a change to the simulator or to coverage_of, then paste the output over the
table (never at build or test time):

    python3 traces/tools/coverage_table.py build/bin/qsacheck > /tmp/coverage.md

Every figure is `qsacheck simulate --json -`'s `coverage` (traces::coverage_of, defined in
docs/workloads.md "Coverage figures") but the parenthesis of the last column, the negative common
slots on group-closing rows, which this script counts in the scenario file:
(start + offset + 1) mod C = 0.
"""
import json
import os
import subprocess
import sys
import tempfile

STEPS = 200
SEED = 1


def workload_names(qsacheck):
    text = subprocess.run([qsacheck, "simulate", "--help"], check=True, capture_output=True, text=True).stdout
    names, listing = [], False
    for line in text.splitlines():
        if "Workload model:" in line:
            listing = True
            continue
        if listing:
            words = line.split()
            if not words or words[0].startswith("-"):
                break
            names.append(words[0])
    return names


def row(qsacheck, workload, folder):
    path = os.path.join(folder, workload + ".scenario")
    run = subprocess.run([qsacheck, "simulate", "--workload", workload, "--seed", str(SEED), "--steps", str(STEPS),
                          "--json", "-", path], check=True, capture_output=True, text=True)
    c = json.loads(run.stdout)["coverage"]
    with open(path, encoding="utf-8") as f:
        lines = [json.loads(line) for line in f if line.strip()]
    config = lines[0]["config"]
    ratio = config["compress_ratio"]
    closing = sum(1 for step in lines[1:] for chunk in step["chunks"]
                  for offset in chunk.get("negative_common_slots", [])
                  if (chunk["start"] + offset + 1) % ratio == 0)
    name = workload
    if config["workload"] != workload:  # a mix names its member: adversarial:production-blocks
        name += " (" + config["workload"][len(workload):] + ")"
    geometry = "%d/%d/%d/%d" % (ratio, config["block_size"], config["num_speculative_tokens"], config["ring_capacity"])
    figures = [c["requests"], c["rows"], c["ring_wraps"], c["drafts_rejected"], c["preemptions"], c["prefix_hits"],
               c["padded_steps"], c["groups_closed"]]
    return "| %s | %s | %s | %d (%d) |" % (name, geometry, " | ".join(str(x) for x in figures),
                                          c["negative_common_slots"], closing)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: coverage_table.py QSACHECK")
    qsacheck = sys.argv[1]
    print("| workload | C/B/drafts/R | requests | rows | ring wraps | drafts rejected | preemptions | prefix hits "
          "| padded steps | groups closed | negative slots (on closing rows) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as folder:
        for workload in workload_names(qsacheck):
            print(row(qsacheck, workload, folder))


if __name__ == "__main__":
    main()
