"""qsacheck: check a QSA indexer kernel written in Python against qsacheck's reference.

- qsacheck.Capabilities, Unsupported, the numerics: qsacheck_worker's, re-exported (that import
  name keeps working for existing workers);
- a kernel class run as a worker: `python3 -m qsacheck.run_kernel module:Class` (qsacheck.kernel);
- run_campaign(): `qsacheck check --json -` from Python; the pytest fixture `qsacheck_campaign`
  (qsacheck.pytest_plugin, registered through the pytest11 entry point);
- qsacheck.reference: the C++ reference in process (SPEC 2 metadata, SPEC 5 step update, SPEC 6
  comparison); qsacheck.strategies: Hypothesis strategies through the project's generator.

docs/python-quickstart.md is the walk-through.
"""

from qsacheck_worker import (PROTOCOL, SPLIT_FIELDS, Capabilities, MetadataCall, StepCall, Unsupported, bf16_to_f32,
                             e4m3_from_bf16, e4m3_to_f32, f32_to_bf16, torch_view)

from .binary import NotFound, qsacheck_binary
from .campaign import PRESETS, CampaignResult, run_campaign, worker_backend

__all__ = ["PROTOCOL", "SPLIT_FIELDS", "Capabilities", "MetadataCall", "StepCall", "Unsupported", "bf16_to_f32",
           "e4m3_from_bf16", "e4m3_to_f32", "f32_to_bf16", "torch_view", "NotFound", "qsacheck_binary", "PRESETS",
           "CampaignResult", "run_campaign", "worker_backend"]
