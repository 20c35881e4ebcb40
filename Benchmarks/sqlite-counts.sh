#!/usr/bin/env bash
# Instructions and heap allocations per operation (an insert, a point query, a row decoded) of
# PromiseSQLite beside the same work done with plain sqlite3 calls, counted under valgrind:
# unlike wall time on a shared 2-core machine, these do not move between runs.
#
#   Benchmarks/sqlite-counts.sh          ~2 min once built
#
# Each variant of Sources/PromiseSQLiteCounts runs four times: under callgrind (instructions of
# every thread, the `totals:` line) and memcheck ("total heap usage"), each with N1 and N2
# operations. The difference divided by N2 - N1 is the cost of one operation; start-up and the
# 20 000-row fixture cancel out. SQLite's own work is included on both sides.
#
# Environment: N1, N2 (default 2000 and 10000), FILTER=RE (variants whose whole name matches
# RE, e.g. FILTER='point/.*'), KEEP=1 (keep the stripped binary and valgrind's output).
# The building and valgrind runs are in valgrind-counts.bash, which counts.sh shares.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
n1=${N1:-2000}
n2=${N2:-10000}
# shellcheck source=valgrind-counts.bash
source "$here/valgrind-counts.bash"
counts_setup sqlite-counts PromiseSQLiteCounts
exe_args=("$out")

echo "| variant | instructions per operation | mallocs | bytes |"
echo "|---|--:|--:|--:|"
while read -r variant; do
    [[ -z ${FILTER:-} || $variant =~ ^(${FILTER})$ ]] || continue
    echo "== $variant ($n1 and $n2 operations)" >&2
    read -r i m b <<<"$(per_operation "$variant" "$n1" "$n2" $((n2 - n1)))"
    echo "| $variant | $i | $m | $b |"
done < <("$exe" --list)
