#!/usr/bin/env bash
# Instructions and heap allocations per fake I/O call of the Bluebird workloads on a UVLoop
# (what uv-ratios.sh times against Node), counted under valgrind: unlike wall time on a shared
# 2-core machine, these do not move between runs. A fake I/O call is a pending promise that a
# 1 ms uv timer's callback fulfils; madeup-parallel joins 25 of them per job with `all`,
# doxbee-sequential chains 10 per job with `then`.
#
#   Benchmarks/uv-counts.sh          ~30 s once built
#
# Each workload of PromiseUVBench runs four times: under callgrind (instructions of every
# thread, the `totals:` line) and memcheck ("total heap usage"), each with JOBS1 and JOBS2 jobs
# (BENCH_JOBS; default 1 000 and 2 000). The difference divided by the difference in calls is
# the cost of one call; start-up and the loop's creation cancel out. Node is not counted: its
# JIT-compiled code is not comparable under callgrind. KEEP=1 keeps the stripped binary and
# valgrind's output.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
jobs1=${JOBS1:-1000}
jobs2=${JOBS2:-2000}
exe_args=()
# shellcheck source=valgrind-counts.bash
source "$here/valgrind-counts.bash"
counts_setup uv-counts PromiseUVBench

# N of run_valgrind is the number of jobs.
counts_arguments() {
    export BENCH_JOBS=$2
    counts_args=("$1")
}

echo "| Bluebird workload | per fake I/O call | instructions | mallocs | bytes |"
echo "|---|---|--:|--:|--:|"
for workload in madeup-parallel doxbee-sequential; do
    case $workload in
    madeup-parallel) calls=25 what="one of 25 inputs of an \`all\`" ;;
    doxbee-sequential) calls=10 what="one step: a \`then\` returning the next call" ;;
    esac
    echo "== $workload ($jobs1 and $jobs2 jobs of $calls calls)" >&2
    read -r i m b <<<"$(per_operation "$workload" "$jobs1" "$jobs2" $(((jobs2 - jobs1) * calls)))"
    echo "| $workload | $what | $i | $m | $b |"
done
if [ "${KEEP:-0}" = 1 ]; then echo "binary and valgrind output: $out" >&2; fi
