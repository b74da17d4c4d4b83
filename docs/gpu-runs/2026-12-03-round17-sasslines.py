# Per kernel of a cuobjdump -sass listing: the distinct 64-byte lines of bank 0 it reads, in first-use order.
import re, sys
fn = None; seen = {}
for line in open(sys.argv[1], errors="replace"):
    m = re.match(r"\s*Function : (\S+)", line)
    if m: fn = m.group(1); seen[fn] = []; continue
    if fn is None: continue
    for off in re.findall(r"c\[0x0\]\[0x([0-9a-f]+)\]", line):
        l = int(off, 16) & ~63
        if l not in seen[fn]: seen[fn].append(l)
pat = sys.argv[2] if len(sys.argv) > 2 else ""
for fn, lines in seen.items():
    if pat in fn: print(len(lines), " ".join(hex(l) for l in lines), fn[:150])
