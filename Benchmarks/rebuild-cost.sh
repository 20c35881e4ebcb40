#!/usr/bin/env bash
# The CPU a rebuild of a user's operator-heavy file costs (Benchmarks/RebuildProbe/Operators.swift):
# each checkout given builds PromiseCore (debug, as `swift build` does while a user works), then
# `swiftc -c -Onone` compiles the file against that module RUNS times; the median user+system
# CPU seconds is printed per checkout. CPU time, not wall time: it does not change when the
# machine is busy. Code a module emits into its callers is compiled again in every file that
# calls it, which is what this shows.
#
#   Benchmarks/rebuild-cost.sh [CHECKOUT …]     default: this checkout; ~1 min per checkout built
#
# Environment: RUNS (default 7), SWIFT (default swift).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
probe="$here/RebuildProbe/Operators.swift"
swift=${SWIFT:-swift}
swiftc="$(dirname "$(command -v "$swift")")/swiftc"
runs=${RUNS:-7}
[ $# -gt 0 ] || set -- "$(cd "$here/.." && pwd)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

printf '%-50s %s\n' checkout "median CPU s (min, max) of $runs compiles"
for checkout in "$@"; do
    (cd "$checkout" && "$swift" build --target PromiseCore >"$work/build.log" 2>&1) || {
        cat "$work/build.log" >&2
        echo "rebuild-cost: building PromiseCore in $checkout failed" >&2
        exit 1
    }
    modules="$(cd "$checkout" && "$swift" build --show-bin-path)/Modules"
    includes=(-I "$modules")
    [ -d "$checkout/Sources/CPromiseRuntime" ] && includes+=(-I "$checkout/Sources/CPromiseRuntime")
    times=()
    for _ in $(seq "$runs"); do
        { TIMEFORMAT='%U %S'; time "$swiftc" -c -Onone -parse-as-library -module-name RebuildProbe \
            "${includes[@]}" "$probe" -o "$work/probe.o" >"$work/compile.log" 2>&1; } 2>"$work/time" || {
            cat "$work/compile.log" >&2
            echo "rebuild-cost: the probe does not compile against $checkout" >&2
            exit 1
        }
        times+=("$(awk '{ printf "%.2f", $1 + $2 }' "$work/time")")
    done
    sorted=$(printf '%s\n' "${times[@]}" | sort -g)
    median=$(echo "$sorted" | sed -n "$(((runs + 1) / 2))p")
    printf '%-50s %s (%s, %s)\n' "$checkout" "$median" "$(echo "$sorted" | head -n 1)" "$(echo "$sorted" | tail -n 1)"
done
