#!/bin/bash
# Round 19 run 6 (one device command): the final tree (change 34: the streaming cache hint on q in,
# q out and the keys). (1) Against main's build (base): step_update_bench production launches at
# every shape, both modes and dtypes, two alternating processes each. (2) run_gpu.sh phases
# tests, campaign, sanitizers. (3) Against upstream: step_update_bench (with v5, the chains, the
# copies), the upstream harness, metadata_bench, compare.py. Carry: bundle, .upstream, .ab.
G=/tmp/g; F=/tmp/r; mkdir -p $G $F/ab
for r in 1 2; do
  for v in base new; do
    if [ $v = new ]; then d=bundle; L=$PWD/bundle; else d=.ab/base; L=$PWD/.ab/base:$PWD/.ab/libs; fi
    (cd $d && LD_LIBRARY_PATH=$L ./step_update_bench --benchmark_filter='BM_StepUpdate/cuda(-pdl)?/shape:' \
      --benchmark_out=$F/ab/$v.$r.json --benchmark_out_format=json > $F/ab/$v.$r.log 2>&1)
    echo "ab $v $r rc $?"
  done
done
python3 .ab/r15sum.py $F/ab > $OUT/vs-base.txt
(cd bundle && OUT=$G QSA_REQUIRE_GPU=1 QSA_PHASES="tests campaign sanitizers" QSA_GPU_BUDGET_S=300 bash run_gpu.sh > $G/run_gpu.out 2>&1); echo "run_gpu rc $?"
cp $G/summary.txt $OUT/summary.txt
cd bundle && ./step_update_bench --benchmark_filter='BM_StepUpdate/cuda(-pdl|-v5)?/shape:|BM_StepChain|BM_Floor|BM_Copy' --benchmark_out=$F/step1.json --benchmark_out_format=json > $F/step-bench-1.log 2>&1; echo step rc $?
cd .. && OUT=$F bash .upstream/run.sh > $F/upstream-console.txt 2>&1; echo up rc $?
cd bundle && ./metadata_bench --benchmark_filter='BM_Metadata/cuda|BM_Floor' --benchmark_out=$F/md.json --benchmark_out_format=json > $F/md.log 2>&1; echo md rc $?
cd ..; python3 .upstream/compare.py --upstream $F/upstream.json $F/step1.json $F/md.json > $OUT/vs-upstream.txt 2>&1
sed -n '/^Summary/,/^Tunings/p' $F/step-bench-1.log > $OUT/step-summary.txt
tar czf $OUT/r19d.tar.gz -C /tmp r g
tail -45 $OUT/summary.txt; tail -60 $OUT/vs-upstream.txt; head -20 $OUT/step-summary.txt
