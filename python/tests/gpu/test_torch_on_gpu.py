"""Once on a GPU machine (not in CTest: the CPU CI has no GPU): the torch kernel class with its
tensors on the GPU, checked through the pytest plugin, clean and with its planted bug.
    QSACHECK=build/bin/qsacheck python3 -m pytest python/tests/gpu/test_torch_on_gpu.py"""
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "examples", "kernels"))
torch = pytest.importorskip("torch")
from torch_kernel import TorchMetadata  # noqa: E402

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device for torch")


@pytest.mark.parametrize("workload", ["default", "edges"])
def test_torch_metadata_on_the_gpu(qsacheck_campaign, workload):
    qsacheck_campaign(TorchMetadata, workload=workload, seed=1, kernel_kwargs={"device": "cuda"})


def test_its_planted_bug_fails_on_the_gpu(qsacheck_campaign):
    with pytest.raises(pytest.fail.Exception, match="ring-slot-address"):
        qsacheck_campaign(TorchMetadata, seed=1, kernel_kwargs={"device": "cuda", "bug": "slot-off-by-one"})
