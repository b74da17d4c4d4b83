#!/usr/bin/env bash
# The GPU bundle's runner (staged into bundle/ by `./dev gpu`; run on the GPU machine from inside
# the bundle). Runs, with QSA_REQUIRE_GPU=1 so that a missing device fails instead of skipping:
#   1. the gpu-labelled test binaries (differential, robustness, planted bugs);
#   2. `qsacheck check --backend cuda` (the default campaign);
#   3. the benchmarks, JSON to $OUT/bench.json;
#   4. the differential and robustness tests again under compute-sanitizer memcheck, racecheck,
#      initcheck and synccheck, with small corpora so that each stays short.
# Logs go to $OUT (./gpu-logs when OUT is unset), at most 8 files; the summary is printed last
# and kept in $OUT/summary.txt. Exit status: 0 only when every step passed.
set -u
cd "$(dirname "$0")"
OUT="${OUT:-$PWD/gpu-logs}"
mkdir -p "$OUT"
export QSA_REQUIRE_GPU=1
DEADLINE=$(( $(date +%s) + ${QSA_GPU_BUDGET_S:-450} ))
SUMMARY="$OUT/summary.txt"
: > "$SUMMARY"
failed=0

note() { echo "$*" | tee -a "$SUMMARY"; }

# step NAME LOG BUDGET_S COMMAND...: runs COMMAND with its output appended to $OUT/LOG, bounded by
# BUDGET_S and by what is left of the overall budget; records the exit status and the time.
step() {
  local name=$1 log=$2 budget=$3
  shift 3
  local left=$(( DEADLINE - $(date +%s) - 10 ))
  (( budget > left )) && budget=$left
  if (( budget <= 0 )); then
    note "SKIPPED  $name (no time left in the budget)"
    failed=1
    return
  fi
  echo "=== $name ($(date -u +%T), budget ${budget}s): $*" >> "$OUT/$log"
  local start=$(date +%s)
  timeout --kill-after=5 "$budget" "$@" >> "$OUT/$log" 2>&1
  local rc=$?
  local took=$(( $(date +%s) - start ))
  if (( rc == 0 )); then note "PASS     $name (${took}s)"; else note "FAIL     $name (rc $rc, ${took}s; see $log)"; failed=1; fi
}

SANITIZER=$(command -v compute-sanitizer || true)
[ -z "$SANITIZER" ] && [ -x /usr/local/cuda/bin/compute-sanitizer ] && SANITIZER=/usr/local/cuda/bin/compute-sanitizer
{
  date -u
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,utilization.gpu --format=csv 2>&1
  echo "compute-sanitizer: ${SANITIZER:-not found}"
  [ -n "$SANITIZER" ] && "$SANITIZER" --version 2>&1 | tail -1
  ./qsacheck --version 2>&1
  ls -la
} > "$OUT/environment.log" 2>&1

note "qsacheck GPU bundle run, $(date -u +%FT%TZ)"
note "$(head -3 "$OUT/environment.log" | tail -1)"

# 1. GPU tests.
step "gpu_device_tests" tests.log 30 ./gpu_device_tests
step "gpu_metadata_tests (differential + robustness)" tests.log 150 ./gpu_metadata_tests
# One process per planted bug: a bug can fault the kernel (a race reading garbage hints reads
# shared memory out of bounds), and a faulted context would fail every later test in the process.
each_planted_bug() {
  local rc=0 t
  for t in $(./gpu_metadata_planted_tests --gtest_list_tests | awk '/^[^ ]/ {suite = $1} /^  / {print suite $1}'); do
    ./gpu_metadata_planted_tests --gtest_filter="$t" || rc=1
  done
  return $rc
}
export -f each_planted_bug
step "gpu_metadata_planted_tests (one process per bug)" tests.log 120 bash -c each_planted_bug
grep -hE "^(KILLED|SURVIVED)" "$OUT/tests.log" | cut -c1-200 | sed 's/^/         /' | tee -a "$SUMMARY"
grep -h "fixed corpus:" "$OUT/tests.log" | sed 's/^/         /' | tee -a "$SUMMARY"

# 2. The default campaign through the CLI.
step "qsacheck check --backend cuda" qsacheck.log 90 ./qsacheck check --backend cuda
grep -E "^(SPEC|metadata|RESULT)" "$OUT/qsacheck.log" | sed 's/^/         /' | tee -a "$SUMMARY"

# 2b. A longer soak of the same checks (larger corpus, more RapidCheck cases, another seed).
step "soak: differential suite, corpus 3000 per kind, 1000 RapidCheck cases per kind" tests.log 90 \
  env QSA_CORPUS_SIZE=3000 RC_PARAMS="max_success=1000" ./gpu_metadata_tests --gtest_filter='MetadataCudaVsReference.*'
grep -h "fixed corpus:" "$OUT/tests.log" | tail -1 | sed 's/^/         soak /' | tee -a "$SUMMARY"
step "soak: qsacheck check --backend cuda --seed 7 --batches 30000" qsacheck.log 90 ./qsacheck check --backend cuda --seed 7 --batches 30000
grep -E "^metadata|^RESULT" "$OUT/qsacheck.log" | tail -2 | sed 's/^/         /' | tee -a "$SUMMARY"

# 3. Benchmarks.
step "metadata_bench" bench.log 150 ./metadata_bench --benchmark_out="$OUT/bench.json" --benchmark_out_format=json --benchmark_color=false

# 4. Sanitizers on the differential and robustness tests, small corpora.
FILTER='MetadataCudaVsReference.*:MetadataCudaGraph.*:MetadataCudaDeterminism.*:MetadataCudaStreams.*:MetadataCudaLimits.*'
if [ -z "$SANITIZER" ]; then
  note "FAIL     compute-sanitizer not found"
  failed=1
else
  for tool in memcheck racecheck initcheck synccheck; do
    step "compute-sanitizer --tool $tool" sanitizers.log 75 \
      env QSA_CORPUS_SIZE=50 RC_PARAMS="max_success=25" \
      "$SANITIZER" --tool "$tool" --error-exitcode 86 ./gpu_metadata_tests --gtest_filter="$FILTER"
    grep -h "ERROR SUMMARY\|RACECHECK SUMMARY" "$OUT/sanitizers.log" | tail -1 | sed "s/^/         $tool: /" | tee -a "$SUMMARY"
  done
fi

# 5. Optional (QSA_NCU=1): Nsight Compute on a few launches of our kernel (durations, stall reasons).
if [ "${QSA_NCU:-0}" = 1 ]; then
  NCU=$(command -v ncu || true)
  [ -z "$NCU" ] && [ -x /usr/local/cuda/bin/ncu ] && NCU=/usr/local/cuda/bin/ncu
  if [ -n "$NCU" ]; then
    # Warm caches (--cache-control none), as in the graph replays; the second launch of each shape
    # is the first replayed from its graph.
    for filter in BM_Metadata/cuda/kind:compressed/tokens:1024/ BM_Metadata/cuda/kind:compressed/tokens:8192/requests:1024/ \
                  BM_Metadata/cuda/kind:compressed/tokens:65536/; do
      step "ncu $filter" ncu.log 60 "$NCU" --clock-control none --cache-control none -k regex:metadata_staged_tiles \
        --launch-count 2 --section SpeedOfLight --section LaunchStats --section WarpStateStats \
        ./metadata_bench --quick --benchmark_min_time=0.0001 --benchmark_filter="$filter"
    done
    grep -E "metadata_staged_tiles_kernel|Duration|Elapsed Cycles|Warp Cycles Per Issued" "$OUT/ncu.log" | sed 's/^/         /' | tee -a "$SUMMARY"
  else
    note "SKIPPED  ncu (not found)"
  fi
fi

echo
sed -n '/^Summary: time per step/,$p' "$OUT/bench.log" | tee -a "$SUMMARY"
echo
note "=== summary"
cat "$SUMMARY" | grep -E "^(PASS|FAIL|SKIPPED)"
if (( failed )); then note "RESULT: FAILED"; else note "RESULT: passed"; fi
exit $failed
