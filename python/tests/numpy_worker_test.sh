#!/usr/bin/env bash
# The NumPy example worker (examples/workers/numpy) in CI: it passes a short check (two workloads,
# fp8 and MRoPE among them) and the replay of traces/recorded/; each planted bug is caught (exit 1),
# and all four through `mutants`, which the hello's variants offer; declaring no step update is "not
# run" (exit 3).
# Usage: numpy_worker_test.sh QSACHECK PYTHON SOURCE_DIR
set -u
qsacheck=$1 python=$2 source=$3
worker="$source/examples/workers/numpy/qsa_numpy_worker.py"
# shellcheck source=python/tests/expect.sh
. "$(dirname "$0")/expect.sh"

w="worker:$python $worker"
expect 0 "RESULT: passed" "$qsacheck" check --backend "$w" --workload default --scenarios 2 --steps 60 --batches 300 \
  --out "$work"
expect 0 "RESULT: passed" "$qsacheck" check --backend "$w" --workload mrope-fp8 --scenarios 1 --steps 60 --batches 0 \
  --out "$work"
expect 0 "passed: 60 steps, every digest matches" "$qsacheck" replay --backend "$w" "$source"/traces/recorded/*.scenario
# A worker of protocol 1 (written before constraints existed) is still checked.
expect 0 "RESULT: passed" "$qsacheck" check --backend "worker:$python $source/python/tests/protocol_one_worker.py" \
  --workload default --scenarios 1 --steps 40 --batches 100 --out "$work"
expect 1 "7.4-metadata-invariant k-work" "$qsacheck" check --backend "$w --bug k-work-without-minimum" \
  --workload default --scenarios 1 --steps 30 --batches 100 --out "$work"
expect 1 "step 0: step-differential cache.compressed" "$qsacheck" replay \
  --backend "$w --bug group-position-last-member" "$source/traces/recorded/default.scenario"
# The replay line of every entry point pastes into a shell as it is, for a worker whose command has a
# blank and a quote (engine/replay_command.hpp): check's summary and its JUnit details, each run.
odd="$work/a b'c"
mkdir -p "$odd" && cp "$worker" "$odd/w.py"
export PYTHONPATH="$source/python${PYTHONPATH:+:$PYTHONPATH}"
quoted="'${odd//\'/\'\\\'\'}/w.py'"  # the worker command's own quoting (docs/worker-protocol.md)
expect 1 "replay: " "$qsacheck" check --backend "worker:$python $quoted --bug group-position-last-member" \
  --workload default --scenarios 1 --steps 30 --batches 0 --out "$odd" --junit "$odd/j.xml"
summary_line=$(sed -n 's/^ *replay: *//p' "$work/out" | head -1)
junit_line=$("$python" -c 'import sys, xml.etree.ElementTree as E
for f in E.parse(sys.argv[1]).iter("failure"):
    for line in (f.text or "").splitlines():
        if line.startswith("replay: "): print(line[8:]); sys.exit(0)' "$odd/j.xml")
for line in "$summary_line" "$junit_line"; do
  expect 1 "step-differential" env PATH="$(dirname "$qsacheck"):$PATH" bash -c "$line"
  [ -n "$line" ] || { echo "FAIL: no replay line to paste"; failures=$((failures + 1)); }
done
# The hello offers the four --bug switches as variants (docs/worker-protocol.md): `mutants --backend
# worker:` runs each as COMMAND --bug NAME, and every one is caught (about 2 s).
expect 0 "RESULT: every planted bug was caught" "$qsacheck" mutants --backend "$w" --seed 1 --steps 30 --batches 100 \
  --json "$work/mutants.json"
"$python" -c 'import json, sys
names = sorted(r["planted_bug"].split(" --bug ")[-1] for r in json.load(open(sys.argv[1]))["planted_bugs"])
want = ["group-position-last-member", "k-work-without-minimum", "stray-write-row-rewritten-later", "stray-write-unused-row"]
sys.exit(0 if names == want else print("FAIL: the hello offers", names, "not", want) or 1)' "$work/mutants.json" ||
  failures=$((failures + 1))
expect 3 "does not declare the capability this input needs: the step update" "$qsacheck" check --backend "$w --metadata-only" --workload default --scenarios 1 \
  --steps 20 --batches 50 --out "$work"
exit $((failures > 0))
