#!/bin/bash
# Round 20 run 5. The Q path's gain (1 + w_q): gainraw loads its bits before the PDL wait and
# converts them only after the first q loads, the positions and the table loads are issued;
# gainlate loads them there too (after the wait). Against main's build (base).
# step_update_bench production launches, two alternating processes each; the SASS of the three
# libraries kept for reading.
for v in base gainraw gainlate; do cuobjdump -sass .ab/$v/libqsa_cuda.so | xz -3 > $OUT/r20-run5-$v.sass.xz; done
F=/tmp/r; mkdir -p $F/ab
run() {  # VARIANT OUTFILE FILTER
  local v=$1 o=$2 filt=$3
  (cd .ab/$v && LD_LIBRARY_PATH=$PWD:$PWD/../libs ./step_update_bench --benchmark_filter="$filt" \
    --benchmark_out=$o.json --benchmark_out_format=json > $o.log 2>&1)
  echo "$v $o rc $? $(date +%s)"
}
PFILT='BM_StepUpdate/cuda(-pdl)?/shape:'
for r in 1 2; do
  for v in base gainraw gainlate; do run $v $F/ab/$v.$r "$PFILT"; done
done
python3 .ab/r15sum.py $F/ab > $OUT/r20-run5-ab.txt
tar czf $OUT/r20d.tar.gz -C /tmp r
cut -c1-150 $OUT/r20-run5-ab.txt
