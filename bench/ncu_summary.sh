#!/usr/bin/env bash
# Nsight Compute summary of the production kernels at the benchmark shapes: one launch
# of each inside the benchmarks' CUDA graphs (the sixth matching launch, so the graph is warm),
# clocks not locked, as the timings run. Writes one CSV per kernel and shape into OUT_DIR.
# Run on the GPU machine from bundle/ (staged by ./dev gpu):  bash ../bench/ncu_summary.sh OUT_DIR
set -uo pipefail
out=${1:?usage: ncu_summary.sh OUT_DIR}
mkdir -p "$out"
sections=(--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats
          --section SchedulerStats)

failed=0
profile() {  # name, benchmark binary, kernel name regex, benchmark filter
  ncu --clock-control none "${sections[@]}" -k "regex:$3" --launch-skip 5 --launch-count 1 --csv --page details \
    "./$2" --benchmark_filter="$4" >"$out/$1.csv" 2>"$out/$1.err"
  local rc=$?
  echo "$1: rc $rc"
  [[ $rc -eq 0 ]] || failed=1
}

# The five shapes (phase/tokens:N/requests:NR), every one for both kernels.
shapes=(decode/tokens:1024/requests:256 decode/tokens:4096/requests:1024 mixed/tokens:8192/requests:1024
        prefill/tokens:16384/requests:4 prefill/tokens:65536/requests:16)
for shape in "${shapes[@]}"; do
  label=${shape//\//_}
  profile "step_${label//:/}" step_update_bench step_update_row_teams "^BM_StepUpdate/cuda/shape:$shape/dtype:bf16/"
done
for kind in compressed ring; do
  for shape in "${shapes[@]}"; do
    sizes=${shape#*/}  # metadata_bench names a shape by its sizes only
    label=${sizes//\//_}
    profile "metadata_${kind}_${label//:/}" metadata_bench metadata_staged_tiles "^BM_Metadata/cuda/kind:$kind/$sizes/"
  done
done
exit "$failed"  # a profile that failed says so in its .err file
