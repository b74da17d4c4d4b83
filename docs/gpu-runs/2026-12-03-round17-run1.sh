#!/bin/bash
# Round 17 run 1: the parameter blocks reordered by first use (cand) against main's build
# (base16): the constant-bank lines each kernel reads (SASS), then metadata_bench and
# step_update_bench in three alternating processes each.
R=$OUT; F=/tmp/r; mkdir -p $F/mab $F/sab $F/sass
for v in base16 cand; do
  cuobjdump -sass .ab/$v/libqsa_cuda.so > $F/sass/$v.sass 2>&1; echo "sass $v rc $?"
  python3 .ab/sasslines.py $F/sass/$v.sass > $F/sass/$v.lines.txt
done
FILT='BM_Metadata/cuda(-pdl)?/kind:(ring|compressed)/'
SFILT='BM_StepUpdate/cuda(-pdl)?/shape:|BM_StepChain'
for r in 1 2 3; do
  for v in base16 cand; do
    (cd .ab/$v && LD_LIBRARY_PATH=$PWD:$PWD/../../bundle ./metadata_bench --benchmark_filter="$FILT" \
      --benchmark_out=$F/mab/$v.$r.json --benchmark_out_format=json > $F/mab/$v.$r.log 2>&1)
    echo "md $v $r rc $?"
    (cd .ab/$v && LD_LIBRARY_PATH=$PWD:$PWD/../../bundle ./step_update_bench --benchmark_filter="$SFILT" \
      --benchmark_out=$F/sab/$v.$r.json --benchmark_out_format=json > $F/sab/$v.$r.log 2>&1)
    echo "step $v $r rc $?"
  done
done
for d in mab sab; do for f in $F/$d/base16.*; do mv $f ${f/base16/base}; done; done
python3 .ab/r15sum.py $F/mab > $R/md-ab.txt
python3 .ab/r15sum.py $F/sab > $R/step-ab.txt
for v in base16 cand; do gzip -9 $F/sass/$v.sass; done
cp $F/sass/*.lines.txt $R/
tar czf $R/r17a.tar.gz -C /tmp r
cut -c1-130 $R/md-ab.txt | grep -E 'benchmark|/tokens:(8192|16384|65536|4096)/'
cut -c1-100 $R/step-ab.txt | grep -E 'benchmark|bf16'
grep -c . $R/*.lines.txt
