#!/bin/bash
# Round 20 run 1. Against main's build (base, 23ab137): pol: the streamed accesses with an
# L2::evict_first createpolicy (L2::cache_hint) instead of .cs; polna: the same, loads also
# L1::no_allocate; posfirst: the Q path reads its positions before its first q loads; nc: the
# positions and the RoPE table read by ld.global.nc. step_update_bench production launches
# (plain, PDL; bf16, fp8; every shape), two alternating processes each.
F=/tmp/r; mkdir -p $F/ab
run() {  # VARIANT OUTFILE FILTER
  local v=$1 o=$2 filt=$3
  (cd .ab/$v && LD_LIBRARY_PATH=$PWD:$PWD/../libs ./step_update_bench --benchmark_filter="$filt" \
    --benchmark_out=$o.json --benchmark_out_format=json > $o.log 2>&1)
  echo "$v $o rc $? $(date +%s)"
}
PFILT='BM_StepUpdate/cuda(-pdl)?/shape:'
for r in 1 2; do
  for v in base pol polna posfirst nc; do run $v $F/ab/$v.$r "$PFILT"; done
done
python3 .ab/r15sum.py $F/ab > $OUT/r20-run1-ab.txt
tar czf $OUT/r20a.tar.gz -C /tmp r
cut -c1-200 $OUT/r20-run1-ab.txt
