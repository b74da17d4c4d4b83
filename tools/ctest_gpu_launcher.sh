#!/bin/sh
# Runs a GPU test on the GPU CTest gave it. With `ctest --resource-spec-file FILE`, a test that
# declares RESOURCE_GROUPS "gpus:1" gets CTEST_RESOURCE_GROUP_0_GPUS="id:3,slots:1"; the launcher
# makes that GPU the only visible one (device 0 inside the test), so no two tests share a GPU.
# Without a resource spec the test runs as it would without the launcher.
gpus="${CTEST_RESOURCE_GROUP_0_GPUS:-}"
if [ -n "$gpus" ]; then
  id="${gpus#id:}"
  id="${id%%,*}"
  CUDA_VISIBLE_DEVICES="$id"
  export CUDA_VISIBLE_DEVICES
fi
exec "$@"
