#!/usr/bin/env python3
"""The host example plugin's planted variants (examples/plugins/host, docs/planted-bugs.md "The host
example's variants") through `qsacheck mutants --backend plugin:PATH.so`, the default campaign at
each seed given: every variant is caught, each by the check its mistake breaks (so a broken shared
path, which every variant would fail alike, does not pass for a catch), and the example offers
exactly the variants listed here (a new one needs its row).

Usage: host_variants_test.py QSACHECK PLUGIN_SO SEED...   (stdlib only: any python3)
"""

import json
import os
import re
import subprocess
import sys
import tempfile
import time

# Variant -> the finding that must catch it (a regular expression on the kill table's detail).
NUMERICS = r"step-differential (cache\.compressed|q_out)|q-path q_out"
EXPECTED = {
    "k-work-without-minimum": r"7\.4-metadata-invariant k-work",
    "fp8-no-saturation": r"step-differential cache\.compressed|q-path q_out|7\.1",
    "stray-write-unused-row": r"7\.5-writes cache\.compressed",
    "stray-write-row-rewritten-later": r"7\.5-writes cache\.ring",
    # Row roles: a padding row's q_out; a padding row's slot (or a live row's slot below -1, which
    # the same copy passes through).
    "padding-position-zero": r"q-path q_out",
    "passthrough-minus-one-only": r"7\.4-metadata-invariant (padding-inert|slot-sentinel)",
    # Call sequences: the valid step after the call that ends in position-out-of-range.
    "step-status-sticks": r"step-status step_status: the step reported position-out-of-range, expected ok",
    # SPEC 6's numerical alternatives: a byte of a stored row or of q_out.
    "pool-reciprocal-multiply": r"step-differential cache\.compressed|7\.1",
    "rsqrt-single-rounding": NUMERICS,
    "rope-fused-multiply-add": NUMERICS,
    "bf16-nan-canonical": NUMERICS,
}


def main():
    qsacheck, plugin, seeds = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3:]
    backend = "plugin:" + plugin
    failures = []
    with tempfile.TemporaryDirectory() as work:
        for seed in seeds:
            replay = f"{qsacheck} mutants --backend {backend} --seed {seed}"
            out = os.path.join(work, f"mutants-{seed}.json")
            start = time.monotonic()
            run = subprocess.run([qsacheck, "mutants", "--backend", backend, "--seed", seed, "--json", out],
                                 capture_output=True, text=True)
            seconds = time.monotonic() - start
            if run.returncode != 0 or not os.path.exists(out):
                failures.append(f"seed {seed}: exit {run.returncode} (replay: {replay})\n{run.stdout[-3000:]}"
                                f"{run.stderr[-2000:]}")
                continue
            rows = {r["planted_bug"].split("#")[-1]: r for r in json.load(open(out))["planted_bugs"]}
            if set(rows) != set(EXPECTED):
                failures.append(f"seed {seed}: the plugin offers {sorted(rows)}, this test knows {sorted(EXPECTED)}")
            for name, row in sorted(rows.items()):
                pattern = EXPECTED.get(name)
                if not row["caught"]:
                    failures.append(f"seed {seed}: {name} survived (replay: {replay})")
                elif pattern and not re.search(pattern, row["detail"]):
                    failures.append(f"seed {seed}: {name} caught by another finding than /{pattern}/: {row['detail']}"
                                    f" (replay: {replay})")
            slowest = max(rows.values(), key=lambda r: r["seconds"], default=None)
            print(f"seed {seed}: {sum(r['caught'] for r in rows.values())}/{len(rows)} variants caught in {seconds:.1f} s"
                  + (f"; slowest {slowest['planted_bug'].split('#')[-1]} {slowest['seconds']:.2f} s "
                     f"({slowest['caught_by']}, step {slowest['step']})" if slowest else ""))
    for f in failures:
        print("FAIL:", f)
    print("PASS" if not failures else f"FAILED ({len(failures)})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
