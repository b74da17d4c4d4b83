#!/bin/bash
# Round 17 run 2: the parameter blocks reordered by first use against main's build (base16), three
# alternating processes each: metadata_bench for cand (the ring kind's fields in two lines) and
# candB (the same, work_blocks moved to the compressed kind's line), step_update_bench for cand
# (every build now with its own libqsa_planted_cuda.so: run 1's cand step runs failed on the
# bundle's, compiled with the old parameter block).
R=$OUT; F=/tmp/r; mkdir -p $F/mab $F/sab $F/sass
cuobjdump -sass .ab/candB/libqsa_cuda.so > $F/sass/candB.sass 2>&1; echo "sass rc $?"
python3 .ab/sasslines.py $F/sass/candB.sass metadata > $R/candB.lines.txt
FILT='BM_Metadata/cuda(-pdl)?/kind:(ring|compressed)/'
SFILT='BM_StepUpdate/cuda(-pdl)?/shape:|BM_StepChain'
for r in 1 2 3; do
  for v in base16 cand candB; do
    (cd .ab/$v && LD_LIBRARY_PATH=$PWD:$PWD/../../bundle ./metadata_bench --benchmark_filter="$FILT" \
      --benchmark_out=$F/mab/$v.$r.json --benchmark_out_format=json > $F/mab/$v.$r.log 2>&1)
    echo "md $v $r rc $?"
  done
  for v in base16 cand; do
    (cd .ab/$v && LD_LIBRARY_PATH=$PWD:$PWD/../../bundle ./step_update_bench --benchmark_filter="$SFILT" \
      --benchmark_out=$F/sab/$v.$r.json --benchmark_out_format=json > $F/sab/$v.$r.log 2>&1)
    echo "step $v $r rc $?"
  done
done
for d in mab sab; do for f in $F/$d/base16.*; do mv $f ${f/base16/base}; done; done
python3 .ab/r15sum.py $F/mab > $R/md-ab.txt
python3 .ab/r15sum.py $F/sab > $R/step-ab.txt
rm -f $F/sass/*.sass
tar czf $R/r17b.tar.gz -C /tmp r
cut -c1-150 $R/md-ab.txt
cut -c1-130 $R/step-ab.txt | grep -E 'benchmark|bf16'
