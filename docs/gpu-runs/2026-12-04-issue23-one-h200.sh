#!/bin/bash
# Issue 23 on one H200 (nvidia-h200-x2 not lent): bash .ab/r21d.sh 1|2|3|4. Carry: bundle, .ab (2: .upstream).
# 1: the default campaign with --devices all and with --devices 0 (both --keep-going, one --out), the
#    two shards of --shard K/2 at once on the one GPU, merged and compared with the unsharded report.
# 2: --devices all --jobs 16 on the default campaign and on one twice as long (--steps 2000); CTest
#    with the resource spec (run_gpu.sh phase ctest); a second comparison against upstream.
# 3: after the merge fix: the unsharded report (--jobs 16) and the two shards at once (--jobs 8 each), merged.
# 4: after the zero-fill fix: run_gpu.sh's tests; the shards at once three times, each merge against the unsharded report.
Q=$PWD/bundle/qsacheck; F=/tmp/s; mkdir -p $F/repro; cd $F
TIMEFORMAT='%R s wall, %U s user, %S s sys'
busy() { awk '/^cpu /{print $2+$3+$4+$7+$8, $2+$3+$4+$5+$6+$7+$8}' /proc/stat; }
run() {  # name, qsacheck args...: wall, process CPU, host CPU busy %, GPU utilisation (mean, share of samples > 0)
  local name=$1; shift
  nvidia-smi --query-gpu=utilization.gpu --format=csv,noheader,nounits -lms 200 > $name.gpu & local mon=$!
  read b0 t0 < <(busy)
  { time "$Q" check --backend cuda "$@" --out $F/repro --json $name.json > $name.log 2>&1; echo "rc $?" >> $name.log; } 2> $name.time
  read b1 t1 < <(busy); kill $mon
  python3 - "$name" "$b0" "$t0" "$b1" "$t1" <<'PY'
import sys; n, b0, t0, b1, t1 = sys.argv[1], *map(float, sys.argv[2:])
g = [float(x) for x in open(n + '.gpu') if x.strip().replace('.', '').isdigit()]
t = open(n + '.time').read().split(','); wall = float(t[0].split()[0]); cpu = float(t[1].split()[0]) + float(t[2].split()[0])
rc = open(n + '.log').read().strip().splitlines()[-1]
print(f"{n:12s} {rc}  wall {wall:7.1f} s  qsacheck CPU {cpu / wall:5.2f} cores  host busy {100 * (b1 - b0) / (t1 - t0):5.1f} %  "
      f"GPU util mean {sum(g) / max(len(g), 1):5.1f} %, busy in {100 * sum(x > 0 for x in g) / max(len(g), 1):5.1f} % of {len(g)} samples")
PY
}
same() {  # two reports equal but for run facts
  python3 - "$1" "$2" <<'PY'
import json, sys
def strip(v):
    if isinstance(v, dict): return {k: strip(x) for k, x in v.items() if k not in ("run", "seconds", "device")}
    if isinstance(v, list): return [strip(x) for x in v]
    return v
a, b = (strip(json.load(open(f))) for f in sys.argv[1:])
print(f"{sys.argv[1]} == {sys.argv[2]} (without run, seconds, device): {'EQUAL' if a == b else 'DIFFERENT'}")
PY
}
nvidia-smi -L; nproc; "$Q" --version
if [ "$1" = 1 ]; then
  run all --devices all --keep-going
  run dev0 --devices 0 --keep-going
  same all.json dev0.json
  # both shards at once on the one GPU
  read b0 t0 < <(busy); s0=$(date +%s.%N)
  for k in 1 2; do ("$Q" check --backend cuda --devices all --shard $k/2 --out $F/repro --json shard-$k.json > shard-$k.log 2>&1; echo "rc $?" >> shard-$k.log) & done; wait
  s1=$(date +%s.%N); read b1 t1 < <(busy)
  echo "shards 1/2 and 2/2 at once: wall $(python3 -c "print(round($s1 - $s0, 1))") s, host busy $(python3 -c "print(round(100 * ($b1 - $b0) / ($t1 - $t0), 1))") %; $(tail -1 shard-1.log), $(tail -1 shard-2.log)"
  "$Q" merge shard-1.json shard-2.json --json merged.json > merge.log 2>&1; echo "merge rc $?"
  same merged.json all.json
  for f in all dev0 shard-1 shard-2; do grep -E "RESULT|coverage: " $f.log | head -2; done
elif [ "$1" = 3 ]; then  # after the fix of the extreme batches' row on shards 2..N
  run whole16 --devices all --jobs 16 --keep-going
  read b0 t0 < <(busy); s0=$(date +%s.%N)
  for k in 1 2; do ("$Q" check --backend cuda --devices all --jobs 8 --shard $k/2 --out $F/repro --json shard-$k.json > shard-$k.log 2>&1; echo "rc $?" >> shard-$k.log) & done; wait
  s1=$(date +%s.%N); read b1 t1 < <(busy)
  echo "shards 1/2 and 2/2 at once (--jobs 8 each): wall $(python3 -c "print(round($s1 - $s0, 1))") s, host busy $(python3 -c "print(round(100 * ($b1 - $b0) / ($t1 - $t0), 1))") %; $(tail -1 shard-1.log), $(tail -1 shard-2.log)"
  "$Q" merge shard-1.json shard-2.json --json merged.json > merge.log 2>&1; echo "merge rc $?"; tail -3 merge.log
  same merged.json whole16.json
  for f in whole16 shard-1 shard-2; do grep -E "RESULT|coverage: " $f.log | head -2; done
elif [ "$1" = 4 ]; then  # after the fix of the block table's zero fill (MetadataBuffers::create on the backend's stream)
  cd - > /dev/null
  (cd bundle && OUT=$F/tests-out QSA_REQUIRE_GPU=1 QSA_PHASES=tests bash run_gpu.sh > $F/tests-run.out 2>&1; echo "tests phase rc $?"); grep -E "^(PASS|FAIL|RESULT)" $F/tests-out/summary.txt
  cd $F
  run whole16 --devices all --jobs 16 --keep-going
  for round in 1 2 3; do
    s0=$(date +%s.%N)
    for k in 1 2; do ("$Q" check --backend cuda --devices all --jobs 8 --shard $k/2 --out $F/repro --json shard-$k.json > shard-$round-$k.log 2>&1; echo "rc $?" >> shard-$round-$k.log) & done; wait
    echo "round $round: shards 1/2 and 2/2 at once (--jobs 8 each): wall $(python3 -c "print(round($(date +%s.%N) - $s0, 1))") s; $(tail -1 shard-$round-1.log), $(tail -1 shard-$round-2.log)"
    "$Q" merge shard-1.json shard-2.json --json merged-$round.json > merge-$round.log 2>&1; echo "merge rc $?"
    same merged-$round.json whole16.json
  done
else
  run jobs16 --devices all --jobs 16 --keep-going
  [ -f all.json ] && same jobs16.json all.json
  run long16 --devices all --jobs 16 --keep-going --steps 2000
  grep -E "RESULT|coverage: " jobs16.log long16.log
  cd - > /dev/null
  (cd bundle && OUT=$F/ctest-out QSA_REQUIRE_GPU=1 QSA_PHASES=ctest bash run_gpu.sh > $F/ctest-run.out 2>&1; echo "ctest phase rc $?"); tail -8 $F/ctest-out/summary.txt
  G=/tmp/r; mkdir -p $G
  (cd bundle && ./step_update_bench --benchmark_filter='BM_StepUpdate/cuda(-pdl|-v5)?/shape:|BM_StepChain|BM_Floor|BM_Copy' --benchmark_out=$G/step1.json --benchmark_out_format=json > $G/step-bench-1.log 2>&1); echo "step rc $?"
  OUT=$G bash .upstream/run.sh > $G/upstream-console.txt 2>&1; echo "up rc $?"
  (cd bundle && ./metadata_bench --benchmark_filter='BM_Metadata/cuda|BM_Floor' --benchmark_out=$G/md.json --benchmark_out_format=json > $G/md.log 2>&1); echo "md rc $?"
  python3 .upstream/compare.py --upstream $G/upstream.json $G/step1.json $G/md.json > $OUT/vs-upstream.txt 2>&1
  sed -n '/^Summary/,/^Tunings/p' $G/step-bench-1.log > $OUT/step-summary.txt
  tar czf $OUT/compare-json.tar.gz -C /tmp r; grep -E "^step|targets" $OUT/vs-upstream.txt | cut -c1-150
  cd $F
fi
rm -f *.gpu.tmp; tar czf $OUT/issue23-part$1.tar.gz --exclude=repro -C /tmp s
