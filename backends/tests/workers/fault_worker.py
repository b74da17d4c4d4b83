#!/usr/bin/env python3
"""A worker that misbehaves on purpose (standard library only), for the fault-isolation tests:

    fault_worker.py MODE PIDFILE

It writes its pid (and, for `hang`, a child's) to PIDFILE, shakes hands (except where the mode is
about the handshake) and then, at the first call, does MODE:
  segfault    dies of SIGSEGV                 exit        exits with status 3
  hang        sleeps (and so does a child)    garbage     writes bytes that are no frame
  bad-json    a frame whose text is no JSON   wrong-size  says q_out / token_to_req have 4 bytes
  wrong-id    answers another call's id
  shrink-in-call          truncates the shared memory (fd 5) to 0 bytes, then answers "ok"
Mode shrink-after-handshake truncates it right after the handshake, before the first call, then
answers that call like shrink-in-call (the seal makes both truncations fail; the answer is wrong).
Handshake modes: silent (prints, never answers), quits (prints, exits 1 before answering),
protocol-2 (answers with protocol 2), bad-capabilities (an unknown feature), deep-hello (a hello
whose protocol is an array nested 100 000 deep).
"""

import os
import signal
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "python", "qsacheck_worker"))
import protocol  # noqa: E402  (the worker module's frames; standard library only)


def read_frame():
    request = protocol.read_frame()
    if request is None:
        sys.exit(0)
    return request


write_frame = protocol.write_frame


def shrink_shared_memory():
    try:
        os.ftruncate(5, 0)
        print("fault worker: shrank the shared memory to 0 bytes", flush=True)
    except OSError as e:
        print("fault worker: could not shrink the shared memory: %s" % e, flush=True)


def main():
    mode, pidfile = sys.argv[1], sys.argv[2]
    pids = [os.getpid()]
    if mode == "hang":
        pids.append(subprocess.Popen(["sleep", "1000"]).pid)  # the group kill must end it too
    with open(pidfile, "w") as f:
        f.write(" ".join(map(str, pids)) + "\n")
    print("fault worker: mode %s, loading my model ..." % mode, flush=True)
    hello = read_frame()
    if mode == "silent":
        time.sleep(1000)
    if mode == "quits":
        print("ImportError: No module named 'my_kernel'", file=sys.stderr, flush=True)
        sys.exit(1)
    if mode == "deep-hello":  # written by hand: json.dumps recurses once per level
        text = ('{"op": "hello", "protocol": ' + "[" * 100000 + "]" * 100000 + "}").encode()
        os.write(4, b"QSAW" + struct.pack("<I", len(text)) + text)
        time.sleep(1000)
    caps = {"cache_kinds": ["compressed", "ring", "passthrough"], "store_dtypes": ["bf16", "fp8_e4m3"],
            "features": ["step_update", "mrope", "ring_positions"]}
    if mode == "bad-capabilities":
        caps["features"].append("time_travel")
    write_frame({"op": "hello", "protocol": 2 if mode == "protocol-2" else hello["protocol"],
                 "name": "fault-" + mode, "spec_version": "1", "capabilities": caps})
    if mode == "shrink-after-handshake":
        shrink_shared_memory()
    request = read_frame()
    if request["op"] == "bye":  # qsacheck only probed this one (check opens a backend more than once)
        sys.exit(0)
    print("fault worker: first call is %s %s" % (request["op"], request.get("id")), flush=True)
    with open(pidfile + ".called", "w"):  # tests wait for it before they signal qsacheck
        pass
    if mode == "segfault":
        os.kill(os.getpid(), signal.SIGSEGV)
    elif mode == "exit":
        sys.exit(3)
    elif mode == "hang":
        time.sleep(1000)
    elif mode == "garbage":
        os.write(4, b"Traceback (most recent call last): oops\n")
        time.sleep(1000)
    elif mode == "bad-json":
        os.write(4, b"QSAW" + struct.pack("<I", 5) + b"{oops")
        time.sleep(1000)
    elif mode in ("shrink-in-call", "shrink-after-handshake"):
        if mode == "shrink-in-call":
            shrink_shared_memory()
        written = {name: buffer["bytes"] for name, buffer in request.get("outputs", {}).items()}
        split = {k: 0 for k in ("num_decodes", "num_decode_tokens", "num_prefills", "num_prefill_tokens",
                                "max_query_len", "decode_query_len", "max_seq_len")}
        write_frame({"op": request["op"], "id": request["id"], "status": "ok", "split": split,
                     "step_status": "ok", "written": written})
        time.sleep(1000)
    elif mode in ("wrong-size", "wrong-id"):
        written = {name: 4 for name in request.get("outputs", {})}
        split = {k: 0 for k in ("num_decodes", "num_decode_tokens", "num_prefills", "num_prefill_tokens",
                                "max_query_len", "decode_query_len", "max_seq_len")}
        write_frame({"op": request["op"], "id": request["id"] + (1 if mode == "wrong-id" else 0), "status": "ok",
                     "split": split, "step_status": "ok", "written": written})
        time.sleep(1000)


main()
