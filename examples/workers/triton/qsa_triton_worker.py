#!/usr/bin/env python3
"""A Triton kernel under test, for the H200: RMSNorm and RoPE of the Q path and of every compressed
row in one Triton kernel, pooling on the GPU, as a qsacheck worker (docs/worker-protocol.md).

    qsacheck check --backend worker:"python3 examples/workers/triton/qsa_triton_worker.py" \\
        --float-tolerance row-ulp:1 --workload default --scenarios 1 --steps 200

NOT exact under SPEC 6, on purpose (upstream-like arithmetic, as vLLM's own Triton pre-indexer):
the sum of squares is tl.sum's reduction (not SPEC 6's pairwise tree), 1/sqrt is tl.rsqrt
(approximate), the compiler may fuse RoPE's products into FMAs, and pooling adds the members as a
pairwise tree. So exact mode must fail and --float-tolerance row-ulp:N must pass (SPEC 6 measures
upstream's kernel within one row-ulp; docs/design.md explains why an arithmetic like this one can
reach two on rare pairs). The metadata and the cache bookkeeping (which groups, which members, ring
reads and commits) are the NumPy example's, which is exact: only the arithmetic differs.

Needs torch with CUDA and triton (Python 3.12, torch 2.11, triton 3.6 on the GPU machine).
  --bug rope-sign-slip   planted: the second half of each rotary pair adds a*s where it must subtract
"""

import argparse
import os
import sys

import numpy as np
import torch
import triton
import triton.language as tl

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "numpy"))
import qsa_numpy_worker as base  # noqa: E402  (the metadata and the bookkeeping of SPEC 5)

qw = base.qw


@triton.jit
def norm_rope_kernel(x_ptr, w_ptr, pos_ptr, cs_ptr, out_ptr, eps, num_heads, D: tl.constexpr, HP: tl.constexpr,
                     HP_POW2: tl.constexpr, SEC_H: tl.constexpr, SEC_W: tl.constexpr, SIGN_SLIP: tl.constexpr):
    """One program per (row, head): out = bf16 rope(bf16 norm(x)); positions [rows, 3]."""
    row = tl.program_id(0)
    r = row // num_heads
    d = tl.arange(0, D)
    x = tl.load(x_ptr + row * D + d).to(tl.float32)
    ss = tl.sum(x * x, axis=0)
    rrms = tl.rsqrt(ss / D + eps)
    w = tl.load(w_ptr + d).to(tl.float32)
    y = ((x * rrms) * (1.0 + w)).to(tl.bfloat16)
    tl.store(out_ptr + row * D + d, y, mask=d >= 2 * HP)  # elements [rd, D) pass through
    i = tl.arange(0, HP_POW2)
    inside = i < HP
    xa = tl.load(x_ptr + row * D + i, mask=inside, other=0.0).to(tl.float32)
    xb = tl.load(x_ptr + row * D + HP + i, mask=inside, other=0.0).to(tl.float32)
    wa = tl.load(w_ptr + i, mask=inside, other=0.0).to(tl.float32)
    wb = tl.load(w_ptr + HP + i, mask=inside, other=0.0).to(tl.float32)
    a = ((xa * rrms) * (1.0 + wa)).to(tl.bfloat16).to(tl.float32)
    b = ((xb * rrms) * (1.0 + wb)).to(tl.bfloat16).to(tl.float32)
    pt = tl.load(pos_ptr + r * 3)
    ph = tl.load(pos_ptr + r * 3 + 1)
    pw = tl.load(pos_ptr + r * 3 + 2)
    p = tl.where((i % 3 == 1) & (i < 3 * SEC_H), ph, tl.where((i % 3 == 2) & (i < 3 * SEC_W), pw, pt))
    c = tl.load(cs_ptr + p * (2 * HP) + i, mask=inside, other=0.0).to(tl.float32)
    s = tl.load(cs_ptr + p * (2 * HP) + HP + i, mask=inside, other=0.0).to(tl.float32)
    tl.store(out_ptr + row * D + i, (a * c - b * s).to(tl.bfloat16), mask=inside)
    if SIGN_SLIP:
        second = b * c - a * s
    else:
        second = b * c + a * s
    tl.store(out_ptr + row * D + HP + i, second.to(tl.bfloat16), mask=inside)


def to_gpu_bf16(bits):
    return qw.torch_view(np.ascontiguousarray(bits), "cuda")


def from_gpu_bf16(tensor):
    return tensor.view(torch.int16).cpu().numpy().view(np.uint16)


class TritonArithmetic:
    """The arithmetic the NumPy example's step update calls (its ExactArithmetic's interface)."""

    def __init__(self, sign_slip):
        self.sign_slip = sign_slip

    @staticmethod
    def pool(members):
        """bf16 [G, C, D] -> bf16 [G, D]: the members added as a pairwise tree (C a power of two), / C."""
        m = to_gpu_bf16(members).float()
        while m.shape[1] > 1 and m.shape[1] % 2 == 0:
            m = m[:, 0::2] + m[:, 1::2]
        total = m.sum(dim=1)
        return from_gpu_bf16((total / members.shape[1]).to(torch.bfloat16))

    def norm_rope(self, rows, weight, eps, positions, cos_sin, rotary_dim, sections):
        count, heads, d = rows.shape
        hp = rotary_dim // 2
        x = to_gpu_bf16(rows).reshape(count * heads, d)
        out = torch.empty_like(x)
        if count > 0:
            sec_h, sec_w = (sections[1], sections[2]) if sections is not None else (0, 0)
            norm_rope_kernel[(count * heads,)](
                x, to_gpu_bf16(weight), torch.from_numpy(np.ascontiguousarray(positions, np.int64)).cuda(),
                to_gpu_bf16(cos_sin), out, float(eps), heads, D=d, HP=hp, HP_POW2=triton.next_power_of_2(hp),
                SEC_H=sec_h, SEC_W=sec_w, SIGN_SLIP=self.sign_slip)
        return from_gpu_bf16(out).reshape(count, heads, d)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bug", choices=("rope-sign-slip",), help="plant a bug (qsacheck must catch it)")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        print("qsa_triton_worker: no CUDA device (torch.cuda.is_available() is False)", file=sys.stderr)
        sys.exit(1)
    arithmetic = TritonArithmetic(sign_slip=args.bug == "rope-sign-slip")
    qw.main(name="triton-example" + ("#" + args.bug if args.bug else ""),
            build_info="examples/workers/triton, triton %s, torch %s, %s" % (
                triton.__version__, torch.__version__, torch.cuda.get_device_name()),
            capabilities=qw.Capabilities(),
            build_metadata=base.build_metadata,
            step_update=lambda call: base.step_update(call, None, arithmetic))


if __name__ == "__main__":
    main()
