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
# valgrind cannot read the debug information this toolchain writes, so it runs a copy of the
# release binary with that stripped (`strip -g`).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
n1=${N1:-1000}
n2=${N2:-5000}
rounds1=${ROUNDS1:-2}
rounds2=${ROUNDS2:-6}
repeat=${REPEAT:-3}
command -v valgrind >/dev/null || { echo "counts: valgrind is not installed (apt-get install valgrind)" >&2; exit 1; }

out=$(mktemp -d "${TMPDIR:-/tmp}/promise-counts.XXXXXX")
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$out"' EXIT

echo "== building PromiseCoreCounts (release)" >&2
swift build -c release --product PromiseCoreCounts >"$out/build.log" 2>&1 || { cat "$out/build.log"; exit 1; }
exe="$out/PromiseCoreCounts"
cp "$(swift build -c release --show-bin-path)/PromiseCoreCounts" "$exe"
strip -g "$exe"

# Runs valgrind with the given tool options on one variant; valgrind's report goes to $out/valgrind.log.
run_valgrind() {
    local variant=$1 iterations=$2
    shift 2
    if ! valgrind "$@" "$exe" "$variant" "$iterations" </dev/null >"$out/program.log" 2>"$out/valgrind.log"; then
        echo "counts: $variant $iterations failed under valgrind $*" >&2
        cat "$out/program.log" "$out/valgrind.log" >&2
        exit 1
    fi
}

# Prints the instructions every thread executed in one run.
instructions() {
    run_valgrind "$1" "$2" --tool=callgrind --callgrind-out-file="$out/callgrind.out"
    awk '/^totals:/ { print $2; found = 1 } END { exit !found }' "$out/callgrind.out"
}

# Prints "mallocs bytes" of one run.
heap() {
    run_valgrind "$1" "$2" --tool=memcheck --leak-check=no
    sed -n 's/.*total heap usage: \([0-9,]*\) allocs, [0-9,]* frees, \([0-9,]*\) bytes allocated.*/\1 \2/p' \
        "$out/valgrind.log" | tr -d , | grep .
}

# Prints "instructions mallocs bytes" per operation of one variant, from two runs under each tool.
per_operation() {
    local variant=$1 low=$2 high=$3 divisor=$4 i1 i2 h1 h2 m1 b1 m2 b2
    i1=$(instructions "$variant" "$low")
    i2=$(instructions "$variant" "$high")
    h1=$(heap "$variant" "$low")
    h2=$(heap "$variant" "$high")
    read -r m1 b1 <<<"$h1"
    read -r m2 b2 <<<"$h2"
    awk -v i1="$i1" -v i2="$i2" -v m1="$m1" -v m2="$m2" -v b1="$b1" -v b2="$b2" -v d="$divisor" \
        'BEGIN { printf "%.0f %.2f %.0f\n", (i2 - i1) / d, (m2 - m1) / d, (b2 - b1) / d }'
}

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
