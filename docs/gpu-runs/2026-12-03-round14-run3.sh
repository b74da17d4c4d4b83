#!/bin/bash
# Round 14 final: the final kernels against upstream in one command (two rounds of the step
# benchmark, the upstream harness, metadata_bench, compare.py), the Nsight Compute summary per
# shape..
R=$OUT; F=/tmp/r; mkdir -p $F
save() { tar czf $R/r14b.tar.gz -C /tmp r; }
stamp() { echo "== $(date +%T) $*" | tee -a $R/stages.txt; }
cd bundle
stamp bench
FILT='BM_StepUpdate/cuda(-pdl|-v5)?/shape:|BM_StepChain|BM_Floor|BM_Copy|BM_StepUpdateTuning/cuda/shape:decode.*/grid:latency(/late_ring_loads)?/iter'
for r in 1 2; do
  ./step_update_bench --benchmark_filter="$FILT" --benchmark_out=$F/step$r.json --benchmark_out_format=json > $F/step-bench-$r.log 2>&1
  echo "bench $r rc $?" | tee -a $R/stages.txt; save
  sed -n '/^Summary/,$p' $F/step-bench-$r.log > $R/summary$r.txt
done
stamp upstream
cd .. && OUT=$F bash .upstream/run.sh > $F/upstream-console.txt 2>&1; save
cd bundle
./metadata_bench --benchmark_filter='BM_Metadata/cuda|BM_Floor' --benchmark_out=$F/metadata.json --benchmark_out_format=json > $F/metadata-bench.log 2>&1
python3 ../.upstream/compare.py --upstream $F/upstream.json $F/step1.json $F/metadata.json > $R/vs-upstream.txt 2>&1; save
stamp ncu
bash ../bench/ncu_summary.sh $F/ncu > $F/ncu-console.txt 2>&1; python3 ../bench/ncu_table.py $F/ncu > $R/ncu-summary.md 2>&1; save
stamp done
head -20 $R/summary1.txt; grep -E "^(step|chain|targets)" $R/vs-upstream.txt
