#!/usr/bin/env bash
# PromiseSQLite's online backup (SQLiteDatabase.backup(to:)) beside the sqlite3 shell's
# `.backup`, copying the same database file, interleaved round by round: medians, min-max,
# MB/s and the speed ratio as Markdown. Both copies end flushed to disk (the shell's commit
# syncs with synchronous FULL; PromiseSQLite fsyncs the file and the directory).
#
#   Benchmarks/sqlite-backup.sh [MEGABYTES] [ROUNDS] [PAGES-PER-STEP]
#       default 200 MB, 5 rounds, 1024 pages per step
#
# Needs the sqlite3 shell (scripts/bootstrap installs it) and about 3x MEGABYTES free under
# ${TMPDIR:-/tmp}; the files are removed afterwards.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
megabytes=${1:-200}
rounds=${2:-5}
pages=${3:-1024}
command -v sqlite3 >/dev/null || { echo "sqlite3 is missing: run scripts/bootstrap" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/promisesqlite-backup.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$here"
echo "== building PromiseSQLiteBackupBench (release)" >&2
swift build -c release --product PromiseSQLiteBackupBench >"$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
bin=$(swift build -c release --show-bin-path)
echo "== PromiseSQLite backup vs sqlite3 .backup: $megabytes MB, $rounds rounds, $pages pages per step" >&2
"$bin/PromiseSQLiteBackupBench" "$work" "$megabytes" "$rounds" "$pages"
