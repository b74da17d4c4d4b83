#!/usr/bin/env python3
"""The NumPy example worker answering the handshake with protocol 1, as a worker written before
protocol 2 does: qsacheck must still check it (docs/worker-protocol.md, "Versioning")."""

import os
import runpy
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, ".."))
import qsacheck_worker.protocol as protocol  # noqa: E402

protocol.PROTOCOL = 1
runpy.run_path(os.path.join(here, "..", "..", "examples", "workers", "numpy", "qsa_numpy_worker.py"),
               run_name="__main__")
