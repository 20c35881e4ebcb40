#!/usr/bin/env bash
# PromiseUV against raw libuv C calls and a serial DispatchQueue (same process, interleaved
# rounds), and Bluebird's madeup-parallel and doxbee-sequential against Node's native promises
# (one process per run, for peak RSS): medians, min/max and ratios.
#
#   Benchmarks/uv-ratios.sh [ROUNDS]     default 5 rounds (~2 min once built)
#
# Runs pinned to CPU 0 (PIN=0 to not pin), as DESIGN.md asks for scenarios dominated by
# thread hops; the loop thread and the caller then share one CPU, as do raw libuv's.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
rounds=${1:-5}
command -v node >/dev/null || { echo "uv-ratios: node is not on PATH (apt-get install nodejs)" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/promiseuv-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$here"
echo "== building PromiseUVBench (release)" >&2
swift build -c release --product PromiseUVBench >"$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
bin=$(swift build -c release --show-bin-path)
pin=()
if [ "${PIN:-1}" = 1 ] && command -v taskset >/dev/null; then pin=(taskset -c 0); fi
echo "== PromiseUV, raw libuv and DispatchQueue: $rounds rounds ${pin[*]}" >&2
"${pin[@]}" "$bin/PromiseUVBench" micro "$rounds" >"$work/micro.tsv"
echo "== Bluebird workloads: PromiseUV and Node $(node --version), $rounds runs each ${pin[*]}" >&2
: >"$work/bluebird.tsv"
for round in $(seq 1 "$rounds"); do
    for workload in madeup-parallel doxbee-sequential; do
        # Alternate which goes first each round.
        if [ $((round % 2)) = 1 ]; then
            "${pin[@]}" "$bin/PromiseUVBench" "$workload" >>"$work/bluebird.tsv"
            "${pin[@]}" node "$here/node/uv-bluebird.mjs" "$workload" >>"$work/bluebird.tsv"
        else
            "${pin[@]}" node "$here/node/uv-bluebird.mjs" "$workload" >>"$work/bluebird.tsv"
            "${pin[@]}" "$bin/PromiseUVBench" "$workload" >>"$work/bluebird.tsv"
        fi
    done
done
python3 "$here/uv-ratios.py" "$work/micro.tsv" "$work/bluebird.tsv"
