#!/bin/bash
# Round 19 run 4. Which loads and stores gain from cache hints, against main's build (base):
# csqk: ld.global.cs on q and the keys, st.global.cs on q_out and the compressed rows; k: the keys'
# loads only; kc: keys and compressed stores; kna: the keys by ld.global.nc.L1::no_allocate;
# kqs: keys and q_out stores; kql: keys and q loads. Two alternating processes each.
F=/tmp/r; mkdir -p $F/ab
run() {  # VARIANT OUTFILE FILTER
  local v=$1 o=$2 filt=$3
  (cd .ab/$v && LD_LIBRARY_PATH=$PWD:$PWD/../libs ./step_update_bench --benchmark_filter="$filt" \
    --benchmark_out=$o.json --benchmark_out_format=json > $o.log 2>&1)
  echo "$v $o rc $? $(date +%s)"
}
PFILT='BM_StepUpdate/cuda(-pdl)?/shape:'
for r in 1 2; do
  for v in base csqk k kc kna kqs kql; do run $v $F/ab/$v.$r "$PFILT"; done
done
python3 .ab/r15sum.py $F/ab > $OUT/r19-run4-ab.txt
tar czf $OUT/r19b.tar.gz -C /tmp r
cut -c1-200 $OUT/r19-run4-ab.txt
