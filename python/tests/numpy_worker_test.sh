#!/usr/bin/env bash
# The NumPy example worker (examples/workers/numpy) in CI: it passes a short check (two workloads,
# fp8 and MRoPE among them) and the replay of traces/recorded/; each planted bug is caught (exit 1);
# declaring no step update is "not run" (exit 3).
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
expect 3 "does not declare the capability this input needs: the step update" "$qsacheck" check --backend "$w --metadata-only" --workload default --scenarios 1 \
  --steps 20 --batches 50 --out "$work"
exit $((failures > 0))
