#!/usr/bin/env python3
"""Agreement of two timers on one kernel: Nsight Compute's gpu__time_duration.sum (ncu --csv,
--cache-control all: L2 flushed before each launch, --clock-control none) against gpubench's CUPTI
per-kernel median for the same variant from a normal (un-profiled) run.

usage: ncu_agreement.py NCU.csv REPORT.json VARIANT
Prints both medians and their relative difference; exit 0 when within 2% (issue 3), else 1."""
import csv
import io
import json
import statistics
import sys


def ncu_durations_ms(path):
    text = open(path, encoding="utf-8", errors="replace").read()
    start = text.find('"ID"')
    if start < 0:
        raise SystemExit(f"{path}: no ncu CSV table found")
    out = []
    for row in csv.DictReader(io.StringIO(text[start:])):
        if row.get("Metric Name") == "gpu__time_duration.sum":
            value = float(row["Metric Value"].replace(",", ""))
            unit = row.get("Metric Unit", "ns")
            scale = {"ns": 1e-6, "nsecond": 1e-6, "us": 1e-3, "usecond": 1e-3, "ms": 1.0, "msecond": 1.0}.get(unit, 1e-6)
            out.append(value * scale)
    return out


def main():
    ncu_csv, report_path, variant = sys.argv[1:4]
    ncu = ncu_durations_ms(ncu_csv)
    report = json.load(open(report_path))
    kernels = []
    for case in report["cases"]:
        for v in case["variants"]:
            if v["name"] == variant:
                # launch groups: "launch_groups" (report schema_version 2), "ops" (version 1)
                for group in v.get("launch_groups", v.get("ops", [])):
                    kernels += [k for k in group.get("kernels", []) if k["kind"] == "kernel"]
    if not ncu or not kernels:
        print(f"no data: {len(ncu)} ncu launches, {len(kernels)} gpubench kernels")
        return 1
    main_kernel = max(kernels, key=lambda k: k["stats"]["median"])
    g = main_kernel["stats"]["median"]
    n = statistics.median(ncu)
    diff = (g - n) / n
    print(f"kernel: {main_kernel['name'][:100]}")
    print(f"ncu gpu__time_duration median of {len(ncu)} launches: {n:.4f} ms")
    print(f"gpubench CUPTI median of {main_kernel['stats']['count']} samples: {g:.4f} ms")
    print(f"difference {diff * 100:+.2f}% ({'within' if abs(diff) <= 0.02 else 'OUTSIDE'} 2%)")
    return 0 if abs(diff) <= 0.02 else 1


if __name__ == "__main__":
    sys.exit(main())
