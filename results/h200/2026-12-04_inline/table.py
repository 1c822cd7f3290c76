"""Per case of the inline call's CSV reports: pipelined's region median over k_aligned's, and the backend it ran (from
the Markdown report's notes). Usage: python3 table.py b8 b1024_l1 > table.md"""
import csv, gzip, io, re, sys

print('| case | k_aligned ms | pipelined / k_aligned | pipelined ran |')
print('|---|---:|---:|---|')
for name in sys.argv[1:]:
    ran = {}
    case = None
    for line in io.TextIOWrapper(gzip.open(name + '.md.gz')):
        if line.startswith('## '):
            case = line[3:].strip()
        m = re.match(r'- pipelined: backend auto: ran the (library path|tile kernel(?: \([^)]*\))?)', line)
        if m and case:
            ran[case] = m.group(1).replace('tile kernel', 'tile')
    rows = {}
    for r in csv.DictReader(io.TextIOWrapper(gzip.open(name + '.csv.gz'))):
        if r['status'] == 'ok':
            rows.setdefault(r['case'], {})[r['variant']] = float(r['region_median_ms'])
    for c, v in rows.items():
        print(f"| {c} | {v['k_aligned']:.4f} | {v['pipelined'] / v['k_aligned']:.3f} | {ran.get(c, '?')} |")
