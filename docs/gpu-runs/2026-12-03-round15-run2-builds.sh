# Round 15 run 2 experiment builds (ignored .ab/, never committed as code): usage: wt.sh THREADS -> .ab/b15w$THREADS (metadata_bench + libqsa_cuda.so with the warp table at THREADS threads)
set -e
T=$1
cd /work/main
cp optimized/src/kernels/metadata_params.hpp /tmp/mp.bak; cp optimized/src/metadata_plan.cpp /tmp/plan.bak
sed -i "s/inline constexpr int kWarpTableThreads = 256;/inline constexpr int kWarpTableThreads = $T;/" optimized/src/kernels/metadata_params.hpp
sed -i "s|int32_t default_threads(int64_t /\*nr\*/) { return 256; }|int32_t default_threads(int64_t nr) { return nr <= kMaxWarpTableRequests ? kWarpTableThreads : 256; }|" optimized/src/metadata_plan.cpp
sed -i "s/if (threads != 256 \&\& threads != 512 \&\& threads != 1024)/if (threads != 256 \&\& threads != 512 \&\& threads != 1024 \&\& threads != kWarpTableThreads)/" optimized/src/metadata_plan.cpp
git diff --stat
cmake --build build-gpu --target metadata_bench > /tmp/wt$T.log 2>&1 || { tail -30 /tmp/wt$T.log; cp /tmp/mp.bak optimized/src/kernels/metadata_params.hpp; cp /tmp/plan.bak optimized/src/metadata_plan.cpp; exit 1; }
mkdir -p .ab/b15w$T && cp build-gpu/bin/metadata_bench build-gpu/bin/libqsa_cuda.so .ab/b15w$T/
cp /tmp/mp.bak optimized/src/kernels/metadata_params.hpp; cp /tmp/plan.bak optimized/src/metadata_plan.cpp
echo built $T
