#!/bin/sh
# callgrind.sh: the instruction-count side of `make bench-callgrind`.
#
#   sh bench/callgrind.sh [WASMDBG [LIST [OUTDIR]]]
#
# Runs each workload of the list (bench/workloads.list) once under
# `valgrind --tool=callgrind`: plain workloads as `wasmdbg invoke FILE bench SMALL
# --tick-model pvm` (the SMALL column; `run` when it is -), kernels as `wasmdbg run FILE
# ARGS`. Instruction counts (Ir) do not depend on machine load, so they are the figures to
# quote before and after a change. Also runs each once natively with the flat-1 model, whose
# ticks are the wasm instructions executed (plus one per byte of bulk memory operations,
# plus the decoding steps for kernels), to give Ir per flat-1 tick.
#
# Prints a markdown table and writes, in OUTDIR (build/bench/callgrind):
#   NAME.out        the callgrind profile (open it with kcachegrind or callgrind_annotate)
#   NAME.txt        callgrind_annotate: functions by exclusive Ir
#   NAME.lines.txt  callgrind_annotate --auto=yes: the source lines of those functions
#   NAME.ops.txt    Ir per opcode handler of eval/interp.c (bench/interp_ops.awk)
#   summary.md      the table
# BENCH_ONLY (comma-separated names) picks workloads, as for the runner.
set -u

WASMDBG=${1:-build/release/wasmdbg}
LIST=${2:-bench/workloads.list}
OUT=${3:-build/bench/callgrind}
HERE=$(dirname "$0")

if ! command -v valgrind >/dev/null 2>&1; then
    echo "callgrind.sh: valgrind is not installed (Debian: apt-get install valgrind)" >&2
    exit 2
fi
mkdir -p "$OUT" || exit 2

# only NAME: whether BENCH_ONLY lets workload NAME run
only() {
    [ -z "${BENCH_ONLY:-}" ] && return 0
    case ",$BENCH_ONLY," in *",$1,"*) return 0 ;; esac
    return 1
}

# ticks OUTPUT-FILE KIND: the ticks wasmdbg printed (invoke: "ticks: N"; run: "total: ...
# N ticks (...")
ticks() {
    if [ "$2" = kernel ]; then
        awk '/^total: / { for (i = 2; i <= NF; i++) if ($i ~ /^ticks/) print $(i - 1) }' "$1"
    else
        awk '/^ticks: / { print $2 }' "$1"
    fi
}

# top_of FUNCS.txt OPS.txt: the four hottest opcode handlers when the interpreter loop has
# most of the Ir, else the four hottest functions (decoding, instantiation)
top_of() {
    awk -v ops="$2" '
    /^ *[0-9][0-9,]* \( *[0-9.]+%\) +[^ ]+:[^ ]+/ {
        pct = $0; sub(/^[^(]*\( */, "", pct); sub(/%.*/, "", pct)
        fn = $0; sub(/^[^)]*\) +/, "", fn); sub(/ .*/, "", fn); sub(/^.*:/, "", fn)
        if (fn == "wd_interp_run" && pct + 0 > interp) # also in inlined headers
            interp = pct + 0
        if (n < 4)
            top[n++] = sprintf("%s %.0f%%", fn, pct)
    }
    END {
        if (interp + 0 >= 50) { # (the handlers are missing when the sources are not found)
            while ((getline line < ops) > 0)
                if (++k > 1 && k <= 5) {
                    split(line, f, " ")
                    printf "%s%s %.0f%%", sep, f[1], f[3]
                    sep = ", "
                }
            if (k > 1)
                exit
        }
        for (i = 0; i < n; i++)
            printf "%s%s", (i ? ", " : "functions: "), top[i]
    }' "$1"
}

summary="$OUT/summary.md"
{
    printf '| callgrind | size | Ir | pvm ticks | flat-1 ticks | Ir / flat-1 tick | '
    echo "where: interp.c handlers (share of the loop's Ir), or functions (of all Ir) |"
    echo "| --- | ---: | ---: | ---: | ---: | ---: | --- |"
} >"$summary"
status=0

while read -r name kind _type file small args; do
    case "$name" in '' | '#'*) continue ;; esac
    only "$name" || continue
    if [ ! -r "$file" ]; then
        echo "callgrind.sh: $name: $file not found, skipped" >&2
        continue
    fi
    if [ "$kind" = kernel ]; then
        # shellcheck disable=SC2086 # ARGS are words
        set -- run "$file" $args
        size=full
    elif [ "$small" = - ]; then
        set -- invoke "$file" run
        size=full
    else
        set -- invoke "$file" bench "$small"
        size=$small
    fi
    printf 'callgrind.sh: %s\n' "$name" >&2
    "$WASMDBG" "$@" --tick-model flat-1 >"$OUT/$name.flat.txt" 2>&1 </dev/null
    instrs=$(ticks "$OUT/$name.flat.txt" "$kind")
    valgrind --tool=callgrind --callgrind-out-file="$OUT/$name.out" \
        "$WASMDBG" "$@" --tick-model pvm >"$OUT/$name.stdout.txt" 2>"$OUT/$name.valgrind.txt" \
        </dev/null
    rc=$?
    ir=$(awk '/Collected :/ { print $NF }' "$OUT/$name.valgrind.txt")
    pvm=$(ticks "$OUT/$name.stdout.txt" "$kind")
    if [ $rc -ne 0 ] || [ -z "$ir" ] || [ -z "$pvm" ] || [ -z "$instrs" ]; then
        echo "callgrind.sh: $name failed (exit $rc); see $OUT/$name.*.txt" >&2
        echo "| $name | $size | FAIL | | | | |" >>"$summary"
        status=1
        continue
    fi
    callgrind_annotate --inclusive=no --auto=no "$OUT/$name.out" >"$OUT/$name.txt" 2>&1
    callgrind_annotate --inclusive=no --auto=yes "$OUT/$name.out" >"$OUT/$name.lines.txt" 2>&1
    awk -f "$HERE/interp_ops.awk" "$OUT/$name.lines.txt" >"$OUT/$name.ops.txt"
    top=$(top_of "$OUT/$name.txt" "$OUT/$name.ops.txt")
    awk -v n="$name" -v s="$size" -v ir="$ir" -v p="$pvm" -v w="$instrs" -v top="$top" 'BEGIN {
        printf "| %s | %s | %.0f | %.0f | %.0f | %.2f | %s |\n",
            n, s, ir, p, w, (w > 0 ? ir / w : 0), top
    }' >>"$summary"
done <"$LIST"

cat "$summary"
echo
echo "Profiles and listings in $OUT: NAME.out, NAME.txt (by function),"
echo "NAME.lines.txt (by line), NAME.ops.txt (by opcode handler)"
exit $status
