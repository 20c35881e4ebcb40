#!/usr/bin/env bash
# Instructions and heap allocations per operation of PromiseCore beside SwiftNIO and GCD,
# counted with valgrind, whose figures, unlike wall time on a shared 2-core machine, do not
# depend on what else the machine is doing (the threaded scenarios' only a little, see below).
# `make bench-counts` runs it; `make bench` runs it first.
#
#   Benchmarks/counts.sh          ~2 min once built
#
# One measurement of a variant of Sources/PromiseCoreCounts is four runs: under callgrind (instructions of
# every thread, the `totals:` line of its output file) and under memcheck ("total heap usage":
# mallocs and bytes requested), each with two iteration counts. The difference of the two
# runs divided by the difference in operations is the cost of one operation: process start-up,
# fixtures and the warm-up iteration cancel out. Instructions include malloc's own (callgrind
# runs the real allocator); bytes are those requested, not the allocator's rounding.
#
# The inline scenarios give the same figures on every run. The threaded ones (queue-3-then,
# pending-10k-concurrent) do not: how often a worker thread parks and wakes, and whether a
# callback is added before or after its promise resolves, depend on how the threads interleave,
# which other load on the machine changes. Each is measured REPEAT times and the table shows
# the median, which evens out single outliers but not a busy machine: with a build running
# beside it, queue-3-then measured ~20 % more instructions for NIO and GCD than on an idle one.
# Compare threaded rows across runs made under the same conditions.
#
# Environment:
#   N1, N2           iterations of the single-operation scenarios (default 1000 and 5000)
#   ROUNDS1, ROUNDS2 rounds of the 10 000-promise scenario (default 2 and 6)
#   REPEAT           measurements of each threaded variant; the table shows the median (default 3)
#   FILTER=RE        count only the variants whose whole name matches RE, e.g. FILTER='queue.*'
#   KEEP=1           keep the stripped binary and valgrind's output (the folder is printed)
#
# The building and valgrind runs are in valgrind-counts.bash, which sqlite-counts.sh shares.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
n1=${N1:-1000}
n2=${N2:-5000}
rounds1=${ROUNDS1:-2}
rounds2=${ROUNDS2:-6}
repeat=${REPEAT:-3}
exe_args=()
# shellcheck source=valgrind-counts.bash
source "$here/valgrind-counts.bash"
counts_setup counts PromiseCoreCounts

# Prints the median of its arguments (the lower one of the middle two for an even count).
median() {
    printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

declare -A instr mallocs bytes
scenarios=()
while IFS=$'\t' read -r variant operations kind; do
    [[ -z ${FILTER:-} || $variant =~ ^(${FILTER})$ ]] || continue
    scenario=${variant%/*}
    [[ " ${scenarios[*]} " == *" $scenario "* ]] || scenarios+=("$scenario")
    if [ "$operations" = 1 ]; then low=$n1 high=$n2; else low=$rounds1 high=$rounds2; fi
    if [ "$kind" = threaded ]; then repeats=$repeat; else repeats=1; fi
    echo "== $variant ($low and $high iterations of $operations operations, $repeats time(s))" >&2
    is=() ms=() bs=()
    for _ in $(seq 1 "$repeats"); do
        figures=$(per_operation "$variant" "$low" "$high" $(( (high - low) * operations )))
        read -r i m b <<<"$figures"
        is+=("$i") ms+=("$m") bs+=("$b")
    done
    instr[$variant]=$(median "${is[@]}")
    mallocs[$variant]=$(median "${ms[@]}")
    bytes[$variant]=$(median "${bs[@]}")
done < <("$exe" --list)

# One "instr | mallocs | bytes" group of cells, or dashes when the variant does not exist.
cells() {
    if [ -n "${instr[$1]:-}" ]; then
        echo "${instr[$1]} | ${mallocs[$1]} | ${bytes[$1]}"
    else
        echo "— | — | —"
    fi
}

echo
echo "Per operation (one promise in pending-10k-concurrent); instructions of all threads, heap from memcheck."
echo
echo "| scenario | PromiseCore instr | mallocs | bytes | NIO instr | mallocs | bytes | GCD instr | mallocs | bytes | PromiseCore/NIO instr |"
echo "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|"
for scenario in "${scenarios[@]}"; do
    ratio="—"
    if [ -n "${instr[$scenario/promise]:-}" ] && [ -n "${instr[$scenario/nio]:-}" ]; then
        ratio=$(awk -v p="${instr[$scenario/promise]}" -v n="${instr[$scenario/nio]}" \
            'BEGIN { if (n > 0) printf "%.2f", p / n; else print "—" }')
    fi
    echo "| $scenario | $(cells "$scenario/promise") | $(cells "$scenario/nio") | $(cells "$scenario/gcd") | $ratio |"
done
if [ "${KEEP:-0}" = 1 ]; then echo "binary and valgrind output: $out" >&2; fi
