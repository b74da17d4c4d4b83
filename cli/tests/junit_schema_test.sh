#!/usr/bin/env bash
# The JUnit of a real `check` (a planted bug, so a failure and a stop at the first finding) and of
# a real `replay` (two recorded traces) is valid against Jenkins xunit's junit-10.xsd (vendored,
# cli/tests/junit/README.md) and carries the Ant schema's required parts; the classnames have no
# dot after the package, no name is an absolute path, and the stopped check lists every planned
# check (docs/decisions.md, "JUnit schema").
# Usage: junit_schema_test.sh QSACHECK SOURCE_DIR
set -eu -o pipefail
qsacheck=$1 source=$2
xsd="$source/cli/tests/junit/junit-10.xsd"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
mkdir out
rc=0
# A bug the invalid batches catch: the run stops there; the scenarios and the extreme batches do not run.
"$qsacheck" check --backend bug:error-index-one-based --workload default --scenarios 1 --steps 50 \
  --batches 1000 --out out --junit check.xml >check.log 2>&1 || rc=$?
[ "$rc" = 1 ] || { cat check.log; echo "check: exit $rc, not 1"; exit 1; }
mkdir traces && cp "$source"/traces/recorded/default.scenario "$source"/traces/recorded/ring-minimum.scenario traces/
"$qsacheck" replay --junit replay.xml traces/default.scenario "$source/traces/recorded/ring-minimum.scenario" >replay.log
for f in check.xml replay.xml; do
  xmllint --noout --schema "$xsd" "$f"
  for part in @id @package @hostname @timestamp system-out system-err; do
    [ "$(xmllint --xpath "count(/testsuites/testsuite[$part])" "$f")" = 1 ] || { echo "FAIL: $f: testsuite lacks $part"; exit 1; }
  done
  xmllint --xpath 'string(/testsuites/testsuite/@timestamp)' "$f" |
    grep -Eqx '[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}' || { echo "FAIL: $f: timestamp not Ant's form"; exit 1; }
  # Jenkins: the class is what follows the classname's last dot; the package is qsacheck.<command>.
  if xmllint --xpath '//testcase/@classname' "$f" | tr ' ' '\n' | grep '=' | sed 's/.*="\(.*\)"/\1/' |
     grep -vE '^qsacheck\.(check|replay)\.[^.]+$'; then
    echo "FAIL: $f: a classname above has a dot in its class"; exit 1
  fi
  names=$(xmllint --xpath '//testcase/@name' "$f")
  if [[ "$names" == *'name="/'* ]]; then echo "FAIL: $f: an absolute name"; exit 1; fi
done
# The stopped check: its rows plus the planned checks that did not run, skipped.
tests=$(xmllint --xpath 'string(/testsuites/testsuite/@tests)' check.xml)
skipped=$(xmllint --xpath 'count(//testcase[skipped])' check.xml)
if [ "$tests" != 5 ] || [ "$skipped" != 2 ]; then cat check.xml; echo "FAIL: $tests testcases, $skipped skipped"; exit 1; fi
message=$(xmllint --xpath 'string(//testcase[@name="metadata on extreme batches (SPEC 1.3 limits, reference)"]/skipped/@message)' check.xml)
[[ "$message" == *"first finding"* ]] || { cat check.xml; echo "FAIL: the extreme batches are not a skipped testcase"; exit 1; }
for name in traces/default.scenario recorded/ring-minimum.scenario; do
  grep -q "name=\"$name\"" replay.xml || { cat replay.xml; echo "FAIL: replay names no $name"; exit 1; }
done
echo "PASS: check.xml ($tests testcases, $skipped skipped) and replay.xml valid against junit-10.xsd"
