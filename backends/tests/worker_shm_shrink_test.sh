#!/usr/bin/env bash
# A worker that shrinks its shared memory, right after the handshake or inside a call, is a finding
# (exit 1), never SIGBUS in qsacheck: the memfd is sealed F_SEAL_SHRINK, so the worker's
# ftruncate fails and its answer is judged like any other (docs/worker-protocol.md, "The shared
# memory"). On an unsealed memfd qsacheck died of SIGBUS (exit 135) reading or writing the pages.
# Usage: worker_shm_shrink_test.sh QSACHECK FAULT_WORKER RECORDED_TRACE
set -u
qsacheck=$1 worker=$2 recorded=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
for mode in shrink-after-handshake shrink-in-call; do
  timeout 60 "$qsacheck" replay --backend "worker:python3 $worker $mode $work/pids" "$recorded" >"$work/out" 2>&1
  rc=$?
  if [ "$rc" -ne 1 ] || ! grep -q "FAIL step 0" "$work/out"; then
    echo "FAIL: $mode -> exit $rc (expected 1, a finding at step 0)"
    sed 's/^/  | /' "$work/out" | head -30
    failures=$((failures + 1))
  else
    echo "ok: $mode -> exit 1: $(grep -m1 -E 'step 0' "$work/out")"
  fi
done
exit $((failures > 0))
