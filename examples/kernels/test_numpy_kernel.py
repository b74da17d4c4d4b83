import pytest
from numpy_kernel import NumpyKernel


@pytest.mark.parametrize("workload", ["default", "mrope-fp8"])
@pytest.mark.parametrize("seed", [1, 2])
def test_numpy_kernel(qsacheck_campaign, workload, seed):
    qsacheck_campaign(NumpyKernel, workload=workload, seed=seed)
