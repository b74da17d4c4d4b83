#!/bin/bash
# Round 18 run 1. (1) cand18 (k-work items through item_units, one item a team in production)
# against main's build (base17): step_update_bench, production modes, both dtypes, three
# alternating processes each. (2) cand18's tunings: two items a team (streaming and latency grids)
# beside the grids they change. (3) The ladder, plain and PDL, bf16: the Q path without its
# arithmetic (skel: the same loads and stores) with and without the item blocks; cand18 with the
# Q blocks only and the item blocks only; the same-size copies. (4) late (the PDL trigger at the
# kernel's end) against cand18 with PDL, three alternating processes each.
R=$OUT; F=/tmp/r; mkdir -p $F/ab $F/tun $F/lad $F/late
run() {  # VARIANT OUTFILE FILTER [ENV...]
  local v=$1 o=$2 filt=$3; shift 3
  (cd .ab/$v && env "$@" LD_LIBRARY_PATH=$PWD:$PWD/../../bundle ./step_update_bench --benchmark_filter="$filt" \
    --benchmark_out=$o.json --benchmark_out_format=json > $o.log 2>&1)
  echo "$v $o rc $? $(date +%s)"
}
PFILT='BM_StepUpdate/cuda(-pdl)?/shape:'
for r in 1 2 3; do
  for v in base17 cand18; do run $v $F/ab/$v.$r "$PFILT" X=1; done
done
run cand18 $F/tun/cand18.1 'BM_StepUpdateTuning/.*bf16/grid:(streaming/members:4|streaming/items_per_team:2|streaming/items_per_team:2/members:4|latency|latency/items_per_team:2)/iter' X=1
LFILT='BM_StepUpdate/cuda(-pdl)?/shape:.*bf16|BM_CopySameSize'
run skel $F/lad/skel_q.1 "$LFILT" QSA_EXP_SKIP=i
run skel $F/lad/skel_all.1 "$LFILT" QSA_EXP_SKIP=
run cand18 $F/lad/q.1 "$LFILT" QSA_EXP_SKIP=i
run cand18 $F/lad/items.1 "$LFILT" QSA_EXP_SKIP=q
DFILT='BM_StepUpdate/cuda-pdl/shape:'
for r in 1 2 3; do
  for v in cand18 late; do run $v $F/late/$v.$r "$DFILT" X=1; done
done
for f in $F/ab/base17.*; do mv $f ${f/base17/base}; done
for f in $F/late/cand18.*; do mv $f ${f/cand18/base}; done
python3 .ab/r15sum.py $F/ab > $R/prod-ab.txt
python3 .ab/r15sum.py $F/late > $R/late-ab.txt
python3 - $F > $R/ladder.txt <<'PY'
import json, sys, glob, os, re, statistics
F = sys.argv[1]
def med(path):
    out = {}
    for b in json.load(open(path))['benchmarks']:
        if b.get('run_type') == 'aggregate' and b.get('aggregate_name') == 'median':
            out[re.sub(r'/iterations:.*|_median', '', b['run_name'])] = b['real_time'] * (1e-3 if b['time_unit'] == 'ns' else 1)
    return out
for d in ('tun', 'lad'):
    for f in sorted(glob.glob(os.path.join(F, d, '*.json'))):
        print('==', os.path.basename(f))
        for n, t in sorted(med(f).items()): print(f'{n:110s} {t:8.2f}')
PY
tar czf $R/r18a.tar.gz -C /tmp r
cut -c1-150 $R/prod-ab.txt
cut -c1-150 $R/late-ab.txt
cat $R/ladder.txt
