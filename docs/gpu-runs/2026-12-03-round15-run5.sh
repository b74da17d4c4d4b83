#!/bin/bash
# Round 15 run 5 (measurement only, the final tree): Nsight Compute's per-instruction stall samples
# at the finest sampling interval for the metadata kernels whose targets are still open: the
# staged ring tiles at mixed (NR = 1024, plain) and the warp-table ring tiles at 2 x 4096 (PDL).
R=$OUT; F=/tmp/r; mkdir -p $F
cd bundle
prof() {  # name, benchmark filter
  ncu --clock-control none --cache-control none --warp-sampling-interval 0 --section SourceCounters --section WarpStateStats \
    --section InstructionStats --section LaunchStats -k regex:metadata_staged_tiles --launch-skip 5 --launch-count 1 \
    -o $F/$1 ./metadata_bench --benchmark_filter="$2" > $F/$1.log 2>&1
  echo "$1 rc $?"
  ncu -i $F/$1.ncu-rep --page source --csv --print-source sass > $F/$1-source.csv 2> $F/$1-source.err
  ncu -i $F/$1.ncu-rep --page details --csv > $F/$1-details.csv 2>&1
}
prof ring-mixed-plain '^BM_Metadata/cuda/kind:ring/tokens:8192/requests:1024/'
prof ring-2x4096-pdl '^BM_Metadata/cuda-pdl/kind:ring/tokens:8192/requests:2/'
prof compressed-2x4096-plain '^BM_Metadata/cuda/kind:compressed/tokens:8192/requests:2/'
rm -f $F/*.ncu-rep
tar czf $R/r15e.tar.gz -C /tmp r
for n in ring-mixed-plain ring-2x4096-pdl compressed-2x4096-plain; do
  echo "== $n"
  grep -E '"(Duration|Executed Instructions|Warp Cycles Per Issued Instruction|Registers Per Thread|Grid Size|Block Size)"' $F/$n-details.csv | awk -F'","' '{print $(NF-2), "=", $NF}'
done
