#!/usr/bin/env python3
"""A kernel with upstream's real limits, declared (docs/production-kernels.md): the NumPy example
kernel (examples/workers/numpy) restricted the way vLLM's fused Triton kernels are.

    qsacheck check --backend worker:"python3 examples/workers/upstream_limits/qsa_upstream_limits_worker.py"

What it implements, as upstream does:
  - C a power of two only (upstream's tl.arange(0, C) needs one);
  - rd = D / 2 only (upstream hard-codes the rotary dim);
  - int32 slots and block ids (below 2^31), and at most 16 384 requests a batch;
  - the passthrough kind copies every common slot as it is, a negative one included (-8 stays -8):
    the declared deviation "negative-slots-pass-through";
  - its step update reads its own metadata of the step (feature "step_uses_metadata"), as upstream's
    pre-indexer reads the metadata kernel's slots.
Everything else is exact under SPEC 6. The kernel declines (Unsupported) every input outside its
limits. Declared, qsacheck generates only inputs it admits and lists what it excluded; with
--no-declarations it declares SPEC's whole range, and qsacheck reports each honest decline as a
finding (declined-admitted-input), as it must.
"""

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "numpy"))
import qsa_numpy_worker as exact  # noqa: E402  (the example beside this one; it finds qsacheck_worker)

qw = exact.qw
INT32_MAX = 2**31 - 1
MAX_REQUESTS = 16384


def power_of_two(x):
    return x > 0 and (x & (x - 1)) == 0


def decline_outside_limits(nr, compress_ratio=None, head_dim=None, rotary_dim=None, slots=(), blocks=()):
    """Raises Unsupported where upstream's kernel could not run (its real limits)."""
    if compress_ratio is not None and not power_of_two(compress_ratio):
        raise qw.Unsupported("C %d is not a power of two" % compress_ratio)
    if head_dim is not None and rotary_dim * 2 != head_dim:
        raise qw.Unsupported("rd %d is not D / 2 = %d" % (rotary_dim, head_dim // 2))
    if nr > MAX_REQUESTS:
        raise qw.Unsupported("%d requests (compiled for %d)" % (nr, MAX_REQUESTS))
    for name, values in (("slot", slots), ("block id", blocks)):
        if len(values) and int(np.max(values)) > INT32_MAX:
            raise qw.Unsupported("a %s past int32" % name)


def used_blocks(table, nr):
    return table[:nr].reshape(-1) if table.size else np.zeros(0, np.int64)


def build_metadata(m):
    nr = len(m.query_start_loc) - 1
    rows = {"compressed": m.storage_block_size, "ring": m.ring_capacity}.get(m.kind, 0)
    blocks = used_blocks(m.block_table, nr).astype(np.int64)
    computed = blocks * rows + rows - 1 if rows and len(blocks) else np.zeros(0, np.int64)
    decline_outside_limits(nr, m.compress_ratio if m.kind == "compressed" else None,
                           slots=np.concatenate([m.common_slot_mapping[:m.num_actual_tokens], computed]),
                           blocks=blocks)
    out = exact.build_metadata(m)
    if m.kind == "passthrough":  # upstream copies the common slots as they are
        out["slot_mapping"][:] = m.common_slot_mapping[:m.num_actual_tokens]
    return out


def step_update(s):
    # Declared step_uses_metadata: like upstream's pre-indexer, the step is given this kernel's own
    # metadata of both groups (qsacheck judged it against the contract first).
    n = s.num_actual_tokens
    if s.compressed_slot_mapping.shape != (n,) or s.ring_slot_mapping.shape != (n,):
        raise RuntimeError("the step's own metadata is missing or misshapen")
    nr = len(s.query_start_loc) - 1
    blocks = np.concatenate([used_blocks(s.block_table, nr), used_blocks(s.ring_block_table, nr)]).astype(np.int64)
    decline_outside_limits(nr, s.compress_ratio, s.head_dim, s.rotary_dim,
                           slots=s.common_slot_mapping[:s.num_actual_tokens], blocks=blocks)
    return exact.step_update(s)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--no-declarations", action="store_true",
                        help="declare SPEC's whole range (qsacheck then reports every honest decline)")
    parser.add_argument("--without-deviation", action="store_true",
                        help="declare the limits but not negative-slots-pass-through (its -8 slots are then findings)")
    args = parser.parse_args()
    features = ["mrope", "ring_positions", "strided_block_table", "padded_cache_strides", "step_uses_metadata"]
    limits = {} if args.no_declarations else dict(
        power_of_two=["compress_ratio"], relations=["rotary_dim_is_half_head_dim"], max_requests=MAX_REQUESTS,
        max_slot=INT32_MAX, max_block_id=INT32_MAX,
        deviations=[] if args.without_deviation else ["negative-slots-pass-through"])
    qw.main(name="upstream-limits-example", build_info="examples/workers/upstream_limits, NumPy " + np.__version__,
            capabilities=qw.Capabilities(features=features, **limits), build_metadata=build_metadata,
            step_update=step_update)


if __name__ == "__main__":
    main()
