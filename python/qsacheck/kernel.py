"""A kernel class run as a worker: `python3 -m qsacheck.run_kernel module:Class` serves it over the
worker protocol (docs/worker-protocol.md), so a kernel needs no worker script.

    class MyKernel:
        capabilities = qsacheck.Capabilities(cache_kinds=("compressed",))   # optional; the worker's schema
        device = None            # or "cpu" / "cuda": the arrays come as torch tensors on that device
        def metadata(self, m): ...       # as qsacheck_worker's build_metadata; optional
        def step_update(self, s): ...    # as qsacheck_worker's step_update; optional

A missing method is a capability not declared (a missing step_update is reported as not run, exit 3).
With a `device`, every input array of the call is a torch tensor on it (bf16 as torch.bfloat16; on
the CPU sharing qsacheck's memory); the caches are copied back after the call, and returned tensors
are copied into the output buffers.
"""

import importlib
import os
import sys

import numpy as np

import qsacheck_worker as qw

_CACHES = ("ring_cache", "compressed_cache")


def load(spec):
    """'module:Class' or '/path/file.py:Class' -> the class. A file is imported under its package's
    dotted name (the folders above it holding __init__.py), with the package's root on sys.path, so
    its own imports work as they did where the class was defined."""
    module_name, _, attr = spec.rpartition(":")
    if not module_name or not attr:
        raise ValueError("expected module:Class or path/file.py:Class, got %r" % spec)
    if module_name.endswith(".py"):
        folder, base = os.path.split(os.path.abspath(module_name))
        dotted = [os.path.splitext(base)[0]]
        while os.path.isfile(os.path.join(folder, "__init__.py")):
            folder, package = os.path.split(folder)
            dotted.insert(0, package)
        sys.path.insert(0, folder)
        module_name = ".".join(dotted)
    target = importlib.import_module(module_name)
    for part in attr.split("."):
        target = getattr(target, part)
    return target


def spec_of(cls):
    """The spec run_kernel loads a class object by: its module's file when it has one, so that the
    worker (and a pasted replay command) finds it from any folder and without the PYTHONPATH or
    rootdir the defining process had; else module:qualname."""
    path = getattr(sys.modules.get(cls.__module__), "__file__", None)
    if path and path.endswith(".py"):
        return os.path.abspath(path) + ":" + cls.__qualname__
    return cls.__module__ + ":" + cls.__qualname__


def _to_numpy(value):
    """A returned array or tensor (bf16 tensors as their uint16 patterns)."""
    if isinstance(value, np.ndarray) or not hasattr(value, "detach"):
        return value
    import torch

    tensor = value.detach().cpu()
    if tensor.dtype == torch.bfloat16:
        return tensor.view(torch.int16).numpy().view(np.uint16)
    if tensor.dtype == getattr(torch, "float8_e4m3fn", None):  # torch >= 2.1: fp8 as its uint8 patterns
        return tensor.view(torch.uint8).numpy()
    return tensor.numpy()


class _TorchCall:
    """The call's attributes with every array as a tensor on `device`."""

    def __init__(self, call, device):
        self._arrays = {}
        for key, value in vars(call).items():
            if isinstance(value, np.ndarray) and value.dtype != np.float32 and value.ndim > 0:
                self._arrays[key] = value
                value = qw.torch_view(np.ascontiguousarray(value) if value.size == 0 else value,
                                      None if device == "cpu" else device)
            setattr(self, key, value)

    def copy_back(self):
        """The caches the kernel updated, into qsacheck's memory (a no-op on the CPU: they share it)."""
        for name in _CACHES:
            array = self._arrays.get(name)
            if array is not None and array.size:
                array[...] = _to_numpy(getattr(self, name))


def serve_class(cls, kwargs=None):
    """serve() over an instance of `cls`; returns the exit code."""
    kernel = cls(**(kwargs or {}))
    device = getattr(kernel, "device", None)

    def adapt(method):
        if method is None:
            return None

        def call(c):
            arguments = _TorchCall(c, device) if device else c
            result = method(arguments)
            if device:
                arguments.copy_back()
            if isinstance(result, dict):
                return {k: (v if k == "split" else _to_numpy(v)) for k, v in result.items()}
            if isinstance(result, tuple):
                return (_to_numpy(result[0]),) + tuple(result[1:])
            return _to_numpy(result)
        return call

    metadata = adapt(getattr(kernel, "metadata", None))
    step = adapt(getattr(kernel, "step_update", None))
    capabilities = getattr(kernel, "capabilities", None) or qw.Capabilities()
    if metadata is None:
        # The protocol has no metadata-less worker: decline every metadata call (a finding when the
        # capabilities admit it, so declare cache_kinds accordingly).
        def metadata(c):
            raise qw.Unsupported("the kernel class has no metadata method")
    return qw.serve(name=getattr(kernel, "name", cls.__name__), build_info=getattr(kernel, "build_info", cls.__module__),
                    capabilities=capabilities, build_metadata=metadata, step_update=step)
