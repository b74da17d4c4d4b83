#!/usr/bin/env bash
# Nothing is lost silently: a write error on standard output (a full device, a closed
# descriptor, a pipe whose reader is gone) is a non-zero exit, never 0 and never death by SIGPIPE;
# SIGINT and SIGTERM to replay, and SIGHUP to check, stop the run between steps and leave the
# partial report (exit 3, "stopped_by"), as SIGINT and SIGTERM to check always did.
# Usage: stop_and_stdout_test.sh QSACHECK RECORDED_TRACE
set -u
qsacheck=$1 recorded=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
failures=0
fail() {
  echo "FAIL: $*"
  sed 's/^/  | /' err 2>/dev/null | tail -5
  failures=$((failures + 1))
}

"$qsacheck" replay --json - "$recorded" >/dev/full 2>err
rc=$?
if [ "$rc" -ne 3 ] || ! grep -q "could not write standard output" err; then fail "--json - >/dev/full: exit $rc (expected 3)"; else echo "ok: --json - >/dev/full: exit 3"; fi

"$qsacheck" replay "$recorded" >&- 2>err
rc=$?
if [ "$rc" -ne 3 ]; then fail "stdout closed: exit $rc (expected 3)"; else echo "ok: stdout closed: exit 3"; fi

# A pipe whose reader closed before the first write: EPIPE, reported, instead of SIGPIPE.
python3 - "$qsacheck" "$recorded" 2>err <<'PY'
import os, subprocess, sys
r, w = os.pipe()
os.close(r)
rc = subprocess.run([sys.argv[1], "replay", "--json", "-", sys.argv[2]], stdout=w, stderr=subprocess.DEVNULL).returncode
sys.exit(0 if rc == 3 else print("exit %d (expected 3; -13 is death by SIGPIPE)" % rc, file=sys.stderr) or 1)
PY
if [ $? -ne 0 ]; then fail "stdout a broken pipe"; else echo "ok: stdout a broken pipe: exit 3"; fi

# stopped SIGNAL REPORT ARGS...: the command, signalled once it has printed its first line (its
# handlers are in place by then), exits 3 with the report saying it was stopped by SIGNAL.
stopped() {
  local signal=$1 report=$2 i
  shift 2
  rm -f "$report" out err
  "$@" >out 2>err &
  local pid=$!
  for i in $(seq 600); do
    if [ -s out ] || [ -s err ]; then break; fi
    sleep 0.05
  done
  kill -"$signal" "$pid"
  wait "$pid"
  local rc=$?
  if [ "$rc" -ne 3 ] || ! python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["stopped_by"] == sys.argv[2]' \
       "$report" "SIG$signal" 2>>err; then
    fail "SIG$signal to $*: exit $rc (expected 3 with a partial report saying stopped by SIG$signal)"
  else
    echo "ok: SIG$signal to $*: exit 3, partial report"
  fi
}
"$qsacheck" simulate --steps 10000 long.scenario >/dev/null || fail "simulate"  # 1.3 s to replay here, unsanitized
stopped TERM term.json "$qsacheck" replay --json term.json long.scenario
stopped INT int.json "$qsacheck" replay --json int.json long.scenario
mkdir repro
stopped HUP hup.json "$qsacheck" check --json hup.json --out repro
exit $((failures > 0))
