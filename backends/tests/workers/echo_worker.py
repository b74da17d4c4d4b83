#!/usr/bin/env python3
"""A worker that computes nothing (standard library only): it answers every step at once with the
sizes qsacheck asked for, so timing a step through it measures the transport alone
(WorkerTransport.* in worker_backend_test.cpp)."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "python", "qsacheck_worker"))
import protocol  # noqa: E402  (the worker module's frames; standard library only)


while True:
    request = protocol.read_frame()
    if request is None or request["op"] == "bye":
        break
    if request["op"] == "hello":
        protocol.write_frame({"op": "hello", "protocol": 1, "name": "echo", "spec_version": "1",
                     "capabilities": {"cache_kinds": ["compressed", "ring", "passthrough"],
                                      "store_dtypes": ["bf16", "fp8_e4m3"], "features": ["step_update"]}})
    else:
        written = {name: ref["bytes"] for name, ref in request["outputs"].items()}
        protocol.write_frame({"op": request["op"], "id": request["id"], "status": "ok", "step_status": "ok",
                     "written": written})
