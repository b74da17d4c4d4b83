#!/bin/bash
# Round 21 run 1 (one device command): main's exact tree (539ea2b, change 38 landed in 05d9dcb).
# (1) run_gpu.sh phases tests, campaign, sanitizers. (2) Two processes of step_update_bench's
# production launches, both dtypes (fp8 against bf16 across processes). Carry: bundle, .ab.
G=/tmp/g; F=/tmp/r; mkdir -p $G $F/p
t0=$(date +%s)
(cd bundle && OUT=$G QSA_REQUIRE_GPU=1 QSA_PHASES="tests campaign sanitizers" QSA_GPU_BUDGET_S=330 bash run_gpu.sh > $G/run_gpu.out 2>&1); echo "run_gpu rc $? $(( $(date +%s) - t0 )) s"
cp $G/summary.txt $OUT/summary.txt; tar czf $OUT/run-gpu-logs.tar.gz -C $G .
for r in 1 2; do
  (cd bundle && ./step_update_bench --benchmark_filter='BM_StepUpdate/cuda(-pdl)?/shape:' \
     --benchmark_out=$F/p/prod.$r.json --benchmark_out_format=json > $F/p/prod.$r.log 2>&1); echo "prod $r rc $? $(( $(date +%s) - t0 )) s"
done
tar czf $OUT/json.tar.gz -C /tmp r
tail -42 $OUT/summary.txt | cut -c1-160
