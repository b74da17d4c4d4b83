#!/usr/bin/env python3
"""A kernel under test written in NumPy: the metadata (SPEC 2) and the step update (SPEC 5) as a
qsacheck worker (docs/worker-protocol.md, docs/plugin-quickstart.md "The Python way").

    qsacheck check --backend worker:"python3 examples/workers/numpy/qsa_numpy_worker.py"

Exact under SPEC 6: every operation is a NumPy float32 ufunc (IEEE binary32, round-to-nearest-even,
no fused multiply-add, subnormals kept), in SPEC 6's order; the RMSNorm sum of squares is the
pairwise tree written out level by level (np.sum's own order is not SPEC 6's tree), the pooling a
left-to-right loop. Switches:
  --bug k-work-without-minimum       planted: a request with no closing group gets no k-work item
  --bug group-position-last-member   planted: a group is rotated at its last member's position
  --bug stray-write-unused-row       planted: the third step also writes the compressed cache's last
                                     row, which no step names (SPEC 7.5)
  --bug stray-write-row-rewritten-later  planted: from the third step on, the first decode also writes
                                     its next position's ring row, which its next step rewrites
  --metadata-only                    declare no step update (qsacheck reports it as not run, exit 3)
"""

import argparse
import os
import sys

import numpy as np

try:
    import qsacheck_worker as qw  # installed by cmake --install (PYTHONPATH=<prefix>/lib/python3/dist-packages)
except ImportError:  # run from a checkout: the module beside the example
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "python"))
    import qsacheck_worker as qw

F32 = np.float32
# The planted bugs (--bug NAME), offered as variants in the hello, so that
# `qsacheck mutants --backend worker:"python3 qsa_numpy_worker.py"` runs each (docs/worker-protocol.md).
BUGS = {
    "k-work-without-minimum": "a request with no closing group gets no k-work item",
    "group-position-last-member": "a group is rotated at its last member's position",
    "stray-write-unused-row": "the third step also writes the compressed cache's last row, which no step names",
    "stray-write-row-rewritten-later": "from the third step on, the first decode also writes its next position's "
                                       "ring row, which its next step rewrites",
}
steps_so_far = 0  # step calls answered (a planted stray write fires once, from the third on)
stray_written = False


# ---- SPEC 2: the metadata of one cache group ----------------------------------------------------

def batch_split(qsl, seq_lens, n, threshold):
    q = np.diff(qsl)
    nr = len(q)
    split = {"max_query_len": int(q.max(initial=0)), "max_seq_len": int(seq_lens.max(initial=0))}
    q0 = int(q[0]) if nr else 0
    others = np.nonzero(q != q0)[0]
    if split["max_query_len"] <= threshold and threshold <= 1:
        decodes, decode_tokens = nr, n
    elif q0 > threshold:
        decodes, decode_tokens = 0, 0
    elif np.all((q == q0) | (q == 0)):
        decodes, decode_tokens = nr, n
    else:
        decodes = int(others[0])
        decode_tokens = int(qsl[decodes])
    nonzero = np.nonzero(q[:decodes])[0]
    split.update(num_decodes=decodes, num_decode_tokens=decode_tokens, num_prefills=nr - decodes,
                 num_prefill_tokens=n - decode_tokens, decode_query_len=int(q[nonzero[0]]) if len(nonzero) else 0)
    return split


def build_metadata(m, bug=None):
    qsl = m.query_start_loc.astype(np.int64)
    seq = m.seq_lens.astype(np.int64)
    n, nr = m.num_actual_tokens, len(qsl) - 1
    rows = int(qsl[-1])
    table = m.block_table
    width = table.shape[1]
    q = np.diff(qsl)
    start = seq - q
    out = {"token_to_req": np.zeros(n, np.int32), "logical_positions": np.full(n, -1, np.int64),
           "visible_blocks": np.zeros(n, np.int32), "slot_mapping": np.full(n, -1, np.int64)}
    t = np.arange(rows)
    j = np.searchsorted(qsl[:nr], t, side="right") - 1  # the largest j with qsl[j] <= t: never an empty request
    p = start[j] + (t - qsl[j])
    ratio = m.compress_ratio if m.kind != "passthrough" else 1
    out["token_to_req"][:rows] = j
    out["logical_positions"][:rows] = p
    out["visible_blocks"][:rows] = np.maximum(0, np.minimum((p + 1) // ratio, seq[j] // ratio))
    if m.kind == "ring":
        r = m.ring_capacity
        block = table[j, 0].astype(np.int64) if width > 0 else np.full(rows, -1, np.int64)
        valid = (p >= 0) & (t + r >= qsl[j + 1]) & (block >= 0)
        out["slot_mapping"][:rows] = np.where(valid, block * r + p % r, -1)
    elif m.kind == "compressed":
        c, s = m.compress_ratio, m.storage_block_size
        g = p // c
        logical_block = g // s
        inside = logical_block < width
        block = np.full(rows, -1, np.int64)
        block[inside] = table[j[inside], logical_block[inside]]
        valid = (p >= 0) & ((p + 1) % c == 0) & inside & (block >= 0) & (m.common_slot_mapping[:rows] >= 0)
        out["slot_mapping"][:rows] = np.where(valid, block * s + g % s, -1)
    else:
        common = m.common_slot_mapping[:n]
        out["slot_mapping"][:] = np.where(common >= 0, common, -1)
    k_work = np.empty((0, 2), np.int32)
    if m.kind == "compressed":
        c = m.compress_ratio
        k = (n + (c - 1) * nr) // c
        items = seq // c - start // c
        if bug != "k-work-without-minimum":
            items = np.maximum(1, items)
        items = np.where(q == 0, 0, items)
        k_work = np.full((k, 2), -1, np.int32)
        requests = np.repeat(np.arange(nr), items)
        work = np.arange(len(requests)) - np.repeat(np.cumsum(items) - items, items)
        k_work[:len(requests), 0] = requests
        k_work[:len(requests), 1] = work
    out["k_work_metadata"] = k_work
    out["split"] = batch_split(qsl, seq, n, m.reorder_batch_threshold)
    return out


# ---- SPEC 6: the canonical arithmetic, vectorized over leading axes ------------------------------

def rms_norm(x, weight, eps):
    """x: bf16 patterns [..., D]; the sum of squares by the pairwise tree in index order."""
    xf = qw.bf16_to_f32(x)
    level = xf * xf
    while level.shape[-1] > 1:
        level = level[..., 0::2] + level[..., 1::2]
    mean = level[..., 0] / F32(x.shape[-1])
    rrms = F32(1) / np.sqrt(mean + eps)
    return qw.f32_to_bf16((xf * rrms[..., None]) * (F32(1) + qw.bf16_to_f32(weight)))


def rope(y, positions, cos_sin, rotary_dim, sections):
    """NeoX RoPE on bf16 rows y [R, H, D]; positions [R, 3] (t, h, w) per row."""
    hp = rotary_dim // 2
    pair = np.arange(hp)
    axis = np.zeros(hp, np.int64)
    if sections is not None:
        axis[(pair % 3 == 1) & (pair < 3 * sections[1])] = 1
        axis[(pair % 3 == 2) & (pair < 3 * sections[2])] = 2
    p = positions[:, axis]  # [R, hp]: the position each pair reads
    c = qw.bf16_to_f32(cos_sin[p, pair])[:, None, :]
    s = qw.bf16_to_f32(cos_sin[p, hp + pair])[:, None, :]
    a = qw.bf16_to_f32(y[..., :hp])
    b = qw.bf16_to_f32(y[..., hp:rotary_dim])
    out = y.copy()
    out[..., :hp] = qw.f32_to_bf16(a * c - b * s)
    out[..., hp:rotary_dim] = qw.f32_to_bf16(b * c + a * s)
    return out


def store(bits, dtype):
    return bits if dtype == "bf16" else qw.e4m3_from_bf16(bits)


class ExactArithmetic:
    """SPEC 6 exactly, in NumPy. Another worker (examples/workers/triton) passes its own."""

    @staticmethod
    def pool(members):
        """members: bf16 [G, C, D] -> bf16 [G, D]: s = f(m_0); s = s + f(m_i), left to right; bf16(s / C)."""
        total = qw.bf16_to_f32(members[:, 0])
        for i in range(1, members.shape[1]):
            total = total + qw.bf16_to_f32(members[:, i])
        return qw.f32_to_bf16(total / F32(members.shape[1]))

    @staticmethod
    def norm_rope(rows, weight, eps, positions, cos_sin, rotary_dim, sections):
        """rows: bf16 [R, H, D]; positions [R, 3] -> rope(norm(rows)) as bf16 [R, H, D]."""
        return rope(rms_norm(rows, weight, eps), positions, cos_sin, rotary_dim, sections)


# ---- SPEC 5: the step update ---------------------------------------------------------------------

def ring_row(call, j, position):
    """(block, row) of position's ring row for request j, or None when the block is missing or past the cache."""
    table = call.ring_block_table
    if table.shape[1] == 0 or table[j, 0] < 0 or table[j, 0] >= call.ring_cache.shape[0]:
        return None
    return int(table[j, 0]), position % call.ring_capacity


def step_update(call, bug=None, arithmetic=ExactArithmetic):
    n, d, c = call.num_actual_tokens, call.head_dim, call.compress_ratio
    s_rows, r_cap = call.storage_block_size, call.ring_capacity
    qsl = call.query_start_loc.astype(np.int64)
    seq = call.seq_lens.astype(np.int64)
    rows_3 = call.positions.reshape(-1, n).T if call.positions.ndim == 2 else np.repeat(call.positions[:, None], 3, 1)
    sections = call.mrope_sections
    tail = 4 * ((d + 3) // 4)  # P: where the ring's (t, h, w) start
    status = "ok"
    ring = call.ring_cache
    ring_before = ring.copy()  # phase A reads the ring as it was before the step (every request)
    # Phase A: every group closing in a chunk, gathered, then computed at once.
    slots, members, group_positions = [], [], []
    for j in range(len(qsl) - 1):
        q, e = int(qsl[j + 1] - qsl[j]), int(seq[j])
        s = e - q
        if q == 0:
            continue
        for g in range(s // c, e // c):
            last = g * c + c - 1
            t_last = int(qsl[j]) + last - s
            logical = g // s_rows
            table = call.block_table
            if logical >= table.shape[1] or table[j, logical] < 0 or call.common_slot_mapping[t_last] < 0:
                continue
            slot = int(table[j, logical]) * s_rows + g % s_rows
            if slot >= call.compressed_cache.shape[0] * s_rows:
                continue
            group = np.zeros((c, d), np.uint16)
            for i, m in enumerate(range(g * c, g * c + c)):
                if m >= s:
                    group[i] = call.keys[int(qsl[j]) + m - s]
                elif (where := ring_row(call, j, m)) is not None:
                    group[i] = ring_before[where[0], where[1], :d]
            first = g * c if bug != "group-position-last-member" else last
            if call.ring_positions:
                if first >= s:
                    position = rows_3[int(qsl[j]) + first - s]
                else:
                    where = ring_row(call, j, first)
                    position = (ring_before[where[0], where[1], tail:tail + 12].copy().view("<i8")
                                if where is not None else np.zeros(3, np.int64))
                if np.any((position < 0) | (position >= call.max_position)):
                    status = "position-out-of-range"
                    continue
            else:
                position = np.array([first, first, first])
            slots.append(slot)
            members.append(group)
            group_positions.append(np.asarray(position, np.int64))
    if slots:
        pooled = arithmetic.pool(np.stack(members))
        rows = arithmetic.norm_rope(pooled[:, None, :], call.w_k, call.eps, np.stack(group_positions), call.cos_sin,
                                    call.rotary_dim, sections)
        for slot, row in zip(slots, rows[:, 0]):
            call.compressed_cache[slot // s_rows, slot % s_rows, :] = store(row, call.store_dtype)
    # Phase B: each chunk's last min(q, R) rows into the ring.
    for j in range(len(qsl) - 1):
        q, e = int(qsl[j + 1] - qsl[j]), int(seq[j])
        for position in range(e - min(q, r_cap), e):
            where = ring_row(call, j, position)
            if where is None:
                continue
            t = int(qsl[j]) + position - (e - q)
            ring[where[0], where[1], :d] = call.keys[t]
            if call.ring_positions:
                ring[where[0], where[1], tail:tail + 12] = rows_3[t].astype("<i8").view(np.uint16)
    global steps_so_far, stray_written
    steps_so_far += 1
    if steps_so_far >= 3 and not stray_written:
        stray_written = stray_write(call, bug, qsl, seq)
    # The Q path: every row, padding included.
    q_out = arithmetic.norm_rope(call.queries, call.w_q, call.eps, rows_3, call.cos_sin, call.rotary_dim, sections)
    return store(q_out, call.store_dtype), status


def stray_write(call, bug, qsl, seq):
    """The planted writes outside the step's rows (SPEC 7.5 forbids them)."""
    if bug == "stray-write-unused-row" and call.compressed_cache.shape[0] > 0:
        call.compressed_cache[-1, -1, :].view(np.uint8)[:] = 0x5A
        return True
    if bug == "stray-write-row-rewritten-later":
        # A decode of request j ends at e: this step names its positions' ring rows, the next step
        # position e's; row e mod R is position e - R's, older than the open group.
        for j in range(len(qsl) - 1):
            q = int(qsl[j + 1] - qsl[j])
            if 0 < q < call.ring_capacity and (where := ring_row(call, j, int(seq[j]))) is not None:
                call.ring_cache[where[0], where[1], :call.head_dim] = 0x5A5A
                return True
    return False


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bug", choices=list(BUGS), help="plant a bug (qsacheck must catch it)")
    parser.add_argument("--metadata-only", action="store_true", help="declare no step update")
    args = parser.parse_args()
    qw.main(name="numpy-example" + ("#" + args.bug if args.bug else ""),
            build_info="examples/workers/numpy, NumPy " + np.__version__,
            capabilities=qw.Capabilities(), variants=BUGS.items(),
            build_metadata=lambda m: build_metadata(m, args.bug),
            step_update=None if args.metadata_only else (lambda s: step_update(s, args.bug)))


if __name__ == "__main__":
    main()
