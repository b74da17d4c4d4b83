#!/bin/bash
# Round 19 run 5. The hints of run 4's csqk (q, keys, q_out, compressed) against main's build (base)
# and three neighbours: qk (no hint on the compressed stores), csqkpos (the positions by
# ld.global.cs as well), csqkt (the cos/sin table by ld.global.L2::cache_hint with an evict_last
# policy as well). Two alternating processes each.
F=/tmp/r; mkdir -p $F/ab
run() {  # VARIANT OUTFILE FILTER
  local v=$1 o=$2 filt=$3
  (cd .ab/$v && LD_LIBRARY_PATH=$PWD:$PWD/../libs ./step_update_bench --benchmark_filter="$filt" \
    --benchmark_out=$o.json --benchmark_out_format=json > $o.log 2>&1)
  echo "$v $o rc $? $(date +%s)"
}
PFILT='BM_StepUpdate/cuda(-pdl)?/shape:'
for r in 1 2; do
  for v in base csqk qk csqkpos csqkt; do run $v $F/ab/$v.$r "$PFILT"; done
done
python3 .ab/r15sum.py $F/ab > $OUT/r19-run5-ab.txt
tar czf $OUT/r19c.tar.gz -C /tmp r
cut -c1-200 $OUT/r19-run5-ab.txt
