#!/usr/bin/env bash
# PromiseSQLite beside raw C sqlite3 calls and vapor/sqlite-nio (same process, same work,
# interleaved round by round): medians, min-max and ratios as a Markdown table.
#
#   Benchmarks/sqlite-ratios.sh [ROUNDS] [SCALE] [WORKLOADS]
#       default 5 rounds, scale 1 (100 000 inserts, 100 000 point queries, 1 000 000 rows),
#       workloads insert,point,scan,durability
#
# Needs about 200 MB free under ${TMPDIR:-/tmp}; the files are removed afterwards.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
rounds=${1:-5}
scale=${2:-1}
workloads=${3:-insert,point,scan,durability}
work=$(mktemp -d "${TMPDIR:-/tmp}/promisesqlite-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$here"
echo "== building PromiseSQLiteBench (release)" >&2
swift build -c release --product PromiseSQLiteBench >"$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
bin=$(swift build -c release --show-bin-path)
echo "== PromiseSQLite, raw C, sqlite-nio: $rounds rounds, scale $scale ($workloads)" >&2
"$bin/PromiseSQLiteBench" "$work" "$rounds" "$scale" "$workloads"
