"""qsacheck_worker: write a kernel under test in Python and let qsacheck check it
(`qsacheck check --backend worker:"python3 my_worker.py"`). docs/worker-protocol.md is the
protocol; docs/plugin-quickstart.md, "The Python way", the walk-through.
"""

from .device import from_device, to_device
from .numerics import bf16_to_f32, e4m3_from_bf16, e4m3_to_f32, f32_to_bf16
from .protocol import PROTOCOL
from .server import SPLIT_FIELDS, Capabilities, MetadataCall, StepCall, Unsupported, main, serve

__all__ = ["PROTOCOL", "SPLIT_FIELDS", "Capabilities", "MetadataCall", "StepCall", "Unsupported", "bf16_to_f32",
           "e4m3_from_bf16", "e4m3_to_f32", "f32_to_bf16", "from_device", "main", "serve", "to_device", "torch_view"]


def torch_view(array, device=None):
    """A torch tensor sharing `array`'s memory (bf16 patterns as torch.bfloat16), moved to `device`
    when given (a copy then). torch is optional: imported only here."""
    import numpy as np
    import torch

    if array.dtype == np.uint16:
        return torch.from_numpy(array.view(np.int16)).view(torch.bfloat16).to(device) if device else \
            torch.from_numpy(array.view(np.int16)).view(torch.bfloat16)
    tensor = torch.from_numpy(array)
    return tensor.to(device) if device else tensor
