#!/bin/bash
# Round 16 run 2: SASS of the warm build; A/B of the metadata (noshfl, warm, warm+noshfl) and of
# the step update (warm) against main's build, three alternating processes each.
R=$OUT; F=/tmp/r; mkdir -p $F/mab $F/sab $F/sass
cuobjdump -sass .ab/warm/libqsa_cuda.so > $F/sass/warm.sass 2>&1; echo "sass rc $?"
FILT='BM_Metadata/cuda(-pdl)?/kind:(ring|compressed)/|BM_Floor/(pdl/)?dependent_loads:1/'
SFILT='BM_StepUpdate/cuda(-pdl)?/shape:|BM_StepChain'
for r in 1 2 3; do
  for v in base noshfl warm warmns; do
    (cd .ab/$v && LD_LIBRARY_PATH=$PWD:$PWD/../../bundle ./metadata_bench --benchmark_filter="$FILT" \
      --benchmark_out=$F/mab/$v.$r.json --benchmark_out_format=json > $F/mab/$v.$r.log 2>&1)
    echo "md $v $r rc $?"
  done
  for v in base warm; do
    (cd .ab/$v && LD_LIBRARY_PATH=$PWD:$PWD/../../bundle ./step_update_bench --benchmark_filter="$SFILT" \
      --benchmark_out=$F/sab/$v.$r.json --benchmark_out_format=json > $F/sab/$v.$r.log 2>&1)
    echo "step $v $r rc $?"
  done
  tar czf $R/r16b.tar.gz -C /tmp r
done
python3 .ab/r15sum.py $F/mab > $R/md-ab.txt
python3 .ab/r15sum.py $F/sab > $R/step-ab.txt
tar czf $R/r16b.tar.gz -C /tmp r
cut -c1-130 $R/md-ab.txt | grep -E 'benchmark|ring|compressed/tokens:(8192|16384|65536)/requests:(2|4|16)'
cut -c1-100 $R/step-ab.txt | grep -E 'benchmark|bf16'
