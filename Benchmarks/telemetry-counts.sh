#!/usr/bin/env bash
# What the Tracing and Metrics traits cost per SQLite statement and per HTTP request, counted
# under valgrind (instructions of every thread, and heap allocations), in three modes:
#
#   off       the traits off: what every program that does not ask for them runs
#   inactive  the traits on, no tracer or metrics factory given and none bootstrapped
#   recorded  the traits on, InMemoryTracer and TestMetrics keeping every span and metric
#
#   Benchmarks/telemetry-counts.sh          ~6 min once built (two release builds first)
#
# Benchmarks/Telemetry is built twice (PROMISE_TELEMETRY=off and on, each in its own scratch
# folder); each variant runs at two sizes and the difference is divided by the operations
# between them, so start-up, the 20 000-row fixture and the connection cancel out. Workloads:
# point (a point query by primary key, awaited: one job and one statement), insert (an insert
# inside one transaction: one statement), request (a GET of nginx's 6-byte /hello, awaited).
#
# Environment: N1, N2 (default 2000 and 10000 statements), R1, R2 (default 500 and 2500
# requests), FILTER=RE (variants whose whole name matches RE), KEEP=1 (keep the binaries and
# valgrind's output). Needs nginx, python3 and valgrind.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
n1=${N1:-2000}
n2=${N2:-10000}
r1=${R1:-500}
r2=${R2:-2500}
command -v valgrind >/dev/null || { echo "telemetry-counts: valgrind is not installed (apt-get install valgrind)" >&2; exit 1; }
# shellcheck source=valgrind-counts.bash
source "$here/valgrind-counts.bash"
counts_name=telemetry-counts
out=$(mktemp -d "${TMPDIR:-/tmp}/promise-telemetry-counts.XXXXXX")
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$out"' EXIT
mkdir "$out/data"

start_nginx

# The program gets VARIANT N DIRECTORY SERVER_JSON.
counts_arguments() {
    counts_args=("$1" "$2" "$out/data" "$server")
}

declare -A instr mallocs bytes
variants=()
for traits in off on; do
    echo "== building Benchmarks/Telemetry with the traits $traits (release)" >&2
    build=(swift build -c release --manifest-cache none --scratch-path ".build-$traits" --product TelemetryCounts)
    (cd "$here/Telemetry" && PROMISE_TELEMETRY=$traits "${build[@]}") >"$out/build-$traits.log" 2>&1 || { cat "$out/build-$traits.log" >&2; exit 1; }
    bin=$(cd "$here/Telemetry" && PROMISE_TELEMETRY=$traits "${build[@]}" --show-bin-path)
    exe="$out/TelemetryCounts-$traits"
    cp "$bin/TelemetryCounts" "$exe"
    strip -g "$exe"
    while read -r variant; do
        [[ -z ${FILTER:-} || $variant =~ ^(${FILTER})$ ]] || continue
        case $variant in request/*) low=$r1 high=$r2 ;; *) low=$n1 high=$n2 ;; esac
        echo "== $variant ($low and $high operations)" >&2
        read -r i m b <<<"$(per_operation "$variant" "$low" "$high" $((high - low)))"
        instr[$variant]=$i mallocs[$variant]=$m bytes[$variant]=$b
        variants+=("$variant")
    done < <("$exe" --list)
done

echo
echo "Per operation; instructions of all threads (callgrind), heap from memcheck; + is the cost over off."
echo
echo "| workload | mode | instructions | mallocs | bytes | instructions over off |"
echo "|---|---|--:|--:|--:|--:|"
for workload in point insert request; do
    for mode in off inactive recorded; do
        variant="$workload/$mode"
        [ -n "${instr[$variant]:-}" ] || continue
        over="—"
        if [ "$mode" != off ] && [ -n "${instr[$workload/off]:-}" ]; then
            over=$(awk -v a="${instr[$variant]}" -v b="${instr[$workload/off]}" 'BEGIN { printf "%+d (%+.1f %%)", a - b, (a - b) * 100 / b }')
        fi
        echo "| $workload | $mode | ${instr[$variant]} | ${mallocs[$variant]} | ${bytes[$variant]} | $over |"
    done
done
