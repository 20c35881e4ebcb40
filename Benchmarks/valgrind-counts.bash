# Shared by counts.sh and sqlite-counts.sh (sourced, not run): builds a counts program, runs its
# variants under callgrind and memcheck, and turns two runs into a cost per operation.
#
# valgrind cannot read the debug information this toolchain writes, so the runs use a copy of
# the release binary with that stripped (`strip -g`).

# Builds the release product $2 and leaves a stripped copy at $exe, in a new folder $out that
# is removed on exit unless KEEP=1. $1 names the calling script in messages (sets $counts_name).
counts_setup() {
    counts_name=$1
    local product=$2
    command -v valgrind >/dev/null || { echo "$counts_name: valgrind is not installed (apt-get install valgrind)" >&2; exit 1; }
    out=$(mktemp -d "${TMPDIR:-/tmp}/promise-$counts_name.XXXXXX")
    [ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$out"' EXIT
    echo "== building $product (release)" >&2
    swift build -c release --product "$product" >"$out/build.log" 2>&1 || { cat "$out/build.log"; exit 1; }
    exe="$out/$product"
    cp "$(swift build -c release --show-bin-path)/$product" "$exe"
    strip -g "$exe"
}

# Starts nginx with scripts/testservers/serve.py for the whole script (it stops nginx when this
# shell exits) and sets $server to the JSON line it prints (its ports); needs $out.
start_nginx() {
    python3 "$here/../scripts/testservers/serve.py" nginx --parent $$ >"$out/serve.json" 2>"$out/serve.log" &
    for _ in $(seq 1 100); do
        [ -s "$out/serve.json" ] && break
        sleep 0.1
    done
    [ -s "$out/serve.json" ] || { echo "$counts_name: serve.py did not start nginx" >&2; cat "$out/serve.log" >&2; exit 1; }
    server=$(head -1 "$out/serve.json")
}

# Runs one variant with N operations under valgrind with the given tool options; the program
# gets "$variant $n" and then the elements of the array exe_args, if set. A script whose
# program takes other arguments defines counts_arguments VARIANT N, which sets the array
# counts_args (and may export what the program reads from its environment). valgrind's report
# goes to $out/valgrind.log.
run_valgrind() {
    local variant=$1 n=$2
    shift 2
    local args=("$variant" "$n" "${exe_args[@]}")
    if declare -F counts_arguments >/dev/null; then
        counts_arguments "$variant" "$n"
        args=("${counts_args[@]}")
    fi
    if ! valgrind "$@" "$exe" "${args[@]}" </dev/null >"$out/program.log" 2>"$out/valgrind.log"; then
        echo "$counts_name: $variant $n failed under valgrind $*" >&2
        cat "$out/program.log" "$out/valgrind.log" >&2
        exit 1
    fi
}

# Prints the instructions every thread executed in one run.
instructions() {
    run_valgrind "$1" "$2" --tool=callgrind --callgrind-out-file="$out/callgrind.out"
    awk '/^totals:/ { print $2; found = 1 } END { exit !found }' "$out/callgrind.out"
}

# Prints "mallocs bytes" of one run.
heap() {
    run_valgrind "$1" "$2" --tool=memcheck --leak-check=no
    sed -n 's/.*total heap usage: \([0-9,]*\) allocs, [0-9,]* frees, \([0-9,]*\) bytes allocated.*/\1 \2/p' \
        "$out/valgrind.log" | tr -d , | grep .
}

# Prints "instructions mallocs bytes" per operation of one variant: runs with LOW and HIGH
# iterations under each tool, their difference divided by DIVISOR operations.
per_operation() {
    local variant=$1 low=$2 high=$3 divisor=$4 i1 i2 h1 h2 m1 b1 m2 b2
    i1=$(instructions "$variant" "$low")
    i2=$(instructions "$variant" "$high")
    h1=$(heap "$variant" "$low")
    h2=$(heap "$variant" "$high")
    read -r m1 b1 <<<"$h1"
    read -r m2 b2 <<<"$h2"
    awk -v i1="$i1" -v i2="$i2" -v m1="$m1" -v m2="$m2" -v b1="$b1" -v b2="$b2" -v d="$divisor" \
        'BEGIN { printf "%.0f %.2f %.0f\n", (i2 - i1) / d, (m2 - m1) / d, (b2 - b1) / d }'
}
