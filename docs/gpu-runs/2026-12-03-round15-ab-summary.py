"""Round 15: A/B of metadata_bench processes. usage: r15sum.py DIR (files VARIANT.ROUND.json).
Per benchmark: each variant's median over all repetitions of all its processes, the per-process
medians, the ratio and a one-sided Mann-Whitney U count (new below base), normal approximation."""
import glob, json, math, os, re, statistics, sys, collections
reps = collections.defaultdict(lambda: collections.defaultdict(list))
proc = collections.defaultdict(lambda: collections.defaultdict(list))
for f in sorted(glob.glob(os.path.join(sys.argv[1], '*.json'))):
    v = os.path.basename(f).split('.')[0]
    per = collections.defaultdict(list)
    for b in json.load(open(f))['benchmarks']:
        if b.get('run_type') == 'iteration':
            n = re.sub(r'/iterations:.*', '', b['run_name'])
            t = b['real_time'] * (1e-3 if b['time_unit'] == 'ns' else 1)
            reps[n][v].append(t); per[n].append(t)
    for n, ts in per.items():
        proc[n][v].append(statistics.median(ts))
variants = sorted({v for d in reps.values() for v in d})
base, new = 'base', [v for v in variants if v != 'base']
def p_less(a, b):  # one-sided P(a not below b), Mann-Whitney normal approximation
    u = sum(1 for x in a for y in b if x < y) + 0.5 * sum(1 for x in a for y in b if x == y)
    n1, n2 = len(a), len(b); mu = n1 * n2 / 2; sd = math.sqrt(n1 * n2 * (n1 + n2 + 1) / 12)
    return 0.5 * math.erfc((u - mu) / sd / math.sqrt(2)) if sd else 1.0
print(f"{'benchmark':64s} {'base':>7s} " + ' '.join(f'{v:>8s} ratio  p(U)' for v in new) + '   per-process medians base | new')
for n in sorted(reps):
    b = reps[n].get(base, [])
    if not b: continue
    cells = []
    for v in new:
        a = reps[n].get(v, [])
        if not a: cells.append(' ' * 22); continue
        cells.append(f"{statistics.median(a):8.3f} {statistics.median(a) / statistics.median(b):.3f} {p_less(a, b):.3f}")
    pp = ' '.join(f'{x:.2f}' for x in proc[n][base]) + ' | ' + ' | '.join(' '.join(f'{x:.2f}' for x in proc[n][v]) for v in new)
    print(f"{n:64s} {statistics.median(b):7.3f} " + ' '.join(cells) + '   ' + pp)
