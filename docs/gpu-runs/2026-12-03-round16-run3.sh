#!/bin/bash
# Round 16 run 3: the candidate (ring kind warms its parameter cache before the PDL wait) against
# main's build, metadata_bench in three alternating processes each; the candidate's SASS of the
# ring warp-table tiles; then run_gpu.sh whole on the candidate.
R=$OUT; F=/tmp/r; mkdir -p $F/mab $F/sass
cuobjdump -sass bundle/libqsa_cuda.so > $F/sass/cand.sass 2>&1; echo "sass rc $?"
for r in 1 2 3; do
  for v in base cand; do
    if [ $v = base ]; then d=.ab/base; else d=bundle; fi
    (cd $d && LD_LIBRARY_PATH=$PWD:$PWD/../../bundle ./metadata_bench --benchmark_filter='BM_Metadata/cuda|BM_Floor' \
      --benchmark_out=$F/mab/$v.$r.json --benchmark_out_format=json > $F/mab/$v.$r.log 2>&1)
    echo "md $v $r rc $?"
  done
done
python3 .ab/r15sum.py $F/mab > $F/ab.txt; cut -c1-120 $F/ab.txt
gzip -9 $F/sass/cand.sass
tar czf $R/r16c-ab.tar.gz -C /tmp r
cd bundle && OUT=$R QSA_GPU_BUDGET_S=480 bash run_gpu.sh > /tmp/run_gpu.out 2>&1; echo "run_gpu rc $?"
cat $R/summary.txt | tail -45
