#!/bin/bash
# Round 16 run 4 (one device command, on the machine still warm from run 3, whose /tmp/r it
# extends): the final tree against upstream. step_update_bench (with v5, the chains, the copies),
# the upstream harness (the ignored .upstream/ of "How we measure", rebuilt a fourth time this
# round), metadata_bench, compare.py. Carry: bundle, .upstream.
F=/tmp/r; mkdir -p $F
cd bundle && ./step_update_bench --benchmark_filter='BM_StepUpdate/cuda(-pdl|-v5)?/shape:|BM_StepChain|BM_Floor|BM_Copy' --benchmark_out=$F/step1.json --benchmark_out_format=json > $F/step-bench-1.log 2>&1; echo step rc $?
cd .. && OUT=$F bash .upstream/run.sh > $F/upstream-console.txt 2>&1; echo up rc $?
cd bundle && ./metadata_bench --benchmark_filter='BM_Metadata/cuda|BM_Floor' --benchmark_out=$F/md.json --benchmark_out_format=json > $F/md.log 2>&1; echo md rc $?
cd ..; python3 .upstream/compare.py --upstream $F/upstream.json $F/step1.json $F/md.json > $OUT/vs-upstream.txt 2>&1
sed -n '/^Summary/,/^Tunings/p' $F/step-bench-1.log > $OUT/step-summary.txt
tar czf $OUT/r16d.tar.gz -C /tmp r; cat $OUT/vs-upstream.txt; tail -12 $F/upstream-console.txt
