#!/bin/bash
# Round 20 run 3. Change 35 again: pol (each access creates its L2::evict_first policy in a
# volatile asm) and polh (the createpolicy asm not volatile, so the compiler may merge and hoist
# it) against main's build (base). The SASS's CREATEPOLICY count per library first.
# step_update_bench production launches, two alternating processes each.
for v in base pol polh; do
  echo "$v: $(cuobjdump -sass .ab/$v/libqsa_cuda.so | grep -c CREATEPOLICY) CREATEPOLICY in libqsa_cuda.so"
done | tee $OUT/r20-run3-createpolicy.txt
F=/tmp/r; mkdir -p $F/ab
run() {  # VARIANT OUTFILE FILTER
  local v=$1 o=$2 filt=$3
  (cd .ab/$v && LD_LIBRARY_PATH=$PWD:$PWD/../libs ./step_update_bench --benchmark_filter="$filt" \
    --benchmark_out=$o.json --benchmark_out_format=json > $o.log 2>&1)
  echo "$v $o rc $? $(date +%s)"
}
PFILT='BM_StepUpdate/cuda(-pdl)?/shape:'
for r in 1 2; do
  for v in base pol polh; do run $v $F/ab/$v.$r "$PFILT"; done
done
python3 .ab/r15sum.py $F/ab > $OUT/r20-run3-ab.txt
tar czf $OUT/r20c.tar.gz -C /tmp r
cut -c1-150 $OUT/r20-run3-ab.txt
