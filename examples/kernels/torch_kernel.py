"""A kernel class in torch: SPEC 2's metadata as torch tensor operations, on whatever device
`device` names (the package hands it the inputs there and copies the outputs back;
docs/python-quickstart.md). TorchMetadata(bug="slot-off-by-one") plants a bug: a ring row's slot
one past its place. It declares no step update (reported as not run, exit 3)."""

import torch

import qsacheck


class TorchMetadata:
    capabilities = qsacheck.Capabilities()

    def __init__(self, device="cpu", bug=None):
        self.device = device
        self.bug = bug
        self.name = "torch-metadata" + ("#" + bug if bug else "")

    def metadata(self, m):
        qsl, seq = m.query_start_loc.long(), m.seq_lens.long()
        n, nr, table = m.num_actual_tokens, len(qsl) - 1, m.block_table.long()
        rows, width, dev = int(qsl[-1]), table.shape[1], qsl.device
        q = qsl[1:] - qsl[:-1]
        t = torch.arange(rows, device=dev)
        j = torch.searchsorted(qsl[:nr].contiguous(), t, right=True) - 1  # never an empty request
        p = seq[j] - q[j] + (t - qsl[j])
        ratio = m.compress_ratio if m.kind != "passthrough" else 1
        token_to_req = torch.zeros(n, dtype=torch.int32, device=dev)
        positions = torch.full((n,), -1, dtype=torch.int64, device=dev)
        visible = torch.zeros(n, dtype=torch.int32, device=dev)
        slots = torch.full((n,), -1, dtype=torch.int64, device=dev)
        token_to_req[:rows] = j.int()
        positions[:rows] = p
        visible[:rows] = torch.clamp(torch.minimum((p + 1) // ratio, seq[j] // ratio), min=0).int()
        none = torch.full((rows,), -1, dtype=torch.int64, device=dev)
        if m.kind == "ring":
            r = m.ring_capacity
            block = table[j, 0] if width > 0 else none
            valid = (p >= 0) & (t + r >= qsl[j + 1]) & (block >= 0)
            slots[:rows] = torch.where(valid, block * r + p % r + (1 if self.bug == "slot-off-by-one" else 0), none)
        elif m.kind == "compressed":
            c, s = m.compress_ratio, m.storage_block_size
            g = p // c
            logical = g // s
            inside = logical < width
            block = none.clone()
            block[inside] = table[j[inside], logical[inside]]
            valid = (p >= 0) & ((p + 1) % c == 0) & inside & (block >= 0) & (m.common_slot_mapping[:rows] >= 0)
            slots[:rows] = torch.where(valid, block * s + g % s, none)
        else:
            common = m.common_slot_mapping[:n]
            slots[:] = torch.where(common >= 0, common, torch.full_like(common, -1))
        k_work = torch.empty((0, 2), dtype=torch.int32, device=dev)
        if m.kind == "compressed":
            c = m.compress_ratio
            k = (n + (c - 1) * nr) // c
            items = torch.where(q == 0, torch.zeros_like(q), torch.clamp(seq // c - (seq - q) // c, min=1))
            k_work = torch.full((k, 2), -1, dtype=torch.int32, device=dev)
            requests = torch.repeat_interleave(torch.arange(nr, device=dev), items)
            work = torch.arange(len(requests), device=dev) - torch.repeat_interleave(torch.cumsum(items, 0) - items, items)
            k_work[:len(requests), 0] = requests.int()
            k_work[:len(requests), 1] = work.int()
        return {"token_to_req": token_to_req, "logical_positions": positions, "visible_blocks": visible,
                "slot_mapping": slots, "k_work_metadata": k_work, "split": self.split(q, seq, n, m.reorder_batch_threshold)}

    @staticmethod
    def split(q, seq, n, threshold):
        """SPEC 2's batch split: host bookkeeping over a handful of numbers."""
        q, seq = q.tolist(), seq.tolist()
        nr, q0 = len(q), (q[0] if q else 0)
        max_q = max(q, default=0)
        if max_q <= threshold and threshold <= 1:
            decodes, decode_tokens = nr, n
        elif q0 > threshold:
            decodes, decode_tokens = 0, 0
        elif all(x in (q0, 0) for x in q):
            decodes, decode_tokens = nr, n
        else:
            decodes = next(i for i, x in enumerate(q) if x != q0)
            decode_tokens = sum(q[:decodes])
        nonzero = [x for x in q[:decodes] if x]
        return {"num_decodes": decodes, "num_decode_tokens": decode_tokens, "num_prefills": nr - decodes,
                "num_prefill_tokens": n - decode_tokens, "max_query_len": max_q, "decode_query_len": nonzero[0] if nonzero else 0,
                "max_seq_len": max(seq, default=0)}
