"""Per case of a merged ikbo_lce_shapes CSV report: fused and pipelined region medians over k_aligned's.
Usage: python3 table.py shapes_0to3.csv.gz > table.md"""
import csv, gzip, io, sys

def text(path):
    return io.TextIOWrapper(gzip.open(path)) if path.endswith('.gz') else open(path)

rows = {}
for r in csv.DictReader(text(sys.argv[1])):
    if r['status'] == 'ok':
        rows.setdefault(r['case'], {})[r['variant']] = float(r['region_median_ms'])
print('| case | k_aligned ms | fused / k_aligned | pipelined / k_aligned |')
print('|---|---:|---:|---:|')
ratios = {'fused': [], 'pipelined': []}
for case, v in rows.items():
    k = v.get('k_aligned')
    cells = []
    for step in ('fused', 'pipelined'):
        if k and step in v:
            ratios[step].append((v[step] / k, case))
            cells.append(f'{v[step] / k:.3f}')
        else:
            cells.append('—')
    print(f"| {case} | {'—' if k is None else f'{k:.4f}'} | {cells[0]} | {cells[1]} |")
print()
for step, rs in ratios.items():
    rs.sort()
    bins = (sum(r < 0.97 for r, _ in rs), sum(0.97 <= r <= 1.03 for r, _ in rs), sum(r > 1.03 for r, _ in rs))
    print(f'- {step}: {len(rs)} cases with both steps; < 0.97: {bins[0]}, 0.97–1.03: {bins[1]}, > 1.03: {bins[2]} '
          f'({", ".join(f"{r:.3f} {c}" for r, c in rs if r > 1.03) or "none"})')
