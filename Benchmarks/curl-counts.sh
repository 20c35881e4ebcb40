#!/usr/bin/env bash
# Instructions and heap allocations per request of PromiseCurl (callbacks on the default queue
# and on InlineContext()), the raw C libcurl multi loop and AsyncHTTPClient, each doing GETs of
# nginx's 6-byte /hello on loopback, counted under valgrind: unlike requests per second on a
# shared 2-core machine, these move by a few per cent at most between runs.
#
#   Benchmarks/curl-counts.sh          ~3 min once built
#
# Each candidate runs PromiseCurlBench alone (CURL_BENCH_ONLY) four times: under callgrind
# (instructions of every thread, the `totals:` line) and memcheck ("total heap usage"), each at
# two scales. The difference divided by the difference in requests is the cost of one request;
# start-up, the clients, the warm-up and the connections cancel out. libcurl's and the kernel
# interface's work is included on every side; time spent in the kernel is not counted.
#
# Environment: WORKLOADS (default c1,c16: the concurrencies), CANDIDATES (default
# promise,inline,raw,ahc), SCALE1 and SCALE2 (default 0.1 and 0.2 of curl-ratios.sh's request
# counts, 5 000 at c=1 and 20 000 at c=16 and c=256), KEEP=1 (keep the stripped binary and
# valgrind's output). Needs nginx, python3 and valgrind.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
workloads=${WORKLOADS:-c1,c16}
candidates=${CANDIDATES:-promise,inline,raw,ahc}
scale1=${SCALE1:-0.1}
scale2=${SCALE2:-0.2}
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || { echo "curl-counts: nginx is not installed (apt-get install nginx)" >&2; exit 1; }
exe_args=()
# shellcheck source=valgrind-counts.bash
source "$here/valgrind-counts.bash"
counts_setup curl-counts PromiseCurlBench

# One nginx for every run: the program cannot start serve.py itself under valgrind.
start_nginx
CURL_BENCH_SERVER=$server
export CURL_BENCH_SERVER

# A variant is CANDIDATE/cN; N of run_valgrind is the scale. The inline candidate is
# PromiseCurlBench's `inline` workload, which runs beside cN.
counts_arguments() {
    local candidate=${1%/*} workload=${1#*/} selected
    selected=$workload
    [ "$candidate" = inline ] && selected="$workload,inline"
    export CURL_BENCH_ONLY=$candidate
    counts_args=("$out" 1 "$2" "$selected")
}

# PromiseCurlBench's request count at concurrency $1 and scale $2: its requestCount(_:)
# (Sources/PromiseCurlBench/main.swift) in awk; the two must change together.
requests() {
    awk -v c="$1" -v s="$2" 'BEGIN { n = int((c == 1 ? 5000 : 20000) * s); print (n > c ? n : c) }'
}

declare -A instr mallocs bytes
IFS=, read -r -a concurrencies <<<"$workloads"
IFS=, read -r -a names <<<"$candidates"
for workload in "${concurrencies[@]}"; do
    concurrency=${workload#c}
    divisor=$(($(requests "$concurrency" "$scale2") - $(requests "$concurrency" "$scale1")))
    for candidate in "${names[@]}"; do
        variant="$candidate/$workload"
        echo "== $variant (scales $scale1 and $scale2, $divisor requests apart)" >&2
        read -r i m b <<<"$(per_operation "$variant" "$scale1" "$scale2" "$divisor")"
        instr[$variant]=$i mallocs[$variant]=$m bytes[$variant]=$b
    done
done

echo
echo "Per request (GET /hello, keep-alive); instructions of all threads (callgrind), heap from memcheck."
echo
echo "| workload | candidate | instructions | mallocs | bytes | raw C's instructions / these |"
echo "|---|---|--:|--:|--:|--:|"
for workload in "${concurrencies[@]}"; do
    for candidate in "${names[@]}"; do
        variant="$candidate/$workload"
        ratio="—"
        if [ -n "${instr[raw/$workload]:-}" ]; then
            ratio=$(awk -v r="${instr[raw/$workload]}" -v p="${instr[$variant]}" 'BEGIN { if (p > 0) printf "%.2f", r / p; else print "—" }')
        fi
        case $candidate in
        promise) label="PromiseCurl, default queue" ;;
        inline) label="PromiseCurl, InlineContext()" ;;
        raw) label="raw C multi loop" ;;
        ahc) label="AsyncHTTPClient" ;;
        *) label=$candidate ;;
        esac
        echo "| c=${workload#c} | $label | ${instr[$variant]} | ${mallocs[$variant]} | ${bytes[$variant]} | $ratio |"
    done
done
if [ "${KEEP:-0}" = 1 ]; then echo "binary and valgrind output: $out" >&2; fi
