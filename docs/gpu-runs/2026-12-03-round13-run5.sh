#!/bin/bash
# Round 13 run 5: the streaming grid with four members per load (no spill at 64 registers now),
# spread and items first, against two members; mixed and prefill, two rounds.
R=$OUT; F=/tmp/r; mkdir -p $F
save() { tar czf $R/r13d.tar.gz -C /tmp r; }
cd bundle
FILT='BM_StepUpdate/cuda/shape:(mixed|prefill)|BM_StepUpdateTuning/cuda/shape:(mixed|prefill).*/grid:streaming(/items_first)?(/members:4)?/iter'
for r in 1 2; do
  ./step_update_bench --benchmark_filter="$FILT" --benchmark_out=$F/step$r.json --benchmark_out_format=json > $F/step-bench-$r.log 2>&1
  echo "bench $r rc $?"; save
  sed -n '/^Tunings/,$p' $F/step-bench-$r.log > $R/tunings$r.txt
done
cat $R/tunings1.txt $R/tunings2.txt
