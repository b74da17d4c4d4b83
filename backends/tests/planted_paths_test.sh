#!/usr/bin/env bash
# Issue 55: the CPU planted set through the three paths a kernel reaches qsacheck by: built in
# (`qsacheck mutants`), a plugin built from the C ABI whose variants are the planted bugs
# (`mutants --backend plugin:PATH.so`), and a worker whose --bug plants one (`mutants --backend
# worker:COMMAND`, the variants its hello offers). The three kill tables must name the same bugs,
# and catch the same ones, except the bugs that only an invalid input shows: the plugin and worker
# adapters validate every input with the contract's validator before the kernel sees it
# (docs/plugin-abi.md), so those must survive both outside paths (a change there is a finding too).
# bug:decline-word-sticks declares no MRoPE built in; the plugin and worker declare the full set (one
# capability table per plugin), so there its own decline of the step-status call before step 8 is
# a declined admitted input: caught on all three paths, outside for that reason.
# A short campaign keeps the test's CPU time modest: --steps 25 (the other-configuration call is
# before step 24) and --batches 100 (no extreme batches, so bug:rows-past-grid-limit survives all
# three alike).
# Usage: planted_paths_test.sh QSACHECK PLANTED_PLUGIN PLANTED_WORKER PYTHON
set -u
qsacheck=$1 plugin=$2 worker=$3 python=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
options=(--seed 1 --steps 25 --batches 100)

for path in builtin plugin worker; do
  case $path in
    builtin) backend=() ;;
    plugin) backend=(--backend "plugin:$plugin") ;;
    worker) backend=(--backend "worker:$worker") ;;
  esac
  "$qsacheck" mutants "${backend[@]}" "${options[@]}" --json "$work/$path.json" >"$work/$path.out" 2>&1
  rc=$?
  if [ "$rc" -ne 0 ] && [ "$rc" -ne 1 ]; then
    echo "FAIL: mutants through the $path path exited $rc (replay: $qsacheck mutants ${backend[*]} ${options[*]})"
    sed 's/^/  | /' "$work/$path.out" | tail -20
    exit 1
  fi
done

"$python" - "$work" <<'EOF'
import json, sys
work = sys.argv[1]
# Only an invalid input shows these (planted/src/catalog.cpp, needs "invalid-input" and
# "rejected-call"); the adapters answer such an input with the validator's error themselves.
validated_first = {"error-index-one-based", "clears-output-before-validating", "request-capacity-unchecked",
                   "error-state-sticks"}

def table(path):
    rows = json.load(open(f"{work}/{path}.json"))["planted_bugs"]
    def name(row):
        n = row["planted_bug"]
        return n[len("bug:"):] if path == "builtin" else n.split("#")[-1] if path == "plugin" else n.split(" --bug ")[-1]
    return {name(r): r["caught"] for r in rows}

builtin, plugin, worker = table("builtin"), table("plugin"), table("worker")
failures = []
for path, t in (("plugin", plugin), ("worker", worker)):
    if set(t) != set(builtin):
        failures.append(f"{path}: other bugs than the built-in set: missing {sorted(set(builtin) - set(t))}, "
                        f"extra {sorted(set(t) - set(builtin))}")
        continue
    for bug in sorted(builtin):
        expected = builtin[bug] and bug not in validated_first
        if t[bug] != expected:
            failures.append(f"{path}: bug:{bug} {'caught' if t[bug] else 'not caught'}, built in "
                            f"{'caught' if builtin[bug] else 'not caught'}"
                            + (" (an invalid input only: the adapter validates first)" if bug in validated_first else ""))
caught = sorted(b for b, c in builtin.items() if c)
print(f"{len(builtin)} planted bugs; caught built in: {len(caught)}, through the plugin: "
      f"{sum(plugin.values())}, through the worker: {sum(worker.values())}")
print("not caught on any path:", sorted(b for b, c in builtin.items() if not c))
for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
EOF
