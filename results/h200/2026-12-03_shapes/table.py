"""Per case of a merged ikbo_lce_shapes report: pipelined and fused medians over k_aligned's."""
import csv, sys, json
rows = {}
for r in csv.DictReader(open(sys.argv[1])):
    if r['status'] != 'ok': continue
    rows.setdefault(r['case'], {})[r['variant']] = float(r['region_median_ms'])
out = []
for case, v in rows.items():
    k = v.get('k_aligned'); p = v.get('pipelined'); f = v.get('fused')
    out.append((case, k, f, p, f / k if f and k else None, p / k if p and k else None))
print('| case | k_aligned ms | fused ms | pipelined ms | fused/k_aligned | pipelined/k_aligned |')
print('|---|---:|---:|---:|---:|---:|')
for c, k, f, p, rf, rp in out:
    fmt = lambda x, d=4: '—' if x is None else f'{x:.{d}f}'
    print(f'| {c} | {fmt(k)} | {fmt(f)} | {fmt(p)} | {fmt(rf,3)} | {fmt(rp,3)} |')
lose_p = [o for o in out if o[5] and o[5] > 1.0]
lose_f = [o for o in out if o[4] and o[4] > 1.0]
print(f'\n{len(out)} cases; pipelined slower than k_aligned on {len(lose_p)}, fused on {len(lose_f)}')
