#!/usr/bin/env bash
# Fault isolation: a worker that crashes, exits, hangs, writes garbage, a malformed frame,
# a wrong-sized buffer or another call's reply is a finding (exit 1) naming the rule and what the
# worker printed, within the timeout; a plugin that aborts under --isolate is a finding with a
# reproducer; every worker process (and its children) is gone when qsacheck ends, SIGTERM and a
# second SIGINT included; under --keep-going each fault restarts the worker. Handshake failures (exit 2) are cases of cli/tests/bad_inputs/.
# Usage: worker_faults_test.sh QSACHECK FAULT_WORKER ABORTING_PLUGIN RECORDED_TRACE
set -u
qsacheck=$1 worker=$2 aborting=$3 recorded=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

fail() {
  echo "FAIL: $*"
  sed 's/^/  | /' "$work/out" | head -30
  failures=$((failures + 1))
}

# Every pid the fault worker wrote must be gone (a zombie waiting for an init that never reaps counts as gone).
all_gone() {
  local pid state
  for pid in $(cat "$work/pids" 2>/dev/null); do
    state=$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)
    if [ -n "$state" ] && [ "$state" != Z ]; then
      echo "process $pid is still running (state $state)"
      return 1
    fi
  done
}

# expect CODE PATTERN SECONDS ARGS...: the exit code, PATTERN (grep -E, lines joined) in stdout and stderr, at
# most SECONDS of wall time, and no worker process left.
expect() {
  local code=$1 pattern=$2 seconds=$3
  shift 3
  rm -f "$work/pids"
  local start=$SECONDS
  "$@" >"$work/out" 2>&1
  local rc=$? took=$((SECONDS - start))
  if [ "$rc" -ne "$code" ] || ! tr '\n' ' ' <"$work/out" | grep -Eq -- "$pattern"; then
    fail "$* -> exit $rc (expected $code), output lacks /$pattern/"
  elif [ "$took" -gt "$seconds" ]; then
    fail "$* took $took s (at most $seconds)"
  elif ! all_gone >>"$work/out"; then
    fail "$* left a worker process behind"
  else
    echo "ok: exit $rc in $took s: $*"
  fi
}

w() { echo "worker:python3 $worker $1 $work/pids"; }

# Waits (at most 60 s) until the fault worker got its first call.
wait_for_call() {
  local i
  for i in $(seq 600); do
    [ -e "$work/pids.called" ] && return 0
    sleep 0.1
  done
}

# Each fault at the first call of a replay: a finding at step 0, with the rule and the worker's output.
expect 1 "step 0: metadata-worker-crashed.*signal 11.*first call is metadata" 30 \
  "$qsacheck" replay --backend "$(w segfault)" "$recorded"
expect 1 "metadata-worker-exited.*status 3" 30 "$qsacheck" replay --backend "$(w exit)" "$recorded"
expect 1 "metadata-worker-timeout.*within 6 s" 40 \
  "$qsacheck" replay --backend "$(w hang)" --worker-timeout 6 "$recorded"
expect 1 "metadata-malformed-frame.*frame magic" 30 "$qsacheck" replay --backend "$(w garbage)" "$recorded"
expect 1 "metadata-malformed-frame.*not a JSON object" 30 \
  "$qsacheck" replay --backend "$(w bad-json)" "$recorded"
expect 1 "metadata-wrong-size.*token_to_req is 4 bytes" 30 \
  "$qsacheck" replay --backend "$(w wrong-size)" "$recorded"
expect 1 "metadata-bad-reply.*does not answer" 30 "$qsacheck" replay --backend "$(w wrong-id)" "$recorded"
# In a campaign: reported like any disagreement (the table, exit 1), never a crash of qsacheck.
expect 1 "FAILED SPEC 8 worked examples.*" 30 "$qsacheck" check --backend "$(w segfault)" --workload default \
  --scenarios 1 --steps 20 --batches 10 --out "$work"

# A plugin that aborts at its third step update, isolated: a finding at step 2, shrunk (a crash is
# a failure of its own kind; each candidate starts a fresh worker) to a reproducer of 3 steps that
# replays the same fault.
expect 1 "step 2: step-update-worker-crashed.*signal 6.*shrunk .* to 3 steps, 1 requests; it fails step 2: step-update-worker-crashed" 90 "$qsacheck" check --isolate \
  --backend "plugin:$aborting" --workload default --scenarios 1 --steps 20 --batches 10 --out "$work"
repro=$(ls "$work"/qsacheck-repro-isolated_plugin_*.scenario 2>/dev/null | head -1)
if [ -z "$repro" ]; then
  fail "no reproducer for the aborting plugin in $work"
else
  expect 1 "step 2: step-update-worker-crashed" 30 "$qsacheck" replay --isolate \
    --backend "plugin:$aborting" "$repro"
fi

# --keep-going: after each crash the next call starts a fresh worker, so both scenarios run and each
# fails at its own third step update (an answer of the old fault would say "earlier call").
expect 1 "2 finding\(s\):" 90 "$qsacheck" check --isolate --keep-going --backend "plugin:$aborting" \
  --workload default --scenarios 2 --steps 20 --batches 10 --out "$work" --json "$work/keep-going.json"
python3 - "$work/keep-going.json" >>"$work/out" 2>&1 <<'PY' || fail "--keep-going did not restart the worker"
import json, sys
report = json.load(open(sys.argv[1]))
whats = [f["finding"] for f in report["findings"]]
assert len(whats) == 2, whats
assert all("step 2: step-update-worker-crashed" in w and "earlier call" not in w for w in whats), whats
PY

# SIGTERM while the worker hangs (in check's first metadata call): the campaign stops once the call
# ends (the timeout: a finding) and the worker's group goes with it. Then replay, which stops the
# same way (it used to die of SIGTERM, leaving no report); the group still goes.
rm -f "$work/pids" "$work/pids.called"
"$qsacheck" check --backend "$(w hang)" --worker-timeout 6 --out "$work" >"$work/out" 2>&1 &
qsacheck_pid=$!
wait_for_call
kill -TERM "$qsacheck_pid"
start=$SECONDS
wait "$qsacheck_pid"
rc=$?
if [ "$rc" -ne 1 ] || [ $((SECONDS - start)) -gt 20 ] || ! all_gone >>"$work/out"; then
  fail "after SIGTERM check exited $rc (expected 1: the timeout is a finding), took $((SECONDS - start)) s or left its worker"
else
  echo "ok: SIGTERM: exit $rc, worker gone"
fi
rm -f "$work/pids" "$work/pids.called"
"$qsacheck" replay --backend "$(w hang)" --worker-timeout 6 "$recorded" >"$work/out" 2>&1 &
qsacheck_pid=$!
wait_for_call
kill -TERM "$qsacheck_pid"
wait "$qsacheck_pid"
rc=$?
sleep 0.2
if [ "$rc" -ne 1 ] || ! all_gone >>"$work/out"; then
  fail "replay after SIGTERM: exit $rc (expected 1: the timeout is a finding) or left its worker"
else
  echo "ok: replay, SIGTERM: exit $rc, worker gone"
fi

# Two SIGINTs: check ends at once (no partial report) and still ends the worker's group. (A
# background job of a script starts with SIGINT ignored; check installs its own handler.)
rm -f "$work/pids" "$work/pids.called"
"$qsacheck" check --backend "$(w hang)" --worker-timeout 60 --out "$work" >"$work/out" 2>&1 &
qsacheck_pid=$!
wait_for_call
kill -INT "$qsacheck_pid"
sleep 0.2
kill -INT "$qsacheck_pid"
start=$SECONDS
wait "$qsacheck_pid"
rc=$?
sleep 0.2
if [ $((SECONDS - start)) -gt 5 ] || ! all_gone >>"$work/out"; then
  fail "after two SIGINTs (exit $rc) qsacheck took $((SECONDS - start)) s or left its worker"
else
  echo "ok: two SIGINTs: exit $rc, worker gone"
fi
exit $((failures > 0))
