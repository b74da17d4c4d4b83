#!/bin/bash
# Round 18 run 3: the latency grid's resident blocks per SM, capped by unused dynamic shared memory
# (QSA_EXP_SMEM, the slots build = main's kernels plus the env hooks), at the decode shapes, plain
# and PDL, both dtypes; two rounds, the cap values alternating.
R=$OUT; F=/tmp/r; mkdir -p $F/slots
for r in 1 2; do
  for b in 0 7680 8192 8600 9050 9550 10100; do
    (cd .ab/slots && QSA_EXP_SMEM=$b LD_LIBRARY_PATH=$PWD:$PWD/../../bundle ./step_update_bench \
      --benchmark_filter='BM_StepUpdate/cuda(-pdl)?/shape:decode' \
      --benchmark_out=$F/slots/s$b.$r.json --benchmark_out_format=json > $F/slots/s$b.$r.log 2>&1)
    echo "smem $b round $r rc $? $(grep -h 'EXP latency' $F/slots/s$b.$r.log | head -1)"
  done
done
python3 - $F/slots > $R/slots.txt <<'PY'
import json, sys, glob, os, re, statistics, collections
d = collections.defaultdict(dict)
for f in glob.glob(os.path.join(sys.argv[1], '*.json')):
    b = int(os.path.basename(f)[1:].split('.')[0])
    per = collections.defaultdict(list)
    for x in json.load(open(f))['benchmarks']:
        if x.get('run_type') == 'iteration':
            per[re.sub(r'/iterations:.*', '', x['run_name'])].append(x['real_time'] * (1e-3 if x['time_unit'] == 'ns' else 1))
    for n, ts in per.items(): d[n].setdefault(b, []).extend(ts)
bs = sorted({b for v in d.values() for b in v})
print(f"{'benchmark (median of 18, us) / dynamic shared bytes':78s}" + ''.join(f'{b:>8d}' for b in bs))
for n in sorted(d):
    print(f'{n:78s}' + ''.join(f'{statistics.median(d[n][b]):8.2f}' for b in bs))
PY
tar czf $R/r18c.tar.gz -C /tmp r
cat $R/slots.txt
