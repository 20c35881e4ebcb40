#!/usr/bin/env bash
# PromiseFS against raw read(2)/write(2) (same process) and Node's fs/promises (same work,
# same files): medians of ROUNDS interleaved rounds, in milliseconds, and ratios.
#
#   Benchmarks/fs-ratios.sh [ROUNDS] [LARGE_MIB]     default 3 rounds, 1024 MiB
#
# Needs about 3 x LARGE_MIB of free disk under ${TMPDIR:-/tmp} (files are removed after).
# Runs pinned to CPU 0 (PIN=0 to not pin): on these 2-vCPU VMs a 1 GiB read made on the
# pool's thread measured 0.6x the same read(2) on the main thread unpinned, and 1.0x pinned,
# the difference being which vCPU took the page faults, not the library.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
rounds=${1:-3}
large=${2:-1024}
command -v node >/dev/null || { echo "fs-ratios: node is not on PATH (apt-get install nodejs)" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/promisefs-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$here"
echo "== building PromiseFSBench (release)" >&2
swift build -c release --product PromiseFSBench >"$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
bin=$(swift build -c release --show-bin-path)
pin=()
if [ "${PIN:-1}" = 1 ] && command -v taskset >/dev/null; then pin=(taskset -c 0); fi
echo "== PromiseFS and raw, $rounds rounds, $large MiB ${pin[*]}" >&2
"${pin[@]}" "$bin/PromiseFSBench" "$work" "$rounds" "$large" >"$work/swift.tsv"
echo "== Node $(node --version) fs/promises ${pin[*]}" >&2
"${pin[@]}" node "$here/node/fs-promises-bench.mjs" "$work" "$rounds" "$large" >"$work/node.tsv"
python3 "$here/fs-ratios.py" "$work/swift.tsv" "$work/node.tsv" "$large"
