#!/usr/bin/env bash
# PromiseCore against its GCD and SwiftNIO baselines: medians, min/max and ratios, then the
# release-binary size cost of PromiseCore, beside SwiftNIO's and with client-side dead stripping.
#
#   Benchmarks/ratios.sh [ROUNDS]     default 5 rounds, ~15 s each once built
#
# Environment:
#   PIN=0        do not pin the run to CPU 0 (default: `taskset -c 0`, as DESIGN.md asks for
#                scenarios dominated by thread hops; builds always use both cores)
#   FILTER=RE    run only benchmarks whose whole name matches RE, e.g. FILTER='S3.*'
#   SIZE=0       skip the size probe
#   KEEP=1       keep the raw samples and logs (their folder is printed)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
rounds=${1:-5}
out=$(mktemp -d "${TMPDIR:-/tmp}/promise-bench.XXXXXX")
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$out"' EXIT

pin=()
if [ "${PIN:-1}" = 1 ] && command -v taskset >/dev/null; then
    pin=(taskset -c 0)
fi
filter=()
[ -n "${FILTER:-}" ] && filter=(--filter "$FILTER")

echo "== building (plugin: release BenchmarkTool and benchmarks)" >&2
swift package --disable-sandbox benchmark list >"$out/build.log" 2>&1 || { cat "$out/build.log"; exit 1; }
bin=$(swift build -c release --show-bin-path)

# Each round runs the plugin's release-built BenchmarkTool exactly as `swift package benchmark`
# does (same arguments, same LD_PRELOAD of the malloc interposer; see `benchmark --debug`), but
# without SwiftPM's up-to-date check in front, which costs ~10 s a round, ~60 s when pinned.
tool=(env LD_PRELOAD="$bin/libMallocInterposerSwift.so" "$bin/BenchmarkTool"
      --command run --baseline-storage-path "$here/" --format histogramSamples --grouping benchmark
      --benchmark-package-identifier benchmark --no-progress --targets PromiseCoreBenchmarks
      --benchmark-executable-paths "$bin/PromiseCoreBenchmarks")
for round in $(seq 1 "$rounds"); do
    echo "== round $round/$rounds ${pin[*]}" >&2
    mkdir -p "$out/round-$round"
    if ! "${pin[@]}" "${tool[@]}" --path "$out/round-$round" "${filter[@]}" >"$out/round-$round.log" 2>&1; then
        cat "$out/round-$round.log"
        exit 1
    fi
done

python3 "$here/ratios.py" "$out"
[ "${KEEP:-0}" = 1 ] && echo "raw samples: $out"

if [ "${SIZE:-1}" = 1 ]; then
    echo
    echo "== size probe (release, stripped)"
    for probe in SizeProbe SizeProbeNIO SizeProbeBaseline; do
        swift build -c release --product "$probe" >>"$out/size.log" 2>&1 || { cat "$out/size.log"; exit 1; }
        strip -o "$out/$probe.stripped" "$bin/$probe"
        "$bin/$probe" >/dev/null
    done
    # The same probe built the way a client can ask the linker to drop what it does not use:
    # each function in a section of its own, and public symbols no longer marked as retained
    # (the compiler marks every public symbol SHF_GNU_RETAIN, so --gc-sections, which SwiftPM
    # passes, keeps a static library's whole API). A scratch folder of its own: the flags
    # apply to every module of the build.
    lean=(-Xswiftc -Xfrontend -Xswiftc -function-sections -Xswiftc -Xfrontend -Xswiftc -internalize-at-link)
    swift build -c release --product SizeProbe --scratch-path "$here/.build-size-lean" "${lean[@]}" >>"$out/size.log" 2>&1 ||
        { cat "$out/size.log"; exit 1; }
    strip -o "$out/SizeProbeLean.stripped" "$here/.build-size-lean/release/SizeProbe"
    "$here/.build-size-lean/release/SizeProbe" >/dev/null
    size_of() { stat -c %s "$out/$1.stripped"; }
    without=$(size_of SizeProbeBaseline)
    cost() { local bytes=$(( $(size_of "$1") - without )); echo "$bytes bytes ($(( bytes / 1024 )) KiB)"; }
    echo "SizeProbeBaseline (Dispatch only)         $without bytes"
    echo "PromiseCore costs                         $(cost SizeProbe)"
    echo "PromiseCore costs, client dead-stripping  $(cost SizeProbeLean)"
    echo "SwiftNIO (NIOCore + NIOPosix) costs       $(cost SizeProbeNIO)"
    extra=$(comm -23 <(ldd "$bin/SizeProbe" | awk '{print $1}' | sort) \
                     <(ldd "$bin/SizeProbeBaseline" | awk '{print $1}' | sort) | tr '\n' ' ')
    echo "extra shared libraries (PromiseCore)      ${extra:-none}"
fi
