#!/bin/bash
# Round 13 run 7: four members per load on the streaming grid against two, each variant also as a
# second benchmark case of the same kernel (copy:2), in three processes with different case sets.
R=$OUT; F=/tmp/r; mkdir -p $F
save() { tar czf $R/r13e.tar.gz -C /tmp r; }
cd bundle
T='BM_StepUpdateTuning/cuda/shape:(mixed|prefill).*/grid:streaming(/items_first)?(/members:4)?(/copy:2)?/iter'
A="BM_StepUpdate/cuda/shape:(mixed|prefill)|$T"
B="$T"
C="BM_StepUpdate/cuda(-pdl)?/shape:|BM_CopySameSize|$T"
for p in A B C; do
  ./step_update_bench --benchmark_filter="${!p}" --benchmark_out=$F/step-$p.json --benchmark_out_format=json > $F/step-bench-$p.log 2>&1
  echo "process $p rc $?"; save
  sed -n '/^Tunings/,$p' $F/step-bench-$p.log | sed 's/BM_StepUpdateTuning.cuda.shape://' > $R/tunings-$p.txt
done
paste $R/tunings-A.txt $R/tunings-B.txt $R/tunings-C.txt | awk -F'\t' '{print $1, "|", $2, "|", $3}' | sed -E 's/ +/ /g; s/\| [^ ]+ ([0-9.]+)/| \1/g'
