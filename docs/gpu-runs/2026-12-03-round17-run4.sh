#!/bin/bash
# Round 17 run 4 (one device command): the final tree. run_gpu.sh whole (tests, planted variants,
# campaign, sanitizers, benchmarks), then against upstream: step_update_bench (with v5, the
# chains, the copies), the upstream harness (the ignored .upstream/ of "How we measure"),
# metadata_bench, compare.py. Carry: bundle, .upstream, .ab.
G=/tmp/g; F=/tmp/r; mkdir -p $G $F
(cd bundle && OUT=$G QSA_REQUIRE_GPU=1 QSA_GPU_BUDGET_S=400 bash run_gpu.sh > $G/run_gpu.out 2>&1); echo "run_gpu rc $?"
cp $G/summary.txt $OUT/summary.txt
cd bundle && ./step_update_bench --benchmark_filter='BM_StepUpdate/cuda(-pdl|-v5)?/shape:|BM_StepChain|BM_Floor|BM_Copy' --benchmark_out=$F/step1.json --benchmark_out_format=json > $F/step-bench-1.log 2>&1; echo step rc $?
cd .. && OUT=$F bash .upstream/run.sh > $F/upstream-console.txt 2>&1; echo up rc $?
cd bundle && ./metadata_bench --benchmark_filter='BM_Metadata/cuda|BM_Floor' --benchmark_out=$F/md.json --benchmark_out_format=json > $F/md.log 2>&1; echo md rc $?
cd ..; python3 .upstream/compare.py --upstream $F/upstream.json $F/step1.json $F/md.json > $OUT/vs-upstream.txt 2>&1
sed -n '/^Summary/,/^Tunings/p' $F/step-bench-1.log > $OUT/step-summary.txt
tar czf $OUT/r17d.tar.gz -C /tmp r g
tail -45 $OUT/summary.txt; cat $OUT/vs-upstream.txt | tail -60; tail -5 $F/upstream-console.txt
