#!/usr/bin/env python3
"""GoogleTest's sharding (GTEST_TOTAL_SHARDS, GTEST_SHARD_INDEX) works on the GPU test binaries:
for each binary, the tests its shards run (read from --gtest_output=json) are disjoint and their
union is the whole --gtest_list_tests list. The binaries run with no visible GPU (their cases
skip), so the check is quick on any machine; on a GPU the sharding is the same, decided before any
test body runs. Usage: gtest_sharding_test.py SHARDS BINARY..."""
import json
import os
import subprocess
import sys
import tempfile


def listed(binary, env):
    out = subprocess.run([binary, "--gtest_list_tests"], capture_output=True, text=True, env=env, check=True).stdout
    cases, suite = set(), ""
    for line in out.splitlines():
        if line.strip() and not line.startswith(" "):
            suite = line.split()[0]
        elif line.strip():
            cases.add(suite + line.split()[0])
    return cases


def shard_cases(binary, shards, index, env, folder):
    report = os.path.join(folder, f"{os.path.basename(binary)}-{index}.json")
    env = dict(env, GTEST_TOTAL_SHARDS=str(shards), GTEST_SHARD_INDEX=str(index))
    subprocess.run([binary, f"--gtest_output=json:{report}"], capture_output=True, env=env)
    with open(report) as f:
        suites = json.load(f)["testsuites"]
    return {suite["name"] + "." + case["name"] for suite in suites for case in suite["testsuite"]}


def main():
    shards, binaries = int(sys.argv[1]), sys.argv[2:]
    env = {k: v for k, v in os.environ.items() if k != "QSA_REQUIRE_GPU"}
    env["CUDA_VISIBLE_DEVICES"] = ""  # every GPU case skips: the split is what is checked
    folder = tempfile.mkdtemp(prefix="qsacheck-gtest-shards-")
    failed = False
    for binary in binaries:
        whole = listed(binary, env)
        parts = [shard_cases(binary, shards, k, env, folder) for k in range(shards)]
        union = set().union(*parts)
        overlap = sum(len(p) for p in parts) - len(union)
        name = os.path.basename(binary)
        if union != whole or overlap:
            failed = True
            print(f"FAIL {name}: {len(whole)} listed, shards ran {[len(p) for p in parts]} "
                  f"(missing {sorted(whole - union)[:5]}, extra {sorted(union - whole)[:5]}, {overlap} twice)")
        else:
            print(f"ok {name}: {len(whole)} tests split {[len(p) for p in parts]} over {shards} shards")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
