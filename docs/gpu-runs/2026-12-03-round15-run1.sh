#!/bin/bash
# Round 15 run 1: the metadata tiles with one row a thread at compile time (bundle/, the draft
# patch applied) against main's build (.ab/b15base), three alternating processes each, plain and
# PDL, every kind and shape; then the new build's GPU tests, replays and sanitizers.
R=$OUT; F=/tmp/r; mkdir -p $F/mab
FILT='BM_Metadata/cuda|BM_Floor/(pdl/)?dependent_loads:1/'
for r in 1 2 3; do
  for v in base one-row; do
    if [ $v = base ]; then d=.ab/b15base; else d=bundle; fi
    (cd $d && LD_LIBRARY_PATH=$PWD:$PWD/../../bundle ./metadata_bench --benchmark_filter="$FILT" \
      --benchmark_out=$F/mab/$v.$r.json --benchmark_out_format=json > $F/mab/$v.$r.log 2>&1)
    echo "$v $r rc $?"
  done
done
python3 .ab/r15sum.py $F/mab > $R/one-row-vs-base.txt; cat $R/one-row-vs-base.txt
cd bundle && OUT=$F/gpu QSA_PHASES="tests replays sanitizers" QSA_GPU_BUDGET_S=200 bash run_gpu.sh > $F/run_gpu.console 2>&1
echo "run_gpu rc $?"; cp $F/gpu/summary.txt $R/summary.txt; grep -E "PASS|FAIL|KILLED|SURVIVED|SKIP" $F/gpu/summary.txt | head -60
tar czf $R/r15a.tar.gz -C /tmp r
