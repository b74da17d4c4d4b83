# shellcheck shell=bash
# Sourced by the worker tests: a scratch folder $work (removed at exit), a failure count, and
# expect CODE PATTERN ARGS...: runs ARGS and checks the exit code and PATTERN (grep -E) in stdout
# and stderr, printing the command's last lines when either differs.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

expect() {
  local code=$1 pattern=$2
  shift 2
  local start=$SECONDS
  "$@" >"$work/out" 2>&1
  local rc=$?
  if [ "$rc" -ne "$code" ] || ! grep -Eq -- "$pattern" "$work/out"; then
    echo "FAIL: $* -> exit $rc (expected $code), output lacks /$pattern/:"
    sed 's/^/  | /' "$work/out" | tail -20
    failures=$((failures + 1))
  else
    echo "ok: exit $rc in $((SECONDS - start)) s: $*"
  fi
}
