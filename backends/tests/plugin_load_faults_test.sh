#!/usr/bin/env bash
# Plugins broken while loading: an inverted capability range, a variant count past its
# array, an abort in qsa_plugin_entry(), exit() in a constructor: each is exit 2 with one JSON line
# naming the plugin (docs/plugin-abi.md promises that, never a crash). A plugin whose error message
# is not UTF-8, run isolated in qsacheck-worker-host: the host answers (the message escaped), so the
# failure is the plugin's status, a finding (exit 1), not the host dying.
# Usage: plugin_load_faults_test.sh QSACHECK INVERTED VARIANT_COUNT ENTRY_ABORTS CONSTRUCTOR_EXITS BAD_UTF8
set -u
qsacheck=$1 inverted=$2 variants=$3 aborts=$4 exits=$5 bad_utf8=$6
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

# expect CODE PATTERN ARGS...: the exit code and PATTERN (grep -E) in stdout; for exit 2, stdout is
# exactly one JSON line.
expect() {
  local code=$1 pattern=$2
  shift 2
  "$@" >"$work/out" 2>"$work/err"
  local rc=$?
  local lines
  lines=$(wc -l <"$work/out")
  if [ "$rc" -ne "$code" ] || ! grep -Eq -- "$pattern" "$work/out" || { [ "$code" -eq 2 ] && [ "$lines" -ne 1 ]; }; then
    echo "FAIL: $* -> exit $rc (expected $code), stdout ($lines lines) lacks /$pattern/:"
    sed 's/^/  | /' "$work/out" "$work/err" | head -20
    failures=$((failures + 1))
  else
    echo "ok: exit $rc: $*"
  fi
}

expect 2 '"backend".*\[bad-table\].*head_dim is \[512, 32\]' "$qsacheck" backends --backend "plugin:$inverted"
expect 2 '"backend".*\[(crashed-while-loading|bad-table)\]' "$qsacheck" backends --backend "plugin:$variants"
expect 2 '"backend".*\[crashed-while-loading\].*signal 6' "$qsacheck" backends --backend "plugin:$aborts"
expect 2 '"backend".*\[crashed-while-loading\].*status 0' "$qsacheck" backends --backend "plugin:$exits"
expect 2 '"backend".*\[crashed-while-loading\]' "$qsacheck" check --backend "plugin:$aborts"
cat >"$work/batch.json" <<'JSON'
{"kind": "compressed", "compress_ratio": 4, "storage_block_size": 64, "query_start_loc": [0, 2], "seq_lens": [2],
 "num_actual_tokens": 2, "block_table": [[1]], "common_slot_mapping": [0, 1]}
JSON
expect 1 "" "$qsacheck" replay --isolate --backend "plugin:$bad_utf8" "$work/batch.json"
if grep -Eq "worker-crashed|worker-exited|malformed-frame" "$work/out"; then
  echo "FAIL: the worker host did not survive the message (it should answer with it escaped)"
  sed 's/^/  | /' "$work/out" | head -10
  failures=$((failures + 1))
fi
exit $((failures > 0))
