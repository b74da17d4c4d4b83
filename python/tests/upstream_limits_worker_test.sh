#!/usr/bin/env bash
# The upstream-limits example worker (examples/workers/upstream_limits, docs/production-kernels.md)
# in CI: with its declarations it passes at every workload (--scenarios 1 --steps 100) and on the
# generated, invalid and extreme batches, exit 0 with its exclusions listed and nothing declined
# after generation; without them, its honest declines are findings (declined-admitted-input, exit 1).
# Usage: upstream_limits_worker_test.sh QSACHECK PYTHON SOURCE_DIR
set -u
qsacheck=$1 python=$2 source=$3
worker="$source/examples/workers/upstream_limits/qsa_upstream_limits_worker.py"
# shellcheck source=python/tests/expect.sh
. "$(dirname "$0")/expect.sh"

w="worker:$python $worker"
# The batches (generated, invalid, extreme at 1000) once, with the first workload; the declared
# deviation is stated; nothing is declined after generation.
expect 0 "declined after generation: 0" "$qsacheck" check --backend "$w" --workload default --scenarios 1 \
  --steps 100 --batches 1000 --out "$work" --json "$work/default.json"
grep -q '"negative-slots-pass-through"' "$work/default.json" ||
  { echo "FAIL: the report does not state the declared deviation"; failures=$((failures + 1)); }
for workload in $("$qsacheck" check --help | awk '/^ *--workload/ {on = 1; next} on && /^ *--/ {on = 0}
                                                 on && NF > 1 && $1 ~ /^[a-z][a-z0-9-]*$/ {print $1}'); do
  [ "$workload" = default ] && continue
  expect 0 "RESULT: passed" "$qsacheck" check --backend "$w" --workload "$workload" --scenarios 1 --steps 100 \
    --batches 0 --out "$work"
done
# The same kernel without its declarations: an honest decline of an admitted input is a finding.
expect 1 "declined-admitted-input" "$qsacheck" check --backend "$w --no-declarations" --workload default \
  --scenarios 1 --steps 100 --batches 300 --out "$work"
# The deviation is what makes its passthrough slots equal: undeclared, a -8 slot is a finding.
expect 1 "padding-inert.*slot -1|metadata-differential slot_mapping" "$qsacheck" check --backend "$w --without-deviation" --workload default \
  --scenarios 1 --steps 20 --batches 300 --out "$work"
# A class the declarations leave untested beyond --allow-excluded fails the run; allowed, it passes.
printf '# C not a power of two: upstream needs one\n' >"$work/none.txt"
expect 1 "excluded beyond --allow-excluded: compress_ratio_non_power_of_two_batch" "$qsacheck" check --backend "$w" \
  --workload default --scenarios 1 --steps 20 --batches 300 --out "$work" --allow-excluded "$work/none.txt"
printf 'compress_ratio_non_power_of_two_batch\n' >"$work/allowed.txt"
expect 0 "RESULT: passed" "$qsacheck" check --backend "$w" --workload default --scenarios 1 --steps 20 \
  --batches 300 --out "$work" --allow-excluded "$work/allowed.txt"
exit $((failures > 0))
