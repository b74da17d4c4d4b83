"""The pytest plugin on planted bugs (run from a venv where the distribution is installed, so the
pytest11 entry point loads the plugin): a user's test over a kernel class with a bug fails with the
finding, the reproducer and a replay command that, pasted into a shell, reproduces it; the torch
kernel class passes on the CPU and fails with its own planted bug."""

import os
import re
import subprocess

import pytest

pytest_plugins = ["pytester"]
KERNELS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "examples", "kernels")
KERNELS = os.path.normpath(KERNELS)

USER_TEST = """
import sys
sys.path.insert(0, %r)
from %s import %s

def test_kernel(qsacheck_campaign):
    qsacheck_campaign(%s, kernel_kwargs=%r, seed=1)
"""


def run_user_test(pytester, module, cls, kwargs):
    pytester.makepyfile(test_user=USER_TEST % (KERNELS, module, cls, cls, kwargs))
    return pytester.runpytest_subprocess("-p", "no:cacheprovider", "--junitxml=" + str(pytester.path / "junit.xml"))


@pytest.mark.parametrize("bug, finding", [
    ("k-work-without-minimum", "7.4-metadata-invariant k-work"),
    ("group-position-last-member", "step-differential cache.compressed"),
])
def test_a_planted_bug_fails_with_the_finding_and_a_replay_that_reproduces_it(pytester, bug, finding):
    result = run_user_test(pytester, "numpy_kernel", "NumpyKernel", {"bug": bug})
    assert result.ret == 1
    text = result.stdout.str()
    assert "qsacheck finding" in text and finding in text, text
    assert "campaign:" in text
    junit = (pytester.path / "junit.xml").read_text()
    assert "qsacheck finding" in junit and "<failure" in junit
    replay = re.search(r"^replay:\s+(qsacheck .*|\S*qsacheck replay .*)$", text, re.M)
    if replay:  # a scenario's finding: the reproducer file and its replay command
        assert os.path.isfile(re.search(r"^reproducer: (\S+)$", text, re.M).group(1))
        pasted = subprocess.run(["bash", "-c", replay.group(1)], capture_output=True, text=True)
        assert pasted.returncode == 1 and finding in pasted.stdout + pasted.stderr, pasted.stdout + pasted.stderr
    else:  # found on a fixed example or a generated batch: the campaign command reruns it
        assert "(rerun the campaign)" in text


def test_the_numpy_kernel_class_passes_with_its_seed_in_junit(pytester):
    result = run_user_test(pytester, "numpy_kernel", "NumpyKernel", {})
    assert result.ret == 0, result.stdout.str()


def test_a_torch_kernel_class_passes_on_the_cpu_and_fails_with_a_planted_bug(pytester):
    pytest.importorskip("torch")
    clean = run_user_test(pytester, "torch_kernel", "TorchMetadata", {})
    assert clean.ret == 0, clean.stdout.str()
    assert "did not run" in clean.stdout.str()  # metadata only: the step update is reported as not run
    planted = run_user_test(pytester, "torch_kernel", "TorchMetadata", {"bug": "slot-off-by-one"})
    assert planted.ret == 1 and "ring-slot-address" in planted.stdout.str(), planted.stdout.str()
