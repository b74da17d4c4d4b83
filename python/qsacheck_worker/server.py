"""The worker loop: qsacheck's requests in, the user's functions called on NumPy views of the
shared memory, replies out (docs/worker-protocol.md).

A worker is one call:

    qsacheck_worker.serve(name="my-kernel", capabilities=Capabilities(...),
                          build_metadata=my_metadata, step_update=my_step)

`build_metadata(call)` gets a MetadataCall and returns a dict with token_to_req, logical_positions,
visible_blocks, slot_mapping, k_work_metadata (arrays) and split (a dict of the seven numbers).
`step_update(call)` gets a StepCall, updates call.ring_cache and call.compressed_cache in place
(views of qsacheck's shared memory) and returns q_out, or (q_out, step_status) with step_status
"ok" or "position-out-of-range". bf16 arrays are uint16 bit patterns, fp8 arrays uint8 patterns
(qsacheck_worker.numerics converts them). Raise Unsupported for an input the function declines.

A worker that plants bugs for `qsacheck mutants --backend worker:COMMAND` passes them as
`variants=[(name, description), ...]`: its hello offers them, and qsacheck runs each as
`COMMAND --bug NAME` (the worker must accept that switch).
"""

import sys
import traceback

import numpy as np

from . import protocol

_DTYPES = {"int32": np.int32, "int64": np.int64, "bfloat16": np.uint16, "uint8": np.uint8}

SPLIT_FIELDS = ("num_decodes", "num_decode_tokens", "num_prefills", "num_prefill_tokens", "max_query_len",
                "decode_query_len", "max_seq_len")


class Unsupported(Exception):
    """Raised by a user function for an input outside what it implements: an error reply with
    code "unsupported" (qsacheck reports it, since the capabilities admitted the input)."""


class Capabilities:
    """What the worker admits (the plugin table's capabilities): cache kinds ("compressed", "ring",
    "passthrough"), store dtypes ("bf16", "fp8_e4m3"), features ("step_update", "mrope",
    "ring_positions", "strided_block_table", "padded_cache_strides") and [min, max] ranges
    (head_dim, rotary_dim, num_heads, compress_ratio, storage_block_size, ring_capacity; absent
    ones are SPEC's whole range). step_update is added when a step function is given.

    Limits beyond the ranges (protocol 2, docs/production-kernels.md), each optional:
    power_of_two (parameter names), values ({parameter: [values]}), relations
    (["rotary_dim_is_half_head_dim"]), head_dims ([(D, rd), ...]), max_requests, max_tokens,
    max_slot, max_block_id (integers), and deviations (["negative-slots-pass-through"]).
    qsacheck generates only inputs these admit and lists what they exclude."""

    LIMITS = ("power_of_two", "values", "relations", "head_dims", "max_requests", "max_tokens", "max_slot",
              "max_block_id", "deviations")

    def __init__(self, cache_kinds=("compressed", "ring", "passthrough"), store_dtypes=("bf16", "fp8_e4m3"),
                 features=("mrope", "ring_positions", "strided_block_table", "padded_cache_strides"),
                 power_of_two=(), values=None, relations=(), head_dims=(), max_requests=None, max_tokens=None,
                 max_slot=None, max_block_id=None, deviations=(), **ranges):
        self.cache_kinds = list(cache_kinds)
        self.store_dtypes = list(store_dtypes)
        self.features = list(features)
        self.ranges = {k: [int(v[0]), int(v[1])] for k, v in ranges.items()}
        self.limits = {"power_of_two": list(power_of_two), "values": {k: [int(x) for x in v] for k, v in (values or {}).items()},
                       "relations": list(relations), "head_dims": [[int(d), int(rd)] for d, rd in head_dims],
                       "max_requests": max_requests, "max_tokens": max_tokens, "max_slot": max_slot,
                       "max_block_id": max_block_id, "deviations": list(deviations)}

    def to_json(self, has_step):
        features = [f for f in self.features if f != "step_update"] + (["step_update"] if has_step else [])
        out = {"cache_kinds": self.cache_kinds, "store_dtypes": self.store_dtypes, "features": features}
        out.update(self.ranges)
        out.update({k: v for k, v in self.limits.items() if v})  # only what is declared
        return out


def _view(shm, ref):
    """A NumPy view of one buffer in the shared memory (strides in elements, as qsacheck states)."""
    dtype = np.dtype(_DTYPES[ref["dtype"]])
    shape = tuple(ref["shape"])
    count = int(ref["bytes"]) // dtype.itemsize
    flat = np.frombuffer(shm.map, dtype=dtype, count=count, offset=int(ref["offset"]))
    strides = ref.get("strides")
    if not strides:
        return flat.reshape(shape)
    if count == 0 or 0 in shape:
        return np.zeros(shape, dtype=dtype)
    return np.lib.stride_tricks.as_strided(flat, shape=shape, strides=tuple(s * dtype.itemsize for s in strides))


class _Call:
    """Attributes from the request's scalars and its input buffers (NumPy views)."""

    def __init__(self, request, shm):
        for key, value in request.items():
            if key not in ("inputs", "outputs", "caches", "op", "id", "shm_bytes"):
                setattr(self, key, value)
        for name, ref in request.get("inputs", {}).items():
            setattr(self, name, _view(shm, ref))


class MetadataCall(_Call):
    """kind ("compressed", "ring", "passthrough"), compress_ratio (the builder ratio for ring and
    passthrough), storage_block_size, ring_capacity, num_actual_tokens, reorder_batch_threshold;
    query_start_loc, seq_lens (int32), common_slot_mapping (int64), block_table (int32 2-D view,
    possibly strided)."""


class StepCall(_Call):
    """The step's scalars (store_dtype, compress_ratio, storage_block_size, ring_capacity, head_dim,
    rotary_dim, num_heads, eps (a float32), mrope_sections (None or [t, h, w]), ring_positions,
    max_position, num_actual_tokens, reorder_batch_threshold, caches_changed) and arrays:
    query_start_loc, seq_lens, common_slot_mapping, block_table, ring_block_table, keys [N, D],
    queries [N, HQ, D], positions [N] or [3, N], cos_sin [max_position, rd], w_k, w_q [D], and the
    caches ring_cache [blocks, R, width] and compressed_cache [blocks, S, D] (strided views,
    updated in place). With the feature "step_uses_metadata" (protocol 2) also the worker's own
    metadata of the step, judged by qsacheck first: compressed_token_to_req, ...,
    compressed_k_work_metadata and ring_token_to_req, ..., ring_k_work_metadata. caches_changed: qsacheck changed the caches since the last reply (a worker
    keeping its own copy, on a GPU say, must load them again)."""

    def __init__(self, request, shm):
        super().__init__(request, shm)
        self.eps = np.float32(request["eps"])
        self.ring_cache = _view(shm, request["caches"]["ring"])
        self.compressed_cache = _view(shm, request["caches"]["compressed"])


def _write_outputs(shm, request, values):
    """Copies each output into its buffer; "written" states the bytes each one has. An array of the
    wrong dtype size or shape is not copied, and its own size is stated (qsacheck reports it)."""
    written = {}
    for name, ref in request["outputs"].items():
        value = np.asarray(values[name])
        target = _view(shm, ref)
        if value.shape == target.shape and value.dtype.itemsize == target.dtype.itemsize:
            target[...] = value.view(target.dtype) if value.dtype != target.dtype else value
            written[name] = int(ref["bytes"])
        else:
            written[name] = int(value.nbytes)
    return written


def _error(code, message, field="", index=-1, rule=""):
    return {"status": "error", "code": code, "field": field, "index": index, "rule": rule, "message": message[-480:]}


def serve(name, build_metadata, step_update=None, capabilities=None, spec_version="1", build_info="", variants=()):
    """Answers qsacheck's requests until it says bye or closes the pipe; returns the exit code."""
    capabilities = capabilities or Capabilities()
    variants = [{"name": str(n), "description": str(d)} for n, d in variants]
    shm = protocol.SharedMemory()
    while True:
        request = protocol.read_frame()
        if request is None or request["op"] == "bye":
            return 0
        shm.ensure(int(request.get("shm_bytes", 0)))
        op = request["op"]
        if op == "hello":
            reply = {"protocol": protocol.PROTOCOL, "name": name, "spec_version": spec_version,
                     "build_info": build_info, "capabilities": capabilities.to_json(step_update is not None)}
            if variants:  # optional in the protocol: only a worker that plants bugs sends it
                reply["variants"] = variants
        else:
            try:
                if op == "metadata":
                    result = build_metadata(MetadataCall(request, shm))
                    reply = {"status": "ok", "split": {k: int(result["split"][k]) for k in SPLIT_FIELDS},
                             "written": _write_outputs(shm, request, result)}
                elif op == "step" and step_update is not None:
                    result = step_update(StepCall(request, shm))
                    q_out, status = result if isinstance(result, tuple) else (result, "ok")
                    reply = {"status": "ok", "step_status": status,
                             "written": _write_outputs(shm, request, {"q_out": q_out})}
                else:
                    reply = _error("unsupported", "no function for " + op)
            except Unsupported as e:
                reply = _error("unsupported", str(e))
            except Exception:  # the user's function failed: qsacheck reports it with the traceback's end
                reply = _error("internal", traceback.format_exc())
        reply["op"] = op
        if "id" in request:
            reply["id"] = request["id"]
        protocol.write_frame(reply)


def main(**kwargs):
    """serve() as a program: exits with its code (a broken pipe or protocol error: 1, on stderr)."""
    try:
        sys.exit(serve(**kwargs))
    except (protocol.ProtocolError, BrokenPipeError, OSError) as e:
        print("qsacheck_worker: %s" % e, file=sys.stderr)
        sys.exit(1)
