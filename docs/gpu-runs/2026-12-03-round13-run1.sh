#!/bin/bash
# Round 13 run 1: phase B's first batch loaded early on the latency grid (production) against late
# (tuning), the decode step without its item blocks or without its Q blocks (QSA_EXP_SKIP, a
# temporary build), the GPU tests, upstream in the same command.
R=$OUT; F=/tmp/r; mkdir -p $F
save() { tar czf $R/r13a.tar.gz -C /tmp r; }
stamp() { echo "== $(date +%T) $*" | tee -a $R/stages.txt; }
cd bundle
stamp tests
OUT=$F QSA_REQUIRE_GPU=1 QSA_PHASES="tests" bash run_gpu.sh > $F/run_gpu-tests.log 2>&1; echo "tests rc $?" | tee -a $R/stages.txt
tail -n 30 $F/run_gpu-tests.log > $R/tests-tail.txt; save
stamp bench
FILT='BM_StepUpdate/cuda(-pdl)?/shape:|BM_StepChain|BM_Floor|BM_CopySameSize|BM_StepUpdateTuning/cuda/shape:decode.*/grid:latency(/late_ring_loads)?/iter'
for r in 1 2; do
  ./step_update_bench --benchmark_filter="$FILT" --benchmark_out=$F/step$r.json --benchmark_out_format=json > $F/step-bench-$r.log 2>&1
  echo "bench $r rc $?" | tee -a $R/stages.txt; save
  sed -n '/^Summary/,$p' $F/step-bench-$r.log > $R/summary$r.txt
done
stamp skip
SF='BM_StepUpdate/cuda/shape:decode.*bf16|BM_StepUpdateTuning/cuda/shape:decode.*bf16/grid:latency(/late_ring_loads)?/iter'
for x in items q; do
  QSA_EXP_SKIP=$x ./step_update_bench --benchmark_filter="$SF" > $F/skip-$x.log 2>&1; echo "skip $x rc $?" | tee -a $R/stages.txt
  sed -n '/^Summary/,$p' $F/skip-$x.log > $R/skip-$x.txt
done
save
stamp upstream
cd .. && OUT=$F bash .upstream/run.sh > $F/upstream-console.txt 2>&1; save
cd bundle
./metadata_bench --benchmark_filter='BM_Metadata/cuda|BM_Floor' --benchmark_out=$F/metadata.json --benchmark_out_format=json > $F/metadata-bench.log 2>&1
python3 ../.upstream/compare.py --upstream $F/upstream.json $F/step1.json $F/metadata.json > $R/vs-upstream.txt 2>&1; save
stamp done
cat $R/tests-tail.txt | tail -n 8; cat $R/summary1.txt | head -20; grep -i -A12 tuning $R/summary1.txt | head -14; cat $R/skip-items.txt | head -8; cat $R/skip-q.txt; tail -n 40 $R/vs-upstream.txt
