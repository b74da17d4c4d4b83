#!/bin/bash
# Round 21 run 2 (one device command): (1) the ladder on main's tree: the whole step (bundle), the
# Q blocks or the items alone (.ab/skip: QSA_EXP_SKIP=i|q), the Q path's loads and stores without
# arithmetic with and without the items (.ab/skel, QSA_EXP_Q_SKELETON); bf16, both launch modes,
# one process each. (2) Nsight Compute per shape of the final kernels (bench/ncu_summary.sh).
F=/tmp/r; mkdir -p $F/ladder; t0=$(date +%s)
FILT='BM_StepUpdate/cuda(-pdl)?/shape:.*/dtype:bf16/|BM_CopySameSize/kernel/.*dtype:bf16'
lad() {  # name dir skip
  local L=$PWD/$2:$PWD/bundle
  (cd $2 && QSA_EXP_SKIP=$3 QSA_EXP_SKELETON_RUN=1 LD_LIBRARY_PATH=$L ./step_update_bench --benchmark_filter="$FILT" \
     --benchmark_out=$F/ladder/$1.json --benchmark_out_format=json > $F/ladder/$1.log 2>&1); echo "ladder $1 rc $? $(( $(date +%s) - t0 )) s"
}
(cd bundle && ./step_update_bench --benchmark_filter="$FILT" --benchmark_out=$F/ladder/whole.json --benchmark_out_format=json > $F/ladder/whole.log 2>&1); echo "ladder whole rc $?"
lad qonly .ab/skip i
lad items .ab/skip q
lad skelitems .ab/skel ""
lad skel .ab/skel i
python3 .ab/ladder.py $F/ladder > $OUT/ladder.txt 2>&1; cat $OUT/ladder.txt
(cd bundle && timeout 330 bash ../bench/ncu_summary.sh $F/ncu > $OUT/ncu-console.txt 2>&1; echo "ncu rc $? $(( $(date +%s) - t0 )) s")
python3 bench/ncu_table.py $F/ncu > $OUT/ncu-summary.md 2>&1; tar czf $OUT/ncu.tar.gz -C $F ncu
tar czf $OUT/json.tar.gz -C /tmp r
head -60 $OUT/ncu-summary.md | cut -c1-220
