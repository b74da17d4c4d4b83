#!/bin/bash
# Round 15 run 2: the warp-table tiles (one row a thread) at 64, 128 and 512 threads a block against
# 256 (bundle/, the production candidate), prefill shapes, plain and PDL, three alternating
# processes; then Nsight Compute's per-instruction stall samples of the 256-thread ring and
# compressed tiles at 2 x 4096 (PDL).
R=$OUT; F=/tmp/r; mkdir -p $F/mab
FILT='BM_Metadata/cuda(-pdl)?/kind:(ring|compressed)/tokens:(8192|16384|65536)/|BM_Floor/(pdl/)?dependent_loads:1/'
for r in 1 2 3; do
  for v in base w64 w128 w512; do
    if [ $v = base ]; then d=bundle; else d=.ab/b15$v; fi
    (cd $d && LD_LIBRARY_PATH=$PWD:$PWD/../../bundle ./metadata_bench --benchmark_filter="$FILT" \
      --benchmark_out=$F/mab/$v.$r.json --benchmark_out_format=json > $F/mab/$v.$r.log 2>&1)
    echo "$v $r rc $?"
  done
done
python3 .ab/r15sum.py $F/mab > $R/warp-threads.txt; cat $R/warp-threads.txt
cd bundle
prof() {  # name, benchmark filter
  ncu --clock-control none --cache-control none --section SourceCounters --section WarpStateStats --section InstructionStats \
    -k regex:metadata_staged_tiles --launch-skip 5 --launch-count 1 -o $F/$1 ./metadata_bench --benchmark_filter="$2" > $F/$1.log 2>&1
  echo "$1 rc $?"
  ncu -i $F/$1.ncu-rep --page source --csv --print-source sass > $F/$1-source.csv 2> $F/$1-source.err
  echo "$1 source rc $? $(wc -l < $F/$1-source.csv) lines"
  ncu -i $F/$1.ncu-rep --page details --csv > $F/$1-details.csv 2>&1
}
prof ring-2x4096 '^BM_Metadata/cuda-pdl/kind:ring/tokens:8192/requests:2/'
prof compressed-2x4096 '^BM_Metadata/cuda-pdl/kind:compressed/tokens:8192/requests:2/'
cd .. && tar czf $R/r15b.tar.gz -C /tmp r
for n in ring-2x4096 compressed-2x4096; do
  grep -E '"(Duration|Executed Instructions|Warp Cycles Per Issued Instruction|Registers Per Thread)"' $F/$n-details.csv | awk -F'","' '{print $(NF-2), "=", $NF}'
  head -3 $F/$n-source.csv | cut -c1-600
done
