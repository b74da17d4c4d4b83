#!/bin/bash
# Round 15 final, second command: the final kernels against upstream in one command (the step
# benchmark, the upstream harness, metadata_bench of the final build and of main's before round 15
# alternating, compare.py), and the Nsight Compute summary per shape.
R=$OUT; F=/tmp/r; mkdir -p $F/mab
save() { tar czf $R/r15c.tar.gz -C /tmp r; }
stamp() { echo "== $(date +%T) $*" | tee -a $R/stages.txt; }
cd bundle
stamp bench
FILT='BM_StepUpdate/cuda(-pdl|-v5)?/shape:|BM_StepChain|BM_Floor|BM_Copy'
./step_update_bench --benchmark_filter="$FILT" --benchmark_out=$F/step1.json --benchmark_out_format=json > $F/step-bench-1.log 2>&1
echo "bench rc $?" | tee -a $R/stages.txt; save
sed -n '/^Summary/,$p' $F/step-bench-1.log > $R/summary1.txt
stamp upstream
cd .. && OUT=$F bash .upstream/run.sh > $F/upstream-console.txt 2>&1; save
stamp metadata
for r in 1 2; do
  for v in base final; do
    if [ $v = base ]; then d=.ab/b15base; else d=bundle; fi
    (cd $d && LD_LIBRARY_PATH=$PWD:$PWD/../../bundle ./metadata_bench --benchmark_filter='BM_Metadata/cuda|BM_Floor' \
      --benchmark_out=$F/mab/$v.$r.json --benchmark_out_format=json > $F/mab/$v.$r.log 2>&1)
    echo "metadata $v $r rc $?" | tee -a $R/stages.txt
  done
done
python3 .ab/r15sum.py $F/mab > $R/final-vs-base.txt
python3 .upstream/compare.py --upstream $F/upstream.json $F/step1.json $F/mab/final.1.json > $R/vs-upstream.txt 2>&1; save
stamp ncu
cd bundle && bash ../bench/ncu_summary.sh $F/ncu > $F/ncu-console.txt 2>&1; python3 ../bench/ncu_table.py $F/ncu > $R/ncu-summary.md 2>&1; save
stamp done
grep -E "^(step|chain|md|targets)" $R/vs-upstream.txt | head -80
