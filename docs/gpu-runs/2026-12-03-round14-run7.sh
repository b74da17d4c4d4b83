#!/bin/bash
# Round 14 run 7: Nsight Compute (warm caches) of the metadata row tiles at prefill and of the PDL
# ladder's one-load kernel in 32 blocks: instructions per warp and cycles per issued instruction.
cd bundle
S=(--section SpeedOfLight --section LaunchStats --section InstructionStats --section WarpStateStats --section SchedulerStats)
prof() {  # name, kernel regex, benchmark filter
  ncu --clock-control none --cache-control none "${S[@]}" -k "regex:$2" --launch-skip 5 --launch-count 1 --csv --page details \
    ./metadata_bench --benchmark_filter="$3" > $OUT/$1.csv 2> $OUT/$1.err
  echo "$1 rc $?"
}
prof ring-2x4096 metadata_staged_tiles '^BM_Metadata/cuda-pdl/kind:ring/tokens:8192/requests:2/'
prof compressed-2x4096 metadata_staged_tiles '^BM_Metadata/cuda-pdl/kind:compressed/tokens:8192/requests:2/'
prof ring-16x4096 metadata_staged_tiles '^BM_Metadata/cuda-pdl/kind:ring/tokens:65536/requests:16/'
prof ladder-1-32 dependent_loads '^BM_Floor/pdl/dependent_loads:1/blocks:32/'
for f in $OUT/*.csv; do
  echo "== $(basename $f)"
  grep -E '"(Elapsed Cycles|SM Active Cycles|Duration|Executed Instructions|Warp Cycles Per Issued Instruction|Registers Per Thread|Grid Size|Issued Warp Per Scheduler)"' $f | awk -F'","' '{print $(NF-2), "=", $NF}'
done
# --tuning_cases=2 on the device: two cases of each streaming variant at mixed and prefill 16 x 4096.
./step_update_bench --tuning_cases=2 --benchmark_filter='BM_StepUpdateTuning/cuda/shape:(mixed|prefill/tokens:65536).*/grid:streaming(/members:4)?(/case:2)?/iter' \
  --benchmark_out=$OUT/tuning-cases.json --benchmark_out_format=json > $OUT/tuning-cases.log 2>&1
echo "tuning cases rc $?"; sed -n '/^Tunings/,$p' $OUT/tuning-cases.log
