#!/bin/bash
# Round 20 run 6 (one device command): the final tree (change 38: the gain converted after the
# Q path's first loads; change 39: a __syncwarp keeping the q loads ahead of the positions).
# (1) The streaming halves kernel's prologue in the SASS, main's build and the new one. (2) Against
# main's build (base) and change 38 alone (gainraw): step_update_bench production launches, two
# alternating processes each. (3) run_gpu.sh phases tests, campaign, sanitizers. (4) Against
# upstream: step_update_bench, the upstream harness, metadata_bench, compare.py. (5) Nsight
# Compute per shape, for as long as the device time allows. Carry: bundle, .upstream, .ab.
K=_ZN3qsa4cuda6detail28step_update_row_teams_kernelILi128ELi0ELb1ELi2ELi8ELi4ELb1ELi128ELb1ELb0EEEvNS1_10StepParamsE
for lib in .ab/base/libqsa_cuda.so bundle/libqsa_cuda.so; do
  echo "== $lib"; cuobjdump -sass -fun $K $lib | grep -E "LDG|STG|ACQBULK|PREEXIT|WARPSYNC|FADD R[0-9]+, R[0-9]+, 1 |EXIT" | head -40
done > $OUT/prologue-sass.txt 2>&1
G=/tmp/g; F=/tmp/r; mkdir -p $G $F/ab
for r in 1 2; do
  for v in base gainraw new; do
    if [ $v = new ]; then d=bundle; L=$PWD/bundle; else d=.ab/$v; L=$PWD/.ab/$v:$PWD/.ab/libs; fi
    (cd $d && LD_LIBRARY_PATH=$L ./step_update_bench --benchmark_filter='BM_StepUpdate/cuda(-pdl)?/shape:' \
      --benchmark_out=$F/ab/$v.$r.json --benchmark_out_format=json > $F/ab/$v.$r.log 2>&1)
    echo "ab $v $r rc $?"
  done
done
python3 .ab/r15sum.py $F/ab > $OUT/vs-base.txt
(cd bundle && OUT=$G QSA_REQUIRE_GPU=1 QSA_PHASES="tests campaign sanitizers" QSA_GPU_BUDGET_S=300 bash run_gpu.sh > $G/run_gpu.out 2>&1); echo "run_gpu rc $? $(date +%s)"
cp $G/summary.txt $OUT/summary.txt; tar czf $OUT/run-gpu-logs.tar.gz -C $G .
cd bundle && ./step_update_bench --benchmark_filter='BM_StepUpdate/cuda(-pdl|-v5)?/shape:|BM_StepChain|BM_Floor|BM_Copy' --benchmark_out=$F/step1.json --benchmark_out_format=json > $F/step-bench-1.log 2>&1; echo step rc $?
cd .. && OUT=$F bash .upstream/run.sh > $F/upstream-console.txt 2>&1; echo up rc $?
cd bundle && ./metadata_bench --benchmark_filter='BM_Metadata/cuda|BM_Floor' --benchmark_out=$F/md.json --benchmark_out_format=json > $F/md.log 2>&1; echo md rc $?
cd ..; python3 .upstream/compare.py --upstream $F/upstream.json $F/step1.json $F/md.json > $OUT/vs-upstream.txt 2>&1
sed -n '/^Summary/,/^Tunings/p' $F/step-bench-1.log > $OUT/step-summary.txt
tar czf $OUT/json.tar.gz -C /tmp r
echo "bench done $(date +%s)"
cat $OUT/prologue-sass.txt | cut -c1-90; tail -25 $OUT/summary.txt; tail -56 $OUT/vs-upstream.txt | cut -c1-170; cut -c1-150 $OUT/vs-base.txt; head -18 $OUT/step-summary.txt
(cd bundle && timeout 100 bash ../bench/ncu_summary.sh $F/ncu > $OUT/ncu-console.txt 2>&1; echo ncu rc $?)
python3 bench/ncu_table.py $F/ncu > $OUT/ncu-summary.md 2>&1; tar czf $OUT/ncu.tar.gz -C $F ncu
