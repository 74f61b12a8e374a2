# Summarise an ncu source page (--page source --csv --print-source sass): per kernel, instructions executed and
# stall samples by opcode, and the SASS lines with the most stall samples.
# --segments: then the same split at each BAR (a kernel's stretches between barriers: which pass waits).
#   python3 tests/bench/ncu_mix.py SOURCE.csv [--segments]
import csv, sys, collections, re
segments = '--segments' in sys.argv[2:]
rows = list(csv.reader(open(sys.argv[1], newline='')))
# The file may hold several kernels, each with its own header row (one whose cells include "Source").
blocks, cur, hdr, name = [], None, None, None
for r in rows:
    if not r: continue
    if len(r) == 1 and not hdr:
        name = r[0]; continue
    if 'Source' in r and any('Instructions Executed' in c for c in r):
        hdr = r; cur = {'name': name, 'hdr': r, 'rows': []}; blocks.append(cur); continue
    if len(r) == 1:
        name = r[0]; hdr = None; continue
    if cur is not None and len(r) == len(hdr): cur['rows'].append(r)
if not blocks:
    print('no blocks; first rows:'); [print(r[:8]) for r in rows[:6]]
for b in blocks:
    h = b['hdr']
    def col(pat):
        for i, c in enumerate(h):
            if re.search(pat, c): return i
        return None
    isrc, iex = col(r'^Source$'), col(r'^Instructions Executed$')
    ist = col(r'Warp Stall Sampling \(All')
    print('==', b['name'], '| columns:', ', '.join(h[:14]))
    ex, st, n = collections.Counter(), collections.Counter(), 0
    lines = []
    def num(x):
        try: return float(x.replace(',', ''))
        except: return 0.0
    for r in b['rows']:
        src = r[isrc].strip()
        op = re.sub(r'^@!?U?P\w+\s+', '', src).split(' ')[0] if src else '?'
        e = num(r[iex]) if iex is not None else 0
        s = num(r[ist]) if ist is not None else 0
        ex[op.split('.')[0]] += e; st[op.split('.')[0]] += s
        lines.append((s, e, src, op.split('.')[0]))
    te, ts = sum(ex.values()), sum(st.values())
    print(f'instructions executed (warp level) {te:.0f}; stall samples {ts:.0f}; SASS lines {len(lines)}')
    for op, e in ex.most_common(30):
        print(f'  {op:12s} {e:12.0f} {100*e/max(te,1):5.1f}%   stalls {100*st[op]/max(ts,1):5.1f}%')
    print('  top stall lines:')
    for s, e, src, _ in sorted(lines, reverse=True)[:25]:
        print(f'    {s:8.0f} {e:10.0f}  {src[:90]}')
    if segments:
        print('  segments (split after each BAR):')
        seg = [[0.0, 0.0, collections.Counter()]]
        for s, e, src, op in lines:
            seg[-1][0] += s; seg[-1][1] += e; seg[-1][2][op] += e
            if op == 'BAR': seg.append([0.0, 0.0, collections.Counter()])
        for k, (s, e, ops) in enumerate(seg):
            if e == 0 and s == 0: continue
            top = ' '.join(f'{o} {n / 1e3:.0f}k' for o, n in ops.most_common(8))
            print(f'    {k}: stall samples {s:.0f} ({100 * s / max(ts, 1):.1f}%), {e / 1e6:.2f}M instructions; {top}')
