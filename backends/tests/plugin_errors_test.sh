#!/usr/bin/env bash
# qsacheck on plugins it cannot use: exit 2 with one JSON line naming the path and what is
# missing (never a crash), and exit 3 when a campaign leaves out what a plugin does not declare.
# Usage: plugin_errors_test.sh QSACHECK ABI NO_ENTRY NULL_STEP NO_KINDS COMPRESSED_ONLY TEXT_FILE RECORDED_TRACE
set -u
qsacheck=$1 abi=$2 no_entry=$3 null_step=$4 no_kinds=$5 compressed_only=$6 text_file=$7 recorded=$8
failures=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# expect CODE PATTERN ARGS...: the exit code, and PATTERN (grep -E) in stdout.
expect() {
  local code=$1 pattern=$2
  shift 2
  "$@" >"$work/out" 2>"$work/err"
  local rc=$?
  if [ "$rc" -ne "$code" ] || ! grep -Eq -- "$pattern" "$work/out"; then
    echo "FAIL: $* -> exit $rc (expected $code), stdout lacks /$pattern/:"
    sed 's/^/  | /' "$work/out" "$work/err" | head -20
    failures=$((failures + 1))
  else
    echo "ok: exit $rc: $*"
  fi
}

expect 2 "abi-version.*$abi" "$qsacheck" backends --backend "plugin:$abi"
expect 2 "missing-symbol.*$no_entry.*qsa_plugin_entry" "$qsacheck" backends --backend "plugin:$no_entry"
expect 2 "missing-symbol.*$null_step.*step_update" "$qsacheck" check --backend "plugin:$null_step"
expect 2 "missing-capability.*$no_kinds" "$qsacheck" replay --backend "plugin:$no_kinds" /dev/null
expect 2 "unloadable.*$text_file" "$qsacheck" backends --backend "plugin:$text_file"
expect 2 "unloadable.*/nonexistent/lib.so" "$qsacheck" backends --backend plugin:/nonexistent/lib.so
expect 2 "unknown-variant.*no-such" "$qsacheck" mutants --backend "plugin:$compressed_only#no-such"
# A capability the plugin lacks, asked for directly: exit 2 naming it.
cat >"$work/ring.json" <<'JSON'
{"kind": "ring", "ring_capacity": 4, "query_start_loc": [0, 2], "seq_lens": [2], "num_actual_tokens": 2,
 "block_table": [[1]]}
JSON
expect 2 "cache kind ring.*missing-capability" "$qsacheck" eval metadata --backend "plugin:$compressed_only" --input "$work/ring.json"
# In a campaign: what it admits is checked and passes, the rest is listed as not run (exit 3).
expect 3 "not run" "$qsacheck" check --backend "plugin:$compressed_only" --workload default \
  --scenarios 1 --steps 20 --batches 200 --out "$work"
expect 3 "not run .*cache kind ring" "$qsacheck" replay --backend "plugin:$compressed_only" "$recorded"
exit $((failures > 0))
