#!/usr/bin/env python3
"""Table of PromiseFSBench and fs-promises-bench.mjs results: fs-ratios.py SWIFT NODE LARGE_MIB.

Each input line: workload, implementation, median, min, max (milliseconds). For the large
workloads the table adds throughput. "vs raw" is raw time / PromiseFS time (1.0 = as fast
as raw C calls; the goal for large files is >= 0.9). "vs Node" is Node's time / PromiseFS
time (above 1: PromiseFS is faster; the goal for small files is >= 1.5)."""
import sys
from collections import defaultdict

rows = defaultdict(dict)
for path in sys.argv[1:3]:
    for line in open(path):
        workload, impl, median, low, high = line.rstrip("\n").split("\t")
        rows[workload][impl] = (float(median), float(low), float(high))
large_mib = int(sys.argv[3])
order = ["large-write", "large-write-in-place", "large-read", "chunk-read", "small-read", "small-write", "small-write-in-place", "durable-write"]
print(f"| workload | PromiseFS | raw C | Node fs/promises | vs raw | vs Node |")
print(f"|---|---|---|---|---|---|")
for workload in order:
    impls = rows.get(workload, {})
    def cell(impl):
        if impl not in impls:
            return "—"
        median, low, high = impls[impl]
        text = f"{median:,.1f} ms ({low:,.1f}–{high:,.1f})"
        if workload.startswith(("large", "chunk")):
            text += f", {large_mib / (median / 1000):,.0f} MiB/s"
        return text
    pfs = impls.get("PromiseFS", (None,))[0]
    raw = impls.get("raw", (None,))[0]
    node = impls.get("node", (None,))[0]
    vs_raw = f"{raw / pfs:.2f}" if pfs and raw else "—"
    vs_node = f"{node / pfs:.2f}" if pfs and node else "—"
    print(f"| {workload} | {cell('PromiseFS')} | {cell('raw')} | {cell('node')} | {vs_raw} | {vs_node} |")
