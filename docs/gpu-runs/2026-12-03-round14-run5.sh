#!/bin/bash
# Round 14 run 5: the latency ladder plain and with PDL (in 4, 32 and 256 blocks) beside the
# metadata kernels (plain, PDL, the ring tilings with PDL) and upstream's, in one command. The
# step rows of compare.py come from run 3's JSON; only its metadata rows are kept.
R=$OUT; F=/tmp/r; mkdir -p $F
cd bundle
for r in 1 2; do
  ./metadata_bench --benchmark_filter='BM_Floor|BM_Metadata/cuda|BM_MetadataTiling/cuda-pdl/kind:ring' --benchmark_out=$F/metadata$r.json --benchmark_out_format=json > $F/metadata-bench-$r.log 2>&1
  echo "metadata_bench $r rc $?"
done
cd .. && OUT=$F bash .upstream/run.sh > $F/upstream-console.txt 2>&1; echo "upstream rc $?"
tar xzf docs/gpu-runs/2026-12-03-round14-run3-json.tar.gz -C $F step1.json
python3 .upstream/compare.py --upstream $F/upstream.json $F/step1.json $F/metadata1.json | grep -E '^md|^comparison' > $R/md-vs-upstream.txt
tar czf $R/r14d.tar.gz -C /tmp r
python3 - $F/metadata1.json $F/metadata2.json <<'PY' | tee $R/floors.txt
import json, statistics, sys
for f in sys.argv[1:]:
    reps = {}
    for b in json.load(open(f))['benchmarks']:
        if b.get('run_type') == 'iteration' and b['run_name'].startswith('BM_Floor'):
            reps.setdefault(b['run_name'].split('/iterations')[0], []).append(b['real_time'])
    for k, v in reps.items():
        print(f"{f.split('/')[-1]:16s} {k:50s} {statistics.median(v):6.3f} us  ({len(v)} reps)")
PY
cat $R/md-vs-upstream.txt
