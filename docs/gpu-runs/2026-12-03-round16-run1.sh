#!/bin/bash
# Round 16 run 1: SASS of the metadata tiles (base and preload builds); A/B of the metadata
# experiments against main's build, prefill and decode shapes, plain and PDL, three alternating
# processes.
R=$OUT; F=/tmp/r; mkdir -p $F/mab $F/sass
for v in base preload; do
  cuobjdump -sass .ab/$v/libqsa_cuda.so > $F/sass/$v.sass 2>&1; echo "sass $v rc $?"
done
FILT='BM_Metadata/cuda(-pdl)?/kind:(ring|compressed)/|BM_Floor/(pdl/)?dependent_loads:1/'
for r in 1 2 3; do
  for v in base preload noshfl ring512 all; do
    (cd .ab/$v && LD_LIBRARY_PATH=$PWD:$PWD/../../bundle ./metadata_bench --benchmark_filter="$FILT" \
      --benchmark_out=$F/mab/$v.$r.json --benchmark_out_format=json > $F/mab/$v.$r.log 2>&1)
    echo "$v $r rc $?"
  done
done
python3 .ab/r15sum.py $F/mab > $R/ab.txt; cat $R/ab.txt
tar czf $R/r16a.tar.gz -C /tmp r
