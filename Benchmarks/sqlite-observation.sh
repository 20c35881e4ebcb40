#!/usr/bin/env bash
# What a running query observation costs: PromiseSQLite's SQLiteValueObservation beside
# GRDB 7's ValueObservation, in one process run, round by round. Prints two Markdown tables:
# 100 000 inserts in transactions of 100 without and with an observation, and the latency
# from a write to the consumer holding the value that includes it.
#
#   Benchmarks/sqlite-observation.sh [ROUNDS]     (default 3)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
rounds=${1:-3}
work=$(mktemp -d "${TMPDIR:-/tmp}/promisesqlite-observation.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$here"
echo "== building SQLiteObservationBench (release)" >&2
swift build -c release --product SQLiteObservationBench >"$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
bin=$(swift build -c release --show-bin-path)
"$bin/SQLiteObservationBench" "$work" "$rounds"
