#!/bin/bash
# Round 17 run 3: the ring kind's tiles with their own parameter order (RingMetadataParams; the
# compressed and passthrough kinds unchanged) against main's build (base16): the constant-bank
# lines of each metadata kernel (SASS), metadata_bench (and the step chains) in three alternating
# processes each.
R=$OUT; F=/tmp/r; mkdir -p $F/mab $F/sab $F/sass
for v in base16 candR; do
  cuobjdump -sass .ab/$v/libqsa_cuda.so > $F/sass/$v.sass 2>&1; echo "sass $v rc $?"
  python3 .ab/sasslines.py $F/sass/$v.sass metadata > $R/$v.lines.txt
done
FILT='BM_Metadata/cuda(-pdl)?/kind:(ring|compressed)/'
SFILT='BM_StepChain/.*bf16'
for r in 1 2 3; do
  for v in base16 candR; do
    (cd .ab/$v && LD_LIBRARY_PATH=$PWD:$PWD/../../bundle ./metadata_bench --benchmark_filter="$FILT" \
      --benchmark_out=$F/mab/$v.$r.json --benchmark_out_format=json > $F/mab/$v.$r.log 2>&1)
    echo "md $v $r rc $?"
    (cd .ab/$v && LD_LIBRARY_PATH=$PWD:$PWD/../../bundle ./step_update_bench --benchmark_filter="$SFILT" \
      --benchmark_out=$F/sab/$v.$r.json --benchmark_out_format=json > $F/sab/$v.$r.log 2>&1)
    echo "chain $v $r rc $?"
  done
done
for d in mab sab; do for f in $F/$d/base16.*; do mv $f ${f/base16/base}; done; done
python3 .ab/r15sum.py $F/mab > $R/md-ab.txt
python3 .ab/r15sum.py $F/sab > $R/chain-ab.txt
gzip -9 $F/sass/*.sass
tar czf $R/r17c.tar.gz -C /tmp r
cut -c1-130 $R/md-ab.txt
cut -c1-130 $R/chain-ab.txt
