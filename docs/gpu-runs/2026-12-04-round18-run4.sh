#!/bin/bash
# Round 18 run 4 (one device command): the final tree (the latency grid capped at 20 blocks per SM
# under PDL). (1) Against main's build (base17): step_update_bench at the decode shapes, both modes
# and dtypes, and the chains, two alternating processes each. (2) run_gpu.sh phases tests,
# campaign, sanitizers. (3) Against upstream: step_update_bench (with v5, the chains, the copies),
# the upstream harness, metadata_bench, compare.py. Carry: bundle, .upstream, .ab.
G=/tmp/g; F=/tmp/r; mkdir -p $G $F/ab
for r in 1 2; do
  for v in base17 new; do
    d=.ab/$v; [ $v = new ] && d=bundle
    (cd $d && LD_LIBRARY_PATH=$PWD:$PWD/../../bundle ./step_update_bench \
      --benchmark_filter='BM_StepUpdate/cuda(-pdl)?/shape:decode|BM_StepChain/.*decode' \
      --benchmark_out=$F/ab/$v.$r.json --benchmark_out_format=json > $F/ab/$v.$r.log 2>&1)
    echo "ab $v $r rc $?"
  done
done
for f in $F/ab/base17.*; do mv $f ${f/base17/base}; done
python3 .ab/r15sum.py $F/ab > $OUT/decode-ab.txt
(cd bundle && OUT=$G QSA_REQUIRE_GPU=1 QSA_PHASES="tests campaign sanitizers" QSA_GPU_BUDGET_S=300 bash run_gpu.sh > $G/run_gpu.out 2>&1); echo "run_gpu rc $?"
cp $G/summary.txt $OUT/summary.txt
cd bundle && ./step_update_bench --benchmark_filter='BM_StepUpdate/cuda(-pdl|-v5)?/shape:|BM_StepChain|BM_Floor|BM_Copy' --benchmark_out=$F/step1.json --benchmark_out_format=json > $F/step-bench-1.log 2>&1; echo step rc $?
cd .. && OUT=$F bash .upstream/run.sh > $F/upstream-console.txt 2>&1; echo up rc $?
cd bundle && ./metadata_bench --benchmark_filter='BM_Metadata/cuda|BM_Floor' --benchmark_out=$F/md.json --benchmark_out_format=json > $F/md.log 2>&1; echo md rc $?
cd ..; python3 .upstream/compare.py --upstream $F/upstream.json $F/step1.json $F/md.json > $OUT/vs-upstream.txt 2>&1
sed -n '/^Summary/,/^Tunings/p' $F/step-bench-1.log > $OUT/step-summary.txt
tar czf $OUT/r18d.tar.gz -C /tmp r g
cut -c1-150 $OUT/decode-ab.txt; tail -45 $OUT/summary.txt; cat $OUT/vs-upstream.txt | tail -60; cat $OUT/step-summary.txt | head -20
