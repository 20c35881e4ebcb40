#!/usr/bin/env bash
# PromiseCurl beside a raw C libcurl multi loop (the ceiling) and AsyncHTTPClient 1.37.0, all
# against nginx on loopback in one process run, interleaved round by round: requests per
# second at concurrency 1, 16 and 256 (a 6-byte /hello with keep-alive) and a download in MB/s,
# as medians, min-max and ratios in a Markdown table.
#
#   Benchmarks/curl-ratios.sh [ROUNDS] [SCALE] [WORKLOADS] [BIG_MIB]
#       default 5 rounds, scale 1 (5 000 GETs at c=1, 20 000 at c=16 and c=256), workloads
#       c1,c16,c256,inline,download,stream, a 256 MiB download (~1 min once built)
#
# nginx (one worker) runs pinned to CPU 0 and the clients to CPU 1 (PIN=0 to not pin), so each
# side gets a core of this 2-core machine and no candidate's threads compete with the server's.
# Needs nginx and python3 (scripts/testservers/serve.py starts it) and about 2 x BIG_MIB MiB
# free under ${TMPDIR:-/tmp}; everything is removed afterwards.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
rounds=${1:-5}
scale=${2:-1}
workloads=${3:-c1,c16,c256,inline,download,stream}
big_mib=${4:-256}
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || { echo "curl-ratios: nginx is not installed (apt-get install nginx)" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/promisecurl-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$here"
echo "== building PromiseCurlBench (release)" >&2
swift build -c release --product PromiseCurlBench >"$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
bin=$(swift build -c release --show-bin-path)
export CURL_BENCH_SERVE="$here/../scripts/testservers/serve.py"
pin=()
if [ "${PIN:-1}" = 1 ] && command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then
    pin=(taskset -c 1)
    export CURL_BENCH_SERVER_CPUS=0
fi
echo "== PromiseCurl, raw C libcurl, AsyncHTTPClient: $rounds rounds, scale $scale ($workloads) ${pin[*]}" >&2
"${pin[@]}" "$bin/PromiseCurlBench" "$work" "$rounds" "$scale" "$workloads" "$big_mib"
