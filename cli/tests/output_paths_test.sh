#!/usr/bin/env bash
# Output paths: a FIFO given as an output is written in place and stays a FIFO; a
# symbolic link's target is written and the link stays; an output that is one of the inputs or
# another output is refused before any work (exit 2, one JSON line naming the option), compared by
# (st_dev, st_ino) for files that exist and by canonical path for new ones; "-" where standard
# output is not documented and an empty value (a path, a workload) are errors. Everything lives in a temporary folder
# (never a /dev path as an output).
# Usage: output_paths_test.sh QSACHECK RECORDED_TRACE
set -u
qsacheck=$1 recorded=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
failures=0
fail() {
  echo "FAIL: $*"
  sed 's/^/  | /' out | head -20
  failures=$((failures + 1))
}
ok() { echo "ok: $*"; }

# refused FIELD RULE ARGS...: exit 2, stdout exactly one JSON error line with that field and rule.
refused() {
  local field=$1 rule=$2
  shift 2
  "$qsacheck" "$@" >out 2>err
  local rc=$?
  if [ "$rc" -ne 2 ] || ! python3 - "$field" "$rule" 2>>out <<'PY'; then
import json, sys
lines = open("out").read().split("\n")
assert len(lines) == 2 and lines[1] == "", "not exactly one line: %r" % lines
e = json.loads(lines[0])
assert e["status"] == "error" and e["field"] == sys.argv[1] and e["rule"] == sys.argv[2], e
PY
    fail "$* -> exit $rc, expected 2 with $field/$rule"
  else
    ok "$* -> exit 2, $field/$rule"
  fi
}

cp "$recorded" t.scenario
cp "$recorded" u.scenario

# A FIFO as --json: written in place (a reader gets the report), still a FIFO afterwards.
mkfifo report.fifo
timeout 20 cat report.fifo >from-fifo &
reader=$!
timeout 20 "$qsacheck" replay --json report.fifo t.scenario >out 2>&1
rc=$?
wait "$reader"
if [ "$rc" -ne 0 ] || [ ! -p report.fifo ] || ! python3 -c 'import json,sys; json.load(open("from-fifo"))' 2>>out; then
  fail "--json FIFO: exit $rc, still a FIFO: $([ -p report.fifo ] && echo yes || echo no), the reader got: $(head -c 80 from-fifo)"
else
  ok "--json FIFO: written in place, still a FIFO"
fi

# A symbolic link as --json: its target gets the report, the link stays; a dangling link too.
echo old >real.json
ln -s real.json link.json
ln -s created.json dangling.json
"$qsacheck" replay --json link.json --junit dangling.json t.scenario >out 2>&1
rc=$?
if [ "$rc" -ne 0 ] || [ ! -L link.json ] || [ ! -L dangling.json ] || ! grep -q '"passed"' real.json ||
   ! grep -q '<testsuite' created.json; then
  fail "--json LINK: exit $rc; link kept: $([ -L link.json ] && echo yes || echo no), dangling kept: $([ -L dangling.json ] && echo yes || echo no)"
else
  ok "--json LINK and --junit DANGLING-LINK: the targets written, the links kept"
fi

# An output that is an input, or another output: refused, nothing touched.
refused --json output-is-input replay --json t.scenario t.scenario
cmp -s t.scenario "$recorded" || fail "replay --json t.scenario t.scenario changed its input"
ln -s t.scenario alias.scenario
refused --junit output-is-input replay --junit alias.scenario u.scenario t.scenario
mkdir sub
refused --junit same-output replay --json new.json --junit sub/../new.json t.scenario
refused --junit same-output replay --json real.json --junit link.json t.scenario
echo '{}' >a.json
echo '{}' >b.json
refused --json output-is-input merge a.json b.json -o a.json
refused file output-is-input simulate --requests t.scenario t.scenario
refused --json same-output record-expected u.scenario --json u.scenario
[ -e new.json ] && fail "a refused command wrote new.json"

# "-" only where standard output is documented (--json), and never the empty path.
refused --junit unwritable replay --junit - t.scenario
refused --json empty-value replay --json '' t.scenario
refused files empty-value replay ''
refused --workload empty-value check --workload ''  # no longer runs every workload
exit $((failures > 0))
