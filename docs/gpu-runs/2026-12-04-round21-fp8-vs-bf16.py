"""fp8 against bf16 per shape and launch mode, over the production benchmark processes in DIR
(*.json): per-process medians and a one-sided Mann-Whitney U over all repetitions (fp8 below
bf16: normal approximation), in µs per launch."""
import glob, json, math, os, re, statistics, sys, collections
reps = collections.defaultdict(list); proc = collections.defaultdict(list)
for f in sorted(sum((glob.glob(a + '/*.json') if os.path.isdir(a) else [a] for a in sys.argv[1:]), [])):
    per = collections.defaultdict(list)
    for b in json.load(open(f))['benchmarks']:
        if b.get('run_type') != 'iteration': continue
        m = re.match(r'BM_StepUpdate/(cuda(?:-pdl)?)/shape:([^/]+/tokens:\d+/requests:\d+)/dtype:(\w+)/', b['run_name'])
        if not m: continue
        t = b['real_time'] * (1e-3 if b['time_unit'] == 'ns' else 1)
        reps[m.groups()].append(t); per[m.groups()].append(t)
    for k, ts in per.items(): proc[k].append(statistics.median(ts))
def p_less(a, b):
    u = sum(x < y for x in a for y in b) + 0.5 * sum(x == y for x in a for y in b)
    n1, n2 = len(a), len(b); mu = n1 * n2 / 2; sd = math.sqrt(n1 * n2 * (n1 + n2 + 1) / 12)
    return 0.5 * math.erfc((u - mu) / sd / math.sqrt(2))
print(f"{'mode':9s} {'shape':34s} {'bf16':>7s} {'fp8':>7s} {'fp8/bf16':>8s} {'p(fp8 not below)':>17s} {'p(fp8 not above)':>17s}  per-process medians bf16 | fp8")
for mode, shape in sorted({(k[0], k[1]) for k in reps}):
    b, f = reps[(mode, shape, 'bf16')], reps[(mode, shape, 'fp8_e4m3')]
    if not b or not f: continue
    mb, mf = statistics.median(b), statistics.median(f)
    print(f"{mode:9s} {shape:34s} {mb:7.2f} {mf:7.2f} {mf / mb:8.3f} {p_less(f, b):17.2g} {p_less(b, f):17.2g}  "
          + ' '.join(f'{x:.2f}' for x in proc[(mode, shape, 'bf16')]) + ' | ' + ' '.join(f'{x:.2f}' for x in proc[(mode, shape, 'fp8_e4m3')]))
