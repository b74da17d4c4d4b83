#!/usr/bin/env python3
"""traces/tools/multiturn_log.py is a pure function of its options and seed, and what it writes is a
request log `qsacheck simulate --requests` replays to the end with prefix hits (docs/workloads.md
"A multi-turn log generator").

    multiturn_log_test.py QSACHECK SOURCE_DIR
"""
import hashlib
import json
import os
import subprocess
import sys
import tempfile

QSACHECK, SOURCE = sys.argv[1], sys.argv[2]
TOOL = os.path.join(SOURCE, "traces", "tools", "multiturn_log.py")
# The log of --conversations 20 --seed 7 (every other option at its default), as this generator
# writes it: a change of the generator or of Python's seeded random shows here.
SEED_7_SHA256 = "cca10b131fec5b37855c42674788aee79418efa4581eec2b92352653ec3f666d"


def generate(*args):
    return subprocess.run([sys.executable, TOOL, *args], check=True, capture_output=True, text=True).stdout


def main():
    failures = []
    first, again = generate("--conversations", "20", "--seed", "7"), generate("--conversations", "20", "--seed", "7")
    if first != again:
        failures.append("two runs with --seed 7 wrote different logs")
    if generate("--conversations", "20", "--seed", "8") == first:
        failures.append("--seed 8 wrote the same log as --seed 7")
    digest = hashlib.sha256(first.encode()).hexdigest()
    if digest != SEED_7_SHA256:
        failures.append(f"--seed 7 wrote a log of sha256 {digest}, expected {SEED_7_SHA256}")
    requests = [json.loads(line) for line in first.splitlines()]
    times = [r["timestamp"] for r in requests]
    if times != sorted(times) or not all(set(r) == {"timestamp", "input_length", "output_length", "hash_ids"}
                                         for r in requests):
        failures.append("the log is not in arrival order or has other fields")

    with tempfile.TemporaryDirectory() as tmp:
        log, scenario = os.path.join(tmp, "chat.jsonl"), os.path.join(tmp, "chat.scenario")
        with open(log, "w") as f:
            f.write(first)
        run = subprocess.run([QSACHECK, "simulate", "--requests", log, "--hash-block", "64", "--json", "-", scenario],
                             capture_output=True, text=True)
        if run.returncode != 0:
            failures.append(f"simulate --requests exited {run.returncode}: {run.stdout}{run.stderr}")
        else:
            replayed = json.loads(run.stdout)["request_log"]["replayed"]
            print(f"replayed {replayed['finished']} of {replayed['requests']} requests, "
                  f"{replayed['prefix_hits']} prefix hits, {replayed['shared_blocks']} shared blocks")
            if replayed["requests"] != len(requests) or replayed["finished"] != len(requests):
                failures.append(f"simulate finished {replayed['finished']} of {len(requests)} requests")
            if replayed["prefix_hits"] == 0 or replayed["shared_blocks"] == 0:
                failures.append("simulate took no prefix hit on a multi-turn log")
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
