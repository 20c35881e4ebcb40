#!/usr/bin/env bash
# LinkNotes' route (Examples/Sources/LinkNotes: a Hummingbird 2 server answering from
# PromiseSQLite and PromiseCurl on the request's event loop through PromiseNIO) beside the same
# route on vapor/sqlite-nio and AsyncHTTPClient, in one process run: wrk drives each in turn,
# round by round, and the table gives requests per second (medians) and the ratio.
#
#   Benchmarks/route-ratios.sh [ROUNDS] [SECONDS] [CONNECTIONS]    default 3 rounds, 5 s, 16
#
# Installs wrk from Debian's packages if it is missing. Loopback only.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v wrk >/dev/null; then
    echo "== installing wrk (Debian's package)" >&2
    if [ "$(id -u)" = 0 ]; then apt-get install -y wrk >/dev/null; else sudo apt-get install -y wrk >/dev/null; fi
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/route-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$here"
echo "== building LinkNotesBench (release)" >&2
swift build -c release --product LinkNotesBench >"$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
"$(swift build -c release --show-bin-path)/LinkNotesBench" "${1:-3}" "${2:-5}" "${3:-16}"
