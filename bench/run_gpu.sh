#!/usr/bin/env bash
# The GPU bundle's runner (staged into bundle/ by `./dev gpu`; run on the GPU machine from inside
# the bundle). Runs, with QSA_REQUIRE_GPU=1 so that a missing device fails instead of skipping,
# the phases named in $QSA_PHASES (default "tests replays campaign sanitizers bench"; one device
# call is limited to 10 minutes, so a session may run "tests campaign sanitizers" and "bench" apart):
#   tests:      the gpu-labelled test binaries (differential, robustness, planted bugs);
#   replays:    the recorded traces (../traces/recorded) against their digests on the CUDA backend,
#               and the fuzz corpora and regressions (../fuzz) with the CUDA backend compared;
#   campaign:   `qsacheck check --backend cuda` (the default campaign, metadata and step update);
#   sanitizers: the differential and robustness tests under compute-sanitizer memcheck, racecheck,
#               initcheck and synccheck, with small corpora so that each stays short;
#   bench:      the benchmarks, each writing a benchmark record (Google Benchmark JSON with our
#               context block, docs/bench-records.md), then `qsacheck report` over them and the
#               records in ../records/history; records and report packed in records.tar.gz;
#   tolerance:  (not in the default list) `qsacheck check --backend cuda --float-tolerance row-ulp:1`,
#               which must report both float outputs 100 % bit-identical (tolerance.json);
#   qbench:     (not in the default list) `qsacheck bench` twice on cuda (compare: no regression),
#               on the example CUDA plugin and on its build variant slower at one shape (compare:
#               a regression at that shape only), then `qsacheck report` over these records and
#               ../records/history; everything in qbench.tar.gz, the tables in qbench.log;
#   plugin:     (not in the default list; QSA_PHASES=plugin with QSA_GPU_BUDGET_S=570) the example CUDA
#               plugin (libqsa_example_cuda.so, built out of tree by `./dev gpu`) through qsacheck:
#               its table, the default campaign, its planted variants (both must be caught), a short
#               campaign under compute-sanitizer memcheck, and the default campaign on --backend cuda
#               for the steps-per-second comparison (logs in qsacheck.log, figures in summary.txt).
#   ctest:      (not in the default list) the gpu test binaries as CTest tests, one per GoogleTest
#               case, each declaring one GPU: a resource spec and a test list made here by
#               ctest_gpu_resources.py, then `ctest --resource-spec-file -j <GPUs>` (needs ctest and
#               python3 on the machine; no two tests share a GPU; ctest.log);
#   devices:    (not in the default list) `qsacheck check --backend cuda` with and without
#               --devices 0 (and --devices all when the host has more), the reports compared without
#               their run facts (devices-*.json in $OUT).
#   worker:     (not in the default list; QSA_PHASES=worker) the Triton example worker
#               (../examples/workers/triton, Python 3.12 + torch + triton): it must fail exact mode
#               and pass --float-tolerance row-ulp:2 on the default campaign at 100 steps per
#               scenario (SPEC 6: upstream's arithmetic reaches two row-ulps on rows with large norm
#               weights), its planted bug must be caught at row-ulp:1; then the example CUDA plugin's
#               default campaign in-process and through qsacheck-worker-host (--isolate) for the
#               steps per second through a worker against in-process.
# Files go to $OUT (./gpu-logs when OUT is unset), 8 at most (the device tool brings back 8):
# summary.txt (the environment, then every step's result; also printed), tests.log (tests and
# replays), qsacheck.log and check.json, sanitizers.log, bench.log (both benchmarks, and ncu),
# records.tar.gz (records/*.json and report/: one file carries the run's benchmarks).
# Exit status: 0 only when every step passed.
set -u
cd "$(dirname "$0")"
OUT="${OUT:-$PWD/gpu-logs}"
mkdir -p "$OUT"
export QSA_REQUIRE_GPU=1
DEADLINE=$(( $(date +%s) + ${QSA_GPU_BUDGET_S:-540} ))
SUMMARY="$OUT/summary.txt"
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
  echo
} > "$SUMMARY" 2>&1

note "qsacheck GPU bundle run, $(date -u +%FT%TZ)"
note "$(sed -n 3p "$SUMMARY")"

PHASES=" ${QSA_PHASES:-tests replays campaign sanitizers bench} "
phase() { [[ "$PHASES" == *" $1 "* ]]; }

# One process per planted bug: a bug can fault the kernel, and a faulted context would fail every
# later test in the process.
each_planted_bug() {
  local binary=$1 rc=0 t
  for t in $("./$binary" --gtest_list_tests | awk '/^[^ ]/ {suite = $1} /^  / {print suite $1}'); do
    "./$binary" --gtest_filter="$t" || rc=1
  done
  return $rc
}
export -f each_planted_bug

if phase tests; then
  step "gpu_device_tests" tests.log 30 ./gpu_device_tests
  step "gpu_metadata_tests (differential + robustness)" tests.log 120 ./gpu_metadata_tests
  step "gpu_metadata_planted_tests (one process per bug)" tests.log 90 bash -c "each_planted_bug gpu_metadata_planted_tests"
  step "gpu_step_update_tests (scenario differential, conversions, robustness)" tests.log 150 ./gpu_step_update_tests
  step "gpu_step_update_planted_tests (one process per bug)" tests.log 90 bash -c "each_planted_bug gpu_step_update_planted_tests"
  grep -hE "^(KILLED|SURVIVED)" "$OUT/tests.log" | cut -c1-220 | sed 's/^/         /' | tee -a "$SUMMARY"
fi

if phase replays; then
  # The bundle sits in a checkout: the traces and corpora are read from beside it.
  step "trace_tests (recorded traces, digests, cuda)" tests.log 60 \
    env QSA_RECORDED_TRACES_DIR=../traces/recorded ./trace_tests --gtest_filter='*Cuda*'
  step "qsacheck replay --backend cuda (recorded traces)" tests.log 60 bash -c './qsacheck replay --backend cuda ../traces/recorded/*.scenario'
  for target in fuzz_metadata fuzz_scenario; do
    step "$target replay (corpus, regressions; cuda compared)" tests.log 90 \
      env QSA_FUZZ_BACKEND=cuda "./$target" "../fuzz/corpus/$target" "../fuzz/regressions/$target"
  done
fi

if phase campaign; then
  step "qsacheck check --backend cuda (default campaign)" qsacheck.log 300 ./qsacheck check --backend cuda --json "$OUT/check.json"
  grep -E "^(SPEC|metadata|scenarios|coverage|          |RESULT)" "$OUT/qsacheck.log" | sed 's/^/         /' | tee -a "$SUMMARY"
fi

if phase ctest; then
  if command -v ctest >/dev/null && command -v python3 >/dev/null; then
    mkdir -p "$OUT/ctest"
    step "ctest resource spec (nvidia-smi -L)" ctest.log 30 python3 ctest_gpu_resources.py spec -o "$OUT/ctest/gpus.json"
    step "ctest test list (one test per GoogleTest case)" ctest.log 60 python3 ctest_gpu_resources.py tests \
      --launcher "$PWD/ctest_gpu_launcher.sh" -o "$OUT/ctest/CTestTestfile.cmake" gpu_device_tests gpu_metadata_tests \
      gpu_metadata_planted_tests gpu_step_update_tests gpu_step_update_planted_tests
    gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
    step "ctest --resource-spec-file -j $gpus (GPU tests spread over every GPU)" ctest.log 400 \
      ctest --test-dir "$OUT/ctest" --resource-spec-file "$OUT/ctest/gpus.json" -j "${gpus:-1}" --output-on-failure
    tail -3 "$OUT/ctest.log" | sed 's/^/         /' | tee -a "$SUMMARY"
  else
    note "SKIPPED  ctest phase: ctest or python3 is not installed on this machine"
  fi
fi

if phase devices; then
  strip_run() { python3 -c 'import json,sys
def strip(v):
    if isinstance(v, dict): return {k: strip(x) for k, x in v.items() if k not in ("run", "seconds", "device")}
    if isinstance(v, list): return [strip(x) for x in v]
    return v
print(json.dumps(strip(json.load(open(sys.argv[1]))), sort_keys=True))' "$1"; }
  step "qsacheck check --backend cuda" qsacheck.log 200 ./qsacheck check --backend cuda --json "$OUT/devices-none.json"
  step "qsacheck check --backend cuda --devices 0" qsacheck.log 200 \
    ./qsacheck check --backend cuda --devices 0 --json "$OUT/devices-0.json"
  without=$(strip_run "$OUT/devices-none.json") with=$(strip_run "$OUT/devices-0.json")
  if [ -n "$without" ] && [ "$without" = "$with" ]; then  # empty: a report is missing
    note "PASS     --devices 0 gives the report of a run without it (but for run facts)"
  else
    note "FAIL     --devices 0 changed the report"; failed=1
  fi
  if (( $(nvidia-smi -L 2>/dev/null | grep -c '^GPU ') > 1 )); then
    step "qsacheck check --backend cuda --devices all" qsacheck.log 200 \
      ./qsacheck check --backend cuda --devices all --json "$OUT/devices-all.json"
    all=$(strip_run "$OUT/devices-all.json")
    if [ -n "$all" ] && [ "$all" = "$without" ]; then
      note "PASS     --devices all gives the single-device report"
    else
      note "FAIL     --devices all changed the report"; failed=1
    fi
  fi
fi

if phase tolerance; then
  # SPEC 6's tolerance mode must measure, not only pass: our exact kernel shows 100 % bit-identical.
  step "qsacheck check --backend cuda --float-tolerance row-ulp:1 (default campaign)" qsacheck.log 400 \
    ./qsacheck check --backend cuda --float-tolerance row-ulp:1 --json "$OUT/tolerance.json"
  grep -E "^  (compressed cache|q_out): " "$OUT/qsacheck.log" | tail -2 | cut -c1-160 | sed 's/^/         /' | tee -a "$SUMMARY"
  if [ "$(grep -E "^  (compressed cache|q_out): 100.000% bit-identical" "$OUT/qsacheck.log" | tail -2 | wc -l)" = 2 ]; then
    note "PASS     both float outputs 100.000% bit-identical under row-ulp:1"
  else
    note "FAIL     the CUDA kernel is not 100 % bit-identical under row-ulp:1 (see qsacheck.log)"
    failed=1
  fi
fi

if phase sanitizers; then
  # The global-table path (NR > 16 384, two launches) through its graph and PDL test, and the
  # warp-table path (NR <= 32) at every tiling.
  META_FILTER='MetadataCudaVsReference.*:MetadataCudaGraph.*:MetadataCudaDeterminism.*:MetadataCudaStreams.*:MetadataCudaGlobalTables.TwoLaunches*:MetadataCudaWarpTables.*'
  STEP_FILTER='StepUpdateCudaVsReference.HandScenarios*:StepUpdateCudaVsReference.GroupPosition*:StepUpdateCudaVsReference.InvalidStep*:StepUpdateCudaConversions.*'
  if [ -z "$SANITIZER" ]; then
    note "FAIL     compute-sanitizer not found"
    failed=1
  else
    # Both kernels under all four tools; QSA_SANITIZE_METADATA=0 leaves the metadata
    # kernel to memcheck alone.
    for tool in memcheck racecheck initcheck synccheck; do
      if [ "$tool" = memcheck ] || [ "${QSA_SANITIZE_METADATA:-1}" = 1 ]; then
        step "compute-sanitizer --tool $tool: metadata" sanitizers.log 45 \
          env QSA_CORPUS_SIZE=50 RC_PARAMS="max_success=25" \
          "$SANITIZER" --tool "$tool" --error-exitcode 86 ./gpu_metadata_tests --gtest_filter="$META_FILTER"
        grep -h "ERROR SUMMARY\|RACECHECK SUMMARY" "$OUT/sanitizers.log" | tail -1 | sed "s/^/         $tool: /" | tee -a "$SUMMARY"
      fi
      step "compute-sanitizer --tool $tool: step update" sanitizers.log 60 \
        "$SANITIZER" --tool "$tool" --error-exitcode 86 ./gpu_step_update_tests --gtest_filter="$STEP_FILTER"
      grep -h "ERROR SUMMARY\|RACECHECK SUMMARY" "$OUT/sanitizers.log" | tail -1 | sed "s/^/         $tool: /" | tee -a "$SUMMARY"
    done
  fi
fi

# One value of nvidia-smi's query (commas would split Google Benchmark's --benchmark_context).
smi() { nvidia-smi --query-gpu="$1" --format=csv,noheader,nounits 2>/dev/null | head -1 | tr -d ',='; }

# Our context block (docs/bench-records.md), given to Google Benchmark as --benchmark_context.
record_context() {
  local version; version=$(./qsacheck --version 2>/dev/null)
  echo "qsacheck_schema_version=1,qsacheck_record=measured,backend=cuda,gpu_name=$(smi name)\
,gpu_driver=$(smi driver_version),gpu_sm_clock_mhz_start=$(smi clocks.sm),gpu_mem_clock_mhz_start=$(smi clocks.mem)\
,cuda_version=$(nvidia-smi 2>/dev/null | grep -o 'CUDA Version: [0-9.]*' | cut -d' ' -f3)\
,qsacheck_version=$(echo "$version" | cut -d' ' -f2),spec_version=$(echo "$version" | sed -n 's/.*SPEC version \([^,]*\),.*/\1/p')\
,qsacheck_commit=$(echo "$version" | sed -n 's/.*commit \([^,]*\),.*/\1/p'),command_line=./$1 (run_gpu.sh bench phase)"
}

# The clocks read right after a benchmark, added at the top of its record's context.
add_end_clocks() {
  [ -f "$1" ] && sed -i "0,/\"context\": {/s//\"context\": {\n    \"gpu_sm_clock_mhz_end\": \"$(smi clocks.sm)\",\n    \"gpu_mem_clock_mhz_end\": \"$(smi clocks.mem)\",/" "$1"
}

if phase bench; then
  touch "$OUT/bench.log"
  RUN_RECORDS=$(mktemp -d)
  mkdir -p "$RUN_RECORDS/records"
  stamp=$(date -u +%Y-%m-%d-%H%M)
  step_json="$RUN_RECORDS/records/$stamp-step_update_bench.json"
  metadata_json="$RUN_RECORDS/records/$stamp-metadata_bench.json"
  step_start=$(wc -l < "$OUT/bench.log")
  step "step_update_bench" bench.log 290 ./step_update_bench --benchmark_out="$step_json" --benchmark_out_format=json \
    --benchmark_color=false --benchmark_context="$(record_context step_update_bench)"
  add_end_clocks "$step_json"
  metadata_start=$(wc -l < "$OUT/bench.log")
  step "metadata_bench" bench.log 150 ./metadata_bench --benchmark_out="$metadata_json" --benchmark_out_format=json \
    --benchmark_color=false --benchmark_context="$(record_context metadata_bench)"
  add_end_clocks "$metadata_json"
  # The report draws this run's records with the repository's earlier ones; without gnuplot on this
  # machine it holds the tables only (exit 3), which is noted, not failed.
  ./qsacheck report "$RUN_RECORDS"/records/*.json ../records/history/*.json -o "$RUN_RECORDS/report" >> "$OUT/bench.log" 2>&1
  rc=$?
  case $rc in
    0) note "PASS     qsacheck report (records.tar.gz: records/, report/index.html)" ;;
    3) note "PASS     qsacheck report without plots (gnuplot missing here; run report elsewhere)" ;;
    *) note "FAIL     qsacheck report (rc $rc; see bench.log)"; failed=1 ;;
  esac
  tar czf "$OUT/records.tar.gz" -C "$RUN_RECORDS" records report
  rm -rf "$RUN_RECORDS"
  echo
  sed -n "$((step_start + 1)),${metadata_start}p" "$OUT/bench.log" | sed -n '/^Summary: time per step/,$p' | tee -a "$SUMMARY"
  tail -n +"$((metadata_start + 1))" "$OUT/bench.log" | sed -n '/^Summary: time per step/,/^Other GPU/p' | tee -a "$SUMMARY"
fi

if phase qbench; then
  touch "$OUT/qbench.log"
  Q=$(mktemp -d)
  mkdir -p "$Q/records"
  stamp=$(date -u +%Y-%m-%d-%H%M)
  step "qsacheck bench --backend cuda (1 of 2)" qbench.log 150 ./qsacheck bench --backend cuda -o "$Q/records/$stamp-qsacheck-bench-cuda-1.json"
  step "qsacheck bench --backend cuda (2 of 2)" qbench.log 150 ./qsacheck bench --backend cuda -o "$Q/records/$stamp-qsacheck-bench-cuda-2.json"
  step "qsacheck bench compare: cuda against itself (no regression expected)" qbench.log 20 \
    ./qsacheck bench compare "$Q/records/$stamp-qsacheck-bench-cuda-1.json" "$Q/records/$stamp-qsacheck-bench-cuda-2.json"
  # The example plugin's straightforward kernels are 3-20 times slower than ours: 3 graph replays
  # per repetition (of 20 to 256 launches each) keep its run near 30 s.
  step "qsacheck bench --backend plugin (example CUDA plugin)" qbench.log 150 ./qsacheck bench --iterations 3 \
    --backend "plugin:$PWD/libqsa_example_cuda.so" -o "$Q/records/$stamp-qsacheck-bench-example-cuda.json"
  step "qsacheck bench --backend plugin (its build slower at one shape)" qbench.log 150 ./qsacheck bench --iterations 3 \
    --backend "plugin:$PWD/libqsa_example_cuda_slower.so" -o "$Q/records/$stamp-qsacheck-bench-example-cuda-slower.json"
  # Exit 1 is the expected verdict here: the slower build must be flagged (at one shape only).
  ./qsacheck bench compare "$Q/records/$stamp-qsacheck-bench-example-cuda.json" \
    "$Q/records/$stamp-qsacheck-bench-example-cuda-slower.json" >> "$OUT/qbench.log" 2>&1
  rc=$?
  regressions=$(grep -c "REGRESSION" "$OUT/qbench.log")
  if [ "$rc" -eq 1 ]; then note "PASS     bench compare flags the slower plugin build (rc 1; REGRESSION lines in qbench.log: $regressions)"
  else note "FAIL     bench compare of the slower plugin build: rc $rc, expected 1"; failed=1; fi
  ./qsacheck report "$Q"/records/*.json ../records/history/*.json -o "$Q/report" >> "$OUT/qbench.log" 2>&1
  note "         qsacheck report: rc $?"
  tar czf "$OUT/qbench.tar.gz" -C "$Q" records report
  rm -rf "$Q"
  grep -E "^(shape|  *shape:|BM_|RESULT|median|benchmark|baseline:|candidate:)|REGRESSION|not timed" "$OUT/qbench.log" | head -120 | tee -a "$SUMMARY" > /dev/null
fi

# campaign_rate NAME BACKEND [ARGS...]: the default campaign on BACKEND (with ARGS), then its steps
# per second (the coverage line's steps over the wall time) in the summary.
campaign_rate() {
  local name=$1 backend=$2 start end steps
  shift 2
  start=$(date +%s.%N)
  step "qsacheck check --backend $name (default campaign$([ $# -gt 0 ] && echo " $*"))" qsacheck.log 400 \
    ./qsacheck check --backend "$backend" "$@"
  end=$(date +%s.%N)
  steps=$(grep -E "^coverage: [0-9]+ steps" "$OUT/qsacheck.log" | tail -1 | awk '{print $2}')
  note "         $name: ${steps:-?} steps in $(awk -v n="${steps:-0}" -v a="$start" -v b="$end" \
    'BEGIN { printf "%.1f s = %.1f steps/s", b - a, n / (b - a) }')"
}

if phase plugin; then
  plugin="plugin:$PWD/libqsa_example_cuda.so"
  step "qsacheck backends --backend plugin (table validation)" qsacheck.log 20 ./qsacheck backends --backend "$plugin"
  campaign_rate "plugin:libqsa_example_cuda.so" "$plugin"
  step "qsacheck mutants --backend plugin (both planted variants caught)" qsacheck.log 120 \
    ./qsacheck mutants --backend "$plugin" --steps 200
  grep -E "#[a-z-]+ +(yes|NO) " "$OUT/qsacheck.log" | cut -c1-200 | sed 's/^/         /' | tee -a "$SUMMARY"
  if [ -n "$SANITIZER" ]; then
    step "compute-sanitizer --tool memcheck: qsacheck check on the plugin" sanitizers.log 120 \
      "$SANITIZER" --tool memcheck --error-exitcode 86 ./qsacheck check --backend "$plugin" --workload default \
      --scenarios 1 --steps 60 --batches 200
    grep -h "ERROR SUMMARY" "$OUT/sanitizers.log" | tail -1 | sed "s/^/         memcheck (plugin): /" | tee -a "$SUMMARY"
  else
    note "FAIL     compute-sanitizer not found"
    failed=1
  fi
  campaign_rate "cuda" cuda
fi

if phase worker; then
  triton="worker:python3 $PWD/../examples/workers/triton/qsa_triton_worker.py"
  export PYTHONPATH="$PWD/../python${PYTHONPATH:+:$PYTHONPATH}"
  # The first call compiles the kernel: a generous timeout per call.
  step "qsacheck backends --backend triton worker (handshake)" qsacheck.log 120 ./qsacheck backends \
    --backend "$triton" --worker-timeout 100
  step "triton worker fails exact mode (exit 1 expected)" qsacheck.log 200 sh -c \
    './qsacheck check --backend "$1" --workload default --scenarios 1 --steps 100 --batches 200 --worker-timeout 100 \
     --out "$2"; test $? -eq 1' sh "$triton" "$OUT"
  start=$(date +%s.%N)
  # Two row-ulps: SPEC 6 (amended 2026-12-05) measures upstream's kernel at two on rare rows, where
  # large norm weights and RoPE amplify a flipped bf16 tie.
  step "triton worker passes row-ulp:2 (default campaign, 100 steps per scenario)" qsacheck.log 420 ./qsacheck check \
    --backend "$triton" --float-tolerance row-ulp:2 --steps 100 --worker-timeout 100 --out "$OUT"
  end=$(date +%s.%N)
  steps=$(grep -E "^coverage: [0-9]+ steps" "$OUT/qsacheck.log" | tail -1 | awk '{print $2}')
  note "         triton worker: ${steps:-?} steps in $(awk -v n="${steps:-0}" -v a="$start" -v b="$end" \
    'BEGIN { printf "%.1f s = %.1f steps/s", b - a, n / (b - a) }')"
  grep -E "bit-identical" "$OUT/qsacheck.log" | tail -2 | sed 's/^/         /' | tee -a "$SUMMARY"
  step "triton worker --bug rope-sign-slip caught at row-ulp:1 (exit 1 expected)" qsacheck.log 200 sh -c \
    './qsacheck check --backend "$1 --bug rope-sign-slip" --float-tolerance row-ulp:1 --workload default \
     --scenarios 1 --steps 100 --batches 200 --worker-timeout 100 --out "$2"; test $? -eq 1' sh "$triton" "$OUT"
  plugin="plugin:$PWD/libqsa_example_cuda.so"
  campaign_rate "plugin:libqsa_example_cuda.so, in-process" "$plugin" --steps 200
  campaign_rate "isolated:plugin:libqsa_example_cuda.so, through qsacheck-worker-host" "isolated:$plugin" --steps 200
fi

# Optional (QSA_NCU=1): Nsight Compute on a few launches of the kernels (durations, throughput).
if [ "${QSA_NCU:-0}" = 1 ]; then
  NCU=$(command -v ncu || true)
  [ -z "$NCU" ] && [ -x /usr/local/cuda/bin/ncu ] && NCU=/usr/local/cuda/bin/ncu
  if [ -n "$NCU" ]; then
    for filter in BM_StepUpdate/cuda/shape:decode/tokens:1024/ BM_StepUpdate/cuda/shape:prefill/tokens:16384/requests:4/dtype:bf16; do
      step "ncu $filter" bench.log 60 "$NCU" --clock-control none --cache-control none -k regex:step_update_row_teams \
        --launch-count 2 --section SpeedOfLight --section LaunchStats --section Occupancy --section MemoryWorkloadAnalysis \
        ./step_update_bench --quick --benchmark_min_time=0.0001 --benchmark_filter="$filter"
    done
    sed -n '/^=== ncu/,$p' "$OUT/bench.log" | grep -E "step_update_row_teams_kernel|Duration|Memory Throughput|DRAM Throughput|Achieved Occupancy|Registers Per" | sed 's/^/         /' | tee -a "$SUMMARY"
  else
    note "SKIPPED  ncu (not found)"
  fi
fi

echo
note "=== summary"
cat "$SUMMARY" | grep -E "^(PASS|FAIL|SKIPPED)"
if (( failed )); then note "RESULT: FAILED"; else note "RESULT: passed"; fi
exit $failed
