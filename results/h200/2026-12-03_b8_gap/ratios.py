#!/usr/bin/env python3
"""pipelined / k_aligned region medians per case from gpubench CSV reports: python3 ratios.py A.csv [B.csv …]."""
import csv, sys

for path in sys.argv[1:]:
    med = {}
    with open(path) as f:
        for row in csv.DictReader(f):
            if row["region_median_ms"]:
                med[(row["case"], row["variant"])] = float(row["region_median_ms"])
    cases = sorted({c for c, _ in med}, key=lambda c: list(med).index((c, "k_aligned")) if (c, "k_aligned") in med else 0)
    print(f"== {path}")
    for c in cases:
        k, p = med.get((c, "k_aligned")), med.get((c, "pipelined"))
        if k and p:
            print(f"  {c:55s} k_aligned {k * 1e3:7.2f} us  pipelined {p * 1e3:7.2f} us  ratio {p / k:.3f}")
