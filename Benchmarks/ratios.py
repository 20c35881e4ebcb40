#!/usr/bin/env python3
"""Summarise PromiseCoreBenchmarks runs exported with `--format histogramSamples`.

Usage: ratios.py OUT_DIR
OUT_DIR holds round-1/, round-2/, ... each written by one
`swift package benchmark --format histogramSamples --path OUT_DIR/round-N` run.

Samples are raw, one per measured iteration: wallClock in ns, mallocCountTotal in calls.
Every figure is divided by the operations in one iteration (S3: 1 000 chains; S2: 10 000
promises; S1: one chain), so the table reads "per operation".

median   median over rounds of each round's median (rounds are interleaved: every round runs
         every benchmark once, so a noisy minute hits candidates and baselines alike)
lo-hi    the smallest and largest of the rounds' medians
best     the fastest single sample of all rounds
mallocs  median malloc calls per operation (exact: the interposer counts every call)
bytes    median bytes requested from malloc per operation
ratio    PromiseCore median / this row's median  (>1: PromiseCore is slower)
"""
import os
import re
import statistics
import sys
from collections import defaultdict

FILE = re.compile(r"^[^.]+\.PromiseCoreBenchmarks\.(?P<name>.+)\.(?P<metric>wallClock|mallocCountTotal|mallocBytesCount)"
                  r"\.histogram\.samples\.tsv$")
CANDIDATE = "Promise"


def ops_per_iteration(scenario):
    if scenario.startswith("S3"):
        return 1_000
    if scenario.startswith("S2"):
        return 10_000
    return 1


UNIT_FACTORS = {"(ns)": 1, "(μs)": 1_000, "(µs)": 1_000, "(ms)": 1_000_000, "(s)": 1_000_000_000,
                "(K)": 1_000, "(M)": 1_000_000, "(G)": 1_000_000_000}


def read_samples(path):
    """Samples in ns or plain counts. The header names the unit; anything but ns or plain
    counts means the benchmark's configuration lost precision, so say so."""
    with open(path) as handle:
        header = next(handle)
        factor = 1
        for unit, unit_factor in UNIT_FACTORS.items():
            if header.rstrip().endswith(unit):
                factor = unit_factor
        if factor != 1:
            print(f"warning: {os.path.basename(path)} is in {header.split()[-1]}, not exact", file=sys.stderr)
        return [int(line) * factor for line in handle if line.strip()]


def fmt_ns(value):
    if value >= 100_000:
        return f"{value / 1000:,.0f} µs"
    if value >= 1_000:
        return f"{value / 1000:.2f} µs"
    if value >= 100:
        return f"{value:.0f} ns"
    return f"{value:.1f} ns"


def fmt_count(value):
    return f"{value:.0f}" if abs(value - round(value)) < 0.0005 else f"{value:.3f}"


def main():
    out = sys.argv[1]
    rounds = sorted(d for d in os.listdir(out) if d.startswith("round-") and os.path.isdir(os.path.join(out, d)))
    # results[name][metric] = list of per-round sample lists
    results = defaultdict(lambda: defaultdict(list))
    for round_dir in rounds:
        for entry in os.listdir(os.path.join(out, round_dir)):
            match = FILE.match(entry)
            if not match:
                continue
            name = match["name"].replace("_", " ")
            samples = read_samples(os.path.join(out, round_dir, entry))
            if samples:
                results[name][match["metric"]].append(samples)
    if not results:
        sys.exit(f"ratios.py: no samples under {out} (see the round-N.log files there)")

    scenarios = defaultdict(dict)
    for name, metrics in results.items():
        scenario, _, implementation = name.rpartition(" — ")
        scenarios[scenario][implementation] = metrics

    print(f"{len(rounds)} round(s); figures per operation (S1: one chain; S2: one of 10 000 promises; "
          "S3: one chain, 1 000 per iteration)")
    print()
    header = f"| {'scenario':<38} | {'implementation':<14} | {'median':>10} | {'rounds lo–hi':>21} | " \
             f"{'best':>10} | {'mallocs':>7} | {'bytes':>5} | {'ratio':>6} |"
    print(header)
    print("|" + "|".join("-" * (len(cell) + 0) for cell in header.split("|")[1:-1]) + "|")
    for scenario in sorted(scenarios):
        implementations = scenarios[scenario]
        ops = ops_per_iteration(scenario)
        summary = {}
        for implementation, metrics in implementations.items():
            wall_rounds = [statistics.median(s) / ops for s in metrics.get("wallClock", [])]
            wall_all = [v for s in metrics.get("wallClock", []) for v in s]
            mallocs = [statistics.median(s) / ops for s in metrics.get("mallocCountTotal", [])]
            allocated = [statistics.median(s) / ops for s in metrics.get("mallocBytesCount", [])]
            summary[implementation] = (
                statistics.median(wall_rounds) if wall_rounds else None,
                min(wall_rounds) if wall_rounds else None,
                max(wall_rounds) if wall_rounds else None,
                min(wall_all) / ops if wall_all else None,
                statistics.median(mallocs) if mallocs else None,
                statistics.median(allocated) if allocated else None,
            )
        candidate = summary.get(CANDIDATE, (None,))[0]
        order = sorted(summary, key=lambda impl: (impl != CANDIDATE, impl))
        for implementation in order:
            median, lo, hi, best, mallocs, allocated = summary[implementation]
            if median is None:
                continue
            ratio = "" if implementation == CANDIDATE or not candidate else f"{candidate / median:.2f}"
            spread = f"{fmt_ns(lo)} – {fmt_ns(hi)}"
            malloc_text = fmt_count(mallocs) if mallocs is not None else "-"
            bytes_text = f"{allocated:.0f}" if allocated is not None else "-"
            print(f"| {scenario:<38} | {implementation:<14} | {fmt_ns(median):>10} | {spread:>21} | "
                  f"{fmt_ns(best):>10} | {malloc_text:>7} | {bytes_text:>5} | {ratio:>6} |")


if __name__ == "__main__":
    main()
