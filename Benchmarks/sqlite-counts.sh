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
# Environment: N1, N2 (default 2000 and 10000), FILTER=RE (variants whose name matches RE).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
n1=${N1:-2000}
n2=${N2:-10000}
command -v valgrind >/dev/null || { echo "sqlite-counts: valgrind is not installed (apt-get install valgrind)" >&2; exit 1; }
out=$(mktemp -d "${TMPDIR:-/tmp}/promisesqlite-counts.XXXXXX")
trap 'rm -rf "$out"' EXIT
echo "== building PromiseSQLiteCounts (release)" >&2
swift build -c release --product PromiseSQLiteCounts >"$out/build.log" 2>&1 || { cat "$out/build.log"; exit 1; }
exe="$out/PromiseSQLiteCounts"
cp "$(swift build -c release --show-bin-path)/PromiseSQLiteCounts" "$exe"
# valgrind cannot read the debug information this toolchain writes.
strip -g "$exe"

run() {
    local variant=$1 n=$2
    shift 2
    if ! valgrind "$@" "$exe" "$variant" "$n" "$out" </dev/null >"$out/program.log" 2>"$out/valgrind.log"; then
        echo "sqlite-counts: $variant $n failed under valgrind $*" >&2
        cat "$out/program.log" "$out/valgrind.log" >&2
        exit 1
    fi
}
instructions() {
    run "$1" "$2" --tool=callgrind --callgrind-out-file="$out/callgrind.out"
    awk '/^totals:/ { print $2; found = 1 } END { exit !found }' "$out/callgrind.out"
}
heap() {
    run "$1" "$2" --tool=memcheck --leak-check=no
    sed -n 's/.*total heap usage: \([0-9,]*\) allocs, [0-9,]* frees, \([0-9,]*\) bytes allocated.*/\1 \2/p' \
        "$out/valgrind.log" | tr -d , | grep .
}

echo "| variant | instructions per operation | mallocs | bytes |"
echo "|---|--:|--:|--:|"
while read -r variant; do
    [[ -z ${FILTER:-} || $variant =~ ^(${FILTER})$ ]] || continue
    echo "== $variant ($n1 and $n2 operations)" >&2
    i1=$(instructions "$variant" "$n1")
    i2=$(instructions "$variant" "$n2")
    read -r m1 b1 <<<"$(heap "$variant" "$n1")"
    read -r m2 b2 <<<"$(heap "$variant" "$n2")"
    awk -v v="$variant" -v i1="$i1" -v i2="$i2" -v m1="$m1" -v m2="$m2" -v b1="$b1" -v b2="$b2" -v d=$((n2 - n1)) \
        'BEGIN { printf "| %s | %.0f | %.2f | %.0f |\n", v, (i2 - i1) / d, (m2 - m1) / d, (b2 - b1) / d }'
done < <("$exe" --list)
