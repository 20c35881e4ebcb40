#!/usr/bin/env bash
# Spawn-and-wait throughput of /bin/true: PromiseUV's UVLoop.spawn against a raw C
# posix_spawn + waitpid loop, swift-subprocess 1.0.2 (`run`) and Node's child_process.spawn,
# each child waited for before the next. One process per candidate per round, rounds
# interleaved (the order rotates), medians with min and max, ratios against the raw loop.
#
#   Benchmarks/spawn-ratios.sh [ROUNDS] [COUNT]     default 5 rounds of 500 spawns
#   PARENT_MIB=1024 Benchmarks/spawn-ratios.sh ...  each candidate first touches 1 GiB
#
# A fork's cost grows with the parent's mapped memory, a posix_spawn's does not: the second
# form shows which candidates stay flat as a server's heap grows.
#
# Not pinned: a spawn's cost is the kernel's fork/exec and the child's run, which want the
# second CPU as a real program's would.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
rounds=${1:-5}
count=${2:-500}
command -v node >/dev/null || { echo "spawn-ratios: node is not on PATH (apt-get install nodejs)" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/promise-spawn-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$here"
echo "== building PromiseSpawnBench (release)" >&2
swift build -c release --product PromiseSpawnBench >"$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
bin=$(swift build -c release --show-bin-path)
candidates=(raw promiseuv subprocess node)
export PARENT_MIB=${PARENT_MIB:-0}
echo "== $rounds rounds of $count spawns of /bin/true per candidate, parent holding $PARENT_MIB MiB; Node $(node --version)" >&2
: >"$work/runs.tsv"
for round in $(seq 1 "$rounds"); do
    for offset in 0 1 2 3; do
        candidate=${candidates[$(((round + offset) % 4))]}
        if [ "$candidate" = node ]; then
            node "$here/node/spawn-bench.mjs" "$count" >>"$work/runs.tsv"
        else
            "$bin/PromiseSpawnBench" "$candidate" "$count" >>"$work/runs.tsv"
        fi
    done
done
python3 - "$work/runs.tsv" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    name, seconds, count = line.rstrip("\n").split("\t")
    runs.setdefault(name, []).append(float(seconds) / int(count) * 1e6)
baseline = statistics.median(runs["raw posix_spawn"])
print(f"{'candidate':28} {'µs/spawn median':>16} {'min':>8} {'max':>8} {'ratio to raw':>13} {'spawns/s':>9}")
for name, values in runs.items():
    median = statistics.median(values)
    print(f"{name:28} {median:16.1f} {min(values):8.1f} {max(values):8.1f} {median / baseline:13.2f} {1e6 / median:9.0f}")
PY
