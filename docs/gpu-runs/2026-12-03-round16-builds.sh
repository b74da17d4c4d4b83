# usage: exp.sh NAME MACRO... -> .ab/NAME (metadata_bench, step_update_bench and libqsa_cuda.so built with each MACRO defined)
set -e
N=$1; shift
cd /work/main
files="optimized/src/kernels/metadata_params.hpp optimized/src/kernels/programmatic_launch.cuh"
for f in $files; do cp $f /tmp/$(basename $f).bak; done
defs=""; for m in "$@"; do defs="$defs#ifndef $m\n#define $m\n#endif\n"; done
for f in $files; do sed -i "s|^#pragma once|#pragma once\n$defs|" $f; done
restore() { for f in $files; do cp /tmp/$(basename $f).bak $f; done; }
source /work/env.sh
cmake --build build-gpu --target metadata_bench step_update_bench > /tmp/exp$N.log 2>&1 || { tail -30 /tmp/exp$N.log; restore; exit 1; }
mkdir -p .ab/$N && cp build-gpu/bin/metadata_bench build-gpu/bin/step_update_bench build-gpu/bin/libqsa_cuda.so .ab/$N/ && strip --strip-unneeded .ab/$N/*
restore
echo built $N
