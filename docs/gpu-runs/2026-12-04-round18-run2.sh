#!/bin/bash
# Round 18 run 2: commit2 (phase B's batches loaded two at a time before their stores) against
# main's build (base17): step_update_bench, production modes, both dtypes, and the step chains,
# three alternating processes each.
R=$OUT; F=/tmp/r; mkdir -p $F/ab
run() {  # VARIANT OUTFILE FILTER
  (cd .ab/$1 && LD_LIBRARY_PATH=$PWD:$PWD/../../bundle ./step_update_bench --benchmark_filter="$3" \
    --benchmark_out=$2.json --benchmark_out_format=json > $2.log 2>&1)
  echo "$1 $2 rc $? $(date +%s)"
}
PFILT='BM_StepUpdate/cuda(-pdl)?/shape:|BM_StepChain'
for r in 1 2 3; do
  for v in base17 commit2; do run $v $F/ab/$v.$r "$PFILT"; done
done
for f in $F/ab/base17.*; do mv $f ${f/base17/base}; done
python3 .ab/r15sum.py $F/ab > $R/commit2-ab.txt
tar czf $R/r18b.tar.gz -C /tmp r
cut -c1-150 $R/commit2-ab.txt
