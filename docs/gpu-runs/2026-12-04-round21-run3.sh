#!/bin/bash
# Round 21 run 3 (one device command): both sides back to back on main's tree (539ea2b):
# step_update_bench (production launches, v5, chains, floor, copies), the upstream harness
# (.upstream, rebuilt a fifth time), metadata_bench, compare.py. Carry: bundle, .upstream, .ab.
F=/tmp/r; mkdir -p $F; t0=$(date +%s)
(cd bundle && ./step_update_bench --benchmark_filter='BM_StepUpdate/cuda(-pdl|-v5)?/shape:|BM_StepChain|BM_Floor|BM_Copy' --benchmark_out=$F/step1.json --benchmark_out_format=json > $F/step-bench-1.log 2>&1); echo "step rc $? $(( $(date +%s) - t0 )) s"
OUT=$F bash .upstream/run.sh > $F/upstream-console.txt 2>&1; echo "up rc $? $(( $(date +%s) - t0 )) s"
(cd bundle && ./metadata_bench --benchmark_filter='BM_Metadata/cuda|BM_Floor' --benchmark_out=$F/md.json --benchmark_out_format=json > $F/md.log 2>&1); echo "md rc $? $(( $(date +%s) - t0 )) s"
python3 .upstream/compare.py --upstream $F/upstream.json $F/step1.json $F/md.json > $OUT/vs-upstream.txt 2>&1
sed -n '/^Summary/,/^Tunings/p' $F/step-bench-1.log > $OUT/step-summary.txt
python3 .ab/fp8sum.py $F/step1.json > $OUT/fp8-vs-bf16.txt 2>&1
tar czf $OUT/json.tar.gz -C /tmp r
tail -30 $F/upstream-console.txt | cut -c1-160; tail -56 $OUT/vs-upstream.txt | cut -c1-150; head -18 $OUT/step-summary.txt; cat $OUT/fp8-vs-bf16.txt | cut -c1-100
