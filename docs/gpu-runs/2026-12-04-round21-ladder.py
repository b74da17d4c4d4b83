"""Round 21 ladder table: median µs per launch of each build/skip over the same benchmarks."""
import json, os, re, statistics, sys
d = sys.argv[1]
cols = ['whole', 'skelitems', 'qonly', 'skel', 'items']
med = {}
for c in cols:
    f = os.path.join(d, c + '.json')
    if not os.path.exists(f): continue
    reps = {}
    for b in json.load(open(f))['benchmarks']:
        if b.get('run_type') != 'iteration': continue
        n = re.sub(r'/iterations:.*', '', b['run_name'])
        t = b['real_time'] * (1e-3 if b['time_unit'] == 'ns' else 1)
        reps.setdefault(n, []).append(t)
    for n, ts in reps.items(): med[(c, n)] = statistics.median(ts)
copy = {re.search(r'shape:([^/]+/tokens:\d+/requests:\d+)', n).group(1): v for (c, n), v in med.items() if c == 'whole' and 'CopySame' in n}
print(f"{'benchmark':60s} " + ' '.join(f'{c:>9s}' for c in cols) + '  copy-same')
for n in sorted({n for (c, n) in med if 'StepUpdate' in n}):
    sh = re.search(r'shape:([^/]+/tokens:\d+/requests:\d+)', n).group(1)
    cells = ' '.join(f"{med[(c, n)]:9.2f}" if (c, n) in med else ' ' * 9 for c in cols)
    print(f"{n:60s} {cells}  {copy.get(sh, float('nan')):9.2f}")
