#!/usr/bin/env bash
# tests/fuzz/run.sh [--seconds N] [NAME...]: the fuzz targets (tests/fuzz/README.md), as
# `make fuzz` (N = FUZZ_SECONDS, 10 by default) and `make test` (2 s each) run them.
#
# Builds them (make BUILD=fuzz CC=clang: build/fuzz/fuzz-NAME, with clang's libFuzzer, ASan
# and UBSan), then runs each for N seconds, one after the other (never two at once), in the
# order inputs, budget, tickmodel, trace, repl, decode, run, pvm, or those named:
#   build/fuzz/fuzz-NAME -max_total_time=N build/fuzz/corpus/NAME
# with the target's dictionary (tests/fuzz/NAME.dict). The corpus is filled first with the
# target's seeds (tests/fuzz/corpus.sh), the inputs of fixed bugs (tests/regress/NAME)
# among them, which libFuzzer runs before anything else; what it finds stays there for the
# next run. A crash, a leak, a timeout (an input running over 30 s), running out of memory
# (2.5 GB) or a sanitizer report fails the target; its input is kept in
# build/fuzz/crashes/NAME/ and the log's end shown (whole logs: build/fuzz/logs/NAME.log).
# After each target: its CPU time, executions, corpus size and new inputs, also appended to
# build/fuzz/stats.tsv.
#
# Without clang's libFuzzer (`clang -fsanitize=fuzzer` cannot link a trivial target: Debian's
# libclang-rt-14-dev, which tests/deps.sh installs, provides it) every target is skipped,
# saying why. Ends with `fuzz: N passed, N failed, N skipped` (one test per target, and the
# build); the exit status is 1 when anything failed.
set -uo pipefail
cd "$(dirname "$0")/../.."
seconds=10
names=()
while [ $# -gt 0 ]; do
    case $1 in
    --seconds)
        seconds=$2
        shift 2
        ;;
    *)
        names+=("$1")
        shift
        ;;
    esac
done
[ ${#names[@]} -gt 0 ] || names=(inputs budget tickmodel trace repl decode run pvm)
out=build/fuzz
passed=0
failed=0
skipped=0
mkdir -p "$out/logs"

finish() {
    echo "fuzz: $passed passed, $failed failed, $skipped skipped"
    [ "$failed" -eq 0 ]
    exit
}

# Can clang link a libFuzzer target with the sanitizers? $why says why not.
probe() {
    local d
    command -v clang >/dev/null 2>&1 || { why="clang is not installed"; return 1; }
    d=$(mktemp -d)
    printf '#include <stddef.h>\n#include <stdint.h>\n%s\n' \
        'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }' \
        >"$d/probe.c"
    if ! clang -fsanitize=fuzzer,address,undefined -o "$d/probe" "$d/probe.c" \
        >"$d/log" 2>&1; then
        why="clang cannot link with -fsanitize=fuzzer ($(grep -m1 -i error "$d/log" |
            cut -c1-120)); Debian's libclang-rt-14-dev provides libFuzzer"
        rm -rf "$d"
        return 1
    fi
    rm -rf "$d"
}

if ! probe; then
    echo "fuzz: every target skipped: $why"
    skipped=${#names[@]}
    finish
fi

if ! make --no-print-directory -j2 BUILD=fuzz CC=clang "${names[@]/#/$out/fuzz-}" \
    >"$out/logs/build.log" 2>&1; then
    tail -n 20 "$out/logs/build.log"
    echo "FAILED: the fuzz build (log: $out/logs/build.log)"
    failed=1
    finish
fi

# stat NAME LOG: a number libFuzzer printed at the end (-print_final_stats), or ?.
stat() {
    local v
    v=$(sed -n "s/^stat::$1: *//p" "$2" | tail -n 1)
    echo "${v:-?}"
}

for name in "${names[@]}"; do
    corpus=$out/corpus/$name
    crashes=$out/crashes/$name
    log=$out/logs/$name.log
    mkdir -p "$crashes"
    bash tests/fuzz/corpus.sh "$name" "$corpus"
    dict=()
    [ -f "tests/fuzz/$name.dict" ] && dict=(-dict="tests/fuzz/$name.dict")
    before=$(ls "$corpus" | wc -l)
    TIMEFORMAT='%U %S'
    status=0
    { time "$out/fuzz-$name" -max_total_time="$seconds" -timeout=30 -rss_limit_mb=2560 \
        -print_final_stats=1 -artifact_prefix="$crashes/" "${dict[@]}" "$corpus" \
        >"$log" 2>&1 || status=$?; } 2>"$out/logs/$name.time"
    read -r user sys <"$out/logs/$name.time"
    cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.1f", u + s }')
    runs=$(stat number_of_executed_units "$log")
    new=$(stat new_units_added "$log")
    size=$(ls "$corpus" | wc -l)
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$name" \
        "$seconds" "$cpu" "$runs" "$size" "$((size - before))" "$status" >>"$out/stats.tsv"
    echo "$name: ${cpu}s CPU, $runs executions, corpus $size files ($new new)"
    if [ $status -eq 0 ]; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        grep -E '^(==[0-9]+==|SUMMARY|fuzz:|.*runtime error)' "$log" | head -n 5 | sed 's/^/   /'
        grep -E 'Test unit written|artifact' "$log" | tail -n 1 | sed 's/^/   /'
        echo "FAILED: fuzz target $name (exit status $status; log: $log)"
    fi
done
finish
