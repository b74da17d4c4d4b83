"""The NumPy example (examples/workers/numpy) as a kernel class: no worker script, qsacheck runs
it through `python3 -m qsacheck.run_kernel numpy_kernel:NumpyKernel` (docs/python-quickstart.md).
NumpyKernel(bug=...) plants one of the example's bugs."""

import os
import sys

import qsacheck

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "workers", "numpy"))
import qsa_numpy_worker as example  # noqa: E402  (SPEC 2 and SPEC 5 in NumPy, exact under SPEC 6)


class NumpyKernel:
    capabilities = qsacheck.Capabilities()  # every cache kind, dtype and feature; SPEC's whole ranges

    def __init__(self, bug=None):
        self.bug = bug
        self.name = "numpy-kernel" + ("#" + bug if bug else "")

    def metadata(self, m):
        return example.build_metadata(m, self.bug)

    def step_update(self, s):
        return example.step_update(s, self.bug)


class NumpyMetadataOnly:
    """The metadata alone: the step update is reported as not run (exit 3)."""
    capabilities = qsacheck.Capabilities()

    def metadata(self, m):
        return example.build_metadata(m)
