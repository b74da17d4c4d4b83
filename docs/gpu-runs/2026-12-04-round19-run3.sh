#!/bin/bash
# Round 19 run 3. Cache hints and a positions prefetch against main's build (base), step_update_bench
# production launches (plain, PDL; bf16, fp8; every shape), two alternating processes each.
# csq: q loads ld.global.cs, q_out stores st.global.cs; csqk: also the keys' loads and the
# compressed stores; pos: a Q block prefetches (L2) the positions of the block 528 later;
# csqkpos: both.
F=/tmp/r; mkdir -p $F/ab
run() {  # VARIANT OUTFILE FILTER
  local v=$1 o=$2 filt=$3
  (cd .ab/$v && LD_LIBRARY_PATH=$PWD:$PWD/../libs ./step_update_bench --benchmark_filter="$filt" \
    --benchmark_out=$o.json --benchmark_out_format=json > $o.log 2>&1)
  echo "$v $o rc $? $(date +%s)"
}
PFILT='BM_StepUpdate/cuda(-pdl)?/shape:'
for r in 1 2; do
  for v in base csq csqk pos csqkpos; do run $v $F/ab/$v.$r "$PFILT"; done
done
python3 .ab/r15sum.py $F/ab > $OUT/r19-run3-ab.txt
tar czf $OUT/r19a.tar.gz -C /tmp r
cut -c1-200 $OUT/r19-run3-ab.txt
