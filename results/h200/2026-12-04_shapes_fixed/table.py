"""Per case of merged ikbo_lce_shapes CSV reports (cases in several files, each case in one): fused and pipelined
region medians over k_aligned's, then the `ab` verdicts of ab.txz when given.
Usage: python3 table.py shapes_a.csv.gz shapes_b.csv.gz [ab.txz] > table.md"""
import csv, gzip, io, json, sys, tarfile

def text(path):
    return io.TextIOWrapper(gzip.open(path)) if path.endswith('.gz') else open(path)

rows, ab = {}, None
for path in sys.argv[1:]:
    if path.endswith('.tgz'):
        ab = path
        continue
    for r in csv.DictReader(text(path)):
        if r['status'] == 'ok':
            rows.setdefault(r['case'], {})[r['variant']] = (float(r['region_median_ms']), path)
print('| case | k_aligned ms | fused / k_aligned | pipelined / k_aligned | report |')
print('|---|---:|---:|---:|---|')
ratios = {'fused': [], 'pipelined': []}
for case, v in rows.items():
    k = v.get('k_aligned')
    cells = []
    for step in ('fused', 'pipelined'):
        if k and step in v:
            ratios[step].append((v[step][0] / k[0], case))
            cells.append(f'{v[step][0] / k[0]:.3f}')
        else:
            cells.append('—')
    print(f"| {case} | {'—' if k is None else f'{k[0]:.4f}'} | {cells[0]} | {cells[1]} | {k[1] if k else ''} |")
print()
for step, rs in ratios.items():
    rs.sort()
    bins = (sum(r < 0.97 for r, _ in rs), sum(0.97 <= r <= 1.03 for r, _ in rs), sum(r > 1.03 for r, _ in rs))
    print(f'- {step}: {len(rs)} cases; < 0.97: {bins[0]}, 0.97–1.03: {bins[1]}, > 1.03: {bins[2]}; max {rs[-1][0]:.3f} '
          f'({rs[-1][1]})')
if ab:
    print('\n| ab (A = k_aligned) | launch group | verdict | B/A | 95% interval | A µs | B µs |')
    print('|---|---|---|---:|---|---:|---:|')
    with tarfile.open(ab) as t:
        for m in sorted(t.getmembers(), key=lambda m: m.name):
            if not m.name.endswith('.json') or 'lce-backend' in m.name:
                continue
            for e in json.load(t.extractfile(m))['entries']:
                print(f"| {m.name.split('/')[-1][:-5]} | {e['launch_group'] or 'region'} | {e['verdict']} | "
                      f"{e['ratio']:.4f} | {e['ci_low']:.4f}–{e['ci_high']:.4f} | {e['old']['median_ms'] * 1e3:.2f} | "
                      f"{e['new']['median_ms'] * 1e3:.2f} |")
