#!/usr/bin/env python3
"""Tables of PromiseUVBench and uv-bluebird.mjs results: uv-ratios.py MICRO BLUEBIRD.

MICRO lines: workload, implementation, median, min, max (ms). BLUEBIRD lines: workload,
implementation, ms, peak RSS KiB (one line per run). Ratios say how PromiseUV compares; the
issue's goals are printed next to them."""
import statistics
import sys
from collections import defaultdict

micro = defaultdict(dict)
for line in open(sys.argv[1]):
    workload, impl, median, low, high = line.rstrip("\n").split("\t")
    micro[workload][impl] = (float(median), float(low), float(high))

def cell(value):
    median, low, high = value
    return f"{median:,.1f} ms ({low:,.1f}–{high:,.1f})"

print("| workload | implementation | time: median (min–max) | rate | speed vs raw libuv | speed vs DispatchQueue |")
print("|---|---|---|---|---|---|")
units = {"timers-1M": 1_000_000, "round-trip-20k": 20_000, "chains-10k": 10_000}
for workload in ["timers-1M", "round-trip-20k", "chains-10k"]:
    impls = micro.get(workload, {})
    raw = next((v[0] for k, v in impls.items() if k.startswith("raw")), None)
    dispatch = next((v[0] for k, v in impls.items() if k.startswith("DispatchQueue")), None)
    for impl, value in impls.items():
        median = value[0]
        count = units[workload]
        if workload == "round-trip-20k":
            rate = f"{median * 1000 / count:.2f} µs per round trip"
        else:
            rate = f"{count / (median / 1000) / 1e6:.2f} M/s"
        vs_raw = "—" if raw is None or impl.startswith("raw") else f"{raw / median:.2f}x"
        vs_dispatch = "—" if dispatch is None or impl.startswith("DispatchQueue") else f"{dispatch / median:.2f}x"
        print(f"| {workload} | {impl} | {cell(value)} | {rate} | {vs_raw} | {vs_dispatch} |")

runs = defaultdict(lambda: defaultdict(list))
for line in open(sys.argv[2]):
    workload, impl, ms, rss = line.rstrip("\n").split("\t")
    runs[workload][impl].append((float(ms), int(rss)))
print()
print("| Bluebird workload | implementation | time: median (min–max) | peak RSS: median | speed vs Node | RSS vs Node |")
print("|---|---|---|---|---|---|")
for workload in ["madeup-parallel", "doxbee-sequential"]:
    impls = runs.get(workload, {})
    node = impls.get("node")
    node_ms = statistics.median(ms for ms, _ in node) if node else None
    node_rss = statistics.median(rss for _, rss in node) if node else None
    for impl in ["PromiseUV", "node"]:
        samples = impls.get(impl)
        if not samples:
            continue
        times = sorted(ms for ms, _ in samples)
        rss = statistics.median(r for _, r in samples)
        vs_time = "—" if impl == "node" or not node_ms else f"{node_ms / statistics.median(times):.2f}x"
        vs_rss = "—" if impl == "node" or not node_rss else f"{rss / node_rss:.2f}x"
        print(f"| {workload} | {impl} | {statistics.median(times):,.1f} ms ({times[0]:,.1f}–{times[-1]:,.1f}) | {rss / 1024:,.1f} MiB | {vs_time} | {vs_rss} |")
print()
print("Speed ratios above 1: PromiseUV is faster. RSS ratio below 1: PromiseUV uses less memory.")
print("Goals (issue 3): timers >= 0.8x raw uv_timer_t speed; round trip <= 1.3x raw uv_async_send time;")
print("both faster than a serial DispatchQueue; both Bluebird workloads faster and leaner than Node.")
