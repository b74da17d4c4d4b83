#!/bin/bash
# Round 13 run 2: phase B's first batch loaded early on the streaming grid (with the members, with
# the cos/sin rows; both spill at 64 registers), the latency grid at mixed and prefill, and the
# step without its item blocks or Q blocks at mixed and prefill (QSA_EXP_SKIP, temporary).
R=$OUT; F=/tmp/r; mkdir -p $F
save() { tar czf $R/r13b.tar.gz -C /tmp r; }
stamp() { echo "== $(date +%T) $*" | tee -a $R/stages.txt; }
cd bundle
stamp bench
FILT='BM_StepUpdate/cuda(-pdl)?/shape:(mixed|prefill).*bf16|BM_Floor|BM_StepUpdateTuning/cuda/shape:(mixed|prefill).*bf16/grid:(streaming(/items_first)?(/ring_loads:.*)?|latency)/iter'
for r in 1 2; do
  ./step_update_bench --benchmark_filter="$FILT" --benchmark_out=$F/step$r.json --benchmark_out_format=json > $F/step-bench-$r.log 2>&1
  echo "bench $r rc $?" | tee -a $R/stages.txt; save
  sed -n '/^Tunings/,$p' $F/step-bench-$r.log > $R/tunings$r.txt
  sed -n '/^Summary/,/^Tunings/p' $F/step-bench-$r.log | head -12 > $R/summary$r.txt
done
stamp skip
SF='BM_StepUpdate/cuda/shape:(mixed|prefill).*bf16'
for x in items q; do
  QSA_EXP_SKIP=$x ./step_update_bench --benchmark_filter="$SF" > $F/skip-$x.log 2>&1; echo "skip $x rc $?" | tee -a $R/stages.txt
  sed -n '/^Summary/,$p' $F/skip-$x.log | head -12 > $R/skip-$x.txt
done
save
stamp done
cat $R/summary1.txt $R/tunings1.txt $R/tunings2.txt $R/skip-items.txt $R/skip-q.txt
