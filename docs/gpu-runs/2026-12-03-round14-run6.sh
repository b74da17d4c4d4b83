#!/bin/bash
# Round 14 run 6: which part of the metadata row tiles' chain after the request table costs the
# time at prefill. A temporary build (.ab/b14, docs/gpu-runs/2026-12-03-round14-metadata-ablation.patch)
# skips, by QSA_EXP_MD bits: 1 the three stores other than the slot, 2 the warp search (request
# 0 for every row), 4 the divisions by Cb and R. Outputs differ on purpose; the benchmark does
# not check them when QSA_EXP_MD is set.
R=$OUT; F=/tmp/r; mkdir -p $F
cd .ab/b14
FILT='BM_Metadata/cuda(-pdl)?/kind:(ring|compressed)/tokens:(8192|16384|65536)/|BM_Floor/pdl/dependent_loads:1'
for x in none 0 1 2 4 7; do
  if [ $x = none ]; then unset QSA_EXP_MD; else export QSA_EXP_MD=$x; fi
  LD_LIBRARY_PATH=.:../../bundle ./metadata_bench --benchmark_filter="$FILT" --benchmark_out=$F/md-$x.json --benchmark_out_format=json > $F/md-$x.log 2>&1
  echo "QSA_EXP_MD=$x rc $?"
done
unset QSA_EXP_MD
tar czf $R/r14e.tar.gz -C /tmp r
cd ../.. && python3 - $F <<'PY' | tee $R/ablation.txt
import json, statistics, sys, re
F = sys.argv[1]
cols = ['none', '0', '1', '2', '4', '7']
table = {}
for x in cols:
    reps = {}
    for b in json.load(open(f'{F}/md-{x}.json'))['benchmarks']:
        if b.get('run_type') == 'iteration':
            reps.setdefault(re.sub(r'/iterations.*', '', b['run_name']), []).append(b['real_time'])
    for k, v in reps.items():
        table.setdefault(k, {})[x] = statistics.median(v)
print(f"{'benchmark':70s} " + ' '.join(f'{c:>6s}' for c in cols))
for k, row in table.items():
    print(f"{k:70s} " + ' '.join(f"{row.get(c, float('nan')):6.3f}" for c in cols))
PY
