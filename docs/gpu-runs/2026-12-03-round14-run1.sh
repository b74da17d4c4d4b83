#!/bin/bash
# Round 14 run 1: the item blocks spread over the first 100, 75, 50, 25 % of the streaming grid
# (four members per load, the production streaming launch now = members:4), items first, and two
# members; mixed and prefill, three processes with different case sets.
R=$OUT; F=/tmp/r; mkdir -p $F
save() { tar czf $R/r14a.tar.gz -C /tmp r; }
cd bundle
T='BM_StepUpdateTuning/cuda/shape:(mixed|prefill).*/grid:streaming(/items_first)?(/members:4)?(/items_span:[0-9]+)?/iter'
A="BM_StepUpdate/cuda(-pdl)?/shape:(mixed|prefill)|$T"
B="$T"
C="BM_StepUpdate/cuda(-pdl)?/shape:|BM_CopySameSize|$T"
for p in A B C; do
  ./step_update_bench --benchmark_filter="${!p}" --benchmark_out=$F/step-$p.json --benchmark_out_format=json > $F/step-bench-$p.log 2>&1
  echo "process $p rc $?"; save
  sed -n '/^Tunings/,$p' $F/step-bench-$p.log | sed 's/BM_StepUpdateTuning.cuda.shape://' > $R/tunings-$p.txt
done
cd .. && python3 .ab/r13sum.py streaming/members:4 $F/step-A.json $F/step-B.json $F/step-C.json | tee $R/vs-members4.txt
sed -n '/^Summary/,$p' $F/step-bench-C.log | head -30
