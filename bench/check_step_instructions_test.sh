#!/bin/bash
# CI gate on the checker's own instructions: the same scenario checked through the host
# example plugin and through the NumPy example worker may cost at most a bounded multiple of the
# reference-only run, counted by callgrind in qsacheck's process (a worker's own process is not
# followed). A ratio of two runs of one binary, so compilers and build types cancel out. Measured
# (the first 150 steps of azure-conv): plugin 1.38 x, worker 1.68 x; at 9ec623c, before the cache
# journal, the worker 1.89 x (fails its gate); at 504e5ce, before the adapters kept the caches
# resident, 2.37 x and 2.16 x (both fail).
# Usage: check_step_instructions_test.sh QSACHECK PLUGIN.so PYTHON WORKER.py   (exit 77: no valgrind)
set -u
qsacheck=$1 plugin=$2 python=$3 worker=$4
if ! command -v valgrind > /dev/null; then
  echo "SKIP: valgrind is not installed (apt-get install valgrind)"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
instructions() {  # BACKEND -> the instructions of one check run, or exit 1
  # Children forked to probe a plugin print their own (small) totals: the run's is the largest.
  valgrind --tool=callgrind --callgrind-out-file="$work/cg.%p" "$qsacheck" check --workload azure-conv --scenarios 1 \
    --steps 150 --batches 0 --backend "$1" --out "$work" > "$work/out" 2>&1 || {
    echo "FAIL: qsacheck check --backend $1 failed under callgrind:"; tail -20 "$work/out"; exit 1; }
  sed -n 's/.*refs: *\([0-9,]*\).*/\1/p' "$work/out" | tr -d , | sort -n | tail -1
}
reference=$(instructions reference)
echo "reference only: $reference instructions"
status=0
gate() {  # NAME BACKEND BOUND
  local n ratio
  n=$(instructions "$2")
  ratio=$(awk -v a="$n" -v b="$reference" 'BEGIN { printf "%.2f", a / b }')
  echo "$1: $n instructions, $ratio x the reference-only run (at most $3 x)"
  awk -v r="$ratio" -v m="$3" 'BEGIN { exit !(r <= m) }' || { echo "FAIL: $1 costs $ratio x, above $3 x"; status=1; }
}
gate "host example plugin" "plugin:$plugin" 1.8
if [ -n "$python" ]; then
  gate "NumPy example worker" "worker:$python $worker" 1.85
else
  echo "no python3 with NumPy here: the worker is not measured"
fi
exit $status
