#!/usr/bin/env python3
"""After a CTest run, says how many tests were skipped and why, the GPU tests apart:
CTest lists skipped tests by name only, so a run without a GPU reads as green without saying that
every GPU test was left out. Reads the JUnit file of `ctest --output-junit` (each skipped testcase
with its output) and the names of the tests labelled gpu (`ctest -N -L gpu`). The reason is the
message of GoogleTest's GTEST_SKIP (the line after "...: Skipped"), else the last line the test
printed (a script's exit 77). Prints nothing when nothing was skipped.
Usage: ctest_skip_summary.py BUILD_DIR JUNIT.xml"""
import collections
import re
import subprocess
import sys
import xml.etree.ElementTree as ET


def skip_reason(output):
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    for i, line in enumerate(lines):
        if line.endswith(": Skipped") and i + 1 < len(lines) and not lines[i + 1].startswith("["):
            return lines[i + 1]
    return lines[-1] if lines else "no reason printed"


def skipped_tests(junit_root, gpu_names):
    """(name, is_gpu, reason) of every skipped testcase."""
    out = []
    for case in junit_root.iter("testcase"):
        if case.find("skipped") is None and case.get("status") != "notrun":
            continue
        name = case.get("name")
        out.append((name, name in gpu_names, skip_reason(case.findtext("system-out") or "")))
    return out


def summary(tests):
    lines = []
    for gpu, what in ((True, "GPU tests"), (False, "other tests")):
        chosen = [t for t in tests if t[1] == gpu]
        if not chosen:
            continue
        lines.append("ctest: %d %s skipped:" % (len(chosen), what))
        for reason, count in collections.Counter(t[2] for t in chosen).most_common():
            lines.append("  %d: %s" % (count, reason))
    return "\n".join(lines)


def main():
    build, junit = sys.argv[1:3]
    listed = subprocess.run(["ctest", "--test-dir", build, "-N", "-L", "gpu"], capture_output=True, text=True).stdout
    gpu_names = set(re.findall(r"Test +#\d+: (\S+)", listed))
    try:
        root = ET.parse(junit).getroot()
    except (OSError, ET.ParseError):
        return 0
    text = summary(skipped_tests(root, gpu_names))
    if text:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
