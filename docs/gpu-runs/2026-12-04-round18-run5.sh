#!/bin/bash
# Round 18 run 5: the Q path alone in a kernel without the item path (qonly: QSA_EXP_Q_ONLY_KERNEL,
# launched with QSA_EXP_SKIP=i), at 8, 10, 12 and 16 blocks per SM (the tunings' MinBlocks), bf16,
# plain, mixed and prefill, two cases per variant (--tuning_cases=2), one process.
R=$OUT; F=/tmp/r; mkdir -p $F/q
(cd .ab/qonly && QSA_EXP_SKIP=i LD_LIBRARY_PATH=$PWD:$PWD/../../bundle ./step_update_bench --tuning_cases=2 \
  --benchmark_filter='BM_StepUpdateTuning/cuda/shape:(mixed|prefill)/.*bf16/grid:streaming/members:4(/min_blocks:1[026]|/heads:4/min_blocks:10)?(/case:2)?/iter' \
  --benchmark_out=$F/q/qonly.json --benchmark_out_format=json > $F/q/qonly.log 2>&1)
echo "qonly rc $?"
python3 - $F/q/qonly.json > $R/qonly.txt <<'PY'
import json, sys, re
for b in json.load(open(sys.argv[1]))['benchmarks']:
    if b.get('run_type') == 'aggregate' and b.get('aggregate_name') == 'median':
        print(f"{re.sub(r'/iterations:.*', '', b['run_name']):110s} {b['real_time'] * (1e-3 if b['time_unit'] == 'ns' else 1):8.2f}")
PY
tar czf $R/r18e.tar.gz -C /tmp r
cat $R/qonly.txt; tail -5 $F/q/qonly.log
