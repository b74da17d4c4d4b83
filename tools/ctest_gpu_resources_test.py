#!/usr/bin/env python3
"""tools/ctest_gpu_resources.py and tools/ctest_gpu_launcher.sh without a GPU: the resource spec
has one slot per GPU (from --count and from a stand-in `nvidia-smi -L`; none to count is exit 2),
and a real `ctest --resource-spec-file SPEC -j 4` over a generated test list (a stand-in GoogleTest
binary with 6 cases that records the GPU it sees) runs every test on one of the 2 GPUs, both used,
never two tests on one GPU at once. Usage: ctest_gpu_resources_test.py CTEST"""
import json
import os
import stat
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOOL = os.path.join(HERE, "ctest_gpu_resources.py")

FAKE_GTEST = """#!/bin/sh
# A GoogleTest binary's stand-in: lists 6 cases; a case claims its GPU, holds it, and fails if
# another test holds it at the same time.
if [ "$1" = "--gtest_list_tests" ]; then
  printf 'Gpu.\\n  One\\n  Two\\n  Three\\n  Four\\n  Five\\n  Six\\n'
  exit 0
fi
case="${1#--gtest_filter=}"
mkdir "$WORK/busy-$CUDA_VISIBLE_DEVICES" || { echo "$case OVERLAP on $CUDA_VISIBLE_DEVICES" >> "$WORK/log"; exit 1; }
echo "$case gpu=$CUDA_VISIBLE_DEVICES" >> "$WORK/log"
sleep 0.3
rmdir "$WORK/busy-$CUDA_VISIBLE_DEVICES"
"""


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def spec(args, env=None):
    return subprocess.run([sys.executable, TOOL, "spec", *args], capture_output=True, text=True, env=env)


def main():
    ctest = sys.argv[1]
    work = tempfile.mkdtemp(prefix="qsacheck-ctest-gpus-")
    three = json.loads(spec(["--count", "3"]).stdout)
    if [g["id"] for g in three["local"][0]["gpus"]] != ["0", "1", "2"] or three["version"]["major"] != 1:
        fail(f"--count 3 gave {three}")
    fake_bin = os.path.join(work, "bin")
    os.makedirs(fake_bin)
    with open(os.path.join(fake_bin, "nvidia-smi"), "w") as f:
        f.write("#!/bin/sh\necho 'GPU 0: NVIDIA H200 (UUID: GPU-a)'\necho 'GPU 1: NVIDIA H200 (UUID: GPU-b)'\n")
    os.chmod(os.path.join(fake_bin, "nvidia-smi"), stat.S_IRWXU)
    env = dict(os.environ, PATH=fake_bin + ":" + os.environ["PATH"])
    two = json.loads(spec([], env).stdout)
    if len(two["local"][0]["gpus"]) != 2:
        fail(f"nvidia-smi -L with 2 GPUs gave {two}")
    if spec([], dict(os.environ, PATH="/nonexistent")).returncode != 2:
        fail("without nvidia-smi and --count the spec must be refused with exit 2")

    binary = os.path.join(work, "fake_gtest")
    with open(binary, "w") as f:
        f.write(FAKE_GTEST)
    os.chmod(binary, stat.S_IRWXU)
    tests = os.path.join(work, "tests")
    os.makedirs(tests)
    subprocess.run([sys.executable, TOOL, "tests", binary, "-o", os.path.join(tests, "CTestTestfile.cmake")],
                   check=True)
    with open(os.path.join(work, "spec.json"), "w") as f:
        f.write(spec(["--count", "2"]).stdout)
    run = subprocess.run([ctest, "--test-dir", tests, "--resource-spec-file", os.path.join(work, "spec.json"),
                          "-j", "4", "--output-on-failure"], capture_output=True, text=True,
                         env=dict(os.environ, WORK=work))
    log = open(os.path.join(work, "log")).read() if os.path.exists(os.path.join(work, "log")) else ""
    gpus = [line.split("gpu=")[1] for line in log.splitlines() if "gpu=" in line]
    if run.returncode != 0 or "OVERLAP" in log or len(gpus) != 6 or set(gpus) != {"0", "1"}:
        fail(f"ctest with 2 GPUs: exit {run.returncode}\n{run.stdout[-2000:]}\nlog:\n{log}")
    print(f"ok: spec from --count and nvidia-smi -L; ctest -j 4 ran 6 tests on GPUs {sorted(set(gpus))}, "
          f"{gpus.count('0')} and {gpus.count('1')}, never two on one")
    return 0


if __name__ == "__main__":
    sys.exit(main())
