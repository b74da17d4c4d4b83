#!/bin/bash
# Round 19 run 7. fp8 only: the final tree (new: q_out's fp8 stores hinted) against a build whose
# fp8 q_out stores keep the default (fp8plain), three alternating processes each.
F=/tmp/r; mkdir -p $F/ab
for r in 1 2 3; do
  for v in new fp8plain; do
    (cd .ab/$v && LD_LIBRARY_PATH=$PWD:$PWD/../libs ./step_update_bench --benchmark_filter='BM_StepUpdate/cuda(-pdl)?/shape:.*fp8' \
      --benchmark_out=$F/ab/$v.$r.json --benchmark_out_format=json > $F/ab/$v.$r.log 2>&1); echo "$v $r rc $?"
  done
done
for f in $F/ab/new.*; do mv $f ${f/new/base}; done
python3 .ab/r15sum.py $F/ab > $OUT/r19-run7-fp8.txt; cut -c1-120 $OUT/r19-run7-fp8.txt
