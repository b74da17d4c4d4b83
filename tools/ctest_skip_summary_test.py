#!/usr/bin/env python3
"""ctest_skip_summary.py counts skipped tests by reason, GPU tests apart: a GTEST_SKIP message, a
script's last line (exit 77), and passing or failing testcases left out."""
import os
import sys
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ctest_skip_summary import skipped_tests, summary  # noqa: E402

JUNIT = """<testsuite tests="5" skipped="3">
<testcase name="properties.GpuDevice.Probe" status="notrun"><skipped message="SKIP_REGULAR_EXPRESSION_MATCHED"/>
<system-out>[ RUN      ] GpuDevice.Probe
../properties/device_test.cpp:15: Skipped
no usable CUDA device: no GPU on this machine
[  SKIPPED ] GpuDevice.Probe (0 ms)
</system-out></testcase>
<testcase name="traces.Cuda/default" status="notrun"><skipped message="SKIP_REGULAR_EXPRESSION_MATCHED"/>
<system-out>x.cpp:75: Skipped
no usable CUDA device: no GPU on this machine
</system-out></testcase>
<testcase name="cli.scale_out_scripts" status="notrun"><skipped message="SKIP_RETURN_CODE=77"/>
<system-out>PyYAML is not installed (apt-get install python3-yaml): skipped
</system-out></testcase>
<testcase name="cli.passes" status="run"><system-out>ok</system-out></testcase>
<testcase name="cli.fails" status="fail"><failure message="Failed"/><system-out>boom</system-out></testcase>
</testsuite>"""

tests = skipped_tests(ET.fromstring(JUNIT), {"properties.GpuDevice.Probe", "traces.Cuda/default"})
text = summary(tests)
print(text)
expected = ("ctest: 2 GPU tests skipped:\n  2: no usable CUDA device: no GPU on this machine\n"
            "ctest: 1 other tests skipped:\n  1: PyYAML is not installed (apt-get install python3-yaml): skipped")
if text != expected:
    print("FAIL: expected\n" + expected)
    sys.exit(1)
if summary(skipped_tests(ET.fromstring("<testsuite/>"), set())) != "":
    print("FAIL: a run without skips must print nothing")
    sys.exit(1)
print("ok")
