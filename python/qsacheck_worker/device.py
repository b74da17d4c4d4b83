"""A buffer of qsacheck's shared memory mirrored on a torch device with its own layout.

The caches cross the protocol as strided views ([blocks, rows, width] with a block stride that may
exceed rows x row stride: pages packed beside others, SPEC 4). A kernel on a GPU wants the same
layout there, padding included, so that its slot arithmetic is the one it runs in production:

    ring = qsacheck_worker.to_device(call.ring_cache, "cuda")   # same shape and strides, on the GPU
    my_kernel(ring.view(torch.bfloat16), ...)                   # bf16 patterns cross as int16
    qsacheck_worker.from_device(ring, call.ring_cache)          # every element back, in place

torch is optional: imported only here.
"""

import numpy as np


def _span(view):
    """The whole memory `view` covers, as one flat view of its elements, and its element strides."""
    itemsize = view.dtype.itemsize
    strides = tuple(s // itemsize for s in view.strides)
    if any(s < 0 for s in strides) or any(s % itemsize for s in view.strides):
        raise ValueError("only views with non-negative whole-element strides can be mirrored")
    extent = 1 + sum((n - 1) * s for n, s in zip(view.shape, strides)) if view.size else 0
    return np.lib.stride_tricks.as_strided(view, shape=(extent,), strides=(itemsize,)), strides


def _torch_dtype_view(array):
    return array.view(np.int16) if array.dtype == np.uint16 else array  # torch has no uint16 ops


def to_device(view, device):
    """A torch tensor on `device` with `view`'s shape and element strides (its padding copied too).
    bf16 patterns (uint16) arrive as torch.int16: `.view(torch.bfloat16)` reads them as bf16."""
    import torch

    span, strides = _span(view)
    flat = torch.from_numpy(np.ascontiguousarray(_torch_dtype_view(span))).to(device)
    return flat.as_strided(view.shape, strides)


def from_device(tensor, view):
    """Copies every element of `tensor` (made by to_device(view, ...), possibly changed) back into
    `view`, padding included."""
    import torch

    span, _ = _span(view)
    flat = torch.as_strided(tensor, (span.shape[0],), (1,), tensor.storage_offset())
    _torch_dtype_view(span)[...] = flat.cpu().numpy()
