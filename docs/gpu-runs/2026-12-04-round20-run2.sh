#!/bin/bash
# Round 20 run 2 (one device command): the final tree (23ab137's kernels; no round-20 change kept).
# (1) run_gpu.sh phases tests, campaign, sanitizers. (2) Against upstream: step_update_bench (with
# v5, the chains, the copies), the upstream harness, metadata_bench, compare.py. (3) Nsight Compute
# per shape (bench/ncu_summary.sh, both kernels at the five shapes). Carry: bundle,
# .upstream, .ab/r20b.sh.
G=/tmp/g; F=/tmp/r; mkdir -p $G $F
(cd bundle && OUT=$G QSA_REQUIRE_GPU=1 QSA_PHASES="tests campaign sanitizers" QSA_GPU_BUDGET_S=300 bash run_gpu.sh > $G/run_gpu.out 2>&1); echo "run_gpu rc $? $(date +%s)"
cp $G/summary.txt $OUT/summary.txt; cp $G/run_gpu.out $OUT/run_gpu.out  # summary.txt holds run_gpu.out
cd bundle && ./step_update_bench --benchmark_filter='BM_StepUpdate/cuda(-pdl|-v5)?/shape:|BM_StepChain|BM_Floor|BM_Copy' --benchmark_out=$F/step1.json --benchmark_out_format=json > $F/step-bench-1.log 2>&1; echo step rc $?
cd .. && OUT=$F bash .upstream/run.sh > $F/upstream-console.txt 2>&1; echo up rc $?
cd bundle && ./metadata_bench --benchmark_filter='BM_Metadata/cuda|BM_Floor' --benchmark_out=$F/md.json --benchmark_out_format=json > $F/md.log 2>&1; echo md rc $?
cd ..; python3 .upstream/compare.py --upstream $F/upstream.json $F/step1.json $F/md.json > $OUT/vs-upstream.txt 2>&1
sed -n '/^Summary/,/^Tunings/p' $F/step-bench-1.log > $OUT/step-summary.txt
tar czf $OUT/r20b-json.tar.gz -C /tmp r
echo "bench done $(date +%s)"
(cd bundle && bash ../bench/ncu_summary.sh $F/ncu > $OUT/ncu-console.txt 2>&1; echo ncu rc $?)
python3 bench/ncu_table.py $F/ncu > $OUT/ncu-summary.md 2>&1
tar czf $OUT/r20b-ncu.tar.gz -C $F ncu
echo "ncu done $(date +%s)"
tail -45 $OUT/summary.txt; tail -60 $OUT/vs-upstream.txt; cat $OUT/ncu-summary.md
